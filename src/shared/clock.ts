// The run's time for deadlines and elapsed times. Monotonic: a step of the runner's wall clock (NTP, a resumed VM)
// neither ends a run at once nor leaves its timeout unenforced. Wall time is only for times shown to people.
import { CancelledError } from './time.ts';

export interface Clock {
  now(): number /* monotonic ms */;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** performance.now() in whole milliseconds (timers and AbortSignal.timeout take integers). */
export const systemClock: Clock = {
  now: () => Math.floor(performance.now()),
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
  return Date.now() + (at - clock.now());
}
