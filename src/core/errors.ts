/** Base of every error the action reports as its failure message (anything else is a bug, reported as one). */
export class DeployError extends Error {
  override name = 'DeployError';
}

/** An input that cannot be used: named, with the accepted form, before anything is sent. */
export class InputError extends DeployError {
  override name = 'InputError';
  readonly input: string;
  readonly problem: string;
  /** `where`: whose value it is when not the step's own ("deployments item 'agent-b'"). */
  constructor(input: string, problem: string, where?: string) {
    // "Input 'timeout' must be …" reads as a sentence; a problem about the value follows a colon.
    const verb = /^(is|are|and|must|needs|cannot|applies|contains) /.test(problem);
    super(`Input '${input}'${where ? ` of ${where}` : ''}${verb ? ' ' : ': '}${problem}`);
    this.input = input;
    this.problem = problem;
  }
}

/**
 * A write whose outcome the run could not learn (its answer was lost and no read tells): it may have been applied.
 * The run then reports revision-created as not known.
 */
export class PossiblyAppliedError extends DeployError {
  override name = 'PossiblyAppliedError';
}
