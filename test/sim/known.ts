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

export const KNOWN: KnownBug[] = [
  {
    name: 'a create sent again after a 503 with Retry-After, when the lookup does not show it (yet)',
    fix: 'issue 33',
    invariant: 'no-blind-resend',
    signature: /^create re-sent after 503 with Retry-After$/,
  },
  {
    name: 'a token update sent again after a 503 with Retry-After (it has no re-read)',
    fix: 'issue 33',
    invariant: 'no-blind-resend',
    signature: /^token re-sent after 503 with Retry-After$/,
  },
  {
    name: 'a listing shifted by an insertion (a page of items already seen) taken for a stuck one',
    fix: 'issue 33',
    invariant: 'paging',
    signature: /^a shifted page called stuck$/,
  },
  {
    name: 'revision-created false, not empty, when a write was unanswered at the cancel',
    fix: 'issue 33',
    invariant: 'created-flags',
    signature: /^revision-created false after a write .*\(cancelled\)$/,
  },
  {
    name: "revision-created false, not empty, when the run cannot tell whether its write made a revision (a lost or late answer, then another job's revision, or a re-read the deadline cut)",
    fix: 'open: found by this simulation (issue 34); the tri-state revision-created of issue 33 is where it goes',
    invariant: 'created-flags',
    signature: /^revision-created false after a write (answered|whose answer was lost)$/,
  },
  {
    name: "created false, not empty, when the run's create lost its answer and the deployment found then carries another job's values (or the job was cancelled)",
    fix: 'open: found by this simulation (issue 34)',
    invariant: 'created-flags',
    signature: /^created false after a create whose answer was lost( \(cancelled\))?$/,
  },
];

/** The known bug a violation is, by name and fix, or undefined. */
export function known(violation: Violation): string | undefined {
  const bug = KNOWN.find(
    (k) => k.invariant === violation.invariant && k.signature.test(violation.signature),
  );
  return bug && `${bug.name} (${bug.fix})`;
}
