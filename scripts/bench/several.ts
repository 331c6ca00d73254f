// `npm run bench`'s line for several deployments in one step (issue 22): 20 deployments against the simulator
// limited to 8 requests/s, as one step (one service client, whose 429s hold every item) and as 20 processes started
// together (a matrix: each its own client), both through the bundle, in the same run: requests, 429s, wall time.
import { type ActionRun, runAction } from '../../test/helpers/action.ts';
import type { Simulator, TimelineStep } from '../../test/simulator/server.ts';

const COUNT = 20;
const PER_SECOND = 8;
const INTEGRATION = '11111111-1111-4111-8111-111111111111';
/** A short build: the requests are what is measured, not the wait. */
const TIMELINE: TimelineStep[] = [
  { status: 'QUEUED', ms: 1000 },
  { status: 'BUILDING', ms: 3000 },
  { status: 'DEPLOYING', ms: 1000 },
  { status: 'DEPLOYED' },
];

export interface SeveralRow {
  how: string;
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

function inputs(sim: Simulator, extra: Record<string, string>): Record<string, string> {
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
  how: string,
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
      throw new Error(`bench: ${how} did not deploy\n${r.stdout}\n${r.stderr}`);
  return {
    how,
    requests: sim.requests.length,
    limited: sim.answered.get(429) ?? 0,
    wallMs,
  };
}

export async function severalDeployments(sim: Simulator): Promise<Several> {
  const list = JSON.stringify(names.map((name) => ({ name })));
  const step = (parallel: number) => () =>
    Promise.all([
      runAction({
        inputs: inputs(sim, { deployments: list, 'max-parallel': String(parallel) }),
        killAfterMs: 600_000,
      }),
    ]);
  const rows = [
    await measure(sim, 'one step, max-parallel 4', step(4)),
    await measure(sim, 'one step, max-parallel 16', step(16)),
    await measure(sim, `${COUNT} processes at once`, () =>
      Promise.all(
        names.map((name) => runAction({ inputs: inputs(sim, { name }), killAfterMs: 600_000 })),
      ),
    ),
  ];
  return { count: COUNT, perSecond: PER_SECOND, rows };
}
