// paths as given (issue 35): one glob a line or comma-separated, a comma inside braces kept, a directory's `/` taking
// everything under it. Refused values are in invalid.test.ts.
import { expect, it } from 'vitest';
import { parsePaths } from '../../src/inputs/paths.ts';

it.each<[string, string[]]>([
  ['agent-a/**', ['agent-a/**']],
  ['agent-a/**, shared/**', ['agent-a/**', 'shared/**']],
  ['agent-a/{src,tests}/**,shared/*.py', ['agent-a/{src,tests}/**', 'shared/*.py']],
  ['agent-a/\n\n  !agent-a/docs/**  \r\n', ['agent-a/**', '!agent-a/docs/**']],
])('%j reads as %j', (raw, globs) => {
  expect(parsePaths(raw)).toEqual(globs);
});

it('not given: undefined', () => {
  expect(parsePaths(undefined)).toBeUndefined();
});
