// --dotenv: the outputs as NAME=value lines, the output's name upper case with `_`, read by two readers that must see
// the same file: GitLab CI's dotenv report (artifacts:reports:dotenv: each line split at its first `=`, both sides
// stripped, no quoting, the file under 5 KB, and variable references in the values expanded wherever later jobs use
// them: $NAME, ${NAME}, %NAME%), and a shell's `set -a; . ./agent-deploy.env`, which would run a `;`, a `$(…)` or a
// backquote and split a value at a space into a second assignment. Values come from the service: a value with any
// character outside SAFE is left out, so that both readers take each line as the same one variable, and nothing else.

/** GitLab's default limit is "less than 5 KB". */
const MAX_BYTES = 5 * 1024 - 1;
/**
 * What no shell gives a meaning to, unquoted, in an assignment or a word (no quote, `$`, backquote, white space,
 * `;&|<>()`, `\`, `#`, `~`, glob or brace), and GitLab's reader keeps as is: enough for ids, names, statuses,
 * numbers and most URLs. Empty is a value too (`PREVIOUS_REVISION_ID=`).
 */
const SAFE = /^[A-Za-z0-9_.,:/@+=%-]*$/;
/** GitLab's other expansion: `%NAME%`. */
const WINDOWS_REFERENCE = /%[A-Za-z_]\w*%/;
/** Outputs that are JSON (`results`, `changes`): quotes in every value, so never a line here; --json carries them. */
const JSON_OUTPUTS = new Set(['results', 'changes']);

export function dotenvName(output: string): string {
  return output.toUpperCase().replaceAll('-', '_');
}

/**
 * The file's text, and the outputs left out with why: a value a shell or GitLab would interpret, and to stay under
 * GitLab's limit the longest ones. Values are one line already (the output sink).
 */
export function dotenv(outputs: Record<string, string>): {
  text: string;
  left: { name: string; why: string }[];
} {
  const left: { name: string; why: string }[] = [];
  const lines: { name: string; line: string }[] = [];
  for (const [name, value] of Object.entries(outputs)) {
    if (JSON_OUTPUTS.has(name)) continue;
    if (!SAFE.test(value))
      left.push({
        name,
        why: 'it holds characters a shell would interpret (only letters, digits and _.,:/@+=%- are written)',
      });
    else if (WINDOWS_REFERENCE.test(value))
      left.push({ name, why: 'it holds what GitLab would expand as a variable (%NAME%)' });
    else lines.push({ name, line: `${dotenvName(name)}=${value}\n` });
  }
  const size = () => lines.reduce((sum, l) => sum + Buffer.byteLength(l.line), 0);
  while (lines.length > 0 && size() > MAX_BYTES) {
    const longest = lines.reduce((a, b) => (b.line.length > a.line.length ? b : a));
    left.push({
      name: longest.name,
      why: `GitLab refuses a dotenv report of ${MAX_BYTES + 1} bytes or more`,
    });
    lines.splice(lines.indexOf(longest), 1);
  }
  return { text: lines.map((l) => l.line).join(''), left };
}
