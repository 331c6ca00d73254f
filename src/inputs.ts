import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { IntegrationKind } from './service/client.ts';
import { isLoopback, withoutCredentials } from './shared/url.ts';
import { DeployError } from './service/errors.ts';
import {
  DEPLOYMENT_TYPES,
  REVISION_SOURCES,
  ResourceSpec,
  type Secret,
  SecretReference,
  SOURCES,
  type Source,
  UUID,
} from './service/schemas.ts';

export const COMMANDS = ['deploy', 'redeploy', 'status', 'token-metadata'] as const;
export type Command = (typeof COMMANDS)[number];

/** Every input, parsed once. Optional fields are absent when the input was not given. */
export interface Settings {
  command: Command;
  baseUrl: string;
  apiKey: string;
  tenantId?: string;
  name?: string;
  deploymentId?: string;
  create: boolean;
  /** The source to create with: the input, or the contract's default. */
  source: Source;
  sourceGiven: boolean;
  revisionSource?: string;
  repoRef?: string;
  imageUri?: string;
  graphConfigPath?: string;
  sourceTarballPath?: string;
  integrationId?: string;
  integrationKind: IntegrationKind;
  repoUrl?: string;
  deploymentType?: string;
  buildOnPush?: boolean;
  customUrl?: string;
  installCommand?: string;
  buildCommand?: string;
  listener?: string;
  k8sNamespace?: string;
  resourceSpec?: ResourceSpec;
  secrets?: Secret[];
  secretReferences?: SecretReference[];
  wait: boolean;
  timeoutMs: number;
  pollIntervalMs: number;
  allowSkipped: boolean;
  rollbackOnFailure: boolean;
  revisionId?: string;
  tokenId?: string;
  providerAccountLabel?: string;
  isDefault?: boolean;
  dryRun: boolean;
  githubToken?: string;
  environment?: string;
  prComment: boolean;
  /** owner/name of the repository the workflow runs in (GITHUB_REPOSITORY). */
  repository?: { owner: string; name: string };
}

export class InputError extends DeployError {
  override name = 'InputError';
  constructor(input: string, problem: string) {
    super(`Input '${input}': ${problem}`);
  }
}

export type ReadInput = (name: string) => string;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A resource spec is a page of YAML; a larger file is a wrong path, not a spec. */
export const MAX_SPEC_BYTES = 1024 * 1024;
const MAX_TIMEOUT_MS = 6 * 3600_000; // a job's own limit
const MIN_POLL_MS = 1000;

/**
 * Reads and validates every input before anything is sent. Throws InputError with one line naming the input,
 * the problem and the accepted form. Never echoes api-key or secret values.
 */
export function parseInputs(read: ReadInput, env: NodeJS.ProcessEnv): Settings {
  const text = (name: string): string | undefined => {
    const value = read(name).trim();
    return value === '' ? undefined : value;
  };
  const one = <T>(name: string, schema: z.ZodType<T>): T => {
    const result = schema.safeParse(text(name));
    if (!result.success)
      throw new InputError(name, result.error.issues[0]?.message ?? 'invalid value');
    return result.data;
  };

  const command = one('command', oneOf(COMMANDS).default('deploy'));
  const baseUrl = one('base-url', required('base-url').pipe(serviceUrl));
  const apiKey = one('api-key', required('api-key'));
  if (/\s/.test(apiKey))
    throw new InputError(
      'api-key',
      'contains white space; paste the key alone (use a secret: ${{ secrets.NAME }}).',
    );

  const imageUri = text('image-uri');
  const sourceInput = one('source', oneOf(SOURCES).optional());
  const s: Settings = {
    command,
    baseUrl,
    apiKey,
    tenantId: one('tenant-id', uuid.optional()),
    name: text('name'),
    deploymentId: one('deployment-id', uuid.optional()),
    create: one('create', bool.default(true)),
    source: sourceInput ?? (imageUri ? 'external_docker' : 'codehost'),
    sourceGiven: sourceInput !== undefined,
    revisionSource: one('revision-source', oneOf(REVISION_SOURCES).optional()),
    repoRef: text('repo-ref'),
    imageUri,
    graphConfigPath: text('graph-config-path'),
    sourceTarballPath: text('source-tarball-path'),
    integrationId: one('integration-id', uuid.optional()),
    integrationKind: one(
      'integration-kind',
      oneOf(['codehost', 'forge'] as const).default('codehost'),
    ),
    repoUrl: one(
      'repo-url',
      z
        .url({
          message: 'not a URL; give the repository URL as the integration lists it (https://…).',
        })
        .optional(),
    ),
    deploymentType: one('deployment-type', oneOf(DEPLOYMENT_TYPES).optional()),
    buildOnPush: one('build-on-push', bool.optional()),
    customUrl: text('custom-url'),
    installCommand: text('install-command'),
    buildCommand: text('build-command'),
    listener: text('listener'),
    k8sNamespace: text('k8s-namespace'),
    resourceSpec: parseResourceSpec(text('resource-spec'), env),
    secrets: parseSecrets(text('secrets')),
    secretReferences: parseSecretReferences(text('secret-references')),
    wait: one('wait', bool.default(true)),
    timeoutMs: one('timeout', duration.default(30 * 60_000)),
    pollIntervalMs: one('poll-interval', duration.default(10_000)),
    allowSkipped: one('allow-skipped', bool.default(false)),
    rollbackOnFailure: one('rollback-on-failure', bool.default(false)),
    revisionId: one('revision-id', uuid.optional()),
    tokenId: text('token-id'),
    providerAccountLabel: text('provider-account-label'),
    isDefault: one('is-default', bool.optional()),
    dryRun: one('dry-run', bool.default(false)),
    githubToken: text('github-token'),
    environment: text('environment'),
    prComment: one('pr-comment', bool.default(false)),
    repository: parseRepository(env.GITHUB_REPOSITORY),
  };
  s.repoRef ??= defaultRef(env);
  checkCombinations(s);
  return s;
}

function checkCombinations(s: Settings): void {
  if (s.timeoutMs > MAX_TIMEOUT_MS)
    throw new InputError(
      'timeout',
      'is longer than 6h, the longest a job may run; use at most 6h.',
    );
  if (s.pollIntervalMs < MIN_POLL_MS)
    throw new InputError('poll-interval', 'is shorter than 1s; use 1s or more (e.g. 10s).');
  // A gap longer than the whole wait would only skip the last read.
  s.pollIntervalMs = Math.min(s.pollIntervalMs, s.timeoutMs);

  const docker = s.source === 'external_docker';
  const needsTarget = s.command !== 'token-metadata';
  if (needsTarget && !s.name && !s.deploymentId) {
    throw new InputError(
      'name',
      `is required for command '${s.command}' unless deployment-id is given; set the deployment's name.`,
    );
  }
  if (s.command === 'redeploy' && !s.revisionId) {
    throw new InputError(
      'revision-id',
      "is required for command 'redeploy'; give the uuid of the revision to redeploy.",
    );
  }
  if (s.command === 'token-metadata') {
    if (!s.tokenId)
      throw new InputError(
        'token-id',
        "is required for command 'token-metadata'; give the token's id.",
      );
    if (s.providerAccountLabel === undefined && s.isDefault === undefined) {
      throw new InputError(
        'provider-account-label',
        "and 'is-default' are both missing; command 'token-metadata' needs at least one of them.",
      );
    }
  }
  if (s.imageUri && s.source === 'codehost') {
    throw new InputError(
      'image-uri',
      "cannot be used with source 'codehost' (it builds from the repository); drop image-uri or set source: external_docker.",
    );
  }
  if (s.secretReferences && !docker) {
    throw new InputError(
      'secret-references',
      `applies only to source 'external_docker', not '${s.source}'; use secrets instead.`,
    );
  }
  if (s.k8sNamespace && !s.listener) {
    throw new InputError(
      'k8s-namespace',
      'needs listener: name the listener (uuid or compute_id) the namespace belongs to.',
    );
  }
  if (s.buildOnPush && s.repoRef?.startsWith('refs/tags/')) {
    throw new InputError(
      'build-on-push',
      `cannot be true when the ref is a tag (${s.repoRef}): tags never move; set build-on-push: false or deploy a branch.`,
    );
  }
}

// --- value schemas --------------------------------------------------------------------------------

const required = (name: string) =>
  z.string({
    message: `is required; set it in the step's 'with:' (for ${name === 'api-key' ? 'the key, use a secret' : 'example from a variable'}).`,
  });

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (issue) => `${shown(issue.input)} is not one of ${values.join(', ')}; use one of them.`,
  });

const uuid = z.string().regex(UUID, {
  error: (issue) =>
    `${shown(issue.input)} is not a uuid; use the form 123e4567-e89b-42d3-a456-426614174000.`,
});

const bool = z.string().transform((v, ctx) => {
  const lower = v.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  ctx.addIssue({
    code: 'custom',
    message: `${shown(v)} is not a boolean; use true or false.`,
  });
  return z.NEVER;
});

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3600_000 };
const duration = z.string().transform((v, ctx) => {
  const problem = `${shown(v)} is not a duration; use seconds (900) or a duration such as 90s, 15m, 1h or 1h30m.`;
  let ms = 0;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else if (/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(v)) {
    for (const [, amount, , unit] of v.matchAll(/(\d+(\.\d+)?)(ms|s|m|h)/g))
      ms += Number(amount) * UNIT_MS[unit!]!;
  } else {
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }
  if (ms <= 0) {
    ctx.addIssue({
      code: 'custom',
      message: `must be longer than zero; ${problem.slice(problem.indexOf('use'))}`,
    });
    return z.NEVER;
  }
  return Math.round(ms);
});

const serviceUrl = z.string().transform((v, ctx) => {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    ctx.addIssue({
      code: 'custom',
      message: `${shown(withoutCredentials(v))} is not a URL; use the service's base URL, e.g. https://api.example.com.`,
    });
    return z.NEVER;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url))) {
    ctx.addIssue({
      code: 'custom',
      message: `must use https:// (http:// is allowed only for loopback hosts such as 127.0.0.1); got ${url.protocol}//${url.host}.`,
    });
    return z.NEVER;
  }
  if (url.username || url.password || url.search || url.hash) {
    ctx.addIssue({
      code: 'custom',
      message:
        'must be a plain base URL without credentials, query or fragment, e.g. https://api.example.com.',
    });
    return z.NEVER;
  }
  return url.toString().replace(/\/+$/, '');
});

// --- structured inputs ----------------------------------------------------------------------------

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
    const parsed = z.array(SecretReference.strict()).safeParse(json);
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

/** Inline YAML/JSON, or @path to a file inside the workspace. Unknown keys are typos. */
export function parseResourceSpec(
  raw: string | undefined,
  env: NodeJS.ProcessEnv,
): ResourceSpec | undefined {
  if (raw === undefined) return undefined;
  const input = 'resource-spec';
  let textValue = raw;
  let where = 'inline';
  if (raw.startsWith('@')) {
    ({ text: textValue, rel: where } = readWorkspaceFile(input, raw, env));
  }
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
    throw new InputError(input, `${where}: ${problem}; see the ResourceSpec fields in the README.`);
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
  env: NodeJS.ProcessEnv,
): { text: string; rel: string } {
  const workspace = realpathOr(resolve(env.GITHUB_WORKSPACE ?? process.cwd()));
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

function parseRepository(value: string | undefined): Settings['repository'] {
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(value ?? '');
  return m ? { owner: m[1]!, name: m[2]! } : undefined;
}

/** The pushed branch, the PR's head branch, or a tag as refs/tags/… (the service needs tags in full). */
function defaultRef(env: NodeJS.ProcessEnv): string | undefined {
  if (env.GITHUB_HEAD_REF) return env.GITHUB_HEAD_REF;
  if (env.GITHUB_REF_TYPE === 'tag' && env.GITHUB_REF?.startsWith('refs/tags/'))
    return env.GITHUB_REF;
  return env.GITHUB_REF_NAME || undefined;
}

/**
 * A value as an error message may quote it: whole, or not at all. A cut one would get past masking, which matches
 * whole values only (a secret pasted into the wrong input must not leak its first characters).
 */
function shown(value: unknown): string {
  const v = String(value);
  return v.length <= 40 && !/[\r\n]/.test(v)
    ? JSON.stringify(v)
    : `the value (${v.length} characters)`;
}
