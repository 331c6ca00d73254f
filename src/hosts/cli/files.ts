// The files the command line writes (--dotenv, --summary-file): only a regular file inside the working directory,
// never through a symbolic link. A merge request can commit `agent-deploy.env` as a link to a file outside the
// checkout, or a folder of links; the job's user may write there, so the link is refused, never followed.
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  realpathSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { inside } from '../../shared/paths.ts';

/** A file the command line will not write, and why: the message names the file and says what to do. */
export class RefusedFile extends Error {
  override name = 'RefusedFile';
}

const FORM =
  'not written: the command line writes only regular files inside the working directory, never through a symbolic link (remove what is there, or name another file with --dotenv or --summary-file)';

/**
 * Writes `text` to `file` (relative to `cwd`, or absolute inside it), created if missing, replaced if it is a
 * regular file of its own. Throws RefusedFile for a path outside `cwd` (after resolving the links of its folders), a
 * symbolic link (O_NOFOLLOW), a folder, a FIFO or a device (checked on the open file, before anything is written:
 * O_NONBLOCK keeps a FIFO from holding the open), or a second name of a file elsewhere (a hard link); other errors
 * (no such folder, no permission) are thrown as they come.
 */
export function writeOwnFile(file: string, text: string, cwd: string): void {
  const root = realpathSync(cwd);
  const given = resolve(root, file);
  const refuse = (why: string) => new RefusedFile(`${file} ${why}, ${FORM}`);
  if (given === root) throw refuse('is a folder');
  if (!inside(root, given)) throw refuse('is outside the working directory');
  // The folders' links resolved: a committed `out -> /etc` makes `out/x.env` a path outside.
  const folder = realpathSync(dirname(given));
  if (folder !== root && !inside(root, folder))
    throw refuse('is in a folder outside the working directory (through a symbolic link)');
  const path = resolve(folder, basename(given));
  // Where there is no O_NOFOLLOW (Windows), lstat tells a link; elsewhere the open below refuses one too, race-free.
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink())
    throw refuse('is a symbolic link');
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o666,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuse('is a symbolic link');
    if (code === 'EISDIR') throw refuse('is a folder');
    // A FIFO without a reader, or a device that takes no writer this way.
    if (code === 'ENXIO' || code === 'ENODEV') throw refuse('is not a regular file');
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refuse('is not a regular file');
    if (stat.nlink > 1) throw refuse('has other names (a hard link): it may be a file outside');
    // Only now: a file refused above keeps its content.
    ftruncateSync(fd, 0);
    const bytes = Buffer.from(text);
    for (let done = 0; done < bytes.length;)
      done += writeSync(fd, bytes, done, bytes.length - done);
  } finally {
    closeSync(fd);
  }
}
