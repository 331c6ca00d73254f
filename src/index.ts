import { run } from './hosts/github/main.ts';

// Not a top-level await: an async entry module keeps ncc from inlining the bundle, which costs ~10 ms of start-up
// (npm run bench). run() never rejects: it reports every failure itself.
void run();
