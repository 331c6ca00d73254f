// The resource-spec input: YAML or JSON inline, or @path to a file of the workspace, read with care.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { ResourceSpec } from '../service/schemas.ts';
import { InputError } from './settings.ts';

/** A resource spec is a page of YAML; a larger file is a wrong path, not a spec. */
const MAX_SPEC_BYTES = 1024 * 1024;

/** Inline YAML/JSON, or @path to a file inside the workspace. Unknown keys are typos. */
export async function parseResourceSpec(
  raw: string | undefined,
  workspace: string,
): Promise<ResourceSpec | undefined> {
  if (raw === undefined) return undefined;
  const input = 'resource-spec';
  let textValue = raw;
  let where = 'inline';
  if (raw.startsWith('@')) {
    ({ text: textValue, rel: where } = readWorkspaceFile(input, raw, workspace));
  }
  // Only a run that has a resource spec loads the YAML parser.
  const { parse: parseYaml } = await import('yaml');
  let doc: unknown;
  try {
    doc = parseYaml(textValue);
  } catch (error) {
    const line = (error as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    throw new InputError(
      input,
      `${where} is not valid YAML or JSON${line ? ` (line ${line})` : ''}; give a mapping of ResourceSpec fields.`,
    );
  }
  const parsed = ResourceSpec.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.join('.');
    const problem =
      issue.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => `'${[path, k].filter(Boolean).join('.')}'`).join(', ')} (a typo?)`
        : `${path || 'the document'}: ${issue.message}`;
    throw new InputError(
      input,
      `${where}: ${problem}; the fields are those of the service's ResourceSpec (see the self-hosted recipe in docs/recipes.md).`,
    );
  }
  return parsed.data;
}

/**
 * A file named `@path` inside the workspace: the real path (symlinks resolved) must stay inside the workspace and
 * be a regular file under MAX_SPEC_BYTES, checked on the open file itself before reading, so a symlink swapped in
 * meanwhile, a FIFO or a device cannot be read or make the step hang.
 */
function readWorkspaceFile(
  input: string,
  raw: string,
  root: string,
): { text: string; rel: string } {
  const workspace = realpathOr(resolve(root));
  const given = resolve(workspace, raw.slice(1).trim());
  const inside = (path: string) => {
    const rel = relative(workspace, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };
  const outside = () =>
    new InputError(
      input,
      `${raw} is outside the workspace; give @path relative to the repository root.`,
    );
  if (!inside(given)) throw outside();
  const rel = relative(workspace, given);
  let real: string;
  try {
    real = realpathSync(given);
  } catch {
    throw new InputError(
      input,
      `cannot read ${rel}: no such file in the workspace; check the path after @ (run actions/checkout first).`,
    );
  }
  if (!inside(real)) throw outside();
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
    if (stat.size > MAX_SPEC_BYTES)
      throw new InputError(
        input,
        `${rel} is ${stat.size} bytes, over the ${MAX_SPEC_BYTES / 1024} KiB a resource spec may have; check the path.`,
      );
    const buffer = Buffer.alloc(MAX_SPEC_BYTES + 1);
    const size = readSync(fd, buffer, 0, buffer.length, 0);
    if (size > MAX_SPEC_BYTES)
      throw new InputError(
        input,
        `${rel} grew past ${MAX_SPEC_BYTES / 1024} KiB while being read.`,
      );
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
