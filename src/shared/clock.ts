// The run's time, injected: deadlines and elapsed times on a monotonic clock (a step of the runner's wall clock, from
// NTP or a resumed VM, neither ends a run at once nor leaves its timeout unenforced), and wall time only for times
// shown to people. Nothing else in src/ reads a clock or sets a timer, so a test's fake clock runs the whole action.
import { CancelledError } from './time.ts';

export interface Clock {
  /** Monotonic milliseconds (not since the epoch). */
  now(): number;
  /** Milliseconds since the epoch, for times shown to people and HTTP dates. */
  wall(): number;
  /** Resolves `ms` later on this clock, or rejects with CancelledError when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** performance.now() in whole milliseconds (timers take integers). */
export const systemClock: Clock = {
  now: () => Math.floor(performance.now()),
  wall: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError());
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new CancelledError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** The wall time (ms since the epoch) of `at` on `clock`, for a time shown to people. */
export function wallTimeOf(clock: Clock, at: number): number {
  return clock.wall() + (at - clock.now());
}

/** The reason a `timeLimit` signal aborts with. */
class TimeLimitError extends Error {
  override name = 'TimeLimitError';
}

/**
 * A signal that aborts `ms` after `after` does (at once when `after` is absent), on `clock`: AbortSignal.timeout on
 * an injected clock. `dispose` drops the timer once the signal is no longer needed.
 */
export function timeLimit(
  clock: Clock,
  ms: number,
  after?: AbortSignal,
): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const stop = new AbortController();
  const start = () =>
    clock.sleep(ms, stop.signal).then(
      () => controller.abort(after?.reason ?? new TimeLimitError(`${ms} ms`)),
      () => undefined,
    );
  if (!after || after.aborted) void start();
  else after.addEventListener('abort', () => void start(), { once: true, signal: stop.signal });
  return { signal: controller.signal, dispose: () => stop.abort() };
}
