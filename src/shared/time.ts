// Time helpers below every other module.

/** The job was cancelled (SIGINT/SIGTERM). */
export class CancelledError extends Error {
  override name = 'CancelledError';
  constructor() {
    super('cancelled');
  }
}

/**
 * The job was cancelled before `request` went out (waiting its turn, or between attempts, which only follow one that
 * surely was not applied): nothing of it can have taken effect.
 */
export class UnsentError extends CancelledError {
  readonly request: string;
  constructor(request: string) {
    super();
    this.request = request;
  }
}

/** A span for a person: "4.2 s", "3 min 5 s". */
export function seconds(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  // Rounded first: 119.5 s is "2 min 0 s", not "1 min 60 s".
  const whole = Math.round(s);
  const m = Math.floor(whole / 60);
  return `${m} min ${whole - m * 60} s`;
}

/** A duration as the inputs write it: "90s", "15m", "1h30m". */
export function compact(ms: number): string {
  if (ms % 1000 !== 0) return `${ms}ms`;
  const h = Math.floor(ms / 3600_000);
  const m = Math.floor((ms % 3600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const text = `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
  return text || '0s';
}

/** Gaps between looks that start short and double up to a cap: a change is seen soon, and then the looks settle. */
export class DoublingGap {
  private current: number;
  private readonly cap: number;

  constructor(first: number, cap: number) {
    this.current = Math.min(first, cap);
    this.cap = cap;
  }

  /** The gap before the next look. */
  get ms(): number {
    return this.current;
  }

  /** After a look: the next gap doubles, up to the cap. */
  grow(): void {
    this.current = Math.min(this.current * 2, this.cap);
  }
}
