// The one wall-clock limit the tests keep: a guard against a hang, minutes beyond what any test takes on a loaded
// machine. No test may need it to pass: a bound a test asserts is on the fake clock, or on CPU time or memory.

/** Every test's and hook's timeout (vitest.config.ts), and how long a wait for a real event may last. */
export const HANG_GUARD_MS = 5 * 60_000;

/** A child process still running this long is killed, before its test's guard, so the test fails with its output. */
export const CHILD_HANG_GUARD_MS = 4 * 60_000;
