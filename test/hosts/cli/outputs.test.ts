// The outputs outside GitHub: as GitLab's dotenv report and a shell that sources the file read them (NAME=value lines,
// within GitLab's limit, nothing either would interpret), and as a person at a terminal reads them.
import { describe, expect, it } from 'vitest';
import { dotenv, dotenvName } from '../../../src/hosts/cli/dotenv.ts';
import { outputsText } from '../../../src/hosts/cli/main.ts';
import { gitLabDotenv, sourced } from '../../helpers/dotenv.ts';

describe('the dotenv report', () => {
  it('has one NAME=value line per output, the name upper case with _', () => {
    expect(
      dotenv({
        'deployment-id': 'a1',
        result: 'deployed',
        'custom-url': 'https://my-agent.example/app=b=c',
        'previous-revision-id': '',
      }),
    ).toEqual({
      text: 'DEPLOYMENT_ID=a1\nRESULT=deployed\nCUSTOM_URL=https://my-agent.example/app=b=c\nPREVIOUS_REVISION_ID=\n',
      left: [],
    });
  });

  it('leaves out a value GitLab would expand as a variable', () => {
    const { text, left } = dotenv({
      result: 'failed',
      'deployment-name': 'agent-$CI_JOB_TOKEN',
      'custom-url': 'https://x.example/${GITLAB_TOKEN}',
      'revision-status': '%PATH%',
      'commit-sha': '100%',
    });
    expect(text).toBe('RESULT=failed\nCOMMIT_SHA=100%\n');
    expect(left.map((l) => l.name)).toEqual(['deployment-name', 'custom-url', 'revision-status']);
  });

  it('leaves out results and changes, JSON: --json carries them', () => {
    expect(
      dotenv({
        result: 'deployed',
        results: '{"a":{"result":"deployed"}}',
        changes: '{"a":{}}',
      }),
    ).toEqual({
      text: 'RESULT=deployed\n',
      left: [],
    });
  });

  it('stays under 5 KB, leaving out the longest values first', () => {
    const { text, left } = dotenv({
      result: 'failed',
      'custom-url': 'x'.repeat(6000),
      duration: '3.2',
    });
    expect(text).toBe('RESULT=failed\nDURATION=3.2\n');
    expect(left).toEqual([{ name: 'custom-url', why: expect.stringContaining('5120 bytes') }]);
  });

  // Each printable ASCII character, alone and between letters, and what an attacker would send: either the output is
  // left out (a warning names it) or GitLab's reader and a real shell both take it as that one variable, with that
  // value, and the shell runs nothing.
  const HOSTILE = [
    'https://x.example/;touch PWNED_SEMI;#',
    'abc COMMIT_INJ=1',
    'a\nINJ_NEWLINE=1',
    '$(touch PWNED_SUBST)',
    '`touch PWNED_BACKQUOTE`',
    'a&&touch PWNED_AND',
    'a|touch PWNED_PIPE',
    'a>PWNED_REDIRECT',
    "'quoted'",
    '"double"',
    'a\\',
    '~root',
    'a:~/b',
    '${HOME}',
    '%HOME%',
    'x=1 INJ_TWO=2',
    ' leading',
    'trailing ',
    '{a,b}',
    '*',
    '?',
    'a[b]',
    '!1',
    '(a)',
  ];
  const ascii = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
  const values = [...HOSTILE, ...ascii, ...ascii.map((c) => `a${c}b`)];
  const outputs = Object.fromEntries(values.map((value, i) => [`out-${i}`, value]));
  // Within GitLab's 5 KB: none is left out for its size.
  const { text, left } = dotenv(outputs);
  const kept = gitLabDotenv(text);

  it('is read by GitLab as exactly the values kept, each left out one named with why', () => {
    expect(left.every((l) => !/5120 bytes/.test(l.why))).toBe(true);
    for (const [i, value] of values.entries()) {
      const name = `out-${i}`;
      const line = kept[dotenvName(name)];
      if (line === undefined) expect(left.map((l) => l.name)).toContain(name);
      else expect(line, name).toBe(value);
    }
    expect(Object.keys(kept)).toHaveLength(values.length - left.length);
    // Hostile payloads, each one: never written.
    for (const i of HOSTILE.keys()) expect(kept[`OUT_${i}`], HOSTILE[i]).toBeUndefined();
  });

  it.each(['sh', 'bash'] as const)(
    'sourced by %s (set -a; . ./agent-deploy.env) sets those same variables, and runs nothing',
    (shell) => {
      const run = sourced(text, shell);

      expect(run.stderr).toBe('');
      expect(run.files).toEqual([]);
      expect(run.variables).toEqual(kept);
    },
  );
});

describe('the outputs on a terminal', () => {
  it('are aligned name  value lines', () => {
    expect(outputsText({ result: 'deployed', 'custom-url': 'https://a.example' })).toBe(
      'result      deployed\ncustom-url  https://a.example\n',
    );
    expect(outputsText({})).toBe('');
  });
});
