// The release a user's page names comes from one place, package.json's version: a clone of `--branch v1.2.0`
// when the newest release is 1.0.0 fails on a newcomer's first try. `npm version` (and so `npm run release`) runs
// this as its `version` script, rewriting every such string of VERSIONED_FILES to the version it set;
// test/repo/docs.test.ts fails when one differs.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/** The pages and files users copy from: README.md, docs/*.md and the GitLab CI/CD component. */
export function versionedFiles(root = ROOT): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `docs/${file}`);
  return ['README.md', ...docs, 'templates/agent-deploy.yml'];
}

/**
 * A release of this project as the files name it: `v1.2.3` (a tag: a clone's --branch, a pin's comment, a
 * component's @v1.2.3), and `agent-deploy-action@1.2.3` (the npm package). Node's own (`Node v24.21.0`) is not one.
 */
const RELEASE = /(?<!Node )\bv(\d+\.\d+\.\d+)\b|(?<=\bagent-deploy-action@)(\d+\.\d+\.\d+)\b/g;

/** Every release `text` names, as X.Y.Z. */
export function versionsIn(text: string): string[] {
  return [...text.matchAll(RELEASE)].map((m) => (m[1] ?? m[2])!);
}

/** `text` with every release it names set to `version`. */
export function withVersion(text: string, version: string): string {
  return text.replace(RELEASE, (whole: string) =>
    whole.startsWith('v') ? `v${version}` : version,
  );
}

// npm version (the `version` script): package.json has the new version already.
if (import.meta.main) {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  for (const file of versionedFiles()) {
    const path = join(ROOT, file);
    const text = readFileSync(path, 'utf8');
    const fresh = withVersion(text, version);
    if (fresh !== text) writeFileSync(path, fresh);
  }
}
