// The one place where text leaves the action, one function per sink. Each redacts every secret first (so no cut
// can keep part of one), then makes the text harmless for that sink's syntax, then bounds its size.
import type { Redactor } from '../shared/redact.ts';
import { cut, lines, oneLine, visible } from '../shared/text.ts';

const LOG_LINE_MAX = 4000;
const OUTPUT_MAX = 2000;
/** The runner drops a job summary over 1 MiB; ours stays far below. */
export const SUMMARY_MAX = 256 * 1024;
/** GitHub refuses a comment body over 65,536 characters. */
export const COMMENT_MAX = 60_000;

export class Sinks {
  private readonly redactor: Redactor;

  constructor(redactor: Redactor) {
    this.redactor = redactor;
  }

  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /**
   * One log line (info, debug, or the text of an annotation): every control character shown as an escape, so data
   * can neither start a new line nor steer the terminal, and never the start of a workflow command (`::` at the
   * start of a line, `##[` anywhere).
   */
  logLine(text: string): string {
    const line = visible(cut(this.redact(text), LOG_LINE_MAX));
    return line.replace(/^(\s*)::/, '$1\\::').replace(/##\[/g, '#\\#[');
  }

  /** A step output: one line. */
  output(text: string): string {
    return cut(oneLine(this.redact(text)), OUTPUT_MAX);
  }

  /** A field sent to GitHub's API (a deployment status description): one line of at most `max` characters. */
  field(text: string, max: number): string {
    return cut(oneLine(this.redact(text)), max);
  }

  /** Markdown built from escaped data (see shared/markdown.ts), redacted, and cut at a line when over `max`. */
  markdown(text: string, max: number): string {
    const clean = this.redact(text);
    if (clean.length <= max) return clean;
    const kept: string[] = [];
    let size = 0;
    for (const line of lines(clean)) {
      if (size + line.length + 1 > max - 100) break;
      kept.push(line);
      size += line.length + 1;
    }
    return [...kept, '', `_(cut: over ${Math.round(max / 1024)} KiB)_`, ''].join('\n');
  }
}
