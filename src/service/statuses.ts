// What a revision's status means for the one waiting on it (action-contract.md, deploy step 4).

const FAILURE = new Set(['CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'INTERRUPTED']);
const KNOWN_IN_PROGRESS = new Set([
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'UNKNOWN',
]);

export type Outcome = 'deployed' | 'failed' | 'skipped';

/** The end a status means, or in-progress: any status this action does not know is waited through. */
export function classify(status: string): Outcome | 'in-progress' {
  if (status === 'DEPLOYED') return 'deployed';
  if (FAILURE.has(status)) return 'failed';
  if (status === 'SKIPPED') return 'skipped';
  return 'in-progress';
}

export function isKnownStatus(status: string): boolean {
  return classify(status) !== 'in-progress' || KNOWN_IN_PROGRESS.has(status);
}
