// A schedule drawn from a seed: the service as the runs find it (what exists, how it pages, lags, skews its Date
// and switches revisions), the faults the wire injects, and the 2 to 5 runs that act on one deployment at once.
// It is plain data, drawn before anything runs, so it can be told in words; what a run meets on the wire is drawn
// as it goes (transport.ts), from the seed's own stream for faults.
import type { ActiveSwitch, TimelineStep } from '../simulator/server.ts';
import { Rng } from './random.ts';

/** The deployment every run acts on; a list's second item is `HELPER`. */
export const TARGET = 'agent';
export const HELPER = 'helper';
export const TOKEN = 'tok-1';

export type Source = 'codehost' | 'external_docker';

export interface ServicePlan {
  source: Source;
  /** Whether TARGET exists at the start, with `revisions` revisions (the last one active). */
  exists: boolean;
  revisions: number;
  helperExists: boolean;
  /** Deployments whose names contain TARGET's (agent-1, …), in the listing before and after it. */
  fillers: number;
  /** TARGET's place among the fillers in the listing. */
  position: number;
  pageCap?: number;
  revisionVisibleAfterMs: number;
  dateSkewMs: number;
  activeSwitch: ActiveSwitch;
  redeployMode: 'same-revision' | 'new-revision';
  /** A create of a taken name succeeds: then only one run may create each name (see runs). */
  duplicateNames: boolean;
  /** The timelines the service's new revisions run, in the order they are made (then `fallback`). */
  timelines: TimelineStep[][];
  fallback: TimelineStep[];
}

/** What the wire may do to a request (transport.ts says each in words). */
export const FAULT_KINDS = [
  'delay',
  'refused',
  '429',
  '503',
  '5xx',
  'reset',
  'hang',
  'lost',
  'lag',
  'shift',
  'stale',
  'late',
  'raced',
  'garbled',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Outage {
  fromMs: number;
  forMs: number;
  kind: 'refused' | '503' | 'reset';
}

export interface FaultPlan {
  /** The share of reads and of writes that meet a fault of one of `kinds` (writes: few, and the subtle part). */
  rate: number;
  writeRate: number;
  kinds: FaultKind[];
  outages: Outage[];
  /** Another change (a person, a job outside the schedule) lands a revision on TARGET at these times. */
  foreign: { atMs: number; timeline: TimelineStep[] }[];
}

export type Command =
  'deploy' | 'dry-run' | 'status' | 'redeploy' | 'promote' | 'list' | 'token-metadata';

export interface RunPlan {
  /** 1 to 5, in the order the runs are drawn. */
  id: number;
  command: Command;
  startMs: number;
  /** The job is cancelled (SIGINT) this long after its start. */
  cancelMs?: number;
  timeoutMs: number;
  pollMs: number;
  wait: boolean;
  rollback: boolean;
  create: boolean;
  /** Whether repo-url is given (else a create resolves it from the integration's listing). */
  repoUrl: boolean;
  /** deploy, dry-run, list: the ref (codehost) or image tag (docker) this run sends, no other run's. */
  value: string;
  /** list: the HELPER item's value. */
  helperValue?: string;
  /** redeploy: which of TARGET's seeded revisions (0: the oldest). */
  revision?: number;
  /** promote: which source deployment (source-N, one per promote run). */
  from?: number;
  /** token-metadata: the label it sets, and is-default. */
  label?: string;
  isDefault?: boolean;
}

export interface Schedule {
  seed: number;
  service: ServicePlan;
  faults: FaultPlan;
  runs: RunPlan[];
}

const TIMEOUTS_MS = [20_000, 45_000, 120_000, 300_000];
const POLLS_MS = [1000, 2000, 5000, 10_000];

export function drawSchedule(seed: number): Schedule {
  const rng = new Rng(seed, 'schedule');
  const service = drawService(rng);
  const faults = drawFaults(rng);
  const count = rng.int(2, 5);
  const runs: RunPlan[] = [];
  for (let id = 1; id <= count; id++) runs.push(drawRun(rng, id, service, runs));
  // With duplicate names allowed, a second create of a name would make a second deployment whatever the action
  // does: one run may create each name, so that the count of deployments of a name is the action's doing.
  if (service.duplicateNames) {
    const creators = runs.filter((r) => r.create && creates(r.command));
    const keep = creators.length ? rng.pick(creators) : undefined;
    for (const run of creators) run.create = run === keep;
  }
  return { seed, service, faults, runs };
}

function creates(command: Command): boolean {
  return command === 'deploy' || command === 'promote' || command === 'list';
}

function drawService(rng: Rng): ServicePlan {
  const exists = rng.chance(0.65);
  const fillers = rng.chance(0.5) ? rng.int(1, 8) : 0;
  return {
    source: rng.chance(0.8) ? 'codehost' : 'external_docker',
    exists,
    revisions: exists ? rng.int(1, 3) : 0,
    helperExists: rng.chance(0.5),
    fillers,
    position: rng.int(0, fillers),
    pageCap: rng.chance(0.3) ? rng.int(1, 4) : undefined,
    revisionVisibleAfterMs: rng.chance(0.3) ? rng.int(100, 8000) : 0,
    dateSkewMs: rng.chance(0.3) ? rng.int(-3_600_000, 3_600_000) : 0,
    activeSwitch: rng.pick<ActiveSwitch>([
      'immediate',
      'immediate',
      'immediate',
      { delayMs: rng.int(0, 25_000) },
      { delayMs: rng.int(0, 25_000) },
      'never',
    ]),
    redeployMode: rng.chance(0.5) ? 'same-revision' : 'new-revision',
    duplicateNames: rng.chance(0.4),
    timelines: Array.from({ length: 16 }, () => drawTimeline(rng)),
    fallback: drawTimeline(rng),
  };
}

/** A revision's life: queued, built, deployed, each for a while; mostly DEPLOYED, sometimes failed or stuck. */
function drawTimeline(rng: Rng): TimelineStep[] {
  const queued = { status: 'QUEUED', ms: rng.int(0, 8000) };
  const building = { status: 'BUILDING', ms: rng.int(0, 30_000) };
  const deploying = { status: 'DEPLOYING', ms: rng.int(0, 15_000) };
  const end = rng.weighted({
    DEPLOYED: 80,
    BUILD_FAILED: 5,
    DEPLOY_FAILED: 5,
    SKIPPED: 3,
    INTERRUPTED: 2,
    stuck: 5,
  });
  if (end === 'stuck') return [queued, { status: 'BUILDING' }];
  if (end === 'BUILD_FAILED') return [queued, building, { status: end }];
  return [queued, building, deploying, { status: end }];
}

function drawFaults(rng: Rng): FaultPlan {
  const rate = rng.pick([0, 0.03, 0.1, 0.2, 0.35]);
  const writeRate = rng.pick([0, 0.15, 0.3, 0.5]);
  const kinds = FAULT_KINDS.filter(() => rng.chance(0.45));
  const outages: Outage[] = [];
  if (rng.chance(0.25))
    outages.push({
      fromMs: rng.int(0, 60_000),
      forMs: rng.int(1000, 90_000),
      kind: rng.pick(['refused', '503', 'reset'] as const),
    });
  const foreign = rng.chance(0.2)
    ? Array.from({ length: rng.int(1, 2) }, () => ({
        atMs: rng.int(0, 60_000),
        timeline: drawTimeline(rng),
      }))
    : [];
  return {
    rate: kinds.length ? rate : 0,
    writeRate: kinds.length ? writeRate : 0,
    kinds,
    outages,
    foreign,
  };
}

function drawRun(rng: Rng, id: number, service: ServicePlan, before: RunPlan[]): RunPlan {
  // Two redeploys of one revision send the same values: each may take the other's revision for its own, which
  // the contract accepts (docs/reliability.md). Each redeploy run gets a revision of its own.
  const chosen = new Set(before.map((r) => r.revision));
  const free = Array.from({ length: service.revisions }, (_, i) => i).filter((i) => !chosen.has(i));
  const weights: Record<Command, number> = {
    deploy: 50,
    promote: 10,
    redeploy: free.length ? 10 : 0,
    // One list per schedule: HELPER is then acted on by one run only.
    list: before.some((r) => r.command === 'list') ? 0 : 10,
    status: 6,
    'dry-run': 6,
    'token-metadata': 5,
  };
  const command = rng.weighted(weights);
  const timeoutMs = rng.pick(TIMEOUTS_MS);
  return {
    id,
    command,
    startMs: rng.int(0, 3000),
    // Half the cancels come in the first seconds, where the writes are.
    cancelMs: rng.chance(0.15) ? rng.int(0, rng.chance(0.5) ? 10_000 : timeoutMs) : undefined,
    timeoutMs,
    pollMs: rng.pick(POLLS_MS),
    wait: rng.chance(0.9),
    rollback: rng.chance(0.2),
    // create: false where nothing exists only fails the lookup: seldom.
    create: rng.chance(service.exists ? 0.85 : 0.95),
    // A list's items are different repositories: repo-url would be wrong for one of them.
    repoUrl: command !== 'list' && rng.chance(0.5),
    value: `run${id}`,
    helperValue: command === 'list' ? `run${id}-helper` : undefined,
    revision: command === 'redeploy' ? rng.pick(free) : undefined,
    from: command === 'promote' ? before.filter((r) => r.command === 'promote').length : undefined,
    label: command === 'token-metadata' ? `label-run${id}` : undefined,
    isDefault: command === 'token-metadata' ? rng.chance(0.5) : undefined,
  };
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** The schedule in words, a line each: the service, the faults, then each run. */
export function describeSchedule(schedule: Schedule): string[] {
  const { service: sv, faults: f } = schedule;
  const lines: string[] = [];
  lines.push(
    `service: '${TARGET}' (${sv.source}) ${sv.exists ? `exists with ${sv.revisions} revision(s), the last active` : 'does not exist'}; '${HELPER}' ${sv.helperExists ? 'exists' : 'does not'}; ${sv.fillers} other name(s) containing '${TARGET}'` +
      `${sv.pageCap ? `; pages capped at ${sv.pageCap}` : ''}` +
      `${sv.revisionVisibleAfterMs ? `; a new revision answers 404 for ${s(sv.revisionVisibleAfterMs)}` : ''}` +
      `${sv.dateSkewMs ? `; its Date is ${s(sv.dateSkewMs)} off` : ''}` +
      `; a DEPLOYED revision goes active ${typeof sv.activeSwitch === 'string' ? sv.activeSwitch : `${s(sv.activeSwitch.delayMs)} later`}` +
      `; redeploy: ${sv.redeployMode}${sv.duplicateNames ? '; duplicate names allowed' : ''}`,
  );
  lines.push(
    `new revisions run, in order: ${sv.timelines
      .slice(0, 6)
      .map((t) =>
        t.map((step) => step.status + (step.ms === undefined ? '' : ` ${s(step.ms)}`)).join(' → '),
      )
      .join('; ')}; …`,
  );
  lines.push(
    `faults: ${f.kinds.length ? `${Math.round(f.rate * 100)}% of reads and ${Math.round(f.writeRate * 100)}% of writes (${f.kinds.join(', ')})` : 'none drawn per request'}` +
      f.outages
        .map((o) => `; an outage (${o.kind}) from ${s(o.fromMs)} for ${s(o.forMs)}`)
        .join('') +
      f.foreign.map((c) => `; another change lands on '${TARGET}' at ${s(c.atMs)}`).join(''),
  );
  for (const run of schedule.runs) lines.push(describeRun(run, sv.source));
  return lines;
}

function describeRun(run: RunPlan, source: Source): string {
  const field = source === 'codehost' ? 'repo-ref' : 'image tag';
  const what: Record<Command, string> = {
    deploy: `deploy '${TARGET}' with ${field} ${run.value}`,
    'dry-run': `dry-run deploy of '${TARGET}' with ${field} ${run.value}`,
    status: `status of '${TARGET}'`,
    redeploy: `redeploy of '${TARGET}''s seeded revision #${run.revision}`,
    promote: `promote source-${run.from}'s active revision to '${TARGET}'`,
    list: `deployments: '${TARGET}' with ${field} ${run.value}, '${HELPER}' with ${run.helperValue}`,
    'token-metadata': `token-metadata of ${TOKEN}: label ${run.label}, is-default ${run.isDefault}`,
  };
  const options = [
    `timeout ${s(run.timeoutMs)}`,
    `poll ${s(run.pollMs)}`,
    run.create ? '' : 'create false',
    run.wait ? '' : 'wait false',
    run.rollback ? 'rollback-on-failure' : '',
    run.repoUrl ? 'repo-url given' : '',
  ].filter(Boolean);
  const cancel = run.cancelMs === undefined ? '' : `, cancelled ${s(run.cancelMs)} after its start`;
  return `run ${run.id} from ${s(run.startMs)}: ${what[run.command]} (${options.join(', ')})${cancel}`;
}
