// The workflows the docs show, run as GitHub Actions and GitLab CI would run their jobs, in-process against a world's
// simulator (helpers/run.ts): each step of the action, or line of the command line, gets the inputs the YAML gives,
// its expressions (${{ secrets.X }}, ${{ needs.… }}) or variables ($CI_…) filled in as a run fills them. Other steps
// and script lines go to a handler the test may give (an evaluation script), and are skipped without one.
import { readdirSync, readFileSync } from 'node:fs';
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';
import { truthy } from '@actions/expressions/result';
import { parse, parseAllDocuments } from 'yaml';
import { readActionTable } from '../../src/hosts/cli/action.ts';
import { parseArgs } from '../../src/hosts/cli/args.ts';
import { dotenvName } from '../../src/hosts/cli/dotenv.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import { getOctokit } from '@actions/github';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { httpTransport, type Transport } from '../../src/service/transport.ts';
import { countingTransport } from './core.ts';
import { useAgent } from './agent.ts';
import { runCliInProcess } from './cli-in-process.ts';
import { type FakeGitHub, useGitHub } from './github.ts';
import { type InProcessRun, runInProcess, useWorld, type World } from './run.ts';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** The service every doc names, and the action every workflow of the docs uses. */
export const DOCS_BASE_URL = 'https://deploy.example.com';
const ACTION = 'acme/agent-deploy-action@';
/** The command line as a job runs it: a clone's dist/cli.js, or the npm package at this version (the component). */
const VERSION = (JSON.parse(read('package.json')) as { version: string }).version;
const CLIS = ['node /tmp/agent-deploy/dist/cli.js ', `npx --yes agent-deploy-action@${VERSION} `];
const cliOf = (line: string) => CLIS.find((cli) => line.startsWith(cli));

/** The integration every recipe names. */
const INTEGRATION = '0f7c3a52-5a3e-4a4e-9a83-2b1c6e0d9f10';

/**
 * A world for the docs' recipes: its simulator set up before each test as the README's prerequisites say (the
 * integration sees acme/agent, on the code host and the forge; the listener prod-cluster with namespace agents), the
 * fake GitHub, and a fake agent answering every address a recipe gives.
 */
export function useRecipeWorld() {
  const world = useWorld();
  const github = useGitHub(world);
  const agents = useAgent(() => world.clock.wall());
  routeAgentsTo(world, () => agents.agent.url);
  beforeEach(() => {
    const { sim } = world;
    sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
    sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' }, 'forge');
    sim.addListener({ compute_id: 'prod-cluster', k8s_namespaces: ['agents'] });
  });
  return { world, github, agents };
}

/** Pull request #7's event from this repository's branch feature/chat, at head `sha`; `closed` as merged. */
export function pullRequestEvent(action: string, sha = 'b'.repeat(40)) {
  return {
    name: 'pull_request',
    payload: {
      action,
      number: 7,
      pull_request: {
        number: 7,
        merged: action === 'closed',
        head: { ref: 'feature/chat', sha, repo: { full_name: 'acme/agent' } },
        base: { ref: 'main', repo: { full_name: 'acme/agent' } },
      },
    },
  };
}

/** The variables of merge request !7's pipeline, from this project's branch feature/chat. */
export const MERGE_REQUEST_PIPELINE = {
  CI_PIPELINE_SOURCE: 'merge_request_event',
  CI_MERGE_REQUEST_IID: '7',
  CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'feature/chat',
  CI_MERGE_REQUEST_PROJECT_ID: '100',
  CI_MERGE_REQUEST_SOURCE_PROJECT_ID: '100',
  CI_PROJECT_PATH: 'acme/agent',
  CI_DEFAULT_BRANCH: 'main',
};

export interface DocBlock {
  /** `page › heading`, with `#n` for the n-th block under one heading (n > 1); a workflow file's path. */
  key: string;
  page: string;
  kind: 'github' | 'gitlab';
  text: string;
}

/** Every whole workflow (GitHub) or pipeline (GitLab) of docs/*.md and docs/workflows/, in the pages' order. */
export function docBlocks(): DocBlock[] {
  const blocks: DocBlock[] = [];
  const pages = readdirSync(new URL('docs/', root)).filter((f) => f.endsWith('.md'));
  for (const page of pages.map((f) => `docs/${f}`)) {
    const text = read(page);
    const seen = new Map<string, number>();
    for (const m of text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)) {
      const kind = kindOf(m[1]!);
      if (!kind) continue;
      const heading = [...text.slice(0, m.index).matchAll(/^## (.+)$/gm)].at(-1)?.[1] ?? '(top)';
      const n = (seen.get(heading) ?? 0) + 1;
      seen.set(heading, n);
      blocks.push({ key: `${page} › ${heading}${n > 1 ? ` #${n}` : ''}`, page, kind, text: m[1]! });
    }
  }
  for (const file of readdirSync(new URL('docs/workflows/', root)).filter((f) =>
    /\.ya?ml$/.test(f),
  ))
    blocks.push({
      key: `docs/workflows/${file}`,
      page: `docs/workflows/${file}`,
      kind: 'github',
      text: read(`docs/workflows/${file}`),
    });
  return blocks;
}

function kindOf(text: string): DocBlock['kind'] | undefined {
  if (text.startsWith('# .gitlab-ci.yml\n')) return 'gitlab';
  if (/^on:/m.test(text) && /^jobs:/m.test(text)) return 'github';
  return undefined;
}

/**
 * The workspace files a page shows beside its workflows: a ```text block whose paragraph before it starts with the
 * file's path in backticks ("`deploy/agents.yaml` lists the agents…").
 */
export function docFiles(page: string): Record<string, string> {
  if (!page.endsWith('.md')) return {};
  const text = read(page);
  const files: Record<string, string> = {};
  for (const m of text.matchAll(/^```text\n([\s\S]*?)^```$/gm)) {
    const before = text.slice(0, m.index).trimEnd().split('\n\n').at(-1) ?? '';
    const path = /^`([\w./-]+)`/.exec(before)?.[1];
    if (path) files[path] = m[1]!;
  }
  return files;
}

// ---------------------------------------------------------------- GitHub Actions

/** What a GitHub run knows besides its workflow: the event, the secrets, the values of the steps it skips. */
export interface GitHubRun {
  world: World;
  gh: FakeGitHub;
  /** GITHUB_EVENT_NAME, the payload and the full ref; the runner variables follow (a push to main without). */
  event?: { name: string; payload?: Record<string, unknown>; ref?: string; sha?: string };
  secrets: Record<string, string>;
  /** workflow_dispatch inputs. */
  inputs?: Record<string, string>;
  /** Outputs of steps the runner does not run (another action's), by step id. */
  stepOutputs?: Record<string, Record<string, string>>;
  files?: Record<string, string>;
  /** Runs a `run:` step (its script and its env, expressions filled in); true when it succeeds. Skipped without. */
  run?: (step: Script & { name?: string }) => boolean | Promise<boolean>;
  /** The jobs to run, leaving out the others (and what needs them); all without. */
  jobs?: string[];
}

/** A script of a job: a step's `run:`, or the lines of a GitLab job one shell runs, with its variables. */
export interface Script {
  job: string;
  script: string;
  env: Record<string, string>;
}

export interface JobRun {
  result: 'success' | 'failure' | 'skipped';
  outputs: Record<string, string>;
  /** The action's runs, in order (a matrix job's: one per combination). */
  runs: InProcessRun[];
}

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  outputs?: Record<string, string>;
  strategy?: { matrix?: Record<string, unknown[]> };
  steps?: Step[];
}

const TOKEN = 'ghs_recipeToken0123456789';

/** Runs the workflow's jobs in the order of their needs, as GitHub runs them for `options.event`. */
export async function runWorkflow(
  text: string,
  options: GitHubRun,
): Promise<Record<string, JobRun>> {
  const workflow = parse(text) as { jobs: Record<string, Job> };
  const action = await readActionTable(new URL('action.yml', root).pathname);
  const event = options.event ?? { name: 'push' };
  const payload = event.payload ?? {};
  const pull = payload.pull_request as
    { number: number; head: { ref: string; sha: string } } | undefined;
  const ref = event.ref ?? (pull ? `refs/pull/${pull.number}/merge` : 'refs/heads/main');
  const refName = ref.replace(/^refs\/(heads|tags|pull)\//, '');
  const env = {
    GITHUB_EVENT_NAME: event.name,
    GITHUB_REF: ref,
    GITHUB_REF_NAME: refName,
    GITHUB_REF_TYPE: ref.startsWith('refs/tags/') ? 'tag' : 'branch',
    GITHUB_SHA: event.sha ?? 'a'.repeat(40),
    GITHUB_API_URL: options.gh.url,
    ...(pull ? { GITHUB_HEAD_REF: pull.head.ref } : {}),
  };
  const github = {
    event_name: event.name,
    event: payload,
    repository: 'acme/agent',
    ref: env.GITHUB_REF,
    ref_name: refName,
    head_ref: pull?.head.ref ?? '',
    sha: env.GITHUB_SHA,
    token: TOKEN,
    actor: 'octocat',
    run_id: '42',
  };
  const jobs: Record<string, JobRun> = {};
  const pending = new Map(
    Object.entries(workflow.jobs).filter(([id]) => !options.jobs || options.jobs.includes(id)),
  );
  while (pending.size > 0) {
    const ready = [...pending].find(([, job]) =>
      needsOf(job).every((n) => jobs[n] || !pending.has(n)),
    );
    if (!ready) throw new Error(`jobs ${[...pending.keys()].join(', ')} wait on each other`);
    const [id, job] = ready;
    pending.delete(id);
    const needs = Object.fromEntries(
      needsOf(job).map((n) => [
        n,
        { outputs: jobs[n]?.outputs ?? {}, result: jobs[n]?.result ?? 'skipped' },
      ]),
    );
    const base = {
      github,
      secrets: options.secrets,
      needs,
      inputs: options.inputs ?? {},
      vars: {},
    };
    const go =
      needsOf(job).every((n) => jobs[n]?.result === 'success') &&
      (job.if === undefined || truthy(evaluate(job.if, base)));
    if (!go) {
      jobs[id] = { result: 'skipped', outputs: {}, runs: [] };
      continue;
    }
    const result: JobRun = { result: 'success', outputs: {}, runs: [] };
    for (const matrix of combinations(job.strategy?.matrix)) {
      const steps: Record<string, { outputs: Record<string, string> }> = {};
      for (const [name, outputs] of Object.entries(options.stepOutputs ?? {}))
        steps[name] = { outputs };
      for (const step of job.steps ?? []) {
        const context = { ...base, matrix, steps, runner: { temp: '/tmp' }, env: {} };
        const fill = (values: Record<string, unknown> | undefined) =>
          Object.fromEntries(
            Object.entries(values ?? {}).map(([k, v]) => [
              k,
              interpolate(String(v), context, `${id}: ${k}`),
            ]),
          );
        if (step.uses?.startsWith(ACTION)) {
          if (step.if !== undefined) throw new Error(`${id}: an if: on the action's step`);
          const inputs = { ...defaults(action.inputs, context), ...fill(step.with) };
          if (inputs['base-url'] !== DOCS_BASE_URL)
            throw new Error(
              `${id}: base-url ${inputs['base-url']} is not the docs' ${DOCS_BASE_URL}`,
            );
          inputs['base-url'] = options.world.sim.url;
          const run = await runInProcess(options.world, {
            inputs,
            env,
            event: payload,
            files: options.files,
            github: getOctokit(TOKEN, { baseUrl: options.gh.url }),
          });
          result.runs.push(run);
          if (step.id) steps[step.id] = { outputs: run.outputs };
          if (run.code !== 0) result.result = 'failure';
        } else if (step.run !== undefined && options.run && step.if === undefined) {
          const ok = await options.run({
            job: id,
            name: step.name,
            script: step.run,
            env: fill(step.env) as Record<string, string>,
          });
          if (!ok) result.result = 'failure';
        }
        if (result.result === 'failure') break;
      }
      const context = { ...base, matrix, steps };
      result.outputs = Object.fromEntries(
        Object.entries(job.outputs ?? {}).map(([k, v]) => [
          k,
          interpolate(v, context, `${id}: outputs.${k}`),
        ]),
      );
    }
    jobs[id] = result;
  }
  return jobs;
}

const needsOf = (job: Job) => (job.needs === undefined ? [] : [job.needs].flat());

/** The inputs whose default action.yml gives as an expression (github-token), as the runner fills them. */
function defaults(inputs: Record<string, { default?: string }>, context: object) {
  return Object.fromEntries(
    Object.entries(inputs)
      .filter(([, input]) => input.default?.includes('${{'))
      .map(([name, input]) => [name, interpolate(input.default!, context, name)]),
  );
}

/** Each combination of a matrix of lists (include and exclude are not used by the docs). */
function combinations(matrix: Record<string, unknown[]> | undefined): Record<string, unknown>[] {
  let all: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(matrix ?? {})) {
    if (!Array.isArray(values)) throw new Error(`matrix.${key} is not a list`);
    all = all.flatMap((c) => values.map((v) => ({ ...c, [key]: v })));
  }
  return all;
}

/** A value with its `${{ }}` filled in; an expression that has no value is an error naming `where`. */
function interpolate(value: string, context: object, where: string): string {
  return value.replace(/\$\{\{([\s\S]*?)\}\}/g, (whole, inner: string) => {
    const result = evaluate(inner, context);
    if (result.kind === data.Kind.Null)
      throw new Error(`${where}: ${whole} has no value in this run; give it in the test's table`);
    return result.coerceString();
  });
}

/** GitHub's expression language, by GitHub's own implementation of it; an if: may leave out the ${{ }}. */
function evaluate(expression: string, context: object): data.ExpressionData {
  const source = expression.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const dictionary = JSON.parse(JSON.stringify(context), data.reviver) as data.Dictionary;
  const parser = new Parser(new Lexer(source).lex().tokens, Object.keys(context), []);
  return new Evaluator(parser.parse(), dictionary).evaluate();
}

// ---------------------------------------------------------------- GitLab CI

export interface GitLabRun {
  world: World;
  /** The pipeline's predefined variables (CI_PIPELINE_SOURCE, CI_MERGE_REQUEST_IID, …). */
  variables: Record<string, string>;
  /** Manual jobs to play, in the pipeline's order; the others stay manual. */
  play?: string[];
  /** Runs the lines of a job that are not the command line's (one shell: joined); true when they succeed. */
  run?: (script: Script) => boolean | Promise<boolean>;
  /** Jobs to run alone, in this order, leaving out the others (a later pipeline's stop job, say). */
  only?: string[];
  /** The dotenv variables of an earlier pipeline's jobs (an environment's stop job runs with its deploy's). */
  dotenv?: Record<string, Record<string, string>>;
}

export interface PipelineJob {
  result: 'success' | 'failure' | 'skipped' | 'manual';
  /** Its outputs as the dotenv report hands them on. */
  dotenv: Record<string, string>;
  /** The command line's failure line, when it failed. */
  failure?: string;
}

interface GitLabJob {
  extends?: string;
  stage?: string;
  rules?: { if?: string; when?: string }[];
  needs?: string[];
  variables?: Record<string, string>;
  script?: string[];
}

const KEYWORDS = new Set(['stages', 'variables', 'default', 'workflow', 'include']);

/** Runs the pipeline's jobs in stage order as GitLab runs them for `options.variables`; answers each one's. */
export async function runPipeline(
  text: string,
  options: GitLabRun,
): Promise<Record<string, PipelineJob>> {
  const config = withComponents(parse(text) as Record<string, unknown>);
  const action = await readActionTable(new URL('action.yml', root).pathname);
  const stages = (config.stages as string[] | undefined) ?? ['test'];
  const global = (config.variables as Record<string, string> | undefined) ?? {};
  const jobs = Object.entries(config)
    .filter(([name]) => !KEYWORDS.has(name) && !name.startsWith('.'))
    .map(([name, own]) => {
      const job = own as GitLabJob;
      const base = job.extends ? (config[job.extends] as GitLabJob) : {};
      return [name, { ...base, ...job }] as const;
    })
    .sort(([, a], [, b]) => stages.indexOf(a.stage ?? 'test') - stages.indexOf(b.stage ?? 'test'));
  const order = options.only ? options.only.map((name) => jobs.find(([n]) => n === name)!) : jobs;
  const done: Record<string, PipelineJob> = {};
  for (const [name, dotenv] of Object.entries(options.dotenv ?? {}))
    done[name] = { result: 'success', dotenv };
  for (const [name, job] of order) {
    const rule = (job.rules ?? [{}]).find(
      (r) => r.if === undefined || gitlabIf(r.if, options.variables),
    );
    if (!rule) {
      done[name] = { result: 'skipped', dotenv: {} };
      continue;
    }
    if (rule.when === 'manual' && !options.play?.includes(name)) {
      done[name] = { result: 'manual', dotenv: {} };
      continue;
    }
    // A job starts once what it needs (else every job of the earlier stages) succeeded, whose dotenv it gets.
    const before =
      job.needs ??
      jobs
        .filter(([, j]) => stages.indexOf(j.stage ?? 'test') < stages.indexOf(job.stage ?? 'test'))
        .map(([n]) => n);
    if (
      before.some((n) => done[n] && done[n].result !== 'success' && done[n].result !== 'skipped')
    ) {
      done[name] = { result: 'skipped', dotenv: {} };
      continue;
    }
    const inherited = Object.assign({}, ...before.map((n) => done[n]?.dotenv ?? {})) as Record<
      string,
      string
    >;
    // A variable's value may name others ($CI_MERGE_REQUEST_IID in a component's input): GitLab expands them.
    const own = Object.fromEntries(
      Object.entries({ ...global, ...job.variables }).map(([k, v]) => [
        k,
        expand(String(v), options.variables, false),
      ]),
    );
    const variables = { ...options.variables, ...own, ...inherited };
    const end: PipelineJob = { result: 'success', dotenv: {} };
    // Each command line alone; the lines between them together, as one shell runs them.
    const parts = (job.script ?? []).reduce<string[]>((all, line) => {
      if (!cliOf(line) && all.length > 0 && !cliOf(all.at(-1)!)) all[all.length - 1] += `\n${line}`;
      else all.push(line);
      return all;
    }, []);
    for (const line of parts) {
      const cli = cliOf(line);
      if (cli) {
        const argv = words(expand(line.slice(cli.length), variables));
        const { flags } = parseArgs(argv, action.inputs, Object.keys(COMMANDS));
        const env: Record<string, string> = { GITLAB_CI: 'true', ...variables };
        if (env.AGENT_DEPLOY_BASE_URL !== DOCS_BASE_URL)
          throw new Error(`${name}: AGENT_DEPLOY_BASE_URL is not the docs' ${DOCS_BASE_URL}`);
        env.AGENT_DEPLOY_BASE_URL = options.world.sim.url;
        const run = await runCliInProcess(options.world, {
          inputs: Object.fromEntries(flags),
          env,
        });
        end.dotenv = Object.fromEntries(
          Object.entries(run.outputs).map(([output, value]) => [dotenvName(output), value]),
        );
        if (run.failure !== undefined) {
          end.result = 'failure';
          end.failure = run.failure;
        }
      } else if (options.run && !(await options.run({ job: name, script: line, env: variables })))
        end.result = 'failure';
      if (end.result === 'failure') break;
    }
    done[name] = end;
  }
  return done;
}

/**
 * `$NAME` and `${NAME}` as the job's shell expands them in a script line; `strict`: one without a value is an error
 * (GitLab leaves it as it is in a variable's value).
 */
function expand(line: string, variables: Record<string, string>, strict = true): string {
  return line.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => {
    if (name in variables) return variables[name]!;
    if (strict) throw new Error(`$${name} has no value in this pipeline`);
    return whole;
  });
}

/**
 * The configuration with each `include: - component:` of this repository's component (templates/agent-deploy.yml)
 * in it, as GitLab includes one: its inputs interpolated (`$[[ inputs.x ]]`, a default where the include gives
 * none), its jobs merged under the configuration's own keys for them (a job named twice is one hash, ours over it).
 */
export function withComponents(config: Record<string, unknown>): Record<string, unknown> {
  const includes = (config.include ?? []) as {
    component?: string;
    inputs?: Record<string, unknown>;
  }[];
  let merged: Record<string, unknown> = {};
  for (const include of includes) {
    const m = /\/agent-deploy-action\/agent-deploy@v(\d+\.\d+\.\d+)$/.exec(include.component ?? '');
    if (!m)
      throw new Error(`include ${JSON.stringify(include)} is not this repository's component`);
    if (m[1] !== VERSION)
      throw new Error(`the component @v${m[1]} is not this release (${VERSION})`);
    merged = deepMerge(merged, componentJobs(include.inputs ?? {}));
  }
  const own = { ...config };
  delete own.include;
  return deepMerge(merged, own);
}

/** The component's jobs for these inputs. */
export function componentJobs(given: Record<string, unknown>): Record<string, unknown> {
  const [spec, jobs] = parseAllDocuments(read('templates/agent-deploy.yml')).map(
    (d) => d.toJS() as unknown,
  );
  const inputs = (spec as { spec: { inputs: Record<string, { default?: string }> } }).spec.inputs;
  for (const name of Object.keys(given))
    if (!(name in inputs)) throw new Error(`the component has no input ${name}`);
  const value = (name: string) => {
    if (!(name in inputs)) throw new Error(`the component names an input it lacks: ${name}`);
    const v = given[name] ?? inputs[name]!.default;
    if (v === undefined) throw new Error(`the component's input ${name} is required`);
    if (typeof v !== 'string')
      throw new Error(`the component's input ${name} is a string, not ${typeof v}`);
    return v;
  };
  const fill = (text: string) =>
    text.replace(/\$\[\[ inputs\.([\w-]+) \]\]/g, (_, name: string) => value(name));
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return fill(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [fill(k), walk(v)]));
    return node;
  };
  return walk(jobs) as Record<string, unknown>;
}

/** `over` merged into `base` as GitLab merges included hashes: hashes key by key, anything else replaced. */
function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const before = out[key];
    out[key] = isHash(before) && isHash(value) ? deepMerge(before, value) : value;
  }
  return out;
}

const isHash = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A command line's words (the docs' lines quote nothing). */
function words(line: string): string[] {
  if (/["'\\]/.test(line)) throw new Error(`a quoted command line: ${line}`);
  return line.split(/\s+/).filter(Boolean);
}

/** GitLab's rules:if for the forms the docs use: `$A == "x"`, `$A == $B`, joined by &&. */
function gitlabIf(condition: string, variables: Record<string, string>): boolean {
  return condition.split('&&').every((part) => {
    const m = /^\s*(\$\w+|"[^"]*")\s*(==|!=)\s*(\$\w+|"[^"]*")\s*$/.exec(part);
    if (!m) throw new Error(`rules:if ${condition} is not a form this runner reads`);
    const value = (side: string) =>
      side.startsWith('$') ? (variables[side.slice(1)] ?? '') : side.slice(1, -1);
    return (value(m[1]!) === value(m[3]!)) === (m[2] === '==');
  });
}

/**
 * The world's wire, with every request to a host other than the simulator's (an address a recipe gives, such as
 * https://my-agent.example.com/ok) sent to the fake agent instead, its path kept.
 */
export function routeAgentsTo(world: World, agentUrl: () => string): void {
  let inner: Transport;
  beforeAll(() => {
    world.transport.dispose();
    inner = httpTransport('agent-deploy-action/test');
    world.transport = countingTransport({
      send: (exchange) => {
        const url = new URL(exchange.url);
        if (url.origin === new URL(world.sim.url).origin) return inner.send(exchange);
        return inner.send({ ...exchange, url: `${agentUrl()}${url.pathname}${url.search}` });
      },
      dispose: () => inner.dispose(),
    });
  });
  afterAll(() => inner.dispose());
}
