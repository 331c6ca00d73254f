// The service client alone, on the fake clock: which failures it retries and how it says so, what it refuses to
// read, what it hides, and that nothing is sent past the deadline.
import { describe, expect, it } from 'vitest';
import { getRevision, listDeployments } from '../../src/service/calls.ts';
import { DeadlineError, HttpError, ResponseError } from '../../src/service/errors.ts';
import { clientIn } from '../helpers/client.ts';
import { memoryLog } from '../helpers/core.ts';
import { useWorld } from '../helpers/run.ts';
import { API_KEY } from '../helpers/setup.ts';

const world = useWorld();

describe('the service client', () => {
  it('retries a read through a short outage and logs it twice: when it starts and when it ends', async () => {
    const log = memoryLog();
    const client = clientIn(world, log);
    world.sim.fault({ method: 'GET', status: 503, times: 3 });

    const page = await client.send(listDeployments({ limit: 1 }));

    expect(page.resources).toEqual([]);
    expect(world.sim.requests).toHaveLength(4);
    const info = log.lines.filter((l) => !l.startsWith('debug:'));
    expect(info).toHaveLength(2);
    expect(info[0]).toMatch(
      /^The service answers HTTP 503 to GET \/v2\/deployments; retrying until \d\d:\d\d:\d\d UTC/,
    );
    expect(info[1]).toMatch(/^The service answers again, after [\d.]+ s and 3 retries\.$/);
  });

  it('does not retry a 404 and names the path', async () => {
    const client = clientIn(world, memoryLog());
    const dep = world.sim.addDeployment({ name: 'a' });
    const missing = '00000000-0000-4000-8000-000000000000';

    const error = await client.send(getRevision(dep.id, missing)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(404);
    expect((error as Error).message).toContain(`/v2/deployments/${dep.id}/revisions/${missing}`);
    expect(world.sim.requests).toHaveLength(1);
  });

  it('stops reading a body at the cap', async () => {
    const client = clientIn(world, memoryLog());
    world.sim.fault({
      method: 'GET',
      rawBody: `{"resources":[${'"x",'.repeat(1_200_000)}`,
      contentType: 'application/json',
    });

    const error = await client.send(listDeployments({ limit: 1 })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ResponseError);
    expect((error as Error).message).toContain('answered with a body over 4 MiB');
  });

  it('hides the key when the service echoes it in an error', async () => {
    const client = clientIn(world, memoryLog());
    world.sim.fault({ method: 'GET', status: 400, body: { detail: `bad key ${API_KEY}` } });

    const error = await client.send(listDeployments({ limit: 1 })).catch((e: unknown) => e);

    expect((error as Error).message).toContain('bad key ***');
    expect((error as Error).message).not.toContain(API_KEY);
  });

  it('does not retry a host name that does not resolve: a typo in base-url is not an outage', async () => {
    const log = memoryLog();
    const client = clientIn(world, log, {
      baseUrl: 'https://service.nope.invalid',
      timeoutMs: 60_000,
    });

    const error = await client.send(listDeployments({ limit: 1 })).catch((e: unknown) => e);

    expect((error as Error).message).toContain('network error ENOTFOUND');
    expect((error as Error).message).toContain('Check base-url');
    expect(log.lines.filter((l) => l.startsWith('The service answers'))).toEqual([]);
  });

  it('sends nothing once the deadline has passed', async () => {
    const client = clientIn(world, memoryLog(), { timeoutMs: -5000 });

    const error = await client.send(listDeployments({ limit: 1 })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeadlineError);
    expect(world.sim.requests).toHaveLength(0);
  });
});
