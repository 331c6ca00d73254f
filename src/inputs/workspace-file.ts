// An input holding a YAML or JSON document (resource-spec, deployments): inline, or `@path` to a file of the
// workspace, read with care.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { InputError } from '../core/errors.ts';
import type { HostContext } from '../core/host.ts';
import { inside } from '../shared/paths.ts';

/** Where `@path` is read (the checkout), and how to say a file is missing there in the host's words. */
export type Workspace = Pick<HostContext, 'workspace' | 'words'>;

/** Such a file is a page or two of YAML; a larger one is a wrong path, not an input. */
const MAX_BYTES = 1024 * 1024;

/**
 * The document `raw` holds, inline or in the file `@path` names (readWorkspaceFile), parsed as YAML (JSON is YAML),
 * and where it came from for messages: `inline` for an inline one, else the file's path. Text that does not parse
 * is an InputError naming its line and `form`, what to give instead.
 */
export async function readDocument(
  input: string,
  raw: string,
  workspace: Workspace,
  names: { what: string; inline: string; form: string },
): Promise<{ doc: unknown; where: string }> {
  let text = raw;
  let where = names.inline;
  if (raw.startsWith('@'))
    ({ text, rel: where } = readWorkspaceFile(input, raw, workspace, names.what));
  // Only a run that has such an input loads the YAML parser.
  const { parse } = await import('yaml');
  try {
    return { doc: parse(text), where };
  } catch (error) {
    const line = (error as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    throw new InputError(
      input,
      `${where} is not valid YAML or JSON${line ? ` (line ${line})` : ''}; ${names.form}.`,
    );
  }
}

/**
 * A file named `@path` inside the workspace: the real path (symlinks resolved) must stay inside the workspace and
 * be a regular file under MAX_BYTES, checked on the open file itself before reading, so a symlink swapped in
 * meanwhile, a FIFO or a device cannot be read or make the step hang.
 */
function readWorkspaceFile(
  input: string,
  raw: string,
  { workspace: root, words }: Workspace,
  what: string,
): { text: string; rel: string } {
  const workspace = realpathOr(resolve(root));
  const given = resolve(workspace, raw.slice(1).trim());
  const outside = () =>
    new InputError(
      input,
      `${raw} is outside the workspace; give @path relative to the repository root.`,
    );
  if (!inside(workspace, given)) throw outside();
  const rel = relative(workspace, given);
  let real: string;
  try {
    real = realpathSync(given);
  } catch {
    throw new InputError(
      input,
      `cannot read ${rel}: no such file in the workspace; check the path after @ (${words.checkout}).`,
    );
  }
  if (!inside(workspace, real)) throw outside();
  // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the path checked is the path opened.
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    throw new InputError(input, `cannot read ${rel} (${(error as NodeJS.ErrnoException).code}).`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new InputError(
        input,
        `${rel} is not a regular file; give @path to a YAML or JSON file.`,
      );
    if (stat.size > MAX_BYTES)
      throw new InputError(
        input,
        `${rel} is ${stat.size} bytes, over the ${MAX_BYTES / 1024} KiB ${what} may have; check the path.`,
      );
    const buffer = Buffer.alloc(MAX_BYTES + 1);
    const size = readSync(fd, buffer, 0, buffer.length, 0);
    if (size > MAX_BYTES)
      throw new InputError(input, `${rel} grew past ${MAX_BYTES / 1024} KiB while being read.`);
    return { text: buffer.subarray(0, size).toString('utf8'), rel };
  } finally {
    closeSync(fd);
  }
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
