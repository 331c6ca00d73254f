// A job cancelled on the runner: the runner's SIGINT to the bundled action while it polls, while a write is in
// flight, and while it checks verify-url. Each case stops, writes what it knows and says the revision keeps going;
// the exact instants are test/core/cancel.test.ts's and test/deploy/verify.test.ts's, in-process on a fake clock.
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { useAgent } from '../../helpers/agent.ts';
import { codehostInputs, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();
const agentCtx = useAgent();

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

  it('lets a write in flight finish, so the outputs name the revision it made', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    const before = target.latest_revision_id!;
    // Held a second: the signal comes while it is on the wire.
    sim.fault({ method: 'PATCH', delayMs: 1000, afterEffect: true });
    const { signal, onSpawn } = interruptWhen(() => sim.requestsTo('PATCH').length);

    const run = await runAction({ inputs: codehostInputs(sim, 'my-agent'), onSpawn });

    expect(signal.sent).toBe(true);
    expect(run.code).toBe(1);
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

  it('stops checking verify-url, like the wait, and says the revision keeps going', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;
    sim.addDeployment({ name: 'my-agent' });
    agent.script = [{ status: 503 }];
    const { signal, onSpawn } = interruptWhen(() => agent.requests.length);

    const run = await runAction({
      inputs: codehostInputs(sim, 'my-agent', {
        'verify-url': `${agent.url}/ok`,
        'verify-timeout': '1m',
      }),
      onSpawn,
    });

    expect(signal.sent).toBe(true);
    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('The job was cancelled.');
    expect(run.errors[0]).toContain(
      `Revision ${run.outputs['revision-id']!} keeps going on the service`,
    );
    // Ignored, the signal would leave the check going for its minute, and then fail it as a check, not a cancel.
  });
});
