import { capitalised } from './words.ts';

/** Base of every error the action reports as its failure message (anything else is a bug, reported as one). */
export class DeployError extends Error {
  override name = 'DeployError';
}

/** One input that cannot be used. `where`: whose value it is when not the step's own ("deployments item 'b'"). */
export interface Mistake {
  input: string;
  problem: string;
  where?: string;
}

/** How a message names an input (the host's words say it in its CI's terms: core/words.ts). */
export type NameInput = (name: string) => string;
const PLAIN: NameInput = (name) => `input '${name}'`;

/**
 * Inputs that cannot be used, every one of them: named, each with the accepted form, before anything is sent. Its
 * message names them plainly; `say` names them in the host's words.
 */
export class InputError extends DeployError {
  override name = 'InputError';
  readonly mistakes: readonly Mistake[];
  /** The sentence before several mistakes, when they share one ("'my-agent' does not exist yet; …"). */
  readonly lead?: string;

  constructor(input: string, problem: string, where?: string);
  constructor(mistakes: readonly Mistake[], lead?: string);
  constructor(first: string | readonly Mistake[], second?: string, where?: string) {
    const mistakes =
      typeof first === 'string' ? [{ input: first, problem: second!, where }] : first;
    const lead = typeof first === 'string' ? undefined : second;
    super(describe(mistakes, lead, PLAIN));
    this.mistakes = mistakes;
    this.lead = lead;
  }

  /** The message with each input named as `name` does. */
  say(name: NameInput): string {
    return describe(this.mistakes, this.lead, name);
  }
}

function describe(mistakes: readonly Mistake[], lead: string | undefined, name: NameInput): string {
  const each = mistakes.map(({ input, problem, where }) => {
    // "Input 'timeout' must be …" reads as a sentence; a problem about the value follows a colon.
    const verb = /^(is|are|and|must|needs|cannot|applies|contains) /.test(problem);
    // An item's key is a key of the list, whatever the host: only the step's own inputs are flags or variables.
    const named = where ? `${PLAIN(input)} of ${where}` : name(input);
    return `${capitalised(named)}${verb ? ' ' : ': '}${problem}`;
  });
  if (mistakes.length === 1 && lead === undefined) return each[0]!;
  const head = lead ?? `The inputs have ${mistakes.length} mistakes; nothing was sent.`;
  return [head, ...each.map((text) => (/[.?!]$/.test(text) ? text : `${text}.`))].join(' ');
}

/**
 * A write whose outcome the run could not learn (its answer was lost, or came in a form the run cannot take, and no
 * read tells): it may have been applied. What it may have made is then reported as not known: a create's `created`, a
 * deployment write's `revision-created` (a token update makes no revision).
 */
export class PossiblyAppliedError extends DeployError {
  override name = 'PossiblyAppliedError';
}
