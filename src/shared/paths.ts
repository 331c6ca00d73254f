// Whether a path stays in a folder: the one test for the files the action reads (@path inputs) and writes (the
// command line's outputs and summary).
import { isAbsolute, relative, sep } from 'node:path';

/** `path` strictly below `root` (both resolved): not `root` itself, not up and out, not on another drive. */
export function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel.split(sep)[0] !== '..' && !isAbsolute(rel);
}
