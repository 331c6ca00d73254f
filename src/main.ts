import * as core from '@actions/core';
import pkg from '../package.json' with { type: 'json' };
import { runCommand } from './commands/index.ts';
import { describeTarget } from './deploy/lookup.ts';
import { unansweredWrite } from './deploy/outcome.ts';
import { newReport, type Plan, type RunReport } from './deploy/report.ts';
import { type GitHubContext, plannedGitHubWork, readGitHubContext } from './github/context.ts';
import type { GitHubSession } from './github/session.ts';
import { InputError, parseInputs, type Settings, targetOf } from './inputs/index.ts';
import type { Logger } from './logger.ts';
import { outputsOf } from './report/outputs.ts';
import {
  renderComment,
  renderFallback,
  renderSummary,
  type SummaryContext,
} from './report/summary.ts';
import { type RunClock, ServiceClient } from './service/client.ts';
import { CancelledError } from './service/errors.ts';
import { systemClock } from './shared/clock.ts';
import { Redactor, redactDeep } from './shared/redact.ts';
import { compact } from './shared/time.ts';
import { COMMENT_MAX, Sinks, SUMMARY_MAX } from './sinks.ts';

const REQUEST_TIMEOUT_MS = 30_000;
const USER_AGENT = `${pkg.name}/${pkg.version}`;

/**
 * The action's edge: inputs, masking, signals, outputs and summary. Everything else takes plain arguments. Nothing
 * escapes it: whatever goes wrong, the step ends with `result`, a job summary and one error line.
 */
export async function run(): Promise<void> {
  const redactor = new Redactor();
  const sinks = new Sinks(redactor);
  const log = actionLogger(sinks);
  const report = newReport();
  let settings: Settings | undefined;
  let github: GitHubFinish = {};
  try {
    // Masked before anything can be logged, even when the other inputs are invalid.
    redactor.add(core.getInput('api-key'));
    redactor.add(core.getInput('github-token'));
    for (const value of redactor.values()) core.setSecret(value);
    settings = await parseInputs((name) => core.getInput(name), process.env);
    report.command = settings.command;
    maskSecrets(redactor, settings);
    github = await deploy(settings, report, log);
  } catch (error) {
    recordFailure(report, error, log);
  }
  try {
    await publish(report, settings, sinks, log, github);
  } catch (error) {
    // The last resort: the summary or an output could not be written.
    core.setFailed(sinks.logLine(`The action could not report its result: ${String(error)}`));
  }
}

interface GitHubFinish {
  session?: Promise<GitHubSession | undefined>;
  runUrl?: string;
}

/** The command, with cancellation wired to the runner's signals. Fills `report`, also when it throws. */
async function deploy(
  settings: Settings,
  report: RunReport,
  log: ActionLogger,
): Promise<GitHubFinish> {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    log.warning(`Received ${signal}: stopping now.`);
    report.cancelled = true;
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const clock: RunClock = {
    time: systemClock,
    deadline: systemClock.now() + settings.timeoutMs,
    signal: controller.signal,
    limit: `timeout ${compact(settings.timeoutMs)}`,
  };
  const client = ServiceClient.open(
    {
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      tenantId: settings.tenantId,
      userAgent: USER_AGENT,
      requestTimeoutMs: Number(process.env.AGENT_DEPLOY_REQUEST_TIMEOUT_MS) || REQUEST_TIMEOUT_MS,
      excerpt: (text, max) => log.excerpt(text, max),
      patienceMs: Number(process.env.AGENT_DEPLOY_PATIENCE_MS) || undefined,
    },
    clock,
    log,
  );
  const context = readGitHubContext(process.env);
  // Beside the deploy, not before it: the GitHub Deployment's start never delays the service calls.
  const session = openGitHub(settings, context, log, clock);
  try {
    await runCommand({ client, report, log, userAgent: USER_AGENT }, settings);
  } catch (error) {
    if (error instanceof CancelledError || report.cancelled) report.cancelled = true;
    recordFailure(report, error, log);
  } finally {
    client.dispose();
  }
  if (report.plan) printPlan(report.plan, settings, log);
  return { session, runUrl: context.runUrl };
}

function recordFailure(report: RunReport, error: unknown, log: ActionLogger): void {
  report.ok = false;
  report.result ??= 'failed';
  const phase = report.phase ?? (error instanceof InputError ? 'inputs' : 'start');
  if (report.cancelled) {
    report.failure = { phase, message: 'The job was cancelled.' };
    return;
  }
  if (error instanceof Error && error.name !== 'Error' && error.name !== 'TypeError') {
    report.failure = { phase, message: error.message };
    return;
  }
  // Not one of ours: a bug. The stack goes to the debug log, the message to the user.
  log.debug(error instanceof Error ? (error.stack ?? error.message) : String(error));
  const message = error instanceof Error ? error.message : String(error);
  report.failure = {
    phase,
    message: `Unexpected error: ${message}. This is a bug in the action: please report it with this log (re-run with debug logging for the stack).`,
  };
}

/** Every `secrets` value, and each line of a multi-line one: the runner masks line by line. */
function maskSecrets(redactor: Redactor, settings: Settings): void {
  const masked = new Set(redactor.values());
  for (const secret of settings.secrets ?? []) redactor.add(secret.value);
  for (const value of redactor.values()) if (!masked.has(value)) core.setSecret(value);
}

/**
 * Starts the GitHub features that apply. Octokit is imported only then, into a chunk of its own, so a run
 * without them neither loads nor parses it. Never rejects: GitHub is best effort.
 */
async function openGitHub(
  settings: Settings,
  context: GitHubContext,
  log: ActionLogger,
  clock: RunClock,
): Promise<GitHubSession | undefined> {
  const { work, skipped } = plannedGitHubWork(settings, context);
  for (const reason of skipped) log.info(reason);
  if (!work) return undefined;
  if (!settings.github.token) {
    core.notice('github-token is empty, so environment and pr-comment are skipped.');
    return undefined;
  }
  try {
    const { connect, GitHubSession } = await import('./github/session.ts');
    const target = targetOf(settings);
    return await GitHubSession.open(connect(settings.github.token, USER_AGENT), log, {
      work,
      target: target ? describeTarget(target) : '',
      customUrl: settings.command === 'deploy' ? settings.customUrl : undefined,
      runUrl: context.runUrl,
      clock,
      field: (text, max) => log.field(text, max),
    });
  } catch (error) {
    log.warning(`The GitHub features are skipped: ${(error as Error).message}`);
    return undefined;
  }
}

/** The request a dry run would send, as on the wire, a log line each; the body's secret values are replaced. */
function printPlan(plan: Plan, settings: Settings, log: Logger): void {
  const lines = [
    'Dry run: nothing is written to the service. The request this run would send:',
    `${plan.method} ${settings.baseUrl}${plan.path}`,
    'X-Api-Key: ***',
    ...(settings.tenantId ? [`X-Tenant-Id: ${settings.tenantId}`] : []),
  ];
  // The log keeps the whole body (the runner masks every registered secret there); the summary and the PR comment
  // show only revision-level values (report/summary.ts).
  if (plan.body !== undefined)
    lines.push('Content-Type: application/json', '', JSON.stringify(plan.body, null, 2));
  if (plan.verify)
    lines.push(
      '',
      plan.verify.url
        ? `After DEPLOYED, verify-url would be checked at ${plan.verify.url}.`
        : `verify-url cannot be resolved yet: ${plan.verify.problem}`,
    );
  for (const line of lines) for (const part of line.split('\n')) log.info(part);
}

/**
 * Outputs, summary, the GitHub Deployment's last state and the comment, then the result line. A render that throws
 * (a bug, or data no test foresaw) costs the details only: a short summary stands in, and the GitHub Deployment
 * still gets its final state.
 */
async function publish(
  report: RunReport,
  settings: Settings | undefined,
  sinks: Sinks,
  log: Logger,
  github: GitHubFinish,
): Promise<void> {
  for (const [name, value] of Object.entries(outputsOf(report)))
    core.setOutput(name, sinks.output(value));
  // Normalised and redacted before rendering: Markdown escaping would hide a secret from a redaction of the result.
  const clean = (text: string) => sinks.clean(text);
  let shown: { report: RunReport; context: SummaryContext } | undefined;
  const rendered = (
    what: string,
    render: (report: RunReport, context: SummaryContext) => string,
  ) => {
    try {
      shown ??= {
        report: redactDeep(report, clean),
        context: redactDeep(summaryContext(settings), clean),
      };
      return render(shown.report, shown.context);
    } catch (error) {
      log.warning(`Could not render the ${what} (${String(error)}); a short one stands in.`);
      return renderFallback(report);
    }
  };
  if (process.env.GITHUB_STEP_SUMMARY) {
    try {
      const summary = rendered('job summary', renderSummary);
      await core.summary.addRaw(sinks.markdown(summary, SUMMARY_MAX)).write({ overwrite: false });
    } catch (error) {
      log.warning(`Could not write the job summary: ${(error as Error).message}`);
    }
  }
  const session = await github.session;
  await session?.finish(report, {
    // The marker holds the name: part of a GitHub API body, so redacted and on one line like any field.
    name: sinks.field(commentName(settings, report), 256),
    body: sinks.markdown(
      rendered('pull request comment', (shown, context) =>
        renderComment(shown, context, github.runUrl),
      ),
      COMMENT_MAX,
    ),
  });
  if (report.ok) {
    const what = report.revisionId ? ` (revision ${report.revisionId})` : '';
    log.info(`Result: ${report.result}${what}`);
    return;
  }
  const message = report.failure?.message ?? `Result: ${report.result}`;
  const left = !report.cancelled
    ? ''
    : report.pendingWrite
      ? ` ${unansweredWrite(report.pendingWrite)}`
      : report.revisionId
        ? ` Revision ${report.revisionId} keeps going on the service.`
        : '';
  core.setFailed(sinks.logLine(`${message}${left}`));
}

/** What the inputs say, for the rows the service did not answer; only deploy has a source, ref and image. */
function summaryContext(settings: Settings | undefined): SummaryContext {
  const target = settings && targetOf(settings);
  if (settings?.command !== 'deploy') return { name: target?.name };
  return {
    name: target?.name,
    source: settings.source,
    ref: settings.source === 'codehost' ? settings.repoRef : undefined,
    image: settings.imageUri,
  };
}

/** One comment per deployment: named as the inputs name it (a trusted name), else as the service does. */
function commentName(settings: Settings | undefined, report: RunReport): string {
  const target = settings && targetOf(settings);
  return target?.name ?? report.deployment?.name ?? target?.id ?? '';
}

/** The core's Logger, plus the edge's own sinks for the service client and the GitHub session. */
interface ActionLogger extends Logger {
  excerpt(text: string, max: number): string;
  field(text: string, max: number): string;
}

function actionLogger(sinks: Sinks): ActionLogger {
  return {
    debug: (m) => core.debug(sinks.logLine(m)),
    info: (m) => core.info(sinks.logLine(m)),
    warning: (m) => core.warning(sinks.logLine(m)),
    excerpt: (text, max) => sinks.excerpt(text, max),
    field: (text, max) => sinks.field(text, max),
  };
}
