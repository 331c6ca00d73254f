// --dotenv: the outputs as NAME=value lines, the output's name upper case with `_`, in the form GitLab CI reads as a
// dotenv report (artifacts:reports:dotenv), its strictest reader: each line `key=value`, the value stripped, the file
// under 5 KB (its default limit). GitLab also expands variable references in the values wherever later jobs use them
// ($NAME, ${NAME}, %NAME% in environment:url and scripts), so a value that holds one is left out rather than let the
// service's data read a job's variables.

/** GitLab's default limit is "less than 5 KB". */
const MAX_BYTES = 5 * 1024 - 1;
/** What GitLab's expansion reads as a variable. */
const REFERENCE = /\$[A-Za-z_{]|%[A-Za-z_]\w*%/;

export function dotenvName(output: string): string {
  return output.toUpperCase().replaceAll('-', '_');
}

/**
 * The file's text, and the outputs left out with why: a value holding a variable reference, and to stay under
 * GitLab's limit the longest ones (a list of many deployments' results is the one that grows). Values are one line
 * already (the output sink).
 */
export function dotenv(outputs: Record<string, string>): {
  text: string;
  left: { name: string; why: string }[];
} {
  const left: { name: string; why: string }[] = [];
  const lines: { name: string; line: string }[] = [];
  for (const [name, value] of Object.entries(outputs)) {
    if (REFERENCE.test(value))
      left.push({ name, why: 'it holds what GitLab would expand as a variable ($NAME, %NAME%)' });
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
