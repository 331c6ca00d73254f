/** Escapes text for a Markdown table cell or paragraph. */
export function esc(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]{}()#+!|~])/g, '\\$1')
    .replace(/\r?\n/g, ' ');
}
