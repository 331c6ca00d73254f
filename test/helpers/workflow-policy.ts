// The repository's own check of workflow YAML for what actionlint lets through: permissions broader than read at
// the top of a workflow, and template injection (an expression of data someone else controls pasted into a
// script). Run over our workflows and every workflow the README and docs/ show.
import { parse } from 'yaml';

type Permissions = string | Record<string, string> | null | undefined;

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}

interface Workflow {
  permissions?: Permissions;
  jobs?: Record<string, { permissions?: Permissions; steps?: Step[] }>;
}

/**
 * What a script may expand with `${{ }}`: values the workflow's author fixes (the commit, the run, the repository,
 * the runner, the matrix). Everything else (github.event.*, github.head_ref, inputs, outputs of steps and jobs,
 * env, vars, secrets) goes through `env:` and is read as "$NAME", where the shell never parses it as code.
 */
const SAFE =
  /^(github\.(sha|run_id|run_number|run_attempt|repository|repository_id|repository_owner|workspace|server_url|api_url|workflow|job|event_name|ref_type)|runner\.\w+|matrix(\.[\w-]+)+|strategy\.[\w-]+|job\.status)$/;
const CONTEXT =
  /\b(?:github|env|inputs|steps|needs|secrets|vars|matrix|runner|jobs|job|strategy)\b(?:\.[\w-]+|\[[^\]]*\]|\.\*)*/g;

/** One line per problem, empty when the workflow is fine. */
export function policyProblems(text: string): string[] {
  const workflow = parse(text) as Workflow;
  const problems: string[] = [];
  const top = workflow.permissions;
  if (top === undefined)
    problems.push(
      'no top-level permissions: give one that is read-only (contents: read, or {}); grant writes per job',
    );
  else problems.push(...broad('top-level permissions', top, true));
  for (const [id, job] of Object.entries(workflow.jobs ?? {})) {
    if (job.permissions !== undefined)
      problems.push(...broad(`job ${id}: permissions`, job.permissions, false));
    (job.steps ?? []).forEach((step, i) => {
      const where = `job ${id}, step ${i + 1}`;
      if (typeof step.run === 'string') problems.push(...injections(`${where}: run`, step.run));
      // github-script runs its `script` input as JavaScript: the same sink.
      if (step.uses?.startsWith('actions/github-script@') && typeof step.with?.script === 'string')
        problems.push(...injections(`${where}: github-script's script`, step.with.script));
    });
  }
  return problems;
}

/** Writes, or a blanket grant: at the top of a workflow nothing but read; in a job, named scopes only. */
function broad(where: string, permissions: Permissions, readOnly: boolean): string[] {
  if (permissions === null || permissions === undefined) return [];
  if (typeof permissions === 'string') {
    if (permissions === 'read-all' && readOnly) return [];
    return [`${where} is ${permissions}: name each scope the job needs (contents: read, …)`];
  }
  if (!readOnly) return [];
  return Object.entries(permissions)
    .filter(([, level]) => level !== 'read' && level !== 'none')
    .map(
      ([scope, level]) =>
        `${where} grant ${scope}: ${level}: keep the top read-only and grant it in the job that needs it`,
    );
}

/** The `${{ }}` expressions of a script that expand a context other than the safe ones. */
function injections(where: string, script: string): string[] {
  const problems: string[] = [];
  for (const [whole, inner] of script.matchAll(/\$\{\{([\s\S]*?)\}\}/g)) {
    // String literals are not contexts: 'github.event' in a comparison is text.
    const code = inner!.replace(/'(?:[^']|'')*'/g, "''");
    const unsafe = [...code.matchAll(CONTEXT)].map((m) => m[0]).filter((ref) => !SAFE.test(ref));
    if (unsafe.length > 0)
      problems.push(
        `${where} expands ${whole.trim()} (${unsafe.join(', ')}): pass it through env: and use "$NAME"`,
      );
  }
  return problems;
}
