// The wait's progress events: what a host with a live display (the command line on a terminal) draws from.
import { describe, expect, it } from 'vitest';
import type { Progress } from '../../src/core/logger.ts';
import { waitForRevision } from '../../src/deploy/wait.ts';
import { clientIn } from '../helpers/client.ts';
import { memoryLog } from '../helpers/core.ts';
import { useWorld } from '../helpers/run.ts';

const world = useWorld();

describe('the progress of a wait', () => {
  const waitWith = async (
    timeline: Parameters<typeof world.sim.addRevision>[1],
    timeoutMs = 20_000,
  ) => {
    const updates: Progress[] = [];
    const log = { ...memoryLog(), progress: (update: Progress) => updates.push(update) };
    const client = clientIn(world, log, { timeoutMs });
    const dep = world.sim.addDeployment({ name: 'a' });
    const rev = world.sim.addRevision(dep.id, timeline);
    const watch = await waitForRevision(
      client,
      { deploymentId: dep.id, revisionId: rev.id },
      { pollIntervalMs: 1000, triggeredAt: world.clock.now(), fresh: true },
      log,
    );
    return { updates, watch, ids: { deploymentId: dep.id, revisionId: rev.id } };
  };

  it('is each read, with the status and when it was entered, then one last update that ends it', async () => {
    const { updates, watch, ids } = await waitWith([
      { status: 'QUEUED', ms: 300 },
      { status: 'DEPLOYED' },
    ]);

    // Reads 250 ms (QUEUED) and 750 ms (DEPLOYED) after the trigger, then the end.
    expect(updates.map((u) => [u.status, u.done ?? false])).toEqual([
      ['QUEUED', false],
      ['DEPLOYED', false],
      ['DEPLOYED', true],
    ]);
    for (const update of updates) expect(update).toMatchObject(ids);
    expect(updates.slice(0, -1).every((u) => !u.done)).toBe(true);
    const last = updates.at(-1)!;
    expect(last).toMatchObject({ status: 'DEPLOYED', done: true });
    // Each status's `since` is the timeline's: when this wait first saw it.
    for (const update of updates)
      expect(watch.timeline.find((t) => t.status === update.status)?.since).toBe(update.since);
  });

  it('ends also when the wait times out', async () => {
    const { updates } = await waitWith([{ status: 'BUILDING' }], 600);

    expect(updates.at(-1)).toMatchObject({ status: 'BUILDING', done: true });
    expect(updates.filter((u) => u.done)).toHaveLength(1);
  });
});
