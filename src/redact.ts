/** Replaces every registered secret in text. The runner masks its own log, but not our summary or a local run. */
export class Redactor {
  private readonly secrets = new Set<string>();

  add(value: string | undefined): void {
    if (!value) return;
    this.secrets.add(value);
    // The runner masks line by line; so do we for multi-line values.
    for (const line of value.split(/\r?\n/)) if (line.trim().length > 2) this.secrets.add(line);
  }

  values(): string[] {
    return [...this.secrets];
  }

  redact(text: string): string {
    let out = text;
    // Longest first, so a secret that contains another is replaced whole.
    for (const secret of [...this.secrets].sort((a, b) => b.length - a.length))
      out = out.split(secret).join('***');
    return out;
  }
}
