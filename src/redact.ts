import { esc } from './report/markdown.ts';

// Shorter values, and the booleans, are everyday words: replacing them would garble ids, outputs (created=true)
// and messages while hiding nothing. The runner is still asked to mask every value.
const MIN_LENGTH = 4;
const COMMON = new Set(['true', 'false', 'null']);

/** Replaces every registered secret in text. The runner masks its own log, but not our summary or a local run. */
export class Redactor {
  private readonly secrets = new Set<string>();
  private readonly forms = new Set<string>();

  add(value: string | undefined): void {
    if (!value) return;
    // The runner masks line by line; so do we for multi-line values.
    const lines = value.split(/\r?\n/).filter((line) => line.trim().length > 2);
    for (const secret of [value, ...lines]) {
      this.secrets.add(secret);
      if (secret.length < MIN_LENGTH || COMMON.has(secret.toLowerCase())) continue;
      for (const form of encodings(secret)) this.forms.add(form);
    }
  }

  /** The values to mask: each one given, and each line of a multi-line one. */
  values(): string[] {
    return [...this.secrets];
  }

  redact(text: string): string {
    let out = text;
    // Longest first, so a secret that contains another is replaced whole.
    for (const form of [...this.forms].sort((a, b) => b.length - a.length))
      out = out.split(form).join('***');
    return out;
  }
}

/** The value as written, inside a JSON string, and as the summary escapes it for Markdown. */
function encodings(value: string): string[] {
  return [value, JSON.stringify(value).slice(1, -1), esc(value)];
}
