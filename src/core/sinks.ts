// The one place where text leaves the action, one function per sink. Each takes the same steps in the same order:
// normalise (hidden characters out, one line where the sink is one line), redact every secret, escape for the
// sink's syntax, and only then cut, so no cut can keep part of a secret and no escape can hide one from redaction.
// Data is cut nowhere else: code that quotes data in a message asks `excerpt` for it.
import { type Redactor, redactDeep } from '../shared/redact.ts';
import { collapse, cut, lines, normalise, oneLine, visible } from '../shared/text.ts';

/** Data quoted in a message, as `Sinks.excerpt` makes it: redacted, then cut. */
export type Excerpt = (text: string, max: number) => string;

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

  /** Data on its way to a renderer (the summary, the comment): normalised and redacted; the renderer escapes it. */
  clean(text: string): string {
    return this.redact(normalise(text));
  }

  /** Data quoted in a message (a server's error, a page title): one line, redacted, white space runs as one, cut. */
  excerpt(text: string, max: number): string {
    return cut(collapse(this.redact(oneLine(text))), max);
  }

  /**
   * One log line (info, debug, or the text of an annotation). Control and invisible characters are shown as escapes
   * (the log's way to keep them out, so data can neither start a new line, steer the terminal nor turn the text
   * around); the redactor looks through them. Never the start of a workflow command (`::` at the start of a line,
   * `##[` anywhere).
   */
  logLine(text: string): string {
    const line = visible(this.redact(text));
    return cut(line.replace(/^(\s*)::/, '$1\\::').replace(/##\[/g, '#\\#['), LOG_LINE_MAX);
  }

  /** A step output: one line. */
  output(text: string): string {
    return cut(this.redact(oneLine(text)), OUTPUT_MAX);
  }

  /**
   * A step output holding JSON (results): each text in it made an output's one line (redacted, cut), then written as
   * JSON, which is one line: a cut of the whole could only break it.
   */
  json(value: unknown): string {
    return JSON.stringify(redactDeep(value, (text) => this.output(text)));
  }

  /** A field sent to GitHub's API (a deployment status description): one line of at most `max` characters. */
  field(text: string, max: number): string {
    return cut(this.redact(oneLine(text)), max);
  }

  /**
   * Markdown built from data that `clean` normalised and redacted and shared/markdown.ts escaped: redacted once more
   * as a whole, and cut at a line when over `max`.
   */
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
