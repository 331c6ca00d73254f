// The entry GitHub's local-action runs (`npx @github/local-action run . src/main.ts .env.example`).
export { run } from './hosts/github/main.ts';
