// `npm run load`: the bundled action against a rate-limited service, in two parts. A measurement, not a test.
// - fleet: 20 deployments against 8 requests/s, as one step with `deployments` at max-parallel 4, 8 and 16 and as 20
//   separate runs at once (bench/several.ts): the requests, the requests per deployment and the share answered 429.
// - matrix: many processes at once, as a matrix of agents deploying from one workflow would be: how the jobs ended,
//   the requests they made and the wall time against the ideal (total requests ÷ rate).
// It exits non-zero when a job did not end `deployed`.
//   npm run load -- [fleet | matrix] [--jobs 40] [--rate 8] [--retry-after 1] [--timeout 5m] [--poll-interval 10s]
// The flags are the matrix's. Its jobs alternate: even ones update an existing deployment, odd ones create a new one.
// AGENT_DEPLOY_DIST points at another build.
import { parseArgs } from 'node:util';
import { DIST, runAction, type ActionRun } from '../test/helpers/action.ts';
import { Simulator, type TimelineStep } from '../test/simulator/server.ts';
import { severalDeployments, severalTable } from './bench/several.ts';
import { table } from './bench/table.ts';

const API_KEY = 'load-api-key';
const INTEGRATION = '11111111-1111-4111-8111-111111111111';
// Every revision goes live 5 s after the write that made it.
const TIMELINE: TimelineStep[] = [
  { status: 'QUEUED', ms: 1000 },
  { status: 'BUILDING', ms: 2000 },
  { status: 'DEPLOYING', ms: 2000 },
  { status: 'DEPLOYED' },
];

function fail(msg: string): never {
  console.error(`load: ${msg}`);
  process.exit(2);
}

/** `90`, `90s`, `5m`, `1h` or `500ms` in milliseconds, like the action's `timeout`. */
function duration(flag: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) fail(`bad --${flag} ${text} (want e.g. 90s or 5m)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's']!;
  return Number(m[1]) * unit;
}

function positive(flag: string, text: string, integer: boolean): number {
  const n = Number(text);
  if (!(n > 0) || (integer && !Number.isInteger(n))) fail(`bad --${flag} ${text}`);
  return n;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    jobs: { type: 'string', default: '40' },
    rate: { type: 'string', default: '8' },
    'retry-after': { type: 'string', default: '1' },
    timeout: { type: 'string', default: '5m' },
    'poll-interval': { type: 'string', default: '10s' },
  },
  strict: true,
});
const PARTS = ['fleet', 'matrix'];
if (positionals.length > 1 || positionals.some((p) => !PARTS.includes(p)))
  fail(`${positionals.join(' ')}: use npm run load [-- fleet | matrix] [flags]`);
const only = positionals[0];
const jobs = positive('jobs', values.jobs, true);
const rate = positive('rate', values.rate, false);
const retryAfter = Number(values['retry-after']);
if (!Number.isInteger(retryAfter) || retryAfter < 0) fail(`bad --retry-after ${retryAfter}`);
const timeoutMs = duration('timeout', values.timeout);
duration('poll-interval', values['poll-interval']);

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const nameOf = (i: number) => `load-agent-${i}`;

interface Job {
  name: string;
  creates: boolean;
  run: ActionRun;
}

/** The first error line of a run, with what differs between jobs (ids, names) made alike so that it deduplicates. */
function firstError(run: ActionRun): string {
  const line =
    run.errors[0]?.split('\n')[0] ||
    run.stderr.trim().split('\n')[0] ||
    (run.code === null ? 'killed' : `exit ${run.code} without an error line`);
  return line
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/load-agent-\d+/g, '<name>');
}

const outcome = (run: ActionRun) =>
  run.outputs.result || (run.code === null ? 'killed' : `exit ${run.code}, no result`);

function countBy<T>(items: T[], key: (x: T) => string | number): Map<string | number, number> {
  const m = new Map<string | number, number>();
  for (const x of items) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
}

/** 20 deployments in one step and as 20 runs: the rows of bench/several.ts. */
async function fleet(sim: Simulator): Promise<void> {
  console.log(`Fleet: 20 deployments of ${DIST} against the simulator limited to 8 requests/s`);
  console.log(
    '  one step with deployments at max-parallel 4, 8 and 16, then 20 separate runs at once; 429 with Retry-After: 1 beyond the limit',
  );
  const several = await severalDeployments(sim);
  console.log(`\n${table(severalTable(several))}\n`);
}

/** `jobs` processes at once; false when one did not deploy. */
async function matrix(sim: Simulator): Promise<boolean> {
  sim.reset();
  sim.rateLimit = { perSecond: rate, retryAfterSeconds: retryAfter };
  sim.defaultTimeline = TIMELINE;
  sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
  for (let i = 0; i < jobs; i += 2) sim.addDeployment({ name: nameOf(i) });

  const creates = Math.floor(jobs / 2);
  console.log(`Matrix: ${jobs} processes of ${DIST} at once`);
  console.log(
    `  ${jobs - creates} update an existing deployment, ${creates} create one; timeout ${values.timeout}, poll-interval ${values['poll-interval']}`,
  );
  console.log(
    `  simulator: ${rate} requests/s, beyond that 429 with Retry-After: ${retryAfter}; revisions live 5 s after their write (QUEUED 1 s, BUILDING 2 s, DEPLOYING 2 s)`,
  );
  console.log('\nJobs as they end');

  const started = Date.now();
  let ended = 0;
  const results = await Promise.all(
    Array.from({ length: jobs }, async (_, i): Promise<Job> => {
      const name = nameOf(i);
      const run = await runAction({
        inputs: {
          'base-url': sim.url,
          'api-key': API_KEY,
          name,
          'integration-id': INTEGRATION,
          'graph-config-path': 'graph.json',
          timeout: values.timeout,
          'poll-interval': values['poll-interval'],
        },
        killAfterMs: timeoutMs + 60_000,
      });
      ended++;
      console.log(
        `  ${String(ended).padStart(3)}/${jobs} ${name}: ${outcome(run)} after ${sec(run.ms)}`,
      );
      return { name, creates: i % 2 === 1, run };
    }),
  );
  const wallMs = Date.now() - started;

  const total = sim.requests.length;
  const limited = sim.answered.get(429) ?? 0;
  const idealMs = (total / rate) * 1000;
  const processedMs = ((total - limited) / rate) * 1000;
  const failed = results.filter((j) => j.run.outputs.result !== 'deployed' || j.run.code !== 0);

  console.log('\nJobs by result');
  for (const [result, n] of countBy(results, (j) => outcome(j.run))) {
    const made = results.filter((j) => outcome(j.run) === result && j.creates).length;
    console.log(`  ${result}: ${n} (${n - made} updates, ${made} creates)`);
  }
  if (failed.length > 0) {
    console.log('\nFirst error line of each job that did not deploy (jobs × line)');
    for (const [line, n] of countBy(failed, (j) => firstError(j.run)))
      console.log(`  ${n} × ${line}`);
  }
  const durations = results.map((j) => j.run.ms).sort((a, b) => a - b);
  const statuses = [...sim.answered].sort(([a], [b]) => a - b);
  const figures: [string, string][] = [
    ['wall time', sec(wallMs)],
    [
      'job time',
      `median ${sec(durations[Math.floor(durations.length / 2)]!)}, max ${sec(durations.at(-1)!)}`,
    ],
    ['requests', `${total} (${(total / jobs).toFixed(1)} per job)`],
    ['answers by status', statuses.map(([status, n]) => `${status} × ${n}`).join(', ')],
    ['429s', `${limited} (${Math.round((limited / Math.max(1, total)) * 100)} % of requests)`],
    ['ideal (requests ÷ rate)', sec(idealMs)],
    ['wall time ÷ ideal', (wallMs / idealMs).toFixed(2)],
    // 429s inflate the ideal above (more refusals, better ratio); this one counts only the work done.
    ['ideal, 429s left out', sec(processedMs)],
    ['wall time ÷ that', (wallMs / processedMs).toFixed(2)],
  ];
  console.log('\nFigures');
  for (const [label, value] of figures) console.log(`  ${`${label}:`.padEnd(25)} ${value}`);
  console.log(`\n${jobs - failed.length} of ${jobs} deployed.`);
  return failed.length === 0;
}

async function main(): Promise<void> {
  const sim = await Simulator.start({ apiKey: API_KEY });
  try {
    if (only !== 'matrix') await fleet(sim);
    if (only !== 'fleet') process.exitCode = (await matrix(sim)) ? 0 : 1;
  } finally {
    await sim.close();
  }
}

await main();
