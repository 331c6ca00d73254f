// npm run check-dist (also the end of npm run all, .ci/run and check-dist.yml): is the committed dist/ what
// `npm run bundle` builds from src/? Run it after a bundle. Names each file that differs and what to do; exit 1 then.
import { execFileSync } from 'node:child_process';

const WHAT: Record<string, string> = {
  M: 'changed by the build',
  '?': 'new in the build, not committed',
  D: 'committed, but the build no longer makes it',
};

const porcelain = execFileSync('git', ['status', '--porcelain', '--', 'dist'], {
  encoding: 'utf8',
}).trimEnd();
if (porcelain === '') {
  console.log('dist/ is up to date with src/.');
  process.exit(0);
}
const files = porcelain.split('\n').map((line) => {
  const code = line.slice(0, 2).trim()[0] ?? '';
  return `  ${line.slice(3)}: ${WHAT[code] ?? `git status ${line.slice(0, 2).trim()}`}`;
});
// On GitHub the first line becomes an annotation on the run.
const mark = process.env.GITHUB_ACTIONS === 'true' ? '::error::' : '';
console.error(
  [
    `${mark}dist/ is not what npm run bundle builds from src/ (${files.length} ${files.length === 1 ? 'file' : 'files'}):`,
    ...files,
    'The runner executes dist/, so commit it with the change: npm run bundle, then git add dist and commit.',
    'If you did not change src/ or the dependencies, run npm ci first (a different install builds differently).',
  ].join('\n'),
);
process.exit(1);
