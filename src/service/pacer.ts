// One pace for every request of a run, all the deployments of a list included, so that a service's rate limit is
// met seldom instead of by a burst of requests at once:
// - a slow start: at first at most 4 requests in flight and 4 a second (in a burst of up to 4), each answer that
//   comes back well raising both by one, so the first lookups of a list do not all meet the limit together; a
//   request alone (nothing in flight, nothing waiting: a run of one deployment reads one thing after another) is
//   not a burst, and goes at once;
// - after a 429, a token bucket at the rate the service allowed: the one its RateLimit-Policy header tells, else 90%
//   of the requests it answered well in the second before the 429 (at least half the rate that met it), raised a
//   little with each answer after (the limit may be higher than what one second showed); a policy alone does not
//   slow a run that meets no limit (an hourly budget allows bursts);
// - the requests the headers count as left, and a hold (a come-back-later told to one call of a list holds all of
//   them), both of which end a request's turn at once with an error when they last past its deadline.
// On the run's injected clock: a wait is one timer at a time, and no timer is left when nothing waits.
import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../shared/clock.ts';
import { CancelledError, seconds } from '../shared/time.ts';
import { RetryAfterError } from './errors.ts';
import { rateLimitOf } from './rate-limit.ts';

/** Requests in flight, and a second, at first. */
const START = 4;
/** The most requests in flight that good answers raise the bound to (a list runs at most 16 deployments). */
const MAX_IN_FLIGHT = 64;
/** The share of the requests a second that met a 429 that the pace keeps to. */
const MARGIN = 0.9;
/** Requests a second the pace learned from 429s never goes below: one every two seconds (a policy's is as told). */
const MIN_RATE = 0.5;
/** Once a limit was met: requests a second added per second of answers that came back well. */
const PROBE = 0.1;
/** How far back a 429 looks for the requests the service let through. */
const SEEN_MS = 1000;

/** What a request's end tells the pace: its answer, 'failed' (none: a reset, a time limit), or nothing (not sent). */
export type Answered = { status: number; headers: IncomingHttpHeaders } | 'failed' | undefined;

export interface Turn {
  /** Called once the request is over; later calls do nothing. */
  done(answer: Answered): void;
}

/** A wait the service asked for: until when (on the clock), and how it asked, for the error when it lasts too long. */
export interface Hold {
  until: number;
  asked: string;
}

/**
 * The window a request is sent in: its deadline, and the input that set it ("timeout 30m"), for messages. `urgent`:
 * the request goes at once, past a hold and the pace (one read that tells what a write did).
 */
export interface Window {
  signal: AbortSignal;
  deadline: number;
  limit: string;
  urgent?: boolean;
}

interface Waiter {
  window: Window;
  resolve(turn: Turn): void;
  reject(error: unknown): void;
  /** Stops listening to the window's signal. */
  settle(): void;
}

export class Pacer {
  private readonly time: Clock;
  /** Requests waiting for their turn, in the order they asked. */
  private readonly queue: Waiter[] = [];
  private inFlight = 0;
  private maxInFlight = START;
  /** Requests a second, and the bucket of them: up to `burst` at once. */
  private rate = START;
  private burst = START;
  private tokens = START;
  private filledAt: number;
  /** Whether a limit was met (a 429): the rate then grows by PROBE a second, no longer by one per answer. */
  private limited = false;
  /** The rate a RateLimit-Policy told, which the pace keeps to once a limit was met (answers then do not raise it). */
  private told?: number;
  private held?: Hold;
  /** The requests left until `until`, as counted by the newest answer (its request's number: `of`) with headers. */
  private left?: { count: number; until: number; of: number };
  /** Requests started so far: each one's number. */
  private started = 0;
  /** When each request that answered well in the last second started: what a 429 measures the allowed rate by. */
  private readonly good: number[] = [];
  private timer?: { at: number; stop: AbortController };

  constructor(time: Clock) {
    this.time = time;
    this.filledAt = time.now();
  }

  /**
   * Resolves when a request may start; its turn must be told when it is over (`done`). Rejects with CancelledError
   * on the window's signal, and with a RetryAfterError at once when a hold lasts past the window's deadline. A wait
   * for the rate alone ends at the deadline: the request then goes as it would without one.
   */
  turn(window: Window): Promise<Turn> {
    if (window.signal.aborted) return Promise.reject(new CancelledError());
    if (window.urgent) return Promise.resolve(this.start(this.time.now(), false));
    return new Promise<Turn>((resolve, reject) => {
      const onAbort = () => {
        this.drop(waiter);
        reject(new CancelledError());
        this.dispatch();
      };
      const waiter: Waiter = {
        window,
        resolve,
        reject,
        settle: () => window.signal.removeEventListener('abort', onAbort),
      };
      window.signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.dispatch();
    });
  }

  /** No request starts before `hold.until`; the ones it kept back start again at the pace, one after the other. */
  hold(hold: Hold): void {
    if (this.held && this.held.until >= hold.until) return;
    this.held = hold;
    // One token at the end of the hold: the first call goes then, the next ones at the pace after it.
    this.tokens = 1;
    this.filledAt = hold.until;
    this.dispatch();
  }

  /** Starts every waiting request whose turn has come, and sets the one timer for the next. */
  private dispatch(): void {
    let waking = false;
    for (let head = this.queue[0]; head; head = this.queue[0]) {
      const now = this.time.now();
      const { deadline, limit } = head.window;
      const hold = this.holdAt(now);
      if (hold && hold.until > deadline) {
        this.drop(head);
        head.reject(new RetryAfterError(hold.asked, limit, Math.max(0, deadline - now)));
        continue;
      }
      if (this.inFlight >= this.maxInFlight) break;
      // Before any limit is met, the rate bounds bursts: a lone request (one run's chain of reads) goes at once.
      const alone = !this.limited && this.inFlight === 0 && this.queue.length === 1;
      const ready = Math.max(hold?.until ?? now, alone ? now : this.tokenAt(now));
      if (ready > now && now < deadline) {
        this.wakeAt(Math.ceil(Math.min(ready, deadline)));
        waking = true;
        break;
      }
      this.drop(head);
      head.resolve(this.start(now, alone));
    }
    if (!waking) this.stopTimer();
  }

  private start(now: number, alone: boolean): Turn {
    this.refill(now);
    this.tokens = alone ? Math.max(0, this.tokens - 1) : this.tokens - 1;
    if (this.left && now < this.left.until) this.left.count--;
    this.inFlight++;
    const number = ++this.started;
    let over = false;
    return {
      done: (answer) => {
        if (over) return;
        over = true;
        this.inFlight--;
        this.learn(number, now, answer);
        this.dispatch();
      },
    };
  }

  private learn(number: number, startedAt: number, answer: Answered): void {
    if (answer === undefined) return;
    const now = this.time.now();
    // No answer, or a service failing or too slow to answer: fewer requests at once until it answers well again.
    if (answer === 'failed' || answer.status >= 500 || answer.status === 408) {
      this.maxInFlight = Math.max(1, Math.floor(this.maxInFlight / 2));
      if (answer !== 'failed') this.heed(number, answer.headers, now);
      return;
    }
    this.heed(number, answer.headers, now);
    if (answer.status === 429) return this.limit(now);
    this.maxInFlight = Math.min(MAX_IN_FLIGHT, this.maxInFlight + 1);
    this.good.push(startedAt);
    this.forget(now);
    if (!this.limited) this.rate += 1;
    else if (this.told === undefined) this.rate += PROBE / this.rate;
  }

  /** What an answer's rate-limit headers tell: the pace allowed, and the requests left until a reset. */
  private heed(number: number, headers: IncomingHttpHeaders, now: number): void {
    const info = rateLimitOf(headers, this.time.wall());
    if (info.policy) {
      this.told = info.policy.quota / (info.policy.windowMs / 1000);
      if (this.limited) this.rate = this.told;
    }
    if (info.remaining === undefined || info.resetMs === undefined) return;
    if (this.left && this.left.of > number) return;
    // The requests started after this one are not in its count.
    const count = info.remaining - (this.started - number);
    this.left = { count, until: now + info.resetMs, of: number };
  }

  /** A 429: the bucket slows to what the service let through, and starts empty. */
  private limit(now: number): void {
    this.forget(now);
    this.rate =
      this.told ??
      Math.max(Math.min(this.good.length * MARGIN, this.rate), this.rate / 2, MIN_RATE);
    this.limited = true;
    this.burst = 1;
    this.refill(now);
    this.tokens = Math.min(this.tokens, 0);
    this.maxInFlight = Math.max(1, Math.floor(this.maxInFlight / 2));
  }

  /** The later of the hold and an exhausted count of requests left, while either lasts. */
  private holdAt(now: number): Hold | undefined {
    const held = this.held && this.held.until > now ? this.held : undefined;
    const left = this.left;
    if (!left || left.count > 0 || left.until <= now || (held && held.until >= left.until))
      return held;
    return {
      until: left.until,
      asked: `The service's rate-limit headers leave no request for ${seconds(left.until - now)}`,
    };
  }

  private refill(now: number): void {
    if (now <= this.filledAt) return;
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.filledAt) * this.rate) / 1000);
    this.filledAt = now;
  }

  /** When the bucket next holds a whole token. */
  private tokenAt(now: number): number {
    this.refill(now);
    const from = Math.max(now, this.filledAt);
    return this.tokens >= 1 ? from : from + ((1 - this.tokens) * 1000) / this.rate;
  }

  private forget(now: number): void {
    while (this.good.length > 0 && this.good[0]! <= now - SEEN_MS) this.good.shift();
  }

  private drop(waiter: Waiter): void {
    const at = this.queue.indexOf(waiter);
    if (at !== -1) this.queue.splice(at, 1);
    waiter.settle();
  }

  private wakeAt(at: number): void {
    if (this.timer?.at === at) return;
    this.stopTimer();
    const stop = new AbortController();
    this.timer = { at, stop };
    this.time.sleep(at - this.time.now(), stop.signal).then(
      () => {
        if (this.timer?.stop !== stop) return;
        this.timer = undefined;
        this.dispatch();
      },
      () => undefined,
    );
  }

  private stopTimer(): void {
    this.timer?.stop.abort();
    this.timer = undefined;
  }
}
