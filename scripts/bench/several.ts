// 20 deployments against the simulator limited to 8 requests/s (issues 22 and 33): as one step with `deployments`
// (one service client, one pace for all its requests) at max-parallel 4, 8 and 16, and as 20 processes started
// together (a matrix: each its own client), all through the bundle, in the same run: requests, requests per
// deployment, 429s and their share of the requests, wall time. `npm run bench` and `npm run load` print it.
import { type ActionRun, runAction } from '../../test/helpers/action.ts';
import type { Simulator, TimelineStep } from '../../test/simulator/server.ts';

const COUNT = 20;
const PER_SECOND = 8;
/** The max-parallel values of the one-step rows. */
const PARALLEL = [4, 8, 16];
const INTEGRATION = '11111111-1111-4111-8111-111111111111';
/** A short build: the requests are what is measured, not the wait. */
export const TIMELINE: TimelineStep[] = [
  { status: 'QUEUED', ms: 1000 },
  { status: 'BUILDING', ms: 3000 },
  { status: 'DEPLOYING', ms: 1000 },
  { status: 'DEPLOYED' },
];

export interface SeveralRow {
  how: string;
  /** max-parallel of a one-step row; absent for the processes. */
  parallel?: number;
  requests: number;
  limited: number;
  wallMs: number;
}

export interface Several {
  count: number;
  perSecond: number;
  rows: SeveralRow[];
}

const names = Array.from({ length: COUNT }, (_, i) => `agent-${String(i + 1).padStart(2, '0')}`);

/** A codehost deploy's inputs for the simulator `sim`, with `extra`. */
export function inputs(sim: Simulator, extra: Record<string, string>): Record<string, string> {
  return {
    'base-url': sim.url,
    'api-key': sim.apiKey,
    'integration-id': INTEGRATION,
    'graph-config-path': 'graph.json',
    'poll-interval': '2s',
    timeout: '5m',
    ...extra,
  };
}

/** The simulator emptied, the 20 deployments seeded, the rate limit on; then `run`, measured. */
async function measure(
  sim: Simulator,
  row: { how: string; parallel?: number },
  run: () => Promise<ActionRun[]>,
): Promise<SeveralRow> {
  sim.reset();
  for (const name of names) sim.addDeployment({ name });
  sim.defaultTimeline = TIMELINE;
  sim.rateLimit = { perSecond: PER_SECOND, retryAfterSeconds: 1 };
  const started = Date.now();
  const runs = await run();
  const wallMs = Date.now() - started;
  for (const r of runs)
    if (r.code !== 0 || r.outputs.result !== 'deployed')
      throw new Error(`bench: ${row.how} did not deploy\n${r.stdout}\n${r.stderr}`);
  return {
    ...row,
    requests: sim.requests.length,
    limited: sim.answered.get(429) ?? 0,
    wallMs,
  };
}

export async function severalDeployments(sim: Simulator): Promise<Several> {
  const list = JSON.stringify(names.map((name) => ({ name })));
  const rows: SeveralRow[] = [];
  for (const parallel of PARALLEL)
    rows.push(
      await measure(sim, { how: `one step, max-parallel ${parallel}`, parallel }, () =>
        Promise.all([
          runAction({
            inputs: inputs(sim, { deployments: list, 'max-parallel': String(parallel) }),
            killAfterMs: 600_000,
          }),
        ]),
      ),
    );
  rows.push(
    await measure(sim, { how: `${COUNT} separate runs at once` }, () =>
      Promise.all(
        names.map((name) => runAction({ inputs: inputs(sim, { name }), killAfterMs: 600_000 })),
      ),
    ),
  );
  return { count: COUNT, perSecond: PER_SECOND, rows };
}

/** The rows as a table's: a header, then one line per way of running them. */
export function severalTable(s: Several): string[][] {
  return [
    ['', 'requests', 'per deployment', '429s', 'share of 429s', 'wall time'],
    ...s.rows.map((row) => [
      row.how,
      String(row.requests),
      (row.requests / s.count).toFixed(1),
      String(row.limited),
      `${((100 * row.limited) / row.requests).toFixed(1)} %`,
      `${(row.wallMs / 1000).toFixed(2)} s`,
    ]),
  ];
}
