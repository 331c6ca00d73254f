// npm run simulate -- --seeds N [--seed S] [--workers W] [--strict]
// Explores N schedules (seeds S to S+N-1, S default 1) over W worker threads (default: the cores, at most 2 unless
// asked), checks the invariants after each, prints the schedules per second, and ends with the line
// "N schedules, K violations"; exits 1 when K > 0. A violating seed is printed with its schedule in words and the
// command that replays it; a run of one seed (--seeds 1) prints its schedule even when nothing broke.
// --strict counts the known bugs of known.ts as violations.
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { INVARIANTS } from './invariants.ts';
import { report, simulate } from './simulate.ts';

interface Job {
  seeds: number[];
  strict: boolean;
  verbose: boolean;
}

/** What a worker sends back for each seed that broke a rule or met a known bug, then `done`. */
type Message =
  { seed: number; lines: string[]; violations: string[]; known: string[] } | { done: number };

if (isMainThread) await main();
else await work(workerData as Job);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seeds: { type: 'string', default: '100' },
      seed: { type: 'string', default: '1' },
      workers: { type: 'string' },
      strict: { type: 'boolean', default: false },
    },
  });
  const count = positive('seeds', values.seeds);
  const first = Number(values.seed);
  if (!Number.isSafeInteger(first) || first < 0)
    usage(`--seed ${values.seed} is not a seed (0 or more)`);
  const workers = Math.min(
    count,
    values.workers === undefined
      ? Math.min(2, availableParallelism())
      : positive('workers', values.workers),
  );
  const verbose = count === 1;
  console.log(
    `Simulating ${count} schedule${count === 1 ? '' : 's'} from seed ${first} on ${workers} worker${workers === 1 ? '' : 's'}${values.strict ? ', known bugs counted' : ''}.`,
  );
  console.log('Invariants checked after every schedule:');
  for (const [name, text] of Object.entries(INVARIANTS)) console.log(`  ${name}: ${text}`);

  const started = performance.now();
  let violations = 0;
  let shown = 0;
  const known = new Map<string, number[]>();
  const kinds = new Map<string, number[]>();
  const add = (to: Map<string, number[]>, key: string, seed: number) =>
    to.set(key, [...(to.get(key) ?? []), seed]);
  const onMessage = (message: Message) => {
    if ('done' in message) return;
    for (const bug of message.known) add(known, bug, message.seed);
    for (const kind of message.violations) add(kinds, kind, message.seed);
    violations += message.violations.length;
    // Every violating schedule in full up to five, then their seeds by kind; one seed alone is always shown.
    if ((message.violations.length && shown++ < 5) || verbose)
      console.log(message.lines.join('\n'));
  };
  const seeds = Array.from({ length: count }, (_, i) => first + i);
  await Promise.all(
    Array.from({ length: workers }, (_, w) =>
      run(
        { seeds: seeds.filter((_, i) => i % workers === w), strict: values.strict, verbose },
        onMessage,
      ),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const [bug, at] of known) console.log(`Known bug met ${seedList(at)}: ${bug}`);
  for (const [kind, at] of kinds) console.log(`Violation ${seedList(at)}: ${kind}`);
  console.log(
    `${count} schedules in ${seconds.toFixed(1)} s: ${(count / seconds).toFixed(0)} schedules per second.`,
  );
  console.log(`${count} schedules, ${violations} violations`);
  process.exitCode = violations ? 1 : 0;
}

/** A worker over `job`'s seeds; resolves when it is done. */
function run(job: Job, onMessage: (message: Message) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: job });
    worker.on('message', (message: Message) => {
      onMessage(message);
      if ('done' in message) resolve();
    });
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (code !== 0) reject(new Error(`a simulation worker exited with ${code}`));
    });
  });
}

async function work({ seeds, strict, verbose }: Job): Promise<void> {
  for (const seed of seeds) {
    const verdict = await simulate(seed, { strict });
    const { violations, known } = verdict;
    if (violations.length || known.length || verbose)
      parentPort!.postMessage({
        seed,
        lines:
          violations.length || verbose
            ? report(verdict, [...violations, ...(verbose ? known.map((k) => k.violation) : [])])
            : [],
        violations: violations.map((v) => `[${v.invariant}] ${v.signature}`),
        known: known.map((k) => k.bug),
      } satisfies Message);
  }
  parentPort!.postMessage({ done: seeds.length } satisfies Message);
}

/** "in 3 schedules (seeds 4, 9, 12)", the first ten seeds. */
function seedList(seeds: number[]): string {
  const sorted = [...new Set(seeds)].sort((a, b) => a - b);
  const shown = sorted.slice(0, 10).join(', ') + (sorted.length > 10 ? ', …' : '');
  return `in ${sorted.length} schedule${sorted.length === 1 ? '' : 's'} (seed${sorted.length === 1 ? '' : 's'} ${shown})`;
}

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    usage(`--${name} ${value} is not a whole number of 1 or more`);
  return n;
}

function usage(problem: string): never {
  console.error(
    `${problem}. Usage: npm run simulate -- --seeds N [--seed S] [--workers W] [--strict]`,
  );
  process.exit(2);
}
