#!/usr/bin/env node
// The command line's entry: `agent-deploy <command> [--<input> <value> …]`, bundled to dist/cli.js (src/index.ts is
// the GitHub Action's). Not a top-level await, like src/index.ts: run() never rejects, and sets the exit code.
import { run } from './hosts/cli/main.ts';

void run(process.argv.slice(2), process.argv[1] ?? '');
