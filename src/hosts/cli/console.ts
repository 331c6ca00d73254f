// The command line's log on stderr. Plain lines, one per message, when stderr is a file or a CI's log; on a
// terminal also one live line per deployment being waited on (its status and the time in it), redrawn below the
// log as it grows. The lines come from the run's sinks: control characters are already shown as escapes.
import type { Logger, Progress } from '../../core/logger.ts';
import type { Clock } from '../../shared/clock.ts';
import { cut } from '../../shared/text.ts';
import { compact } from '../../shared/time.ts';

/** Where the lines go: process.stderr, or a test's buffer. */
export interface Output {
  write(text: string): unknown;
  /** The terminal's width, when it is one. */
  columns?: number;
}

interface ConsoleOptions {
  /** A terminal: draw the live lines (and colour, unless `color` is false). */
  live: boolean;
  color: boolean;
  debug: boolean;
  /** The run's clock: the live lines count the time in a status on it. */
  clock: Clock;
  /** How often the live lines are redrawn, in ms (their time counts in whole seconds). */
  tickMs?: number;
}

/** Back to the start of the (empty) line below the live lines, which a terminal's `^C` echo may have written on. */
const CLEAR_HERE = '\r\x1b[2K';
const UP_AND_CLEAR = '\x1b[1A\x1b[2K';
const PAINT = { warning: '\x1b[33m', error: '\x1b[31m', notice: '\x1b[36m', live: '\x1b[2m' };
const PLAIN = '\x1b[0m';

export class Console {
  readonly log: Logger;
  private readonly out: Output;
  private readonly options: ConsoleOptions;
  /** By deployment id: the waits in progress, in the order they started. */
  private readonly waits = new Map<string, Progress>();
  /** How many live lines are on the screen, below the log. */
  private drawn = 0;
  private timer?: ReturnType<typeof setInterval>;

  constructor(out: Output, options: ConsoleOptions) {
    this.out = out;
    this.options = options;
    this.log = {
      debug: (line) => {
        if (options.debug) this.line(`debug: ${line}`);
      },
      info: (line) => this.line(line),
      notice: (line) => this.line(`notice: ${line}`, 'notice'),
      warning: (line) => this.line(`warning: ${line}`, 'warning'),
      progress: (update) => this.progress(update),
    };
  }

  /** The run's failure line. */
  error(line: string): void {
    this.line(`error: ${line}`, 'error');
  }

  /** No more live lines: the run is over. */
  close(): void {
    this.waits.clear();
    this.redraw();
  }

  private line(text: string, kind?: keyof typeof PAINT): void {
    this.clear();
    this.out.write(`${this.paint(text, kind)}\n`);
    this.draw();
  }

  private progress(update: Progress): void {
    // Elsewhere the status changes, logged as lines, tell the same.
    if (!this.options.live) return;
    if (update.done) this.waits.delete(update.deploymentId);
    else this.waits.set(update.deploymentId, update);
    this.redraw();
  }

  private redraw(): void {
    this.clear();
    this.draw();
    if (this.waits.size > 0 && !this.timer) {
      this.timer = setInterval(() => this.redraw(), this.options.tickMs ?? 1000);
      // A live line never keeps the process alive.
      this.timer.unref();
    } else if (this.waits.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private clear(): void {
    if (this.drawn > 0) this.out.write(CLEAR_HERE + UP_AND_CLEAR.repeat(this.drawn));
    this.drawn = 0;
  }

  private draw(): void {
    const now = this.options.clock.now();
    // One character short of the width: a full line would wrap on some terminals and break the count.
    const width = Math.max(20, (this.out.columns || 80) - 1);
    for (const wait of this.waits.values()) {
      const inIt = compact(Math.max(0, Math.floor((now - wait.since) / 1000)) * 1000);
      const who = wait.name === undefined ? '' : `${wait.name}: `;
      const text = cut(`… ${who}Revision ${wait.revisionId}: ${wait.status} for ${inIt}`, width);
      this.out.write(`${this.paint(text, 'live')}\n`);
      this.drawn++;
    }
  }

  private paint(text: string, kind: keyof typeof PAINT | undefined): string {
    return kind && this.options.live && this.options.color ? `${PAINT[kind]}${text}${PLAIN}` : text;
  }
}
