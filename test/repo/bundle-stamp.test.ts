// npm run bundle skips the build when dist/ is what its last build wrote from the same files (scripts/bundle.ts):
// the stamp it compares must change with any file the build read and with any file of dist/, or a stale dist/
// would pass the dist check.
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { stampNow } from '../../scripts/bundle.ts';

let root: string;
const put = (path: string, text: string) => writeFileSync(join(root, path), text);
const READ = ['src/index.ts', 'package-lock.json'];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bundle-stamp-'));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'dist'));
  put('src/index.ts', 'export const a = 1;\n');
  put('package-lock.json', '{}\n');
  put('dist/index.js', 'a=1\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

it('is the same while nothing changed, read back from its own list as the next run reads it', () => {
  const built = stampNow(READ, root);
  expect(stampNow(JSON.parse(JSON.stringify(built.read)) as [string, string][], root)).toEqual(
    built,
  );
});

it.each<[string, () => void]>([
  ['a source file edited', () => put('src/index.ts', 'export const a = 2;\n')],
  ['a source file removed', () => unlinkSync(join(root, 'src/index.ts'))],
  ['the lockfile edited', () => put('package-lock.json', '{"x":1}\n')],
  ['a dist/ file edited', () => put('dist/index.js', 'a=2\n')],
  ['a dist/ file removed', () => unlinkSync(join(root, 'dist/index.js'))],
  ['a dist/ file added', () => put('dist/extra.js', '\n')],
])('changes with %s', (_, change) => {
  const built = stampNow(READ, root);
  change();
  expect(stampNow(built.read, root)).not.toEqual(built);
});
