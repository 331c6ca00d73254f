// The two readers of the command line's dotenv file. GitLab's, as its ParseDotenvArtifactService reads a dotenv
// report: every line `key=value`, split at the first `=`, both sides stripped, no quoting; and a real shell's,
// `set -a; . ./file`, run in a folder of its own: what it sets, and any file it made (a command that ran).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The variables GitLab takes from the file; a line it would refuse (no `=`, a key not of `[A-Za-z0-9_]`) throws. */
export function gitLabDotenv(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const line of text.split('\n').slice(0, text.endsWith('\n') ? -1 : undefined)) {
    const m = /^(.*?)=(.*)$/.exec(line);
    if (!m) throw new Error(`GitLab refuses the line ${JSON.stringify(line)}: Invalid Format`);
    const key = m[1]!.trim();
    if (!/^[A-Za-z0-9_]+$/.test(key))
      throw new Error(`GitLab refuses the key ${JSON.stringify(key)}`);
    variables[key] = m[2]!.trim();
  }
  return variables;
}

/**
 * What `shell` (sh, bash) does with `set -a; . ./agent-deploy.env`: the variables it sets or changes, and the files
 * in its folder besides the dotenv file (made by a command the file ran). Stderr is kept: a syntax error shows.
 */
export function sourced(
  text: string,
  shell: 'sh' | 'bash',
): { variables: Record<string, string>; files: string[]; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dotenv-sourced-'));
  try {
    writeFileSync(join(dir, 'agent-deploy.env'), text);
    // The environment before and after, NUL-separated, the two apart by a line of their own; the last `:` keeps bash
    // from running the last env in its own place (SHLVL one less).
    const script = 'env -0; printf "\\n--after--\\n"; set -a; . ./agent-deploy.env; env -0; :';
    let stdout: string;
    let stderr = '';
    try {
      stdout = execFileSync(shell, ['-c', script], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: dir },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      stdout = failed.stdout ?? '';
      stderr = failed.stderr ?? String(error);
    }
    const [before = '', after = ''] = stdout.split('\n--after--\n');
    const parse = (block: string) =>
      new Map(
        block
          .split('\0')
          .filter(Boolean)
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      );
    const was = parse(before);
    const variables: Record<string, string> = {};
    for (const [key, value] of parse(after))
      if (key !== '_' && was.get(key) !== value) variables[key] = value;
    const files = readdirSync(dir).filter((name) => name !== 'agent-deploy.env');
    return { variables, files, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
