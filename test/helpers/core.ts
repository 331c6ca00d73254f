// The action's core run in-process against the simulator, for a fast edit-test loop beside the e2e tests of dist/.
import { parseSettings, type Settings } from '../../src/commands/index.ts';
import type { Logger } from '../../src/core/logger.ts';
import { readContext } from '../../src/hosts/github/context.ts';
import { ServiceClient } from '../../src/service/client.ts';
import {
  type Answer,
  type Exchange,
  httpTransport,
  type Transport,
} from '../../src/service/transport.ts';
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

/** The wire of the in-process tests: Node's HTTP, counting what is in flight (a fake clock waits for it). */
export function countingTransport(inner: Transport = httpTransport('agent-deploy-action/test')) {
  const transport = {
    inFlight: 0,
    async send(exchange: Exchange): Promise<Answer> {
      transport.inFlight++;
      try {
        return await inner.send(exchange);
      } finally {
        transport.inFlight--;
      }
    },
    dispose: () => inner.dispose(),
  };
  return transport;
}

/** The transport clientOf's clients share. */
export const TEST_TRANSPORT = countingTransport();

/** A client of the simulator with `timeoutMs` to go. */
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
    TEST_TRANSPORT,
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
