// The known word nearest to one that is not known: for "did you mean" in messages about the inputs.

/** Longer words are cut to this before they are compared: a key is a word, not a paragraph. */
const MAX_COMPARED = 64;

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`. */
function editDistance(a: string, b: string): number {
  const x = a.slice(0, MAX_COMPARED);
  const y = b.slice(0, MAX_COMPARED);
  // Three rows of the Damerau (optimal string alignment) table.
  let before: number[] = [];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    before = previous;
    previous = row;
  }
  return previous[y.length]!;
}

/**
 * The candidate nearest to `word` (case-insensitive; the first of equals), and whether it is near enough to be the
 * word meant: at most a third of its letters (and at least one) changed.
 */
function nearest(
  word: string,
  candidates: readonly string[],
): { word: string; likely: boolean } | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { word: candidate, distance };
  }
  if (!best) return undefined;
  const likely = best.distance <= Math.max(1, Math.floor(best.word.length / 3));
  return { word: best.word, likely };
}

/** The candidate `word` most likely meant (a typo of it), or undefined when none is near enough. */
export function meant(word: string, candidates: readonly string[]): string | undefined {
  const near = nearest(word, candidates);
  return near?.likely ? near.word : undefined;
}

/**
 * The hint after a word that is not known, naming the candidate nearest to it as `show` writes it: " (did you mean
 * 'x'?)" when it is likely the word meant, else " (the nearest is 'x')"; empty without candidates.
 */
export function nearestHint(
  word: string,
  candidates: readonly string[],
  show: (candidate: string) => string = (candidate) => candidate,
): string {
  const near = nearest(word, candidates);
  if (!near) return '';
  return near.likely
    ? ` (did you mean '${show(near.word)}'?)`
    : ` (the nearest is '${show(near.word)}')`;
}
