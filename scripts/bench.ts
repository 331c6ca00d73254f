// `npm run bench`: how fast and light the bundled action is. A measurement, not a test: it prints the figures
// and whether each target is met, writes them to bench-results.json, and exits non-zero only when a run
// misbehaves (the action failing where it should succeed). AGENT_DEPLOY_DIST points at another build;
// `npm run bench -- patterns` runs only the patterns section (seconds instead of minutes), `npm run bench -- several`
// only the line of several deployments in one step (bench/several.ts), `npm run bench -- unchanged` only the line of
// ten agents with one changed, with and without skip-unchanged (bench/unchanged.ts).
// Start-up is compared with bundles of the mandated libraries made like dist/ (bench/baselines.ts).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  type Baseline,
  type Baselines,
  buildBaselines,
  CORE,
  CORE_ZOD,
} from './bench/baselines.ts';
import { DIST, runAction, type ActionRun, type RunOptions } from '../test/helpers/action.ts';
import { haveValgrind, instructions } from './bench/instructions.ts';
import { PATTERN_LIMIT_MS, patternTimings, type PatternTiming } from './bench/patterns.ts';
import { type Several, severalDeployments, severalTable } from './bench/several.ts';
import { table } from './bench/table.ts';
import { deployOnlyChanged, type Unchanged } from './bench/unchanged.ts';
import { Simulator, type RecordedRequest, type TimelineStep } from '../test/simulator/server.ts';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS_FILE = join(ROOT, 'bench-results.json');
const API_KEY = 'bench-api-key';
const INTEGRATION = '11111111-1111-4111-8111-111111111111';
const NAME = 'my-agent';
const MB = 1_000_000;
const COLD_RUNS = 25;
/** Start to first request, as a multiple of the core + zod bundle's start to exit. */
const START_LIMIT = 1.1;

interface Stats {
  runs: number;
  median: number;
  min: number;
  p90: number;
  max: number;
}

interface Target {
  name: string;
  limit: string;
  value: string;
  met: boolean;
}

// --- small helpers ------------------------------------------------------------------------------

function stats(values: number[]): Stats {
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  const mid = s.length / 2;
  const median = s.length % 2 ? s[Math.floor(mid)]! : (s[mid - 1]! + s[mid]!) / 2;
  return { runs: s.length, median, min: s[0]!, p90: at(0.9), max: s.at(-1)! };
}

const ms = (n: number) => `${Math.round(n)} ms`;
const sec = (n: number) => `${(n / 1000).toFixed(2)} s`;
const mb = (bytes: number) => `${(bytes / MB).toFixed(3)} MB`;

function section(title: string): void {
  console.log(`\n${title}`);
}

/** Fails the bench (not a target miss): a run that should succeed did not. */
function check(ok: boolean, what: string, run?: ActionRun): void {
  if (ok) return;
  const detail = run ? `\n${run.stdout}\n${run.stderr}` : '';
  throw new Error(`bench: ${what}${detail}`);
}

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown';
  return {
    cpus: cpus().length,
    cpu: model,
    node: process.version,
    platform: process.platform,
    // Other work on the machine widens the spread; the interleaved ratios hold up better than the times.
    loadAverage: loadavg()[0]!,
  };
}

/** Timeline of a revision that goes live `totalMs` after its creation. */
function timeline(totalMs: number): TimelineStep[] {
  const queued = Math.min(1000, totalMs / 4);
  const deploying = Math.min(3000, totalMs / 4);
  return [
    { status: 'QUEUED', ms: queued },
    { status: 'BUILDING', ms: totalMs - queued - deploying },
    { status: 'DEPLOYING', ms: deploying },
    { status: 'DEPLOYED' },
  ];
}

function deployInputs(sim: Simulator, extra: Record<string, string>): Record<string, string> {
  return {
    'base-url': sim.url,
    'api-key': API_KEY,
    name: NAME,
    'integration-id': INTEGRATION,
    'graph-config-path': 'graph.json',
    timeout: '2m',
    ...extra,
  };
}

type Kind = 'lookup' | 'patch' | 'status read' | 're-read' | 'other';

function kindOf(r: RecordedRequest): Kind {
  // getDeployment reads through the listing (`deployment_ids`), the name lookup through `name_contains`.
  if (r.method === 'GET' && r.path === '/v2/deployments' && r.query.name_contains) return 'lookup';
  if (r.method === 'GET' && r.path === '/v2/deployments' && r.query.deployment_ids)
    return 're-read';
  if (r.method === 'PATCH' && /^\/v2\/deployments\/[^/]+$/.test(r.path)) return 'patch';
  if (r.method === 'GET' && /^\/v2\/deployments\/[^/]+\/revisions\/[^/]+$/.test(r.path))
    return 'status read';
  if (r.method === 'GET' && /^\/v2\/deployments\/[^/]+$/.test(r.path)) return 're-read';
  return 'other';
}

function countKinds(requests: RecordedRequest[]): Record<Kind | 'total', number> {
  const counts = { lookup: 0, patch: 0, 'status read': 0, 're-read': 0, other: 0, total: 0 };
  for (const r of requests) {
    counts[kindOf(r)]++;
    counts.total++;
  }
  return counts;
}

// --- measurements -------------------------------------------------------------------------------

function bundleSize(distFile: string) {
  const dir = dirname(distFile);
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) =>
    e.isFile(),
  );
  const dirBytes = files.reduce((sum, e) => sum + statSync(join(e.parentPath, e.name)).size, 0);
  return { indexBytes: statSync(distFile).size, dirBytes, files: files.length };
}

/** Wall time of a node process, spawn to close, spawned like the action: same Node, bare env, piped output. */
function timeNode(args: string[]): Promise<number> {
  return new Promise((done, fail) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ROOT },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0
        ? done(Date.now() - started)
        : fail(new Error(`node ${args.join(' ')}: exit ${code}\n${stderr}`)),
    );
  });
}

/** Spawn to the first request the simulator receives (the action then runs a short deploy to its end). */
async function timeToFirstRequest(sim: Simulator, deploymentId: string): Promise<number> {
  const before = sim.requests.length;
  const started = Date.now();
  const run = await runAction({
    inputs: {
      'base-url': sim.url,
      'api-key': API_KEY,
      'deployment-id': deploymentId,
      wait: 'false',
    },
  });
  check(run.code === 0 && sim.requests.length > before, 'the wait: false deploy failed', run);
  return sim.requests[before]!.at - started;
}

/** Spawn to exit when a required input is missing: start-up plus input checks, no network. */
async function timeToInputError(): Promise<number> {
  const run = await runAction({ inputs: { 'api-key': API_KEY } });
  check(run.code === 1 && /base-url/.test(run.errors.join()), 'no error on missing base-url', run);
  return run.ms;
}

const bundleLabel = (name: string) => `bundle: ${name}`;

async function coldStart(sim: Simulator, baselines: Baseline[]) {
  const dep = sim.addDeployment({ name: 'cold-start' });
  const variants: [string, () => Promise<number>][] = [
    ['node -e ""', () => timeNode(['-e', ''])],
    ...baselines.map((b): [string, () => Promise<number>] => [
      bundleLabel(b.name),
      () => timeNode([b.file]),
    ]),
    ['action: spawn → first request', () => timeToFirstRequest(sim, dep.id)],
    ['action: spawn → exit, no base-url', () => timeToInputError()],
  ];
  const samples = variants.map(() => [] as number[]);
  // One discarded round warms the file cache; then the variants alternate so they share the noise.
  for (let round = -1; round < COLD_RUNS; round++) {
    for (const [i, [, measure]] of variants.entries()) {
      const t = await measure();
      if (round >= 0) samples[i]!.push(t);
    }
  }
  const medianOf = (name: string) =>
    stats(samples[variants.findIndex(([label]) => label === bundleLabel(name))]!).median;
  const core = medianOf(CORE);
  const floor = medianOf(CORE_ZOD);
  return variants.map(([name], i) => {
    const s = stats(samples[i]!);
    return {
      name,
      ...s,
      ratioToCore: s.median / core,
      ratioToCoreZod: s.median / floor,
      samples: samples[i]!,
    };
  });
}

/**
 * Instructions to the first request (the action) or to exit (the bundles), from callgrind: one run each is enough,
 * the count repeats. Undefined when valgrind is not installed.
 */
async function startInstructions(baselines: Baseline[]) {
  if (!(await haveValgrind())) return undefined;
  const floor = baselines.find((b) => b.name === CORE_ZOD)!;
  const rows: { name: string; instructions: number }[] = [];
  for (const b of baselines)
    rows.push({ name: bundleLabel(b.name), instructions: await instructions(b.file) });
  rows.push({
    name: 'action: start → first request',
    instructions: await instructions(DIST, {
      'base-url': 'http://127.0.0.1:9',
      'api-key': API_KEY,
      'deployment-id': INTEGRATION,
      wait: 'false',
    }),
  });
  const floorCount = rows.find((r) => r.name === bundleLabel(floor.name))!.instructions;
  return rows.map((r) => ({ ...r, ratioToCoreZod: r.instructions / floorCount }));
}

/** One name-lookup deploy through a scripted revision, counting the requests by kind. */
async function requestsPerDeploy(sim: Simulator) {
  sim.reset();
  sim.addDeployment({ name: NAME });
  const steps: TimelineStep[] = [
    { status: 'QUEUED', ms: 1000 },
    { status: 'BUILDING', ms: 4000 },
    { status: 'DEPLOYING', ms: 3000 },
    { status: 'DEPLOYED' },
  ];
  sim.timelines.push(steps);
  const intervalMs = 2000;
  const run = await runAction({ inputs: deployInputs(sim, { 'poll-interval': '2s' }) });
  check(run.code === 0 && run.outputs.result === 'deployed', 'the scripted deploy failed', run);
  const counts = countKinds(sim.requests);
  const durationMs = steps.reduce((sum, s) => sum + (s.ms ?? 0), 0);
  const bound = durationMs / intervalMs + 3;
  return { timeline: steps, intervalMs, counts, readBound: bound, wallMs: run.ms };
}

/** Finds the one exact name among 10,000 deployments of which 500 contain it. */
async function lookup(sim: Simulator) {
  sim.reset();
  sim.addDeployments(4750, (i) => `service-${i}`);
  sim.addDeployments(250, (i) => `${NAME}-v${i}`);
  const target = sim.addDeployment({ name: NAME });
  sim.addDeployments(249, (i) => `team-${NAME}-${i}`);
  sim.addDeployments(4750, (i) => `worker-${i}`);
  const run = await runAction({ inputs: deployInputs(sim, { wait: 'false' }) });
  const patch = sim.requestsTo('PATCH')[0];
  check(run.code === 0 && patch?.path === `/v2/deployments/${target.id}`, 'lookup failed', run);
  const lists = sim.requests.filter((r) => kindOf(r) === 'lookup');
  return {
    deployments: 10_000,
    matching: 500,
    listRequests: lists.length,
    // From the first list request to the PATCH: every page fetched, parsed and scanned.
    lookupMs: patch!.at - lists[0]!.at,
    wallMs: run.ms,
  };
}

/** Revision goes DEPLOYED in the simulator → the action's process exits. */
async function detectionRun(sim: Simulator, intervalMs: number, revisionMs: number) {
  sim.reset();
  const previous = sim.addDeployment({ name: NAME }).active_revision_id;
  sim.timelines.push(timeline(revisionMs));
  let deployedAt = 0;
  sim.onRevisionStatus = (_dep, rev, status, at) => {
    if (status === 'DEPLOYED' && rev !== previous) deployedAt = at;
  };
  let exitedAt = 0;
  const onSpawn: RunOptions['onSpawn'] = (child) =>
    void child.once('exit', () => (exitedAt = Date.now()));
  const run = await runAction({
    inputs: deployInputs(sim, { 'poll-interval': `${intervalMs / 1000}s` }),
    onSpawn,
  });
  sim.onRevisionStatus = undefined;
  check(
    run.code === 0 && run.outputs.result === 'deployed' && deployedAt > 0,
    'deploy failed',
    run,
  );
  const patchAt = sim.requestsTo('PATCH')[0]!.at;
  const reads = sim.requests.filter((r) => kindOf(r) === 'status read');
  const seenAt = reads.find((r) => r.at >= deployedAt)?.at ?? exitedAt;
  const livedMs = deployedAt - patchAt;
  return {
    intervalMs,
    revisionMs: livedMs,
    lagMs: exitedAt - deployedAt,
    // The lag split: waiting for the next read, then the read, re-read, outputs, summary and exit.
    untilReadMs: seenAt - deployedAt,
    readToExitMs: exitedAt - seenAt,
    statusReads: reads.length,
    readBound: livedMs / intervalMs + 3,
  };
}

/** Three runs per interval, their revision lengths a third of an interval apart to sample the poll phase. */
async function detectionLag(sim: Simulator) {
  const plans: [number, number][] = [
    [2000, 12_000],
    [10_000, 22_000],
  ];
  const runs = [];
  for (const [intervalMs, baseMs] of plans) {
    for (let i = 0; i < 3; i++) {
      runs.push(await detectionRun(sim, intervalMs, baseMs + Math.round((i * intervalMs) / 3)));
      const r = runs.at(-1)!;
      console.log(
        `  poll ${intervalMs / 1000}s, revision ${sec(r.revisionMs)}: lag ${sec(r.lagMs)}, ${r.statusReads} reads`,
      );
    }
  }
  return runs;
}

// --- report -------------------------------------------------------------------------------------

type Results = {
  size: ReturnType<typeof bundleSize>;
  baselines: Omit<Baselines, 'remove'>;
  cold: Awaited<ReturnType<typeof coldStart>>;
  instructions: Awaited<ReturnType<typeof startInstructions>>;
  perDeploy: Awaited<ReturnType<typeof requestsPerDeploy>>;
  lookup: Awaited<ReturnType<typeof lookup>>;
  detection: Awaited<ReturnType<typeof detectionLag>>;
  patterns: PatternTiming[];
  several: Several;
  unchanged: Unchanged;
};

function targets(r: Results): Target[] {
  const first = r.cold.find((c) => c.name.includes('first request'))!;
  const floor = r.cold.find((c) => c.name === bundleLabel(CORE_ZOD))!;
  const list: Target[] = [
    {
      name: 'dist/index.js size',
      limit: '≤ 1.0 MB',
      value: mb(r.size.indexBytes),
      met: r.size.indexBytes <= 1.0 * MB,
    },
    startTarget(r, first, floor),
    {
      name: 'lookup among 10,000 (500 matching)',
      limit: '≤ 6 list requests',
      value: `${r.lookup.listRequests}`,
      met: r.lookup.listRequests <= 6,
    },
  ];
  for (const intervalMs of new Set(r.detection.map((d) => d.intervalMs))) {
    const worst = Math.max(
      ...r.detection.filter((d) => d.intervalMs === intervalMs).map((d) => d.lagMs),
    );
    list.push({
      name: `detection lag, poll ${intervalMs / 1000}s (max of 3)`,
      limit: `≤ ${sec(intervalMs + 500)}`,
      value: sec(worst),
      met: worst <= intervalMs + 500,
    });
  }
  const reads = [
    { reads: r.perDeploy.counts['status read'], bound: r.perDeploy.readBound },
    ...r.detection.map((d) => ({ reads: d.statusReads, bound: d.readBound })),
  ];
  const over = reads.filter((x) => x.reads > x.bound);
  list.push({
    name: `status reads (${reads.length} deploys)`,
    limit: '≤ duration/interval + 3',
    value: over.length ? `${over.length} over` : 'all within',
    met: over.length === 0,
  });
  list.push(patternTarget(r.patterns), severalTarget(r.several), unchangedTarget(r.unchanged));
  return list;
}

/** skip-unchanged builds only the changed agents' revisions (issue 35). */
function unchangedTarget(u: Unchanged): Target {
  const skipping = u.rows[1]!;
  return {
    name: `revisions built, ${u.count} agents with ${u.changed} changed, skip-unchanged`,
    limit: `= ${u.changed}`,
    value: String(skipping.revisions),
    met: skipping.revisions === u.changed,
  };
}

/** 20 deployments in one step at max-parallel 16 meet few 429s: the contract's bound (issues 22 and 33). */
function severalTarget(s: Several): Target {
  const step = s.rows.find((row) => row.parallel === 16)!;
  const share = step.limited / step.requests;
  return {
    name: `429s, ${s.count} deployments in one step, max-parallel 16`,
    limit: '≤ 10 % of requests',
    value: `${(share * 100).toFixed(1)} % (${step.limited} of ${step.requests})`,
    met: share <= 0.1,
  };
}

function patternTarget(timings: PatternTiming[]): Target {
  const worst = timings.reduce((a, b) => (b.ms > a.ms ? b : a));
  return {
    name: `patterns and text functions (${timings.length} cases)`,
    limit: `each < ${sec(PATTERN_LIMIT_MS)} on 1 MB`,
    value: `slowest ${ms(worst.ms)}`,
    met: timings.every((t) => t.ms < PATTERN_LIMIT_MS),
  };
}

/**
 * Judged on instructions when callgrind is here (the same count whatever the load), else on wall-clock medians;
 * the other figure is shown beside it.
 */
function startTarget(
  r: Results,
  first: Results['cold'][number],
  floor: Results['cold'][number],
): Target {
  const wall = `${first.ratioToCoreZod.toFixed(2)} × (${ms(first.median)} / ${ms(floor.median)}) wall`;
  const action = r.instructions?.at(-1);
  return {
    name: 'start to first request',
    limit: `≤ ${START_LIMIT} × ${CORE_ZOD} bundle`,
    value: action ? `${action.ratioToCoreZod.toFixed(2)} × in instructions; ${wall}` : wall,
    met: (action?.ratioToCoreZod ?? first.ratioToCoreZod) <= START_LIMIT,
  };
}

function printPatterns(timings: PatternTiming[]): void {
  section('Patterns and text functions over data: 1 MB of each worst case');
  console.log(
    table([['case', 'slowest of 3'], ...timings.map((t) => [t.name, `${t.ms.toFixed(1)} ms`])]),
  );
}

function printTargets(list: Target[]): void {
  section('Targets');
  console.log(
    table(
      [
        ['target', 'limit', 'measured', ''],
        ...list.map((t) => [t.name, t.limit, t.value, t.met ? 'met' : 'NOT MET']),
      ],
      2,
    ),
  );
}

function printResults(r: Results): void {
  section('Bundle');
  console.log(
    table([
      ['file', 'bytes', 'size'],
      ['dist/index.js', r.size.indexBytes, mb(r.size.indexBytes)],
      [`dist/ (${r.size.files} files)`, r.size.dirBytes, mb(r.size.dirBytes)],
      ...r.baselines.list.map((b) => [`baseline: ${b.name}`, b.bytes, mb(b.bytes)]),
    ]),
  );

  section(`Start-up (${COLD_RUNS} runs each, interleaved, after a warm-up round)`);
  console.log(
    table([
      ['', 'median', 'min', 'p90', 'max', '× core', '× core+zod'],
      ...r.cold.map((c) => [
        c.name,
        ms(c.median),
        ms(c.min),
        ms(c.p90),
        ms(c.max),
        c.ratioToCore.toFixed(2),
        c.ratioToCoreZod.toFixed(2),
      ]),
    ]),
  );
  console.log(
    `  Bundles: spawn → exit of \`node <bundle>\`, built by ncc build <entry> ${r.baselines.flags.join(' ')}`,
  );

  if (r.instructions) {
    section('Start-up in CPU instructions (valgrind callgrind: repeatable whatever the load)');
    console.log(
      table([
        ['', 'instructions', '× core+zod'],
        ...r.instructions.map((c) => [
          c.name,
          `${(c.instructions / 1e6).toFixed(0)} M`,
          c.ratioToCoreZod.toFixed(2),
        ]),
      ]),
    );
    console.log('  The action is stopped at its first http.request; the bundles run to exit.');
  }

  const p = r.perDeploy;
  section(
    `Requests per deploy (update path; ${p.timeline.map((s) => (s.ms ? `${s.status} ${s.ms / 1000}s` : s.status)).join(', ')}; poll ${p.intervalMs / 1000}s)`,
  );
  console.log(
    table(
      [
        ['lookup', 'patch', 'status reads', 're-read', 'other', 'total', 'read bound'],
        [
          p.counts.lookup,
          p.counts.patch,
          p.counts['status read'],
          p.counts['re-read'],
          p.counts.other,
          p.counts.total,
          p.readBound,
        ].map(String),
      ],
      0,
    ),
  );

  section('Lookup among 10,000 deployments, 500 containing the name');
  console.log(
    table(
      [
        ['list requests', 'lookup time', 'whole run'],
        [String(r.lookup.listRequests), ms(r.lookup.lookupMs), ms(r.lookup.wallMs)],
      ],
      0,
    ),
  );

  section('Detection lag (revision DEPLOYED in the simulator → action exits)');
  console.log(
    table([
      ['poll', 'revision', 'lag', 'until read', 'read → exit', 'reads', 'bound'],
      ...r.detection.map((d) => [
        `${d.intervalMs / 1000}s`,
        sec(d.revisionMs),
        sec(d.lagMs),
        sec(d.untilReadMs),
        ms(d.readToExitMs),
        String(d.statusReads),
        d.readBound.toFixed(1),
      ]),
    ]),
  );

  printPatterns(r.patterns);
  printSeveral(r.several);
  printUnchanged(r.unchanged);
}

function printUnchanged(u: Unchanged): void {
  section(
    `${u.count} agents of a monorepo, ${u.changed} changed since the live commit, in one step (the bundle each time)`,
  );
  console.log(
    table([
      ['', 'requests', 'writes', 'revisions built', 'wall time'],
      ...u.rows.map((row) => [
        row.how,
        String(row.requests),
        String(row.writes),
        String(row.revisions),
        sec(row.wallMs),
      ]),
    ]),
  );
}

function printSeveral(s: Several): void {
  section(
    `${s.count} deployments against the simulator limited to ${s.perSecond} requests/s (the bundle each time)`,
  );
  console.log(table(severalTable(s)));
}

/** Prints the targets and the count of those met, and writes the figures to RESULTS_FILE. */
function report(figures: object, list: Target[], started: number, host: object): void {
  printTargets(list);
  const met = list.filter((t) => t.met).length;
  console.log(`\n${met} of ${list.length} targets met; ${sec(Date.now() - started)} in all.`);
  writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify({ date: new Date().toISOString(), dist: DIST, machine: host, ...figures, targets: list }, null, 2)}\n`,
  );
  console.log(`Figures written to ${RESULTS_FILE}`);
}

/** The sections `npm run bench -- <name>` runs alone; no argument runs them all. */
const ALONE = ['patterns', 'several', 'unchanged'];

async function main(): Promise<void> {
  // The action runs on node24; the machine's own node may be older (npm run puts the devDependency first).
  if (Number(process.versions.node.split('.')[0]) < 24)
    throw new Error(`bench: Node ${process.version}; run it with npm run bench (Node 24)`);
  const only = process.argv[2];
  if (process.argv.length > 3 || (only !== undefined && !ALONE.includes(only)))
    throw new Error(
      `bench: ${process.argv.slice(2).join(' ')}: use npm run bench [-- patterns | several | unchanged]`,
    );
  const started = Date.now();
  const host = machine();
  console.log(only ? `Benchmark: ${only} only` : `Benchmark of ${DIST}`);
  console.log(
    `${host.cpus} × ${host.cpu}, Node ${host.node}, ${host.platform}, load ${host.loadAverage.toFixed(2)}`,
  );
  if (only === 'patterns') {
    const patterns = await patternTimings();
    printPatterns(patterns);
    report({ patterns }, [patternTarget(patterns)], started, host);
    return;
  }
  const sim = await Simulator.start({ apiKey: API_KEY });
  let built: Baselines | undefined;
  try {
    if (only === 'several') {
      const several = await severalDeployments(sim);
      printSeveral(several);
      report({ several }, [severalTarget(several)], started, host);
      return;
    }
    if (only === 'unchanged') {
      const unchanged = await deployOnlyChanged(sim);
      printUnchanged(unchanged);
      report({ unchanged }, [unchangedTarget(unchanged)], started, host);
      return;
    }
    const size = bundleSize(DIST);
    section('Runs');
    console.log('  building the baseline bundles with the flags of npm run bundle');
    built = await buildBaselines();
    const baselines = { flags: built.flags, list: built.list };
    console.log(
      `  start-up: ${COLD_RUNS + 1} rounds of ${baselines.list.length + 3} processes, the first discarded`,
    );
    const cold = await coldStart(sim, baselines.list);
    console.log('  start-up in instructions, under valgrind (when installed)');
    const counted = await startInstructions(baselines.list);
    console.log('  one deploy through a scripted 8 s revision');
    const perDeploy = await requestsPerDeploy(sim);
    console.log('  lookup among 10,000 deployments');
    const found = await lookup(sim);
    const detection = await detectionLag(sim);
    console.log(
      '  patterns and text functions (of src/, in this process) over 1 MB of each worst case',
    );
    const patterns = await patternTimings();
    console.log(
      '  20 deployments at 8 requests/s: in one step at max-parallel 4, 8 and 16, then as 20 processes',
    );
    const several = await severalDeployments(sim);
    console.log('  10 agents, 1 changed: without, then with skip-unchanged');
    const unchanged = await deployOnlyChanged(sim);
    const results: Results = {
      size,
      baselines,
      cold,
      instructions: counted,
      perDeploy,
      lookup: found,
      detection,
      patterns,
      several,
      unchanged,
    };
    const list = targets(results);
    printResults(results);
    report(results, list, started, host);
  } finally {
    await sim.close();
    built?.remove();
  }
}

await main();
