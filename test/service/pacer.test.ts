// One client paces the run's requests (issue 33): a slow start, then the rate the service allows, learned from its
// 429s or told by its rate-limit headers. The whole action in-process against the simulator's rate limit (a sliding
// one-second window), on the fake clock, where a request takes no time: the share of 429s is what the pacing alone
// makes it. `npm run load` measures the same through the bundle, on the wall clock.
import { describe, expect, it } from 'vitest';
import { RetryAfterError } from '../../src/service/errors.ts';
import { Pacer, type Turn } from '../../src/service/pacer.ts';
import { rateLimitOf } from '../../src/service/rate-limit.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { baseInputs, INTEGRATION } from '../helpers/setup.ts';
import type { RateLimit, TimelineStep } from '../simulator/server.ts';

const world = useWorld();

const COUNT = 20;
const names = Array.from({ length: COUNT }, (_, i) => `agent-${String(i + 1).padStart(2, '0')}`);
/** Each revision live 5 s after its write, as in `npm run load`. */
const TIMELINE: TimelineStep[] = [
  { status: 'QUEUED', ms: 1000 },
  { status: 'BUILDING', ms: 3000 },
  { status: 'DEPLOYING', ms: 1000 },
  { status: 'DEPLOYED' },
];

/** 20 deployments updated in one step, `parallel` at a time, against a service allowing 8 requests a second. */
async function fleet(parallel: number, limit: Partial<RateLimit> = {}) {
  const { sim } = world;
  for (const name of names) sim.addDeployment({ name });
  sim.defaultTimeline = TIMELINE;
  sim.rateLimit = { perSecond: 8, retryAfterSeconds: 1, ...limit };
  const run = await runInProcess(world, {
    inputs: baseInputs(sim, {
      'integration-id': INTEGRATION,
      'graph-config-path': 'graph.json',
      deployments: JSON.stringify(names.map((name) => ({ name }))),
      'max-parallel': String(parallel),
      'poll-interval': '2s',
      timeout: '5m',
    }),
  });
  const requests = sim.requests.length;
  const limited = sim.answered.get(429) ?? 0;
  return { run, requests, limited, share: limited / requests };
}

describe('20 deployments in one step against 8 requests a second', () => {
  it.each([4, 8, 16])(
    'max-parallel %i: at most 10% of the requests answered 429, all deployed',
    async (parallel) => {
      const { run, share } = await fleet(parallel);

      expect(run.errors).toEqual([]);
      expect(run.outputs.result).toBe('deployed');
      // One new revision each: a PATCH refused with 429 was sent again, never one that was applied.
      for (const name of names)
        expect(world.sim.revisions(world.sim.deploymentsNamed(name)[0]!.id)).toHaveLength(2);
      expect(share).toBeLessThanOrEqual(0.1);
    },
  );

  it.each(['ietf', 'x-ratelimit'] as const)(
    'with rate-limit headers (%s): the requests they count as left are never exceeded',
    async (headers) => {
      const { run, limited } = await fleet(16, { headers });

      expect(run.errors).toEqual([]);
      expect(run.outputs.result).toBe('deployed');
      expect(limited).toBe(0);
    },
  );

  it('starts slowly: 4 requests at first, not one per deployment, and 8 in the first second', async () => {
    const { limited } = await fleet(16);
    const [first] = world.sim.requests;
    const within = (ms: number) => world.sim.requests.filter((r) => r.at < first!.at + ms);

    expect(within(1).length).toBe(4);
    expect(within(1000).length).toBeLessThanOrEqual(9);
    expect(limited).toBeLessThanOrEqual(2);
  });
});

describe('the pacer on its own', () => {
  const ok = { status: 200, headers: {} };
  /** Lets the fake clock fire what is due, and the promises it resolves run. */
  const settle = async () => {
    for (let i = 0; i < 200; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  /**
   * `n` turns asked for at once; each one's start time is recorded as it comes, and with `over` the request is over
   * at once, its answer telling nothing.
   */
  function ask(pacer: Pacer, clock: FakeClock, n: number, deadlineMs = 300_000, over = false) {
    const window = {
      signal: new AbortController().signal,
      deadline: clock.now() + deadlineMs,
      limit: 'timeout 5m',
    };
    const startedAt: number[] = [];
    const turns = Array.from({ length: n }, () =>
      pacer.turn(window).then((turn) => {
        startedAt.push(clock.now());
        if (over) turn.done(undefined);
        return turn;
      }),
    );
    return { startedAt, turns };
  }

  it('lets 4 requests in flight at first: the fifth starts when one is over', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const pacer = new Pacer(clock);
    const { startedAt, turns } = ask(pacer, clock, 5);
    await settle();
    expect(startedAt).toEqual([t0, t0, t0, t0]);

    await clock.advance(5000);
    expect(startedAt).toHaveLength(4);
    (await turns[0]!).done(ok);
    await settle();
    expect(startedAt).toEqual([t0, t0, t0, t0, t0 + 5000]);
  });

  it('does not slow requests sent one after the other: a run of one deployment reads at once', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const pacer = new Pacer(clock);
    for (let i = 0; i < 12; i++) {
      const { turns } = ask(pacer, clock, 1);
      (await turns[0]!).done(ok);
    }
    expect(clock.now()).toBe(t0);
  });

  it('after a 429, starts the calls a hold kept back one by one at the pace, not together', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const pacer = new Pacer(clock);
    const first = ask(pacer, clock, 1);
    (await first.turns[0]!).done({ status: 429, headers: {} });
    pacer.hold({ until: t0 + 1000, asked: 'GET /x answered 429' });
    const held = ask(pacer, clock, 4, 300_000, true);
    await settle();

    // Nothing let through before the 429: half the starting 4 a second.
    expect(held.startedAt).toEqual([t0 + 1000, t0 + 1500, t0 + 2000, t0 + 2500]);
    expect(clock.pending).toBe(0);
  });

  it('ends a turn at once when a hold lasts past its deadline, naming the wait asked', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer(clock);
    pacer.hold({
      until: clock.now() + 3_600_000,
      asked: 'GET /x answered 429 with Retry-After: the service asks to wait 60 min 0 s',
    });
    const { turns } = ask(pacer, clock, 1, 60_000);

    const error: unknown = await turns[0]!.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryAfterError);
    expect((error as Error).message).toBe(
      'GET /x answered 429 with Retry-After: the service asks to wait 60 min 0 s, past the end of the timeout 5m (1 min 0 s left): not waited for. Run the job again later, or raise timeout.',
    );
    expect(clock.now()).toBe(1_000_000);
  });

  it('waits for the reset when the headers count no request left', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const pacer = new Pacer(clock);
    const { turns } = ask(pacer, clock, 1);
    const turn: Turn = await turns[0]!;
    turn.done({ status: 200, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3' } });
    const next = ask(pacer, clock, 1);
    await settle();

    expect(next.startedAt).toEqual([t0 + 3000]);
  });
});

describe('rate-limit headers, read as data', () => {
  const WALL = Date.UTC(2025, 0, 1);

  it.each([
    [
      'the later draft',
      { 'ratelimit-policy': '"default";q=100;w=60', ratelimit: '"default";r=5;t=30' },
      { policy: { quota: 100, windowMs: 60_000 }, remaining: 5, resetMs: 30_000 },
    ],
    [
      'the earlier draft',
      { 'ratelimit-policy': '10;w=1, 100;w=60', ratelimit: 'limit=100, remaining=50, reset=30' },
      { policy: { quota: 100, windowMs: 60_000 }, remaining: 50, resetMs: 30_000 },
    ],
    [
      'the draft before it',
      { 'ratelimit-limit': '8', 'ratelimit-remaining': '3', 'ratelimit-reset': '1' },
      { remaining: 3, resetMs: 1000 },
    ],
    [
      'X-RateLimit with a reset in seconds since the epoch, against the Date',
      {
        date: new Date(WALL).toUTCString(),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(WALL / 1000 + 42),
      },
      { remaining: 0, resetMs: 42_000 },
    ],
    [
      'values that are not counts, a zero quota, a reset past a day',
      {
        'ratelimit-policy': '0;w=1, "x";q=-1;w=1, 5;w=0',
        ratelimit: '"x";r=1.5;t=abc',
        'x-ratelimit-remaining': '1',
        'x-ratelimit-reset': '90000',
      },
      {},
    ],
  ])('%s', (_, headers, info) => {
    expect(rateLimitOf(headers, WALL)).toEqual(info);
  });
});
