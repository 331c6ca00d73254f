// Small pieces the in-process tests share: a logger that keeps its lines, sinks with secrets, a counted transport,
// and the settings the GitHub runner would give.
import { parseSettings, type Settings } from '../../src/commands/index.ts';
import type { Logger } from '../../src/core/logger.ts';
import { readContext } from '../../src/hosts/github/context.ts';
import {
  type Answer,
  type Exchange,
  httpTransport,
  type Transport,
} from '../../src/service/transport.ts';
import { Redactor } from '../../src/shared/redact.ts';
import { Sinks } from '../../src/core/sinks.ts';

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

/** The settings a run on the GitHub runner would get from these inputs and runner variables. */
export async function settingsOf(
  inputs: Record<string, string>,
  env: NodeJS.ProcessEnv = {},
): Promise<Settings> {
  const { host } = readContext(env, process.cwd());
  return (await parseSettings((name) => inputs[name] ?? '', host)).settings;
}
