// The HTTP layer, the wait and the commands in-process against the simulator: seconds, not a bundle and a child
// process per case. The e2e suites check the same behaviour through dist/.
import { describe, expect, it, vi } from 'vitest';
import { COMMANDS, type Command, type Settings } from '../src/commands/index.ts';
import { newReport } from '../src/core/report.ts';
import { waitForRevision } from '../src/deploy/wait.ts';
import { getRevision, listDeployments } from '../src/service/calls.ts';
import { ServiceClient } from '../src/service/client.ts';
import { DeadlineError, HttpError, ResponseError } from '../src/service/errors.ts';
import { systemClock } from '../src/shared/clock.ts';
import { clientOf, memoryLog, settingsOf, TEST_TRANSPORT } from './helpers/core.ts';
import type { TimelineStep } from './simulator/server.ts';
import { API_KEY, codehostInputs, useSimulator } from './helpers/setup.ts';

const ctx = useSimulator();
let client: ServiceClient | undefined;

describe('the HTTP layer', () => {
  it('retries a read through a short outage and logs it twice: when it starts and when it ends', async () => {
    const log = memoryLog();
    client = clientOf(ctx.sim, log);
    ctx.sim.fault({ method: 'GET', status: 503, times: 3 });

    const page = await client.send(listDeployments({ limit: 1 }));

    expect(page.resources).toEqual([]);
    expect(ctx.sim.requests).toHaveLength(4);
    const info = log.lines.filter((l) => !l.startsWith('debug:'));
    expect(info).toHaveLength(2);
    expect(info[0]).toMatch(
      /^The service answers HTTP 503 to GET \/v2\/deployments; retrying until/,
    );
    expect(info[1]).toMatch(/^The service answers again, after [\d.]+ s and 3 retries\.$/);
  });

  it('does not retry a 404 and names the path', async () => {
    client = clientOf(ctx.sim, memoryLog());
    const dep = ctx.sim.addDeployment({ name: 'a' });
    const missing = '00000000-0000-4000-8000-000000000000';

    const error = await client.send(getRevision(dep.id, missing)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(404);
    expect(ctx.sim.requests).toHaveLength(1);
  });

  it('stops reading a body at the cap', async () => {
    client = clientOf(ctx.sim, memoryLog());
    ctx.sim.fault({
      method: 'GET',
      rawBody: `{"resources":[${'"x",'.repeat(1_200_000)}`,
      contentType: 'application/json',
    });

    const error = await client.send(listDeployments({ limit: 1 })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ResponseError);
    expect((error as Error).message).toContain('answered with a body over 4 MiB');
  });

  it('hides the key when the service echoes it in an error', async () => {
    client = clientOf(ctx.sim, memoryLog());
    ctx.sim.fault({ method: 'GET', status: 400, body: { detail: `bad key ${API_KEY}` } });

    const error = await client.send(listDeployments({ limit: 1 })).catch((e: unknown) => e);

    expect((error as Error).message).toContain('bad key ***');
    expect((error as Error).message).not.toContain(API_KEY);
  });

  it('does not retry a host name that does not resolve: a typo in base-url is not an outage', async () => {
    const log = memoryLog();
    client = ServiceClient.open(
      {
        baseUrl: 'https://service.nope.invalid',
        apiKey: API_KEY,
        requestTimeoutMs: 5000,
        excerpt: (text, max) => text.slice(0, max),
      },
      {
        time: systemClock,
        deadline: systemClock.now() + 60_000,
        signal: new AbortController().signal,
        limit: 'timeout 1m',
      },
      log,
      TEST_TRANSPORT,
    );

    const error = await client.send(listDeployments({ limit: 1 })).catch((e: unknown) => e);

    expect((error as Error).message).toContain('network error ENOTFOUND');
    expect((error as Error).message).toContain('Check base-url');
    expect(log.lines.filter((l) => l.startsWith('The service answers'))).toEqual([]);
  });

  it('sends nothing once the deadline has passed', async () => {
    client = clientOf(ctx.sim, memoryLog(), { timeoutMs: -5000 });

    const error = await client.send(listDeployments({ limit: 1 })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeadlineError);
    expect(ctx.sim.requests).toHaveLength(0);
  });
});

describe('the wait', () => {
  /** Waits (poll-interval 1 s) on a new revision of a new deployment that lives through `timeline`. */
  const waitThrough = (timeline: TimelineStep[], options: Parameters<typeof clientOf>[2] = {}) => {
    client = clientOf(ctx.sim, memoryLog(), options);
    const dep = ctx.sim.addDeployment({ name: 'a' });
    const rev = ctx.sim.addRevision(dep.id, timeline);
    return waitForRevision(
      client,
      { deploymentId: dep.id, revisionId: rev.id },
      { pollIntervalMs: 1000, triggeredAt: systemClock.now(), fresh: true },
      memoryLog(),
    );
  };

  it('returns what it saw: the outcome, the last revision and the timeline', async () => {
    const watch = await waitThrough([
      { status: 'QUEUED', ms: 300 },
      { status: 'BUILDING', ms: 300 },
      { status: 'DEPLOYED' },
    ]);

    expect(watch.outcome).toBe('deployed');
    expect(watch.revision?.status).toBe('DEPLOYED');
    expect(watch.timeline.map((t) => t.status).at(-1)).toBe('DEPLOYED');
    expect(watch.endedAt).toBeGreaterThanOrEqual(watch.startedAt);
  });

  it('ends timed-out at the deadline, naming the last status it read', async () => {
    const watch = await waitThrough([{ status: 'BUILDING' }], { timeoutMs: 1500 });

    expect(watch.outcome).toBe('timed-out');
    expect(watch.revision?.status).toBe('BUILDING');
  });

  it('answers cancelled when the job is cancelled, keeping what it saw', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 700);

    const watch = await waitThrough([{ status: 'BUILDING' }], { signal: controller.signal });

    expect(watch.outcome).toBe('cancelled');
    expect(watch.revision?.status).toBe('BUILDING');
  });
});

/** A command run in-process the way the run does it: the run's deadline is `timeout` from now. */
const run = async (inputs: Record<string, string>, signal?: AbortSignal) => {
  const settings = await settingsOf(inputs, {
    GITHUB_REPOSITORY: 'acme/agent',
    GITHUB_REF_NAME: 'main',
  });
  const report = newReport(settings.command);
  const log = memoryLog();
  client = clientOf(ctx.sim, log, { timeoutMs: settings.timeoutMs, signal });
  const command = COMMANDS[settings.command] as Command<Settings>;
  await command.run({ client, report, log, transport: TEST_TRANSPORT }, settings);
  return report;
};

describe('the commands', () => {
  it('deploy updates an existing deployment and records the revision it waited for', async () => {
    const dep = ctx.sim.addDeployment({ name: 'my-agent' });
    const before = dep.active_revision_id;
    ctx.sim.timelines.push([{ status: 'BUILDING', ms: 200 }, { status: 'DEPLOYED' }]);

    const report = await run(codehostInputs(ctx.sim, 'my-agent'));

    expect(report).toMatchObject({ result: 'deployed', ok: true, revisionCreated: true });
    expect(report.previousRevisionId).toBe(before);
    expect(report.revision?.status).toBe('DEPLOYED');
    expect(ctx.sim.deployment(dep.id)!.active_revision_id).toBe(report.revisionId);
  });

  it('a rollback has a window of its own and leaves the report about the failed revision', async () => {
    const dep = ctx.sim.addDeployment({ name: 'my-agent' });
    const previous = dep.active_revision_id!;
    ctx.sim.timelines.push([{ status: 'BUILD_FAILED' }]);

    const report = await run(
      codehostInputs(ctx.sim, 'my-agent', { 'rollback-on-failure': 'true' }),
    );

    expect(report.result).toBe('rolled-back');
    expect(report.revision?.status).toBe('BUILD_FAILED');
    expect(report.revisionId).not.toBe(previous);
    expect(report.rollback).toMatchObject({ revisionId: previous, ok: true });
  });

  it('a dry run plans the very call a run would send', async () => {
    const dep = ctx.sim.addDeployment({ name: 'my-agent' });

    const report = await run(codehostInputs(ctx.sim, 'my-agent', { 'dry-run': 'true' }));

    expect(report.result).toBe('planned');
    expect(report.plan).toMatchObject({
      action: 'update',
      method: 'PATCH',
      path: `/v2/deployments/${dep.id}`,
    });
    expect(ctx.sim.writes()).toEqual([]);
  });

  it('status reads the latest revision and writes nothing', async () => {
    const dep = ctx.sim.addDeployment({ name: 'my-agent' });

    const report = await run({ ...codehostInputs(ctx.sim, 'my-agent'), command: 'status' });

    expect(report).toMatchObject({ result: 'deployed', revisionId: dep.latest_revision_id });
    expect(ctx.sim.writes()).toEqual([]);
  });
});

describe('deadlines run on a monotonic clock', () => {
  it.each([
    ['forward', 3_600_000],
    ['back', -3_600_000],
  ])(
    'the wall clock jumping an hour %s mid-wait neither ends the wait at once nor lifts timeout',
    async (_, jumpMs) => {
      ctx.sim.addDeployment({ name: 'my-agent' });
      ctx.sim.timelines.push([{ status: 'BUILDING' }]);
      const wall = Date.now.bind(Date);
      let offset = 0;
      const spy = vi.spyOn(Date, 'now').mockImplementation(() => wall() + offset);
      // The first status read moves the wall clock (the runner's NTP step, a VM resumed).
      ctx.sim.onAnswer = (request) => {
        if (request.path.includes('/revisions/')) offset = jumpMs;
      };
      // A timeout left unenforced would wait for ever: a cancel ends it instead (outcome 'cancelled').
      const guard = new AbortController();
      const timer = setTimeout(() => guard.abort(), 8000);
      try {
        const report = await run(
          codehostInputs(ctx.sim, 'my-agent', { timeout: '2s', 'poll-interval': '1s' }),
          guard.signal,
        );

        expect(offset).toBe(jumpMs);
        expect(report.result).toBe('timed-out');
        // Reads 0.25 s, 0.75 s and 1.75 s after the PATCH and one on the deadline: the whole 2 s, not one read more
        // after the jump (a deadline on the wall clock passed at once).
        const reads = ctx.sim.requestsTo('GET', /\/revisions\//).length;
        expect(reads).toBeGreaterThanOrEqual(3);
        expect(reads).toBeLessThanOrEqual(5);
      } finally {
        clearTimeout(timer);
        spy.mockRestore();
        ctx.sim.onAnswer = undefined;
      }
    },
  );
});
