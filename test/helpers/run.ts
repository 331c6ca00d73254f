// The whole action in-process, on a fake clock: the run of src/run.ts over a MemoryHost (the GitHub host's context
// and integrations, the runner's I/O in memory), against the simulator on the same clock, through real sockets.
// A test reads like one of dist/ (inputs in; outputs, summary and log lines out), but a 30-minute wait or a
// 5-minute outage takes milliseconds, and nothing depends on how busy the machine is.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Git } from '../../src/core/host.ts';
import type { RunReport } from '../../src/core/report.ts';
import type { GitHubApi } from '../../src/hosts/github/api.ts';
import { systemGit } from '../../src/hosts/git.ts';
import { runAction } from '../../src/run.ts';
import { Simulator } from '../simulator/server.ts';
import { runnerVariables } from './action.ts';
import { countingTransport } from './core.ts';
import { FakeClock } from './fake-clock.ts';
import { MemoryHost } from './memory-host.ts';
import { API_KEY } from './setup.ts';

/** A simulator, a fake clock and a counted wire, shared by the tests of a file; the simulator is emptied before each. */
export interface World {
  clock: FakeClock;
  sim: Simulator;
  transport: ReturnType<typeof countingTransport>;
  /** Fakes besides the simulator that hold requests on purpose: time moves while only they, or it, hold any. */
  holders: { parked: number }[];
}

export function useWorld(): World {
  const world = {} as World;
  beforeAll(async () => {
    world.clock = new FakeClock();
    world.sim = await Simulator.start({ apiKey: API_KEY, clock: world.clock });
    world.transport = countingTransport();
    world.holders = [];
    // Time waits while a request is on the wire, unless the simulator or another fake is holding it on purpose.
    world.clock.busy = () =>
      world.transport.inFlight >
      world.holders.reduce((parked, holder) => parked + holder.parked, world.sim.parked);
  });
  beforeEach(() => world.sim.reset());
  afterAll(async () => {
    world.transport.dispose();
    await world.sim.close();
  });
  return world;
}

/**
 * Waits until no request of the run is still going: a request the run gave up on (cancelled, or cut at its
 * limit) is over for the client at once, but the simulator learns it only when the socket's close reaches it, and
 * until then counts it in `parked`. A next run starting meanwhile would see time move with its own requests on the
 * wire (busy is inFlight > parked).
 */
async function quiet(world: World): Promise<void> {
  for (let i = 0; i < 1000 && (world.sim.parked > 0 || world.transport.inFlight > 0); i++)
    await new Promise((resolve) => setTimeout(resolve, 1));
}

export interface InProcessOptions {
  inputs: Record<string, string>;
  /** Runner variables, over those of a push to main of acme/agent. */
  env?: Record<string, string>;
  /** The event payload (GITHUB_EVENT_PATH). */
  event?: unknown;
  /** Files to write into the workspace before the run: relative path → content. */
  files?: Record<string, string>;
  /** Cancels the job (as the runner's SIGINT) this long after the start, on the world's clock. */
  cancelAfterMs?: number;
  /** The GitHub API the integrations talk to (a fake's Octokit); its calls count as on the wire. */
  github?: GitHubApi;
}

/** What a run left: as runAction in helpers/action.ts reads it from a child process, plus the report itself. */
export interface InProcessRun {
  code: 0 | 1;
  outputs: Record<string, string>;
  summary: string;
  /** The log as the runner would print it: `::warning::…`, `::error::…`, `::add-mask::…`, plain info lines. */
  stdout: string;
  /** The failure line, when the run failed. */
  errors: string[];
  lines: MemoryHost['lines'];
  report: RunReport;
  /** How long the run took on the world's clock. */
  ms: number;
}

export async function runInProcess(world: World, options: InProcessOptions): Promise<InProcessRun> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-inproc-'));
  const eventFile = join(dir, 'event.json');
  writeFileSync(eventFile, JSON.stringify(options.event ?? {}));
  for (const [path, content] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const env = { ...runnerVariables(dir, eventFile), ...options.env };
  const host = new MemoryHost(
    options.inputs,
    env,
    options.github && counted(world, options.github),
  );
  const cancel = new AbortController();
  const done = new AbortController();
  if (options.cancelAfterMs !== undefined)
    world.clock.sleep(options.cancelAfterMs, done.signal).then(
      () => cancel.abort('SIGINT'),
      () => undefined,
    );
  const started = world.clock.now();
  try {
    const report = await runAction({
      host,
      clock: world.clock,
      transport: world.transport,
      signal: cancel.signal,
      git: countedGit(world),
    });
    const stdout = runnerLog(host).join('\n');
    return {
      code: host.failure === undefined ? 0 : 1,
      outputs: host.outputs,
      summary: host.summaryText,
      stdout,
      errors: host.failure === undefined ? [] : [host.failure],
      lines: host.lines,
      report,
      ms: world.clock.now() - started,
    };
  } finally {
    done.abort();
    rmSync(dir, { recursive: true, force: true });
    await quiet(world);
  }
}

/** Everything a run shows a person: its log (without the mask commands), summary, outputs and failure line. */
export function visibleText(run: InProcessRun): Record<string, string> {
  return {
    stdout: run.stdout
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n'),
    summary: run.summary,
    outputs: JSON.stringify(run.outputs),
    errors: run.errors.join('\n'),
  };
}

/** The host's log as the runner prints it: each mask command where it was asked for, among the lines. */
function runnerLog(host: MemoryHost): string[] {
  const log: string[] = [];
  let m = 0;
  const masksUpTo = (line: number) => {
    for (; m < host.masked.length && host.maskedAt[m]! <= line; m++)
      log.push(`::add-mask::${escapeData(host.masked[m]!)}`);
  };
  host.lines.forEach(({ level, text }, i) => {
    masksUpTo(i);
    log.push(level === 'info' ? text : `::${level}::${escapeData(text)}`);
  });
  masksUpTo(Infinity);
  return log;
}

/** The runner's escaping of a command's data (@actions/core's escapeData). */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** The git on PATH, whose runs the world's clock waits for, like requests on its transport. */
export function countedGit(world: World): Git {
  return {
    async changedFiles(...args) {
      world.transport.inFlight++;
      try {
        return await systemGit.changedFiles(...args);
      } finally {
        world.transport.inFlight--;
      }
    },
  };
}

/** A GitHub API whose calls the world's clock waits for, like requests on its transport. */
function counted(world: World, api: GitHubApi): GitHubApi {
  return {
    async request(route, params) {
      world.transport.inFlight++;
      try {
        return await api.request(route, params);
      } finally {
        world.transport.inFlight--;
      }
    },
  };
}
