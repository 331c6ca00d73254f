// Text helpers below every other module: cutting, and making data safe for one-line sinks.

/** C0 controls (tab and LF aside), DEL, C1 (NEL among them), and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;
const LINE_BREAK = /\r\n|[\r\n\u0085\u2028\u2029]/g;

/** At most `max` characters, with an ellipsis when cut; never half of a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  if (/[\ud800-\udbff]/.test(text.charAt(end - 1))) end--;
  return `${text.slice(0, end)}…`;
}

/** One line: line breaks become spaces and other controls are dropped (outputs, GitHub fields, table cells). */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAK, ' ').replace(CONTROL, '');
}

/** Every control character, line breaks included, shown as an escape (`\n`, `\x1b`, `\u2028`) instead of acting. */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    const code = c.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Lines as a reader sees them: split on every line break the runner or a terminal honours. */
export function lines(text: string): string[] {
  return text.split(LINE_BREAK);
}
