// The benchmark's and the load test's tables: text columns first, figures right-aligned, two spaces between.

/** `rows[0]` is the header; the first `textColumns` columns are padded on the right, the others on the left. */
export function table(rows: (string | number)[][], textColumns = 1): string {
  const cells = rows.map((r) => r.map(String));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) => r.map((c, i) => (i < textColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))))
    .map((r) => `  ${r.join('  ')}`.trimEnd())
    .join('\n');
}
