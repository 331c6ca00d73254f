// The boundaries of the architecture as lint rules (`npm run lint`, part of `npm test`), each shown failing on a
// planted violation: eslint.config.js (the runner's toolkit only in the GitHub host; the environment, clocks and
// timers only in the hosts and shared/clock.ts), .dependency-cruiser.mjs (no import circles, type-only ones too; no
// host importing another host's folder) and knip.jsonc (no unused exports). A planted file is linted as if at its path, or written to a throw-away directory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cruise, type IConfiguration } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const depcruiseConfig = (
  (await import(pathToFileURL(join(ROOT, '.dependency-cruiser.mjs')).href)) as {
    default: IConfiguration;
  }
).default;
const eslint = new ESLint({ cwd: ROOT });

/** The rules a file at `path` with `code` breaks. */
async function broken(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

const scratch = mkdtempSync(join(tmpdir(), 'boundaries-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A throw-away directory of `files` under the scratch directory. */
function plant(name: string, files: Record<string, string>): string {
  const dir = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, path);
    spawnSync('mkdir', ['-p', join(file, '..')]);
    writeFileSync(file, text);
  }
  return dir;
}

describe('eslint: the runner’s toolkit only in the GitHub host', () => {
  const core = "import * as core from '@actions/core';\nexport const info = core.info;\n";

  it('fails anywhere else, another host included', async () => {
    expect(await broken('src/deploy/planted.ts', core)).toEqual(['no-restricted-imports']);
    expect(await broken('src/hosts/cli/planted.ts', core)).toEqual(['no-restricted-imports']);
    expect(await broken('src/service/transport.ts', core)).toEqual(['no-restricted-imports']);
  });

  it('passes in src/hosts/github/, and @actions/http-client in the transport', async () => {
    expect(await broken('src/hosts/github/planted.ts', core)).toEqual([]);
    const client =
      "import { HttpClient } from '@actions/http-client';\nexport const c = HttpClient;\n";
    expect(await broken('src/service/transport.ts', client)).toEqual([]);
    expect(await broken('src/deploy/planted.ts', client)).toEqual(['no-restricted-imports']);
  });
});

describe('eslint: the environment, clocks and timers only in the hosts and shared/clock.ts', () => {
  const PLANTED: [string, string][] = [
    ['process.env', 'export const key = process.env.API_KEY;'],
    ['process.env destructured', 'const { env } = process;\nexport const key = env.API_KEY;'],
    ['setTimeout', 'setTimeout(() => {}, 10);'],
    ['setInterval', 'setInterval(() => {}, 10);'],
    ['setImmediate', 'setImmediate(() => {});'],
    ['Date.now', 'export const now = Date.now();'],
    ['new Date()', 'export const now = new Date();'],
    ['Date()', 'export const now = Date();'],
    ['performance.now', 'export const now = performance.now();'],
    ['process.hrtime', 'export const now = process.hrtime.bigint();'],
    [
      'node:timers/promises',
      "import { setTimeout } from 'node:timers/promises';\nawait setTimeout(1);",
    ],
  ];

  it.each(PLANTED)('%s fails in the core', async (_, code) => {
    expect(await broken('src/deploy/planted.ts', code)).toHaveLength(1);
  });

  it.each(PLANTED)('%s passes in a host and in shared/clock.ts', async (_, code) => {
    expect(await broken('src/hosts/gitlab/planted.ts', code)).toEqual([]);
    expect(await broken('src/shared/clock.ts', code)).toEqual([]);
  });

  it('a date from a value is no clock', async () => {
    expect(await broken('src/deploy/planted.ts', 'export const d = new Date(0);')).toEqual([]);
  });

  it('service/proxy.ts reads the proxy variables and nothing else of the environment’s', async () => {
    const proxy = "export const proxy = process.env['https_proxy'];";
    expect(await broken('src/service/proxy.ts', proxy)).toEqual([]);
    expect(await broken('src/service/proxy.ts', 'export const now = Date.now();')).toEqual([
      'no-restricted-properties',
    ]);
  });
});

describe('dependency-cruiser: no import circles', () => {
  it('fails on a circle of type-only imports', async () => {
    const dir = plant('circle', {
      'a.ts': "import type { B } from './b.ts';\nexport interface A { b?: B }\n",
      'b.ts': "import type { A } from './a.ts';\nexport interface B { a?: A }\n",
      'c.ts': "import type { A } from './a.ts';\nexport interface C { a?: A }\n",
    });
    const { output } = await cruise([dir], {
      ...depcruiseConfig.options,
      tsConfig: undefined,
      validate: true,
      ruleSet: { forbidden: depcruiseConfig.forbidden },
    });
    const violations = typeof output === 'string' ? [] : output.summary.violations;
    const file = (path: string) => path.replace(/^.*\//, '');
    expect(violations.map((v) => v.rule.name)).toEqual(['no-circular']);
    expect(
      [violations[0]!.from, ...violations[0]!.cycle!.map((step) => step.name)].map(file),
    ).toEqual(['a.ts', 'b.ts', 'a.ts']);
  });
});

describe('dependency-cruiser: a host imports no other host’s folder', () => {
  /** The rules broken by a tree of `files` under src/hosts/, cruised from its own root as src/ is. */
  async function crossings(name: string, files: Record<string, string>): Promise<string[]> {
    const dir = plant(name, {
      'src/hosts/git.ts': 'export const git = 1;\n',
      'src/hosts/github/api.ts': 'export const api = 1;\n',
      'src/hosts/cli/ci.ts': 'export const ci = 1;\n',
      'src/hosts/cli/words.ts': 'export const words = 1;\n',
      'src/hosts/gitlab/ci.ts': "import { ci } from '../cli/ci.ts';\nexport const gitLab = ci;\n",
      ...files,
    });
    const { output } = await cruise(['src'], {
      ...depcruiseConfig.options,
      baseDir: dir,
      tsConfig: undefined,
      validate: true,
      ruleSet: { forbidden: depcruiseConfig.forbidden },
    });
    const violations = typeof output === 'string' ? [] : output.summary.violations;
    return violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  }

  it('fails on GitLab importing the GitHub host, and on the GitHub host importing GitLab', async () => {
    expect(
      await crossings('cross', {
        'src/hosts/gitlab/notes.ts':
          "import { api } from '../github/api.ts';\nexport const n = api;\n",
        'src/hosts/github/comment.ts':
          "import { gitLab } from '../gitlab/ci.ts';\nexport const c = gitLab;\n",
      }),
    ).toEqual([
      'hosts-apart: src/hosts/github/comment.ts → src/hosts/gitlab/ci.ts',
      'hosts-apart: src/hosts/gitlab/notes.ts → src/hosts/github/api.ts',
    ]);
  });

  it('passes on src/hosts/ shared, the command line’s seam for a CI, and its registry of CIs', async () => {
    expect(
      await crossings('seams', {
        'src/hosts/gitlab/context.ts':
          "import { git } from '../git.ts';\nimport { words } from '../cli/words.ts';\nexport const c = [git, words];\n",
        'src/hosts/cli/ci-registry.ts':
          "import { gitLab } from '../gitlab/ci.ts';\nexport const CIS = [gitLab];\n",
      }),
    ).toEqual([]);
  });
});

describe('knip: no unused exports', () => {
  it('fails on an export nothing imports, not on one its file uses', () => {
    const config = readFileSync(join(ROOT, 'knip.jsonc'), 'utf8');
    const dir = plant('unused', {
      'package.json': '{ "name": "planted", "type": "module" }\n',
      'knip.jsonc': config,
      'src/index.ts': "import { used } from './lib.ts';\nused();\n",
      'src/lib.ts': [
        'export function used(): number { return own(); }',
        'export function own(): number { return 1; }',
        'export function unused(): number { return own(); }',
        '',
      ].join('\n'),
    });
    const knip = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/knip/bin/knip.js'), '--directory', dir, '--include', 'exports'],
      { encoding: 'utf8' },
    );
    expect(knip.stdout).toMatch(/Unused exports \(1\)\nunused +function +src\/lib\.ts/);
    expect(knip.status).toBe(1);
  });

  it('runs with eslint and dependency-cruiser in npm run lint', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.lint).toMatch(/eslint \..*depcruise src scripts test.*knip/);
  });
});
