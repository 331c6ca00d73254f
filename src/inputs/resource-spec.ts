// The resource-spec input: YAML or JSON inline, or @path to a file of the workspace, read with care.
import * as z from '../shared/zod.ts';
import { ResourceSpec } from '../service/schemas.ts';
import { nearestHint } from '../shared/nearest.ts';
import { InputError } from '../core/errors.ts';
import { readDocument, type Workspace } from './workspace-file.ts';

/** Inline YAML/JSON, or @path to a file inside the workspace. Unknown keys are typos. */
export async function parseResourceSpec(
  raw: string | undefined,
  workspace: Workspace,
): Promise<ResourceSpec | undefined> {
  if (raw === undefined) return undefined;
  const input = 'resource-spec';
  const { doc, where } = await readDocument(input, raw, workspace, {
    what: 'a resource spec',
    inline: 'inline',
    form: 'give a mapping of ResourceSpec fields',
  });
  const parsed = ResourceSpec.safeParse(doc);
  const mistakes = parsed.success
    ? meaningless(parsed.data)
    : parsed.error.issues.flatMap((issue) => describeIssue(issue, doc));
  if (parsed.success && mistakes.length === 0) return parsed.data;
  const shown = mistakes.slice(0, MAX_SHOWN);
  const more = mistakes.length > MAX_SHOWN ? `; and ${mistakes.length - MAX_SHOWN} more` : '';
  const count = mistakes.length === 1 ? 'a mistake' : `${mistakes.length} mistakes`;
  throw new InputError(
    input,
    `${where} has ${count}: ${shown.join('; ')}${more}. The fields are those of the service's ResourceSpec (see the self-hosted recipe in docs/recipes.md).`,
  );
}

/**
 * What a well-formed spec cannot mean, by the fields' names (so a field the interface adds is covered): a count or a
 * size below zero, memory or CPU of zero (nothing could start), a `*_min_scale` above its `*_max_scale`, a request
 * (`cpu`, `memory_mb`) above its limit (`cpu_limit`, `memory_limit_mb`). Numbers are quoted: they are no secret.
 */
function meaningless(spec: ResourceSpec): string[] {
  const numbers = Object.entries(spec).filter(
    (entry): entry is [string, number] => typeof entry[1] === 'number',
  );
  const value = (key: string) => numbers.find(([k]) => k === key)?.[1];
  const mistakes: string[] = [];
  for (const [key, n] of numbers) {
    const resource = isCpu(key) || isMemory(key);
    if (resource ? n <= 0 : n < 0)
      mistakes.push(`'${key}' must be ${resource ? 'above zero' : 'zero or more'}, not ${n}`);
  }
  for (const [key, n] of numbers) {
    const [partner, what] = key.endsWith('min_scale')
      ? [`${key.slice(0, -'min_scale'.length)}max_scale`, '']
      : key.endsWith('cpu') || key.endsWith('memory_mb')
        ? [
            key.endsWith('cpu') ? `${key}_limit` : `${key.slice(0, -'_mb'.length)}_limit_mb`,
            'its limit ',
          ]
        : [];
    const bound = partner === undefined ? undefined : value(partner);
    if (bound !== undefined && n > bound)
      mistakes.push(`'${key}' (${n}) is above ${what}'${partner}' (${bound})`);
  }
  return mistakes;
}

const isCpu = (key: string) => key === 'cpu' || key.endsWith('_cpu') || key.endsWith('cpu_limit');
const isMemory = (key: string) => key.startsWith('memory_') || key.includes('_memory_');

/** The most mistakes one message names: a document of a hundred wrong lines is a wrong file, said in ten. */
const MAX_SHOWN = 10;

/** Each mistake of a zod issue in our words, named by its key (`init_containers[0].image`); values never quoted. */
function describeIssue(issue: z.core.$ZodIssue, doc: unknown): string[] {
  const path = issue.path.filter((p) => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(path);
    return issue.keys.map(
      (key) =>
        `'${keyPath([...path, key])}' is not a field${nearestHint(key, known, (near) => keyPath([...path, near]))}`,
    );
  }
  const where = path.length ? `'${keyPath(path)}'` : 'the document';
  if (issue.code === 'invalid_type') {
    const value = valueAt(doc, path);
    // A whole number is checked as a number first: the schema says which it wants.
    const wanted = isInt(schemaAt(path)) ? 'int' : issue.expected;
    const expected = EXPECTED[wanted] ?? wanted;
    if (value === undefined) return [`${where} is missing (it needs ${expected})`];
    return [`${where} must be ${expected}, not ${kindOf(value)}`];
  }
  return [`${where}: ${issue.message}`];
}

/** What the schema expects, as the message says it. */
const EXPECTED: Record<string, string> = {
  number: 'a number (e.g. 0.5)',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping (key: value lines)',
  record: 'a mapping (key: value lines)',
};

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) ? 'a whole number' : 'a fraction';
    case 'string':
      return 'text';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}

/** `init_containers[0].image`, as a user finds it in the YAML. */
function keyPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`))
    .join('');
}

function valueAt(doc: unknown, path: readonly PropertyKey[]): unknown {
  let at: unknown = doc;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** The keys the ResourceSpec schema knows at `path` (inside lists and optional values); none where it knows none. */
function knownKeys(path: readonly PropertyKey[]): string[] {
  const schema = schemaAt(path);
  return schema instanceof z.ZodMiniObject ? Object.keys(schema.shape) : [];
}

function isInt(schema: z.ZodMiniType | undefined): boolean {
  return schema instanceof z.ZodMiniNumberFormat && schema._zod.def.format === 'safeint';
}

/** The schema of the value at `path`, through the optional, nullable and lazy wrappers; undefined off the schema. */
function schemaAt(path: readonly PropertyKey[]): z.ZodMiniType | undefined {
  let schema: z.ZodMiniType = ResourceSpec;
  for (const key of [...path, undefined]) {
    while (
      schema instanceof z.ZodMiniLazy ||
      schema instanceof z.ZodMiniOptional ||
      schema instanceof z.ZodMiniNullable
    )
      schema = (
        schema instanceof z.ZodMiniLazy ? schema._zod.innerType : schema._zod.def.innerType
      ) as z.ZodMiniType;
    if (key === undefined) break;
    if (schema instanceof z.ZodMiniArray && typeof key === 'number')
      schema = schema.def.element as z.ZodMiniType;
    else if (schema instanceof z.ZodMiniObject && typeof key === 'string' && key in schema.shape)
      schema = schema.shape[key] as z.ZodMiniType;
    else return undefined;
  }
  return schema;
}
