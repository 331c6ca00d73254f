// The files the command line writes (--dotenv, --summary-file): a regular file inside the working directory, never
// through a symbolic link. What a merge request can commit (links to a file or a folder outside) and what a job
// could leave (a FIFO, a hard link, a folder) is refused before a byte is written, and nothing outside changes.
import { execFileSync } from 'node:child_process';
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RefusedFile, writeOwnFile } from '../../../src/hosts/cli/files.ts';

let cwd: string;
let outside: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'cli-files-'));
  outside = mkdtempSync(join(tmpdir(), 'cli-files-outside-'));
  writeFileSync(join(outside, 'victim'), 'precious\n');
});
afterEach(() => {
  rmSync(cwd, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** Every file outside the working directory and its content: what a refused write must leave as it was. */
const outsideNow = () =>
  Object.fromEntries(
    readdirSync(outside).map((name) => [name, readFileSync(join(outside, name), 'utf8')]),
  );

describe('a file the command line writes', () => {
  it('is created, or replaced whole, inside the working directory (a folder of it too)', () => {
    writeOwnFile('agent-deploy.env', 'RESULT=deployed\n', cwd);
    expect(readFileSync(join(cwd, 'agent-deploy.env'), 'utf8')).toBe('RESULT=deployed\n');
    writeOwnFile('agent-deploy.env', 'A=1\n', cwd);
    expect(readFileSync(join(cwd, 'agent-deploy.env'), 'utf8')).toBe('A=1\n');
    mkdirSync(join(cwd, 'out'));
    writeOwnFile(join(cwd, 'out', 'summary.md'), '# ok\n', cwd);
    expect(readFileSync(join(cwd, 'out', 'summary.md'), 'utf8')).toBe('# ok\n');
  });

  it.each<[string, (file: string) => void, RegExp]>([
    [
      'a symbolic link to a file outside',
      (file) => symlinkSync(join(outside, 'victim'), file),
      /is a symbolic link/,
    ],
    [
      'a symbolic link to a missing file outside (it would be created)',
      (file) => symlinkSync(join(outside, 'new'), file),
      /is a symbolic link/,
    ],
    [
      'a symbolic link inside the working directory',
      (file) => {
        writeFileSync(join(cwd, 'real.env'), 'mine\n');
        symlinkSync('real.env', file);
      },
      /is a symbolic link/,
    ],
    [
      'a hard link to a file outside',
      (file) => linkSync(join(outside, 'victim'), file),
      /hard link/,
    ],
    ['a folder', (file) => mkdirSync(file), /is a folder/],
    ['a FIFO', (file) => execFileSync('mkfifo', [file]), /is not a regular file/],
  ])('is refused when it is %s, naming it, and nothing changes', (_, make, why) => {
    const file = join(cwd, 'agent-deploy.env');
    make(file);
    const before = outsideNow();

    const write = () => writeOwnFile('agent-deploy.env', 'PWNED=1\n', cwd);

    expect(write).toThrow(RefusedFile);
    expect(write).toThrow(why);
    expect(write).toThrow(/^agent-deploy\.env .*not written/);
    expect(outsideNow()).toEqual(before);
  });

  it.each([
    ['a path outside', () => join(outside, 'victim'), /outside the working directory/],
    ['a path up and out', () => '../x.env', /outside the working directory/],
    [
      'a path through a linked folder outside',
      () => {
        symlinkSync(outside, join(cwd, 'out'));
        return 'out/victim';
      },
      /folder outside the working directory/,
    ],
    ['the working directory itself', () => '.', /is a folder/],
  ])('is refused for %s', (_, path, why) => {
    const file = path();
    const before = outsideNow();

    expect(() => writeOwnFile(file, 'PWNED=1\n', cwd)).toThrow(why);
    expect(outsideNow()).toEqual(before);
  });

  it('in a folder that does not exist is an error of its own, not a refusal', () => {
    const write = () => writeOwnFile('no/such/x.env', 'A=1\n', cwd);
    expect(write).toThrow(/ENOENT/);
    expect(write).not.toThrow(RefusedFile);
  });
});
