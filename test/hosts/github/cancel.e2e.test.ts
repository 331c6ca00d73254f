// A job cancelled on the runner: the runner's SIGINT to the bundled action while it polls. It stops, writes what it
// knows and says the revision keeps going. The rest (a write in flight, verify-url, the exact instants) is
// test/core/cancel.test.ts's and test/deploy/verify.test.ts's, in-process on a fake clock.
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { codehostInputs, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();

/** Sends the child SIGINT as soon as `ready()` is not 0; `sent` tells whether it was, `seen` what `ready` said then. */
function interruptWhen(ready: () => number) {
  const signal = { sent: false, seen: 0 };
  const onSpawn = (child: ChildProcess) => {
    const watch = setInterval(() => {
      const seen = ready();
      if (seen === 0) return;
      clearInterval(watch);
      Object.assign(signal, { sent: true, seen });
      child.kill('SIGINT');
    }, 5);
    child.on('close', () => clearInterval(watch));
  };
  return { signal, onSpawn };
}

describe('on SIGINT', () => {
  it('stops polling during a read that hangs, writes what it knows, says the revision keeps going', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'QUEUED', ms: 100 }, { status: 'BUILDING' }]);
    sim.fault({ method: 'GET', path: /\/revisions\//, hang: true });
    const reads = () => sim.requestsTo('GET', /\/revisions\//).length;
    const { signal, onSpawn } = interruptWhen(reads);

    const run = await runAction({ inputs: codehostInputs(sim, 'my-agent'), onSpawn });

    expect(signal.sent).toBe(true);
    expect(run.code).toBe(1);
    const revisionId = sim.deployment(target.id)!.latest_revision_id!;
    expect(run.outputs).toMatchObject({
      result: 'failed',
      'deployment-id': target.id,
      'revision-id': revisionId,
    });
    expect(run.stdout).toContain('Received SIGINT');
    expect(run.summary).toContain('keeps going on the service');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(`Revision ${revisionId} keeps going on the service`);
    // The read that hung was the last: not retried after the signal.
    expect(reads()).toBe(signal.seen);
  });
});
