// The wait on a revision: polled until a terminal status, the deadline or a cancel, on the fake clock, so every
// read and every end is at an exact time. The statuses' verdicts, the run's deadline on the monotonic clock.
import { describe, expect, it, vi } from 'vitest';
import { waitForRevision } from '../../src/deploy/wait.ts';
import { clientIn } from '../helpers/client.ts';
import { memoryLog } from '../helpers/core.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs } from '../helpers/setup.ts';
import type { TimelineStep } from '../simulator/server.ts';

const world = useWorld();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, name, extra);

describe('the wait', () => {
  /** Waits (poll-interval 1 s) on a new revision of a new deployment that lives through `timeline`. */
  const waitThrough = (timeline: TimelineStep[], options: Parameters<typeof clientIn>[2] = {}) => {
    const client = clientIn(world, memoryLog(), options);
    const dep = world.sim.addDeployment({ name: 'a' });
    const rev = world.sim.addRevision(dep.id, timeline);
    return waitForRevision(
      client,
      { deploymentId: dep.id, revisionId: rev.id },
      { pollIntervalMs: 1000, triggeredAt: world.clock.now(), fresh: true },
      memoryLog(),
    );
  };

  it('returns what it saw: the outcome, the last revision and the timeline', async () => {
    const watch = await waitThrough([
      { status: 'QUEUED', ms: 300 },
      { status: 'BUILDING', ms: 1000 },
      { status: 'DEPLOYED' },
    ]);

    expect(watch.outcome).toBe('deployed');
    expect(watch.revision?.status).toBe('DEPLOYED');
    expect(watch.timeline.map((t) => t.status)).toEqual(['QUEUED', 'BUILDING', 'DEPLOYED']);
    // Reads after gaps of 250, 500 and 1000 ms: BUILDING is seen at 750, DEPLOYED (due at 1300) at
    // 1750; the first status starts at the trigger.
    expect(watch.timeline.map((t) => t.since - watch.startedAt)).toEqual([0, 750, 1750]);
    expect(watch.endedAt - watch.startedAt).toBe(1750);
  });

  it('ends timed-out at the deadline, naming the last status it read', async () => {
    const start = world.clock.now();
    const watch = await waitThrough([{ status: 'BUILDING' }], { timeoutMs: 1500 });

    expect(watch.outcome).toBe('timed-out');
    expect(watch.revision?.status).toBe('BUILDING');
    expect(watch.endedAt).toBe(start + 1500);
  });

  it('a status read the deadline cuts ends the run timed-out, naming the last status, not failed', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING' }]);
    // Reads answer until 1.5 s in; the read on the 2 s deadline gets no answer before the request is cut.
    sim.fault({ method: 'GET', path: /\/revisions\//, hang: true, fromMs: 1500, times: 5 });

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { timeout: '2s', 'poll-interval': '1s' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'timed-out', 'revision-status': 'BUILDING' });
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('BUILDING');
  });

  it('answers cancelled when the job is cancelled, keeping what it saw', async () => {
    const controller = new AbortController();
    const start = world.clock.now();
    void world.clock.sleep(700).then(() => controller.abort());

    const watch = await waitThrough([{ status: 'BUILDING' }], { signal: controller.signal });

    expect(watch.outcome).toBe('cancelled');
    expect(watch.revision?.status).toBe('BUILDING');
    expect(world.clock.now()).toBe(start + 700);
  });

  it('waits through a status it does not know, logging it once', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([
      { status: 'QUEUED', ms: 50 },
      { status: 'WARMING_UP', ms: 1500 },
      { status: 'DEPLOYED' },
    ]);

    const run = await runInProcess(world, { inputs: codehost('my-agent') });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('deployed');
    expect(run.stdout.match(/WARMING_UP is not one this action knows/g)).toHaveLength(1);
    expect(run.report.timeline.map((t) => t.status)).toContain('WARMING_UP');
  });

  it.each([
    ['SKIPPED', 'false', 1, 'skipped'],
    ['SKIPPED', 'true', 0, 'skipped'],
    ['INTERRUPTED', 'false', 1, 'failed'],
  ])(
    'a revision ending %s with allow-skipped %s exits %i with result %s',
    async (status, allow, code, result) => {
      const { sim } = world;
      sim.addDeployment({ name: 'my-agent' });
      sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status }]);

      const run = await runInProcess(world, {
        inputs: codehost('my-agent', { 'allow-skipped': allow }),
      });

      expect(run.code).toBe(code);
      expect(run.outputs).toMatchObject({ result, 'revision-status': status });
    },
  );
});

describe('deadlines run on the monotonic clock', () => {
  it.each([
    ['forward', 3_600_000],
    ['back', -3_600_000],
  ])(
    'the wall clock jumping an hour %s mid-wait neither ends the wait at once nor lifts timeout',
    async (_, jumpMs) => {
      const { sim, clock } = world;
      sim.addDeployment({ name: 'my-agent' });
      sim.timelines.push([{ status: 'BUILDING' }]);
      // The first status read moves the wall clock (the runner's NTP step, a VM resumed): the run's clock's wall
      // time, and Date.now for any code that would read it behind the clock's back.
      let offset = 0;
      const wall = clock.wall.bind(clock);
      const date = Date.now.bind(Date);
      const spies = [
        vi.spyOn(clock, 'wall').mockImplementation(() => wall() + offset),
        vi.spyOn(Date, 'now').mockImplementation(() => date() + offset),
      ];
      sim.onAnswer = (request) => {
        if (request.path.includes('/revisions/')) offset = jumpMs;
      };
      try {
        // A timeout left unenforced would wait for ever: the cancel 8 s in ends it instead (result failed).
        const run = await runInProcess(world, {
          inputs: codehost('my-agent', { timeout: '2s', 'poll-interval': '1s' }),
          cancelAfterMs: 8000,
        });

        expect(offset).toBe(jumpMs);
        expect(run.outputs.result).toBe('timed-out');
        expect(run.ms).toBe(2000);
        // Reads 0.25 s, 0.75 s and 1.75 s after the PATCH and one on the deadline: the whole 2 s, not one read more
        // after the jump (a deadline on the wall clock passed at once).
        const ours = run.outputs['revision-id']!;
        expect(
          sim.requestsTo('GET', /\/revisions\//).filter((r) => r.path.endsWith(ours)),
        ).toHaveLength(4);
      } finally {
        for (const spy of spies) spy.mockRestore();
        sim.onAnswer = undefined;
      }
    },
  );
});
