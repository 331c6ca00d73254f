// The action's core run in-process against the simulator, for a fast edit-test loop beside the e2e tests of dist/.
import { parseSettings, type Settings } from '../../src/commands/index.ts';
import type { Logger } from '../../src/core/logger.ts';
import { readContext } from '../../src/hosts/github/context.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { Redactor } from '../../src/shared/redact.ts';
import { Sinks } from '../../src/core/sinks.ts';
import { systemClock } from '../../src/shared/clock.ts';
import type { Simulator } from '../simulator/server.ts';
import { API_KEY } from './setup.ts';

/** A Logger that keeps what it is told, one string per call. */
export function memoryLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    debug: (m) => lines.push(`debug: ${m}`),
    info: (m) => lines.push(m),
    notice: (m) => lines.push(`notice: ${m}`),
    warning: (m) => lines.push(`warning: ${m}`),
  };
}

/** The action's sinks, hiding `secrets`. */
export function sinksWith(...secrets: string[]): Sinks {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return new Sinks(redactor);
}

/** A client of the simulator with `timeoutMs` to go; dispose() it after the test. */
export function clientOf(
  sim: Simulator,
  log: Logger,
  options: {
    timeoutMs?: number;
    signal?: AbortSignal;
    patienceMs?: number;
    requestTimeoutMs?: number;
  } = {},
): ServiceClient {
  return ServiceClient.open(
    {
      baseUrl: sim.url,
      apiKey: API_KEY,
      userAgent: 'agent-deploy-action/test',
      requestTimeoutMs: options.requestTimeoutMs ?? 5000,
      excerpt: (text, max) => sinksWith(API_KEY).excerpt(text, max),
      patienceMs: options.patienceMs,
    },
    {
      time: systemClock,
      deadline: systemClock.now() + (options.timeoutMs ?? 20_000),
      signal: options.signal ?? new AbortController().signal,
      limit: 'timeout (test)',
    },
    log,
  );
}

/** The settings a run on the GitHub runner would get from these inputs and runner variables. */
export async function settingsOf(
  inputs: Record<string, string>,
  env: NodeJS.ProcessEnv = {},
): Promise<Settings> {
  const { host } = readContext(env, process.cwd());
  return (await parseSettings((name) => inputs[name] ?? '', host)).settings;
}
