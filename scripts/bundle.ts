// npm run bundle: dist/ from src/, with ncc's API: the action (src/index.ts → dist/index.js, what the runner runs) and
// the command line (src/cli.ts → dist/cli.js). ncc's own CLI writes one entry per folder, always as index.js, and
// deletes the folder's scripts first; here each bundle is named after its entry, its chunks too (413.index.js,
// 413.cli.js), so neither overwrites the other's. Each bundle's packages' licenses are in its own file (licenses.txt,
// cli.licenses.txt), made here from every module the bundle holds: ncc's own license file keeps one chunk's packages
// only (the last it writes). The same src/ and node_modules/ give the same bytes: the dist check compares them.
// So a bundle is skipped when dist/ is what the last build wrote and every file that build read is unchanged
// (node_modules/.cache/bundle.json; removing it, or npm ci, makes the next run build).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

interface NccAsset {
  source: string | Buffer;
  permissions?: number;
}
/** What webpack's stats tell of a module: the file it came from, or the modules concatenated into it. */
interface StatsModule {
  resource?: string;
  modules?: StatsModule[];
}
type Ncc = (
  entry: string,
  options: Record<string, unknown>,
) => Promise<{
  code: string;
  assets: Record<string, NccAsset>;
  stats: { compilation: { modules: Iterable<StatsModule> } };
}>;

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');

/** What each bundle is built from and named. */
const BUNDLES = [
  { entry: 'src/index.ts', filename: 'index.js', license: 'licenses.txt' },
  { entry: 'src/cli.ts', filename: 'cli.js', license: 'cli.licenses.txt' },
];
/**
 * ncc's options for every bundle (scripts/bench builds its baselines with the same). Transpiled only, as
 * src/tsconfig.json says: type-checking the whole program once per bundle took most of a bundle's time, and
 * npm run typecheck does it once.
 */
export const NCC_OPTIONS = {
  minify: true,
  cache: false,
  target: 'es2024',
  quiet: true,
  transpileOnly: true,
};

async function bundle(): Promise<void> {
  const last = readStamp();
  if (last && isDeepStrictEqual(last, stampNow(last.read))) {
    console.log('dist/ is the build of these files already: nothing to do');
    return;
  }
  const ncc = createRequire(import.meta.url)('@vercel/ncc') as Ncc;
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST);
  // Besides the modules: what picks the modules' versions, and how they are transpiled.
  const read = new Set([
    relative(ROOT, import.meta.filename),
    'package-lock.json',
    'tsconfig.json',
    'src/tsconfig.json',
  ]);
  for (const { entry, filename, license } of BUNDLES) {
    const { code, assets, stats } = await ncc(join(ROOT, entry), { ...NCC_OPTIONS, filename });
    // A script with a shebang (the command line) can be run as ./dist/cli.js, as ncc's CLI would leave it.
    write(filename, code, code.startsWith('#!') ? 0o755 : 0o644);
    for (const [name, asset] of Object.entries(assets))
      write(name, asset.source, asset.permissions ?? 0o644);
    write(license, licenses(stats.compilation.modules), 0o644);
    for (const file of files(stats.compilation.modules)) read.add(file);
  }
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, JSON.stringify(stampNow([...read])));
}

/** What a build read and wrote: each file's digest, by its path (from the root; dist/'s by name). */
interface Stamp {
  read: [string, string][];
  wrote: [string, string][];
}
const STAMP = join(ROOT, 'node_modules/.cache/bundle.json');

function readStamp(): Stamp | undefined {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8')) as Stamp;
  } catch {
    return undefined;
  }
}

/** The stamp of `read` and of dist/ under `root` as they are now (a file gone has no digest). */
export function stampNow(read: Iterable<string | [string, string]>, root = ROOT): Stamp {
  const digest = (file: string) =>
    existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : '';
  const paths = [...read].map((entry) => (typeof entry === 'string' ? entry : entry[0])).sort();
  const dist = join(root, 'dist');
  const wrote = existsSync(dist) ? readdirSync(dist).sort() : [];
  return {
    read: paths.map((path) => [path, digest(resolve(root, path))]),
    wrote: wrote.map((name) => [name, digest(join(dist, name))]),
  };
}

/** The files the modules were read from, from the root (a loader's query cut off). */
function files(modules: Iterable<StatsModule>): string[] {
  const found: string[] = [];
  const visit = (module: StatsModule) => {
    for (const inner of module.modules ?? []) visit(inner);
    if (module.resource) found.push(relative(ROOT, module.resource.replace(/\?.*$/, '')));
  };
  for (const module of modules) visit(module);
  return found;
}

/** Each package the modules come from, by name and version: its license's name and text, as ncc lays them out. */
function licenses(modules: Iterable<StatsModule>): string {
  const packages = new Map<string, { name: string; license: string; text: string }>();
  const visit = (module: StatsModule) => {
    for (const inner of module.modules ?? []) visit(inner);
    const dir = packageDir(module.resource ?? '');
    if (!dir || packages.has(dir)) return;
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license?: string;
    };
    const file = readdirSync(dir)
      .sort()
      .find((f) => /^licen[cs]e/i.test(f));
    packages.set(dir, {
      name: `${pkg.name}@${pkg.version}`,
      license: pkg.license ?? 'UNKNOWN',
      text: file ? readFileSync(join(dir, file), 'utf8').trim() : '',
    });
  };
  for (const module of modules) visit(module);
  return [...packages.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, license, text }) => `${name}\n${license}\n${text}\n`)
    .join('\n');
}

/** node_modules/<name> or node_modules/@scope/<name> of a file inside a package; undefined for our own files. */
function packageDir(file: string): string | undefined {
  const at = file.lastIndexOf('/node_modules/');
  if (at === -1) return undefined;
  const start = at + '/node_modules/'.length;
  const [first, second] = file.slice(start).split('/');
  return file.slice(0, start) + (first!.startsWith('@') ? `${first}/${second}` : first);
}

/** Writes dist/<name>; a file both bundles write (dist/package.json) must be the same for both. */
function write(name: string, content: string | Buffer, mode: number): void {
  const file = join(DIST, name);
  if (existsSync(file)) {
    if (readFileSync(file).equals(Buffer.from(content))) return;
    throw new Error(
      `bundle: two bundles write dist/${name} with different contents; name their files apart.`,
    );
  }
  writeFileSync(file, content, { mode });
}

// npm run bundle
if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
