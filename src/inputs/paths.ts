// paths: the files a deployment is built from, as globs from the repository's root, one a line or comma-separated
// (a comma inside {a,b} belongs to the glob). The plan (deploy/plan.ts) matches them; here they are only read.
import { InputError } from '../core/errors.ts';
import { shown } from './values.ts';

const FORM =
  'give globs relative to the repository root, one a line or comma-separated (agent-a/**, shared/**)';

/** The globs given, each checked; a directory written with its `/` (agent-a/) stands for everything under it. */
export function parsePaths(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const globs = raw
    .split(/\r?\n/)
    .flatMap(outsideBraces)
    .map((glob) => glob.trim())
    .filter((glob) => glob !== '');
  if (globs.length === 0) throw new InputError('paths', `has no glob; ${FORM}.`);
  return globs.map((glob) => {
    const path = glob.replace(/^!/, '');
    if (path.startsWith('/') || /^[A-Za-z]:/.test(path))
      throw new InputError('paths', `${shown(glob)} is an absolute path; ${FORM}.`);
    if (path.split('/').includes('..'))
      throw new InputError('paths', `${shown(glob)} leaves the repository (..); ${FORM}.`);
    if (path.includes('\\'))
      throw new InputError(
        'paths',
        `${shown(glob)} holds a backslash; separate directories with / (git names files so on every system).`,
      );
    return glob.endsWith('/') ? `${glob}**` : glob;
  });
}

/** A line's globs: split at each comma that is not inside braces. */
function outsideBraces(line: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '{') depth++;
    else if (c === '}' && depth > 0) depth--;
    else if (c === ',' && depth === 0) {
      parts.push(line.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(line.slice(start));
  return parts;
}
