// The deterministic simulation (test/sim/) on a fixed budget: schedules of faults, races and clocks drawn from
// seeds, each run by the real core on the fake clock and the in-memory wire, and checked against the invariants.
// `npm run simulate -- --seeds N` explores more; CI runs 2000.
import { describe, expect, it } from 'vitest';
import type { Transport } from '../../src/service/transport.ts';
import { report, simulate, transcript } from './simulate.ts';

/** Seeds 1 to BUDGET: a few seconds. */
const BUDGET = 200;

describe('the deterministic simulation', () => {
  it('replays a seed exactly: the same request log, service states and outputs, byte for byte', async () => {
    for (const seed of [3, 34, 1339]) {
      const first = transcript((await simulate(seed)).outcome);
      const again = transcript((await simulate(seed)).outcome);
      expect(again).toBe(first);
    }
    // Another seed is another schedule.
    expect(transcript((await simulate(4)).outcome)).not.toBe(
      transcript((await simulate(3)).outcome),
    );
  });

  it(`breaks no invariant in ${BUDGET} schedules (the known bugs of known.ts aside)`, async () => {
    const broken: string[] = [];
    for (let seed = 1; seed <= BUDGET; seed++) {
      const verdict = await simulate(seed);
      if (verdict.violations.length) broken.push(report(verdict).join('\n'));
    }
    expect(broken).toEqual([]);
  });

  // Seeds beyond the budget that found a bug, each replayed after its fix (with the rule it broke).
  it.each([
    [877, 'created-flags: a cancel while the PATCH waited its turn said it may have been applied'],
    [5026, 'created-flags: a lost create found with other values left revision-created false'],
    [
      2373,
      "created-flags: a PATCH answered late, another job's redeploy of the old latest over it, said no-change",
    ],
    [3813, "created-flags: the same, the PATCH's answer the deployment as it was before"],
    [
      8069,
      'created-flags: a PATCH lost, the old latest redeployed by another job, revision-created false',
    ],
  ])('seed %i holds (%s)', async (seed) => {
    const verdict = await simulate(seed);
    expect(verdict.violations, report(verdict).join('\n')).toEqual([]);
  });

  it('catches a client that sends every write twice', async () => {
    // The wire each run gets, wrapped so that every create, PATCH, redeploy and token update goes out twice.
    const twice = (inner: Transport): Transport => ({
      async send(exchange) {
        if (exchange.method !== 'GET') await inner.send(exchange).catch(() => undefined);
        return inner.send(exchange);
      },
      dispose: () => inner.dispose(),
    });
    const seen = new Set<string>();
    for (let seed = 1; seed <= 20; seed++)
      for (const v of (await simulate(seed, { wrap: twice })).violations) seen.add(v.invariant);
    expect([...seen]).toEqual(expect.arrayContaining(['no-blind-resend', 'created-flags']));
  });
});
