// The secrets and secret-references inputs: lines or JSON, names checked, values never quoted.
import * as z from '../shared/zod.ts';
import { type Secret, SecretReference } from '../service/schemas.ts';
import { InputError } from '../core/errors.ts';
import { shown } from './values.ts';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `NAME=value` lines (value may hold '='; spaces around both trimmed; blank lines and # comments skipped) or a JSON object. */
export function parseSecrets(raw: string | undefined): Secret[] | undefined {
  if (raw === undefined) return undefined;
  const input = 'secrets';
  // `where` names an entry in errors: a JSON key is shown, a line only by its number.
  let entries: (Secret & { where: string })[];
  if (raw.startsWith('{')) {
    const json = jsonInput(input, raw, 'a JSON object {"NAME": "value"} or NAME=value lines');
    const obj = z.record(z.string(), z.string()).safeParse(json);
    if (!obj.success) {
      throw new InputError(input, 'JSON must be an object of string values: {"NAME": "value"}.');
    }
    entries = Object.entries(obj.data).map(([name, value]) => ({
      name,
      value,
      where: shown(name),
    }));
  } else {
    entries = contentLines(raw).map(([line, n]) => {
      const eq = line.indexOf('=');
      if (eq <= 0) {
        throw new InputError(
          input,
          `line ${n} is not NAME=value; write one NAME=value per line (for a value of several lines, use the JSON form {"NAME": "value"}).`,
        );
      }
      // The text before '=' may be a stray piece of a value: it is named by its line, never shown.
      const name = line.slice(0, eq).trim();
      return { name, value: line.slice(eq + 1).trim(), where: `the name on line ${n}` };
    });
  }
  checkNames(input, entries);
  return entries.map(({ name, value }) => ({ name, value }));
}

/** `NAME=secret_name/secret_key` lines or a JSON array of SecretReference. */
export function parseSecretReferences(raw: string | undefined): SecretReference[] | undefined {
  if (raw === undefined) return undefined;
  const input = 'secret-references';
  let refs: SecretReference[];
  if (raw.startsWith('[')) {
    const json = jsonInput(
      input,
      raw,
      'a JSON array of {"name","secret_name","secret_key"} or NAME=secret_name/secret_key lines',
    );
    const parsed = z.array(z.strictObject(SecretReference.shape)).safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InputError(
        input,
        `item ${issue?.path.join('.')}: ${issue?.message}; each item is {"name","secret_name","secret_key"}.`,
      );
    }
    refs = parsed.data;
  } else {
    refs = contentLines(raw).map(([line, n]) => {
      const m = /^([^=\s]+)\s*=\s*([^/\s]+)\/([^/\s]+)$/.exec(line);
      if (!m) {
        throw new InputError(
          input,
          `line ${n} is not NAME=secret_name/secret_key; write one such line per variable.`,
        );
      }
      return { name: m[1]!, secret_name: m[2]!, secret_key: m[3]! };
    });
  }
  checkNames(
    input,
    refs.map((r) => ({ name: r.name, where: shown(r.name) })),
  );
  return refs;
}

/** The lines that carry something (blank lines and # comments dropped), trimmed, with their 1-based numbers. */
function contentLines(raw: string): [string, number][] {
  return raw
    .split(/\r?\n/)
    .map((line, i): [string, number] => [line.trim(), i + 1])
    .filter(([line]) => line !== '' && !line.startsWith('#'));
}

function jsonInput(input: string, raw: string, form: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new InputError(input, `starts with ${raw[0]} but is not valid JSON; use ${form}.`);
  }
}

/** Environment variable names, each once. */
function checkNames(input: string, entries: { name: string; where: string }[]): void {
  const seen = new Set<string>();
  for (const { name, where } of entries) {
    if (!ENV_NAME.test(name)) {
      throw new InputError(
        input,
        `${where} is not a valid environment variable name; use letters, digits and _, not starting with a digit.`,
      );
    }
    if (seen.has(name)) throw new InputError(input, `${name} is given twice; give each name once.`);
    seen.add(name);
  }
}
