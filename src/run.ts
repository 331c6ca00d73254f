// One run of the action over a Host: inputs, masking, the command, then outputs, summary, integrations and the
// verdict. Nothing escapes it: whatever goes wrong, the run ends with `result`, a summary and one failure line.
import pkg from '../package.json' with { type: 'json' };
import type { Command, CommandContext } from './commands/command.ts';
import { parseSettings, type SetSettings, type Settings } from './commands/index.ts';
import type { Git, Host, Integration } from './core/host.ts';
import { InputError } from './core/errors.ts';
import type { Logger } from './core/logger.ts';
import { afterCancel, failureLine } from './core/outcome.ts';
import { newReport, type Plan, type RunReport } from './core/report.ts';
import { FAILED, resultKind } from './core/result.ts';
import { COMMENT_MAX, Sinks, SUMMARY_MAX } from './core/sinks.ts';
import { watchDeploymentStatus } from './deploy/diagnose.ts';
import { describeTarget } from './deploy/lookup.ts';
import type { DeploymentRef } from './inputs/index.ts';
import { changesOf, outputsOf, resultsOf } from './report/outputs.ts';
import { type PartsOf, renderSetComment, renderSetSummary } from './report/set-summary.ts';
import {
  renderComment,
  renderFallback,
  renderSummary,
  type SummaryContext,
} from './report/summary.ts';
import { type RunClock, ServiceClient } from './service/client.ts';
import { runSet } from './set.ts';
import { CancelledError } from './shared/time.ts';
import type { Clock } from './shared/clock.ts';
import type { Transport } from './service/transport.ts';
import { Redactor, redactedView } from './shared/redact.ts';
import { compact } from './shared/time.ts';

const REQUEST_TIMEOUT_MS = 30_000;
/** The most of a thrown error's message the run reports: what a log line holds (core/sinks.ts). */
const MESSAGE_MAX = 4000;
export const USER_AGENT = `${pkg.name}/${pkg.version}`;

/** What a run is given: where it runs, its time, its wire, and the job's cancellation. */
interface RunDeps {
  host: Host;
  clock: Clock;
  /** Every request of the run goes through it: the service's and verify-url's. */
  transport: Transport;
  /** Aborts when the job is cancelled; its reason says how ("SIGINT"). */
  signal: AbortSignal;
  /** The checkout, for the plan's paths. */
  git: Git;
}

export async function runAction(deps: RunDeps): Promise<RunReport> {
  const { host } = deps;
  const redactor = new Redactor();
  const sinks = new Sinks(redactor);
  const log = runLogger(host, sinks);
  const report = newReport();
  let settings: Settings | undefined;
  let command: Command<Settings> | undefined;
  let set: SetSettings | undefined;
  let integrations: Integration[] = [];
  try {
    // Masked before anything can be logged, even when the other inputs are invalid.
    redactor.add(host.input('api-key'));
    for (const secret of host.secrets()) redactor.add(secret);
    for (const value of redactor.values()) host.mask(value);
    ({ command, settings, set } = await parseSettings((name) => host.input(name), host.context));
    report.command = settings.command;
    maskSecrets(host, redactor, settings);
    integrations = await execute(deps, command, settings, set, report, log);
  } catch (error) {
    recordFailure(report, error, { log, excerpt: log.excerpt, words: host.context.words });
  }
  try {
    await publish({ host, report, settings, set, command, sinks, log, integrations });
  } catch (error) {
    // The last resort: the summary or an output could not be written.
    host.fail(sinks.logLine(`The action could not report its result: ${String(error)}`));
  }
  return report;
}

/** The command (or, with deployments, each item's), with the job's cancellation wired in. Fills `report`. */
async function execute(
  { host, clock: time, transport, signal, git }: RunDeps,
  command: Command<Settings>,
  settings: Settings,
  set: SetSettings | undefined,
  report: RunReport,
  log: RunLogger,
): Promise<Integration[]> {
  const onCancel = () => {
    log.warning(`Received ${String(signal.reason ?? 'a cancel')}: stopping now.`);
    report.cancelled = true;
  };
  if (signal.aborted) onCancel();
  else signal.addEventListener('abort', onCancel, { once: true });

  const clock: RunClock = {
    time,
    deadline: time.now() + settings.timeoutMs,
    signal,
    limit: `timeout ${compact(settings.timeoutMs)}`,
  };
  // A list's items each watch their own deployment (set.ts).
  const target = set ? undefined : targetOf(settings);
  const client = ServiceClient.open(
    {
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      tenantId: settings.tenantId,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      excerpt: (text, max) => log.excerpt(text, max),
      sideBySide: set !== undefined,
    },
    clock,
    log,
    transport,
    set ? undefined : watchDeploymentStatus(report, log, target),
  );
  // Beside the command, not before it: an integration's start never delays the service calls.
  const integrations = host.integrations({
    command: settings.command,
    writes: command.writes,
    dryRun: settings.dryRun,
    target: set ? setName(set) : target && describeTarget(target),
    customUrl: !set && 'customUrl' in settings ? settings.customUrl : undefined,
    environment: settings.environment,
    prComment: settings.prComment,
    preview: settings.preview,
    items: set?.items.map((item) => item.name),
    time: clock.time,
    deadline: clock.deadline,
    signal,
    log,
  });
  const started = integrations.map((integration) => integration.start());
  // One deployment's run, its report filled also when it fails: the run's own, or each item's of a list.
  const runOne = async (ctx: CommandContext, own: Settings) => {
    try {
      await command.run(ctx, own);
    } catch (error) {
      if (error instanceof CancelledError || ctx.report.cancelled) ctx.report.cancelled = true;
      recordFailure(ctx.report, error, ctx);
    }
    if (ctx.report.plan) printPlan(ctx.report.plan, own, ctx.log);
  };
  const { excerpt } = log;
  const { words } = host.context;
  try {
    if (set)
      await runSet(
        { client, report, log, transport, excerpt, words, git, integrations },
        set,
        runOne,
      );
    else await runOne({ client, report, log, transport, excerpt, words, git }, settings);
  } catch (error) {
    recordFailure(report, error, { log, excerpt, words });
  } finally {
    signal.removeEventListener('abort', onCancel);
  }
  await Promise.all(started);
  return integrations;
}

/**
 * The run's failure, from what was thrown; an input is named in the host's words. Every message is cut as a log line
 * is: one that quotes the service's data whole (each string up to 64 KiB; verify-url's input error quotes custom_url)
 * stays a paragraph the summary and the comment keep with their tables.
 */
function recordFailure(
  report: RunReport,
  error: unknown,
  { log, excerpt, words }: Pick<CommandContext, 'log' | 'excerpt' | 'words'>,
): void {
  report.ok = false;
  if (!report.result) {
    report.result = FAILED.name;
    report.rank = FAILED.rank;
  }
  // An input error is the inputs' wherever it is found (verify-url once the deployment is read): nothing was written.
  const phase = error instanceof InputError ? 'inputs' : (report.phase ?? 'start');
  if (report.cancelled) {
    report.failure = { phase, message: 'The job was cancelled.' };
    return;
  }
  if (error instanceof InputError) {
    report.failure = { phase, message: excerpt(error.say(words.input), MESSAGE_MAX) };
    return;
  }
  if (error instanceof Error && error.name !== 'Error' && error.name !== 'TypeError') {
    report.failure = { phase, message: excerpt(error.message, MESSAGE_MAX) };
    return;
  }
  // Not one of ours: a bug. The stack goes to the debug log, the message to the user.
  log.debug(error instanceof Error ? (error.stack ?? error.message) : String(error));
  const message = excerpt(error instanceof Error ? error.message : String(error), MESSAGE_MAX);
  report.failure = {
    phase,
    message: `Unexpected error: ${message}. This is a bug in the action: please report it with this log (re-run with debug logging for the stack).`,
  };
}

/** Every `secrets` value, and each line of a multi-line one: the runner masks line by line. */
function maskSecrets(host: Host, redactor: Redactor, settings: Settings): void {
  const masked = new Set(redactor.values());
  for (const secret of settings.secrets ?? []) redactor.add(secret.value);
  for (const value of redactor.values()) if (!masked.has(value)) host.mask(value);
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

/** What a run's end is published from: its host, its report, what it ran, and the sinks and log of the run. */
interface Published {
  host: Host;
  report: RunReport;
  /** Undefined when the inputs could not be read, as `command`. */
  settings: Settings | undefined;
  set: SetSettings | undefined;
  command: Command<Settings> | undefined;
  sinks: Sinks;
  log: Logger;
  integrations: Integration[];
}

/**
 * Outputs, summary, the integrations' last word, then the result line. A render that throws (a bug, or data no test
 * foresaw) costs the details only: a short summary stands in, and the integrations still get the run's end.
 */
async function publish({
  host,
  report,
  settings,
  set,
  command,
  sinks,
  log,
  integrations,
}: Published): Promise<void> {
  for (const [name, value] of Object.entries(outputsOf(report, command?.outputs)))
    host.setOutput(name, sinks.output(value));
  const results = resultsOf(report);
  if (results) host.setOutput('results', sinks.json(results));
  const changes = changesOf(report);
  if (changes) host.setOutput('changes', sinks.json(changes));
  // A report's heading is its result as the command words it; the command adds its rows and sections.
  const headline = (r: RunReport) => resultKind(command?.results ?? [], r).headline;
  const partsOf: PartsOf = (r) => ({ ...command?.summary?.(r), headline: headline(r) });
  // Normalised and redacted before rendering (as the renderers read it): Markdown escaping would hide a secret from a
  // redaction of the result.
  const clean = (text: string) => sinks.clean(text);
  let shown: { report: RunReport; context: SummaryContext } | undefined;
  const rendered = (
    what: string,
    render: (report: RunReport, context: SummaryContext, partsOf: PartsOf, room: number) => string,
    room: number,
  ) => {
    try {
      shown ??= {
        report: redactedView(report, clean),
        context: redactedView(
          set
            ? { name: setName(set), items: set.items.map((item) => summaryContext(item.settings)) }
            : summaryContext(settings),
          clean,
        ),
      };
      return render(shown.report, shown.context, partsOf, room);
    } catch (error) {
      log.warning(`Could not render the ${what} (${String(error)}); a short one stands in.`);
      return renderFallback(report, { headline: headline(report) });
    }
  };
  try {
    await host.summary(
      sinks.markdown(
        rendered(
          'job summary',
          (shown, context, partsOf, room) =>
            shown.items
              ? renderSetSummary(shown, context, partsOf, room)
              : renderSummary(shown, context, partsOf(shown)),
          SUMMARY_MAX,
        ),
        SUMMARY_MAX,
      ),
    );
  } catch (error) {
    log.warning(`Could not write the job summary: ${(error as Error).message}`);
  }
  const comment = {
    // The marker holds the name: part of a GitHub API body, so redacted and on one line like any field.
    name: sinks.field(set ? setName(set) : commentName(settings, report), 256),
    body: sinks.markdown(
      rendered(
        'pull request comment',
        (shown, context, partsOf, room) =>
          shown.items
            ? renderSetComment(shown, context, partsOf, host.context.runUrl, room)
            : renderComment(shown, context, partsOf(shown), host.context.runUrl),
        COMMENT_MAX,
      ),
      COMMENT_MAX,
    ),
  };
  await Promise.all(integrations.map((integration) => integration.finish(report, comment)));
  if (report.ok) {
    const what = report.revisionId ? ` (revision ${report.revisionId})` : '';
    log.info(`Result: ${report.result}${what}`);
    return;
  }
  const message = report.failure ? failureLine(report.failure) : `Result: ${report.result}`;
  const left = report.cancelled ? afterCancel(report) : undefined;
  host.fail(sinks.logLine(left ? `${message} ${left}` : message));
}

/** The deployment a run is about, as the inputs name it (token-metadata has none). */
function targetOf(settings: Settings): DeploymentRef | undefined {
  return 'target' in settings ? settings.target : undefined;
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

/** A list of deployments by its items' names (trusted: the inputs'): its comment's name, its integrations' target. */
function setName(set: SetSettings): string {
  return set.items.map((item) => item.name).join(', ');
}

/** One comment per deployment: named as the inputs name it (a trusted name), else as the service does. */
function commentName(settings: Settings | undefined, report: RunReport): string {
  const target = settings && targetOf(settings);
  return target?.name ?? report.deployment?.name ?? target?.id ?? '';
}

/** The core's Logger over the host's log, plus the sinks the service client and the integrations use. */
interface RunLogger extends Logger {
  excerpt(text: string, max: number): string;
  field(text: string, max: number): string;
}

function runLogger(host: Host, sinks: Sinks): RunLogger {
  return {
    debug: (m) => host.log.debug(sinks.logLine(m)),
    info: (m) => host.log.info(sinks.logLine(m)),
    notice: (m) => host.log.notice(sinks.logLine(m)),
    warning: (m) => host.log.warning(sinks.logLine(m)),
    // The status and the id are the service's: safe for a log line before a live display shows them.
    progress: (update) =>
      host.log.progress?.({
        ...update,
        revisionId: sinks.logLine(update.revisionId),
        status: sinks.logLine(update.status),
        name: update.name === undefined ? undefined : sinks.logLine(update.name),
      }),
    excerpt: (text, max) => sinks.excerpt(text, max),
    field: (text, max) => sinks.field(text, max),
  };
}
