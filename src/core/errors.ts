/** Base of every error the action reports as its failure message (anything else is a bug, reported as one). */
export class DeployError extends Error {
  override name = 'DeployError';
}

/** An input that cannot be used: named, with the accepted form, before anything is sent. */
export class InputError extends DeployError {
  override name = 'InputError';
  constructor(input: string, problem: string) {
    // "Input 'timeout' must be …" reads as a sentence; a problem about the value follows a colon.
    const verb = /^(is|are|and|must|needs|cannot|applies|contains) /.test(problem);
    super(`Input '${input}'${verb ? ' ' : ': '}${problem}`);
  }
}
