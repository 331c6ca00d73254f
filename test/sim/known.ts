// Violations that are known bugs of main, each named with the fix that removes it, matched on a violation's
// invariant and signature (never on a seed). One that matches is reported as known, not as a failure, so that the
// budgeted test stays green while the fix is under way; remove the entry once the fix is merged, and the
// simulation checks that rule again (`npm run simulate -- --strict` counts them all).
import type { Invariant, Violation } from './invariants.ts';

interface KnownBug {
  name: string;
  /** The fix that removes it. */
  fix: string;
  invariant: Invariant;
  signature: RegExp;
}

export const KNOWN: KnownBug[] = [];

/** The known bug a violation is, by name and fix, or undefined. */
export function known(violation: Violation): string | undefined {
  const bug = KNOWN.find(
    (k) => k.invariant === violation.invariant && k.signature.test(violation.signature),
  );
  return bug && `${bug.name} (${bug.fix})`;
}
