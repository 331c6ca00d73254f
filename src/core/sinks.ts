// The one place where text leaves the action, one function per sink. Each takes the same steps in the same order:
// normalise (hidden characters out, one line where the sink is one line), redact every secret, escape for the
// sink's syntax, and only then cut, so no cut can keep part of a secret and no escape can hide one from redaction.
// Data is cut nowhere else (but for the bound of src/service/kept.ts: each service string kept to 64 KiB as it
// arrives, before any sink): code that quotes data in a message asks `excerpt` for it.
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
   * as a whole. Over `max`, it is cut whole lines at a time from the end (a table keeps its rows before the cut, an
   * open code block is closed), with a line saying how many were left out: the renderers put first what must stay,
   * such as a list's table of every deployment. Then only the lines kept are redacted again, which cannot make them
   * longer: the data in each was redacted before it was rendered, and a text of every deployment's answers is never
   * read whole.
   */
  markdown(text: string, max: number): string {
    if (text.length <= max) return this.redact(text);
    const all = lines(text);
    const kept: string[] = [];
    let size = 0;
    /** The fence of the code block the kept lines leave open, if any. */
    let fence: string | undefined;
    for (const line of all) {
      const closing = fence === undefined ? 0 : fence.length + 1;
      if (size + line.length + 1 + closing > max - NOTE_ROOM) break;
      kept.push(line);
      size += line.length + 1;
      fence = fenceAfter(line, fence);
    }
    const left = all.length - kept.length;
    if (fence !== undefined) kept.push(fence);
    const note = `_(${left} more line${left === 1 ? '' : 's'} left out: over ${Math.round(max / 1024)} KiB)_`;
    return [this.redact(kept.join('\n')), '', note, ''].join('\n');
  }
}

/** Room for the line that says what was left out. */
const NOTE_ROOM = 100;

/** The fence of the code block open after `line`, given the one open before it (shared/markdown.ts: codeBlock). */
function fenceAfter(line: string, open: string | undefined): string | undefined {
  let ticks = 0;
  while (line.charCodeAt(ticks) === 0x60) ticks++;
  if (open !== undefined) return ticks >= open.length && line.length === ticks ? undefined : open;
  return ticks >= 3 ? line.slice(0, ticks) : undefined;
}
