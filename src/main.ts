import * as core from '@actions/core';
import pkg from '../package.json' with { type: 'json' };
import { runCommand } from './deploy/flow.ts';
import { newReport, type RunReport } from './deploy/report.ts';
import { type Settings, InputError, parseInputs } from './inputs.ts';
import type { Logger } from './logger.ts';
import { Redactor } from './redact.ts';
import { outputsOf } from './report/outputs.ts';
import { renderSummary } from './report/summary.ts';
import { ServiceClient } from './service/client.ts';
import { CancelledError } from './service/errors.ts';

const REQUEST_TIMEOUT_MS = 30_000;

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
  for (const secret of settings.secrets ?? []) {
    redactor.add(secret.value);
    core.setSecret(secret.value);
  }

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
      userAgent: `${pkg.name}/${pkg.version}`,
      requestTimeoutMs: Number(process.env.AGENT_DEPLOY_REQUEST_TIMEOUT_MS) || REQUEST_TIMEOUT_MS,
    },
    clock,
    log,
  );
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
  await publish(report, settings, redactor, log);
}

async function publish(
  report: RunReport,
  settings: Settings,
  redactor: Redactor,
  log: Logger,
): Promise<void> {
  for (const [name, value] of Object.entries(outputsOf(report)))
    core.setOutput(name, redactor.redact(value));
  if (process.env.GITHUB_STEP_SUMMARY) {
    const markdown = renderSummary(report, {
      name: settings.name,
      source: settings.source,
      ref: settings.source === 'codehost' ? settings.repoRef : undefined,
      image: settings.imageUri,
    });
    try {
      await core.summary.addRaw(redactor.redact(markdown)).write();
    } catch (error) {
      log.warning(`Could not write the job summary: ${(error as Error).message}`);
    }
  }
  if (report.ok) {
    log.info(`Result: ${report.result}`);
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
