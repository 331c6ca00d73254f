// Runs one schedule: the service seeded as it says, then its runs side by side, each the action's real run
// (src/run.ts's runAction over a MemoryHost, as test/helpers/run.ts's runInProcess does) on one fake clock and the
// in-memory wire, with every source of randomness drawn from the seed: the simulator's ids and commits, the retry
// jitter (Math.random, replaced for the schedule's length), and the faults. The same seed replays the same run.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../../src/core/host.ts';
import type { RunReport } from '../../src/core/report.ts';
import { runAction } from '../../src/run.ts';
import type { Clock } from '../../src/shared/clock.ts';
import type { Transport } from '../../src/service/transport.ts';
import { runnerVariables } from '../helpers/action.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { MemoryHost } from '../helpers/memory-host.ts';
import { API_KEY, INTEGRATION } from '../helpers/setup.ts';
import { type Revision, Simulator } from '../simulator/server.ts';
import { Rng } from './random.ts';
import { HELPER, type RunPlan, type Schedule, type Source, TARGET, TOKEN } from './schedule.ts';
import { type Entry, type Sample, Wire } from './transport.ts';

/** The schedules give no `paths`: a plan never asks the checkout. */
const noCheckout: Git = {
  changedFiles: async () => ({ problem: 'the simulation has no checkout' }),
};

export interface RunOutcome {
  plan: RunPlan;
  /** On the schedule's clock. */
  startedAt: number;
  endedAt?: number;
  cancelledAt?: number;
  outputs: Record<string, string>;
  summary: string;
  failure?: string;
  report?: RunReport;
}

/** A revision of TARGET or HELPER as the service holds it at the end. */
export interface FinalRevision extends Revision {
  deploymentId: string;
}

export interface Outcome {
  schedule: Schedule;
  runs: RunOutcome[];
  log: Entry[];
  samples: Sample[];
  /** Every deployment of TARGET's and HELPER's names at the end, and every revision of theirs (seeded included). */
  deployments: { id: string; name: string }[];
  revisions: Map<string, FinalRevision>;
  /** The revisions that were there before the runs, and each promote source's commit or image. */
  seeded: Set<string>;
  promoted: Map<number, string>;
  /** TARGET's seeded revisions, oldest first (a redeploy's choice). */
  targetRevisions: string[];
  /** Set when the runs did not all end: nothing left to happen (hung), or time ran on past any bound. */
  stalled?: 'hung' | 'runaway';
}

/** Past this much schedule time (the clock starts at 0), a run that has not ended never will. */
const RUNAWAY_MS = 3 * 3_600_000;

/** A test's change to each run's wire (e.g. a client that misbehaves, to see the invariants catch it). */
export type Wrap = (transport: Transport) => Transport;

export async function execute(schedule: Schedule, wrap: Wrap = (t) => t): Promise<Outcome> {
  const { seed } = schedule;
  const fake = new FakeClock(0);
  let frozen = false;
  // The runs' clock: frozen once a schedule is given up (runaway), so nothing it left behind runs on.
  const clock: Clock = {
    now: () => fake.now(),
    wall: () => fake.wall(),
    sleep: (ms, signal) => (frozen ? new Promise(() => undefined) : fake.sleep(ms, signal)),
  };
  const ids = new Rng(seed, 'ids');
  const sim = Simulator.inMemory({ apiKey: API_KEY, clock: fake, random: ids.next });
  const { seeded, promoted, targetRevisions } = seedService(sim, schedule);
  const wire = new Wire(sim, clock, schedule.faults, new Rng(seed, 'faults'));
  const random = Math.random;
  Math.random = new Rng(seed, 'jitter').next;
  const stop = new AbortController();
  try {
    schedule.faults.foreign.forEach((change) =>
      clock.sleep(change.atMs, stop.signal).then(
        () => wire.foreignWrite(change.timeline),
        () => undefined,
      ),
    );
    const runs = schedule.runs.map((plan) =>
      startRun(plan, schedule, sim, clock, wrap(wire.transport(plan.id)), stop.signal),
    );
    const stalled = await settle(Promise.all(runs.map((r) => r.done)), fake);
    if (stalled) frozen = true;
    stop.abort();
    if (wire.broken) throw wire.broken;
    const deployments = [TARGET, HELPER].flatMap((name) =>
      sim.deploymentsNamed(name).map((d) => ({ id: d.id, name })),
    );
    const revisions = new Map<string, FinalRevision>();
    for (const d of deployments)
      for (const r of sim.revisions(d.id))
        revisions.set(r.id, { ...structuredClone(r), deploymentId: d.id });
    return {
      schedule,
      runs: runs.map((r) => r.outcome),
      log: wire.log,
      samples: wire.samples,
      deployments,
      revisions,
      seeded,
      promoted,
      targetRevisions,
      stalled,
    };
  } finally {
    Math.random = random;
    stop.abort();
  }
}

/** The service as the schedule finds it; answers what was there before any run. */
function seedService(sim: Simulator, { service, runs }: Schedule) {
  const seeded = new Set<string>();
  const promoted = new Map<number, string>();
  const targetRevisions: string[] = [];
  const { source } = service;
  sim.addRepository(INTEGRATION, { owner: 'acme', name: TARGET });
  sim.addToken({ id: TOKEN });
  for (let i = 0; i <= service.fillers; i++) {
    if (i === service.position && service.exists) {
      const dep = sim.addDeployment({
        name: TARGET,
        source,
        source_revision_config: config(source, 'seed0'),
      });
      for (let k = 1; k < service.revisions; k++)
        sim.addRevision(dep.id, [{ status: 'DEPLOYED' }], config(source, `seed${k}`));
      for (const r of sim.revisions(dep.id)) targetRevisions.push(r.id);
    }
    if (i < service.fillers) sim.addDeployment({ name: `${TARGET}-${i + 1}`, source });
  }
  if (service.helperExists) sim.addDeployment({ name: HELPER, source });
  for (const run of runs) {
    if (run.from === undefined) continue;
    const dep = sim.addDeployment({ name: `source-${run.from}`, source });
    const rev = sim.revision(dep.id, dep.active_revision_id!)!.source_revision_config;
    promoted.set(run.id, (source === 'codehost' ? rev.repo_commit_sha : rev.image_uri)!);
  }
  for (const name of [TARGET, HELPER])
    for (const dep of sim.deploymentsNamed(name))
      for (const r of sim.revisions(dep.id)) seeded.add(r.id);
  // The knobs last: the seeded revisions are live whatever the switch says.
  sim.pageCap = service.pageCap;
  sim.revisionVisibleAfterMs = service.revisionVisibleAfterMs;
  sim.dateSkewMs = service.dateSkewMs;
  sim.activeSwitch = service.activeSwitch;
  sim.redeployMode = service.redeployMode;
  sim.duplicateNames = service.duplicateNames;
  sim.timelines = service.timelines.map((t) => [...t]);
  sim.defaultTimeline = [...service.fallback];
  return { seeded, promoted, targetRevisions };
}

function config(source: Source, value: string): object {
  return source === 'codehost' ? { repo_ref: value } : { image_uri: imageOf(value) };
}

export function imageOf(value: string): string {
  return `registry.example/${TARGET}:${value}`;
}

function startRun(
  plan: RunPlan,
  schedule: Schedule,
  sim: Simulator,
  clock: Clock,
  transport: Transport,
  stop: AbortSignal,
): { done: Promise<void>; outcome: RunOutcome } {
  const outcome: RunOutcome = { plan, startedAt: plan.startMs, outputs: {}, summary: '' };
  const cancel = new AbortController();
  if (plan.cancelMs !== undefined)
    clock.sleep(plan.startMs + plan.cancelMs, stop).then(
      () => {
        if (outcome.endedAt !== undefined) return;
        outcome.cancelledAt = clock.now();
        cancel.abort('SIGINT');
      },
      () => undefined,
    );
  const done = (async () => {
    await clock.sleep(plan.startMs);
    const host = new MemoryHost(inputsOf(plan, schedule, sim), ENV);
    outcome.startedAt = clock.now();
    outcome.report = await runAction({
      host,
      clock,
      transport,
      signal: cancel.signal,
      git: noCheckout,
    });
    outcome.endedAt = clock.now();
    Object.assign(outcome.outputs, host.outputs);
    outcome.summary = host.summaryText;
    outcome.failure = host.failure;
  })();
  return { done, outcome };
}

/** A push to main of acme/agent; no event file is read for a push. */
const ENV = runnerVariables(tmpdir(), join(tmpdir(), 'agent-deploy-sim-event.json'));

/** The inputs of a run, as a workflow would give them. */
function inputsOf(plan: RunPlan, { service }: Schedule, sim: Simulator): Record<string, string> {
  const codehost = service.source === 'codehost';
  const inputs: Record<string, string> = {
    'base-url': sim.url,
    'api-key': API_KEY,
    timeout: `${plan.timeoutMs / 1000}s`,
    'poll-interval': `${plan.pollMs / 1000}s`,
    wait: String(plan.wait),
    'rollback-on-failure': String(plan.rollback),
    create: String(plan.create),
  };
  const deployInputs = () => {
    if (codehost) {
      inputs['integration-id'] = INTEGRATION;
      inputs['graph-config-path'] = 'graph.json';
      if (plan.repoUrl) inputs['repo-url'] = `https://codehost.example/acme/${TARGET}`;
    }
  };
  const value = (v: string) => (codehost ? { 'repo-ref': v } : { 'image-uri': imageOf(v) });
  switch (plan.command) {
    case 'deploy':
    case 'dry-run':
      deployInputs();
      Object.assign(inputs, { name: TARGET, ...value(plan.value) });
      if (plan.command === 'dry-run') inputs['dry-run'] = 'true';
      break;
    case 'list': {
      deployInputs();
      const item = (name: string, v: string) =>
        `- name: ${name}\n  ${Object.entries(value(v))
          .map(([k, x]) => `${k}: ${x}`)
          .join('\n  ')}`;
      inputs.deployments = `${item(TARGET, plan.value)}\n${item(HELPER, plan.helperValue!)}`;
      break;
    }
    case 'status':
      Object.assign(inputs, { command: 'status', name: TARGET });
      break;
    case 'redeploy': {
      const dep = sim.deploymentsNamed(TARGET)[0]!;
      const revision = sim.revisions(dep.id)[plan.revision!]!.id;
      Object.assign(inputs, { command: 'redeploy', name: TARGET, 'revision-id': revision });
      break;
    }
    case 'promote':
      Object.assign(inputs, { command: 'promote', name: TARGET, from: `source-${plan.from}` });
      if (codehost) inputs['integration-id'] = INTEGRATION;
      break;
    case 'token-metadata':
      Object.assign(inputs, {
        command: 'token-metadata',
        'token-id': TOKEN,
        'provider-account-label': plan.label!,
        'is-default': String(plan.isDefault),
      });
      break;
  }
  return inputs;
}

/**
 * Waits for the runs; answers undefined when they all ended, 'hung' when they wait for something that will never
 * come (no timer left on the clock), 'runaway' when the clock runs on past any bound. Real time only tells how often
 * to look, never what happens.
 */
async function settle(all: Promise<unknown>, clock: FakeClock): Promise<Outcome['stalled']> {
  let ended = false;
  const done = all.then(() => {
    ended = true;
    return undefined;
  });
  const watch = (async (): Promise<Outcome['stalled']> => {
    for (let idle = 0; !ended;) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (ended) return undefined;
      if (clock.now() > RUNAWAY_MS) return 'runaway';
      idle = clock.pending === 0 ? idle + 1 : 0;
      if (idle >= 3) return 'hung';
    }
    return undefined;
  })();
  return Promise.race([done, watch]);
}
