// The secrets input: NAME=value lines or a JSON object, read as the service is sent them.
import { describe, expect, it } from 'vitest';
import { parseSecrets } from '../../src/inputs/secrets.ts';

describe('parseSecrets', () => {
  it('reads NAME=value lines: = inside values, comments, blank lines and CRLF', () => {
    expect(parseSecrets('A=x=y==\r\n# B=skipped\r\n\r\n  C = spaced value \r\nD=')).toEqual([
      { name: 'A', value: 'x=y==' },
      { name: 'C', value: 'spaced value' },
      { name: 'D', value: '' },
    ]);
  });

  it('reads a JSON object over several lines, values of several lines included', () => {
    expect(parseSecrets('{\n  "A": "line 1\\nline 2",\n  "B": "b"\n}')).toEqual([
      { name: 'A', value: 'line 1\nline 2' },
      { name: 'B', value: 'b' },
    ]);
  });

  it('is absent when the input is not given, so nothing is sent', () => {
    expect(parseSecrets(undefined)).toBeUndefined();
  });
});
