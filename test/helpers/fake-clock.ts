// A clock for in-process tests: time stands still while anything real is under way (a request on a socket) and
// jumps to the next timer as soon as nothing is, so a 30-minute wait or a 5-minute outage takes milliseconds, and
// timers fire in the order of their times whatever the machine's load. Its wall time is a fixed epoch plus now(), so
// the times answers show (the simulator's Date header, created_at) are exact too.
import { CancelledError } from '../../src/shared/time.ts';

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

export class FakeClock {
  private time: number;
  private seq = 0;
  /** Pending timers, earliest first (ties in the order they were set). */
  private readonly timers: Timer[] = [];
  private pumping = false;
  /** True while real work is under way that time must wait for; set by whoever owns the sockets. */
  busy: () => boolean = () => false;
  /** The wall time (ms since the epoch) when now() is 0. */
  readonly epoch: number;

  constructor(start = 1_000_000, epoch = Date.UTC(2025, 0, 1)) {
    this.time = start;
    this.epoch = epoch;
  }

  now(): number {
    return this.time;
  }

  /** Ms since the epoch, for times shown to people: moves with now(), whatever this machine's clock does. */
  wall(): number {
    return this.epoch + this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError());
      const onAbort = () => {
        this.remove(timer);
        reject(new CancelledError());
      };
      const timer: Timer = {
        // Whole milliseconds: a fraction (a retry's random jitter) would make every later time inexact, and a
        // bound a test meets exactly (a read at the deadline's slack) fall either side of it by a rounding error.
        at: Math.ceil(this.time + Math.max(0, ms)),
        seq: this.seq++,
        fire: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.insert(timer);
      this.kick();
    });
  }

  /** Moves time on by `ms` at once, firing what falls due on the way (for a test's own "meanwhile"). */
  async advance(ms: number): Promise<void> {
    const until = Math.ceil(this.time + ms);
    await this.sleep(ms);
    this.time = Math.max(this.time, until);
  }

  /** Timers still pending: a finished test should leave none but those it means to. */
  get pending(): number {
    return this.timers.length;
  }

  private insert(timer: Timer): void {
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1]!.at > timer.at) i--;
    this.timers.splice(i, 0, timer);
  }

  private remove(timer: Timer): void {
    const i = this.timers.indexOf(timer);
    if (i >= 0) this.timers.splice(i, 1);
  }

  private kick(): void {
    if (this.pumping) return;
    this.pumping = true;
    setImmediate(() => this.pump());
  }

  /**
   * Fires the earliest timer once nothing real is under way. setImmediate lets the promise chains a timer
   * resumes run first, so a request they start is counted as busy before time moves again.
   */
  private pump(): void {
    if (this.busy()) {
      setTimeout(() => this.pump(), 1);
      return;
    }
    const next = this.timers.shift();
    if (!next) {
      this.pumping = false;
      return;
    }
    this.time = Math.max(this.time, next.at);
    next.fire();
    setImmediate(() => this.pump());
  }
}
