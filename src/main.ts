import * as core from '@actions/core';
import pkg from '../package.json' with { type: 'json' };
import { runCommand } from './deploy/flow.ts';
import { newReport, type Plan, type RunReport } from './deploy/report.ts';
import { type GitHubContext, plannedGitHubWork, readGitHubContext } from './github/context.ts';
import type { GitHubSession } from './github/session.ts';
import { type Settings, InputError, parseInputs } from './inputs.ts';
import type { Logger } from './logger.ts';
import { Redactor } from './redact.ts';
import { outputsOf } from './report/outputs.ts';
import { renderComment, renderSummary, type SummaryContext } from './report/summary.ts';
import { type RunClock, ServiceClient } from './service/client.ts';
import { CancelledError } from './service/errors.ts';

const REQUEST_TIMEOUT_MS = 30_000;
const USER_AGENT = `${pkg.name}/${pkg.version}`;

/** The action's edge: inputs, masking, signals, outputs and summary. Everything else takes plain arguments. */
export async function run(): Promise<void> {
  const redactor = new Redactor();
  // Masked before anything can be logged, even when the other inputs are invalid.
  redactor.add(core.getInput('api-key'));
  redactor.add(core.getInput('github-token'));
  for (const value of redactor.values()) core.setSecret(value);

  let settings: Settings;
  try {
    settings = parseInputs((name) => core.getInput(name), process.env);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    core.setFailed(redactor.redact(error.message));
    return;
  }
  const masked = new Set(redactor.values());
  for (const secret of settings.secrets ?? []) redactor.add(secret.value);
  // Each line of a multi-line value too: the runner masks line by line and would not match it whole.
  for (const value of redactor.values()) if (!masked.has(value)) core.setSecret(value);

  const log = redactingLogger(redactor);
  const controller = new AbortController();
  const report = newReport(settings.command);
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    log.warning(`Received ${signal}: stopping now.`);
    report.cancelled = true;
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const clock = { deadline: Date.now() + settings.timeoutMs, signal: controller.signal };
  const client = new ServiceClient(
    {
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      tenantId: settings.tenantId,
      userAgent: USER_AGENT,
      requestTimeoutMs: Number(process.env.AGENT_DEPLOY_REQUEST_TIMEOUT_MS) || REQUEST_TIMEOUT_MS,
    },
    clock,
    log,
  );
  const gitHubContext = readGitHubContext(process.env);
  // Beside the deploy, not before it: the GitHub Deployment's start never delays the service calls.
  const github = openGitHub(settings, gitHubContext, log, clock);
  try {
    await runCommand({ client, settings, report, log, clock });
  } catch (error) {
    if (error instanceof CancelledError || report.cancelled) {
      report.cancelled = true;
      report.failure = { phase: report.phase ?? 'start', message: 'The job was cancelled.' };
    } else {
      report.failure = { phase: report.phase ?? 'start', message: (error as Error).message };
      if (!(error instanceof Error) || error.name === 'Error' || error.name === 'TypeError') {
        log.debug(redactor.redact((error as Error).stack ?? String(error)));
      }
    }
    report.ok = false;
  } finally {
    client.dispose();
  }
  if (report.plan) printPlan(report.plan, settings, log);
  await publish(report, settings, redactor, log, { session: github, runUrl: gitHubContext.runUrl });
}

/**
 * Starts the GitHub features that apply. Octokit is imported only then, into a chunk of its own, so a run
 * without them neither loads nor parses it. Never rejects: GitHub is best effort.
 */
async function openGitHub(
  settings: Settings,
  context: GitHubContext,
  log: Logger,
  clock: RunClock,
): Promise<GitHubSession | undefined> {
  const { work, skipped } = plannedGitHubWork(settings, context);
  for (const reason of skipped) log.info(reason);
  if (!work) return undefined;
  if (!settings.githubToken) {
    core.notice('github-token is empty, so environment and pr-comment are skipped.');
    return undefined;
  }
  try {
    const { connect, GitHubSession } = await import('./github/session.ts');
    return await GitHubSession.open(connect(settings.githubToken, USER_AGENT), log, {
      work,
      target: settings.name ?? settings.deploymentId ?? '',
      customUrl: settings.customUrl,
      runUrl: context.runUrl,
      clock,
    });
  } catch (error) {
    log.warning(`The GitHub features are skipped: ${(error as Error).message}`);
    return undefined;
  }
}

/** The request a dry run would send, as on the wire; the plan's body has its secret values replaced already. */
function printPlan(plan: Plan, settings: Settings, log: Logger): void {
  const lines = [
    'Dry run: nothing is written to the service. The request this run would send:',
    `${plan.method} ${settings.baseUrl}${plan.path}`,
    'X-Api-Key: ***',
    ...(settings.tenantId ? [`X-Tenant-Id: ${settings.tenantId}`] : []),
  ];
  if (plan.body !== undefined)
    lines.push('Content-Type: application/json', '', JSON.stringify(plan.body, null, 2));
  log.info(lines.join('\n'));
}

async function publish(
  report: RunReport,
  settings: Settings,
  redactor: Redactor,
  log: Logger,
  github: { session: Promise<GitHubSession | undefined>; runUrl?: string },
): Promise<void> {
  for (const [name, value] of Object.entries(outputsOf(report)))
    core.setOutput(name, redactor.redact(value));
  // What the inputs say, for the rows the service did not answer; a token update has no source or ref.
  const aboutDeployment = settings.command !== 'token-metadata';
  const context: SummaryContext = {
    name: settings.name,
    source: aboutDeployment ? settings.source : undefined,
    ref: aboutDeployment && settings.source === 'codehost' ? settings.repoRef : undefined,
    image: aboutDeployment ? settings.imageUri : undefined,
  };
  if (process.env.GITHUB_STEP_SUMMARY) {
    const markdown = renderSummary(report, context);
    try {
      await core.summary.addRaw(redactor.redact(markdown)).write();
    } catch (error) {
      log.warning(`Could not write the job summary: ${(error as Error).message}`);
    }
  }
  const session = await github.session;
  await session?.finish(report, {
    name: report.deployment?.name ?? settings.name ?? settings.deploymentId ?? '',
    body: redactor.redact(renderComment(report, context, github.runUrl)),
  });
  if (report.ok) {
    const what = report.revisionId ? ` (revision ${report.revisionId})` : '';
    log.info(`Result: ${report.result}${what}`);
    return;
  }
  const message = report.failure?.message ?? `Result: ${report.result}`;
  core.setFailed(
    redactor.redact(
      report.cancelled && report.revisionId
        ? `${message} Revision ${report.revisionId} keeps going on the service.`
        : message,
    ),
  );
}

function redactingLogger(redactor: Redactor): Logger {
  return {
    debug: (m) => core.debug(redactor.redact(m)),
    info: (m) => core.info(redactor.redact(m)),
    warning: (m) => core.warning(redactor.redact(m)),
  };
}
