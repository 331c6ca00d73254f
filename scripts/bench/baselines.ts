// Start-up baselines for `npm run bench`, built the way dist/ is: a bundle loads faster than the same
// packages imported from node_modules, so only a bundle made with the flags of `npm run bundle` compares fairly.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { NCC_OPTIONS } from '../bundle.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export const CORE = '@actions/core';
/** The floor the contract mandates: inputs parsed with zod. */
export const CORE_ZOD = '@actions/core + zod';

/** What each baseline imports, and a use of it that the bundler cannot drop. */
const PARTS = {
  core: {
    imports: "import * as core from '@actions/core';",
    use: "const given = core.getInput('timeout');",
  },
  zod: {
    imports: "import { z } from 'zod';",
    use: [
      "const Inputs = z.object({ timeout: z.string().regex(/^\\d+m$/).default('30m'), wait: z.enum(['true', 'false']).default('true') });",
      'core.debug(JSON.stringify(Inputs.parse({ timeout: given || undefined })));',
    ].join('\n'),
  },
  // The light API the action uses (src/shared/zod.ts), English messages included: the floor of the action's choice.
  zodMini: {
    imports: "import { en } from 'zod/locales';\nimport * as zm from 'zod/mini';",
    use: [
      'zm.config(en());',
      "const InputsMini = zm.object({ timeout: zm._default(zm.string().check(zm.regex(/^\\d+m$/)), '30m'), wait: zm._default(zm.enum(['true', 'false']), 'true') });",
      'core.debug(JSON.stringify(InputsMini.parse({ timeout: given || undefined })));',
    ].join('\n'),
  },
  http: {
    imports: "import { HttpClient } from '@actions/http-client';",
    use: "new HttpClient('bench').dispose();",
  },
};

const BASELINES: { name: string; parts: (keyof typeof PARTS)[] }[] = [
  { name: CORE, parts: ['core'] },
  { name: CORE_ZOD, parts: ['core', 'zod'] },
  { name: `${CORE_ZOD} + http-client`, parts: ['core', 'zod', 'http'] },
  { name: `${CORE} + zod/mini`, parts: ['core', 'zodMini'] },
];

export interface Baseline {
  name: string;
  /** The bundle's index.js, run as `node <file>` like the action. */
  file: string;
  bytes: number;
}

export interface Baselines {
  /** The ncc options every baseline was built with (those of `npm run bundle` but the output folder). */
  flags: string[];
  list: Baseline[];
  remove: () => void;
}

/** The options `npm run bundle` gives ncc's API (scripts/bundle.ts), as flags of ncc's CLI. */
function bundleFlags(): string[] {
  const { minify, cache, target } = NCC_OPTIONS;
  return [...(minify ? ['--minify'] : []), ...(cache ? [] : ['--no-cache']), '--target', target];
}

function nccCli(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@vercel/ncc/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { ncc: string } };
  return join(dirname(manifest), pkg.bin.ncc);
}

/** Builds every baseline (in parallel, before any timing) into a temporary folder. */
export async function buildBaselines(): Promise<Baselines> {
  const flags = bundleFlags();
  const cli = nccCli();
  // The entries live under node_modules/.cache so that their imports resolve to the project's packages.
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const sources = mkdtempSync(join(cache, 'bench-baselines-'));
  const bundles = mkdtempSync(join(tmpdir(), 'bench-baselines-'));
  const remove = () => {
    rmSync(sources, { recursive: true, force: true });
    rmSync(bundles, { recursive: true, force: true });
  };
  // An ES module like src/, so ncc emits ESM as it does for dist/.
  writeFileSync(join(sources, 'package.json'), '{ "type": "module" }\n');
  try {
    const list = await Promise.all(
      BASELINES.map(async ({ name, parts }, i) => {
        const entry = join(sources, `baseline-${i}.js`);
        const code = [...parts.map((p) => PARTS[p].imports), ...parts.map((p) => PARTS[p].use)];
        writeFileSync(entry, `${code.join('\n')}\n`);
        const out = join(bundles, `baseline-${i}`);
        await promisify(execFile)(process.execPath, [cli, 'build', entry, '-o', out, ...flags], {
          cwd: ROOT,
        });
        const file = join(out, 'index.js');
        return { name, file, bytes: statSync(file).size };
      }),
    );
    return { flags, list, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
