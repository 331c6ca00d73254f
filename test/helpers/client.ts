// The service client alone, on a world's clock and wire (helpers/run.ts): for tests of one layer below the run,
// the HTTP client and the wait, where a retry's backoff or a poll's gap takes no real time.
import type { Logger } from '../../src/core/logger.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { sinksWith } from './core.ts';
import type { World } from './run.ts';
import { API_KEY } from './setup.ts';

/** A client of the world's simulator with `timeoutMs` (20 s) to go from now; requests cut at the run's 30 s. */
export function clientIn(
  world: World,
  log: Logger,
  options: {
    timeoutMs?: number;
    signal?: AbortSignal;
    baseUrl?: string;
  } = {},
): ServiceClient {
  return ServiceClient.open(
    {
      baseUrl: options.baseUrl ?? world.sim.url,
      apiKey: API_KEY,
      requestTimeoutMs: 30_000,
      excerpt: (text, max) => sinksWith(API_KEY).excerpt(text, max),
    },
    {
      time: world.clock,
      deadline: world.clock.now() + (options.timeoutMs ?? 20_000),
      signal: options.signal ?? new AbortController().signal,
      limit: 'timeout (test)',
    },
    log,
    world.transport,
  );
}
