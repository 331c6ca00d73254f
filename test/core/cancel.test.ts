// A cancelled job (the runner's SIGINT): the run stops where it is, lets a write in flight finish, writes the outputs
// it knows and says the revision keeps going on the service. In-process on a fake clock, the cancel comes at an exact
// instant, so "at once" is exact too; test/hosts/github/cancel.e2e.test.ts sends the real signal to dist/.
import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs } from '../helpers/setup.ts';

const ctx = useWorld();

describe('a cancelled job', () => {
  it.each([
    ['between two reads', false],
    ['during a read that hangs', true],
  ])('stops polling %s, writes what it knows, says the revision keeps going', async (_, hang) => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'QUEUED', ms: 100 }, { status: 'BUILDING' }]);
    if (hang) sim.fault({ method: 'GET', path: /\/revisions\//, hang: true });
    // Half-way through a poll-interval of 1 s; or through a read that hangs (its own limit is 30 s).
    const cancelAt = ctx.clock.wall() + 1500;

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(sim, 'my-agent'),
      cancelAfterMs: 1500,
    });

    expect(run.code).toBe(1);
    expect(run.ms).toBe(1500);
    const revisionId = sim.deployment(target.id)!.latest_revision_id!;
    expect(run.outputs).toMatchObject({
      result: 'failed',
      'deployment-id': target.id,
      'revision-id': revisionId,
    });
    expect(run.stdout).toContain('Received SIGINT: stopping now.');
    expect(run.summary).toContain('keeps going on the service');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('The job was cancelled.');
    expect(run.errors[0]).toContain(`Revision ${revisionId} keeps going on the service`);
    // Polling stopped: no revision read after the cancel (the one that hangs was sent before it).
    const reads = sim.requestsTo('GET', /\/revisions\//);
    expect(reads.length).toBeGreaterThan(0);
    if (hang) expect(reads).toHaveLength(1);
    expect(reads.filter((r) => r.at >= cancelAt)).toEqual([]);
  });

  it('lets a write in flight finish, so the outputs name the revision it made', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    const before = target.latest_revision_id!;
    // The PATCH is answered a second after it arrives; the cancel comes half-way.
    sim.fault({ method: 'PATCH', delayMs: 1000, afterEffect: true });

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(sim, 'my-agent'),
      cancelAfterMs: 500,
    });

    expect(run.code).toBe(1);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    // Not a moment longer than the write took.
    expect(run.ms).toBe(1000);
    const revisionId = sim.deployment(target.id)!.latest_revision_id!;
    expect(revisionId).not.toBe(before);
    expect(run.outputs).toMatchObject({
      'deployment-id': target.id,
      'revision-id': revisionId,
      'revision-created': 'true',
    });
    expect(run.summary).toContain(`Revision ${revisionId} keeps going on the service`);
    expect(sim.requestsTo('GET', /\/revisions\//)).toEqual([]);
  });
});
