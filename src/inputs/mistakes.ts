// Every mistake of the inputs at once: reading goes on past a mistake, as if that input were not given, and one
// message names them all before anything is sent (the contract's "Inputs").
import { InputError, type Mistake } from '../core/errors.ts';

export class Mistakes {
  private readonly found: Mistake[] = [];

  /**
   * Keeps the mistakes of `error`, an InputError; anything else is thrown on. One input's one problem is named
   * once; `later`: a check that reads the inputs already read (a command's settings) adds nothing about an input
   * already named, whose value it saw only as not given.
   */
  add(error: unknown, later = false): void {
    if (!(error instanceof InputError)) throw error;
    for (const mistake of error.mistakes) {
      const seen = this.found.some(
        (m) =>
          m.input === mistake.input &&
          m.where === mistake.where &&
          (later || m.problem === mistake.problem),
      );
      if (!seen) this.found.push(mistake);
    }
  }

  /** What `check` answers, or undefined when it throws an InputError, which is kept (see add). */
  check<T>(check: () => T, later = false): T | undefined {
    try {
      return check();
    } catch (error) {
      this.add(error, later);
      return undefined;
    }
  }

  /** `check` for an async one. */
  async settle<T>(check: () => Promise<T>): Promise<T | undefined> {
    try {
      return await check();
    } catch (error) {
      this.add(error);
      return undefined;
    }
  }

  /** The mistakes kept, each moved to `where` ("deployments item 'agent-b'"), into `into`. */
  moveTo(into: Mistakes, where: string, only: (mistake: Mistake) => boolean): void {
    for (const mistake of this.found) if (only(mistake)) into.found.push({ ...mistake, where });
  }

  /** Throws one InputError naming every mistake kept, when there is one. */
  throwIfAny(): void {
    if (this.found.length > 0) throw new InputError([...this.found]);
  }
}
