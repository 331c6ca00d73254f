// The outputs outside GitHub: as GitLab's dotenv report reads them (NAME=value lines, within its limit, no variable
// references), and as a person at a terminal reads them.
import { describe, expect, it } from 'vitest';
import { dotenv } from '../../../src/hosts/cli/dotenv.ts';
import { outputsText } from '../../../src/hosts/cli/main.ts';

describe('the dotenv report', () => {
  it('has one NAME=value line per output, the name upper case with _', () => {
    expect(
      dotenv({
        'deployment-id': 'a1',
        result: 'deployed',
        'custom-url': 'https://my-agent.example/?a=b=c',
        'previous-revision-id': '',
      }),
    ).toEqual({
      text: 'DEPLOYMENT_ID=a1\nRESULT=deployed\nCUSTOM_URL=https://my-agent.example/?a=b=c\nPREVIOUS_REVISION_ID=\n',
      left: [],
    });
  });

  it('leaves out a value GitLab would expand as a variable', () => {
    const { text, left } = dotenv({
      result: 'failed',
      'deployment-name': 'agent-$CI_JOB_TOKEN',
      'custom-url': 'https://x.example/${GITLAB_TOKEN}',
      'revision-status': '%PATH%',
      'commit-sha': 'costs $5',
    });
    expect(text).toBe('RESULT=failed\nCOMMIT_SHA=costs $5\n');
    expect(left.map((l) => l.name)).toEqual(['deployment-name', 'custom-url', 'revision-status']);
  });

  it('stays under 5 KB, leaving out the longest values first', () => {
    const { text, left } = dotenv({ result: 'failed', results: 'x'.repeat(6000), duration: '3.2' });
    expect(text).toBe('RESULT=failed\nDURATION=3.2\n');
    expect(left).toEqual([{ name: 'results', why: expect.stringContaining('5120 bytes') }]);
  });
});

describe('the outputs on a terminal', () => {
  it('are aligned name  value lines', () => {
    expect(outputsText({ result: 'deployed', 'custom-url': 'https://a.example' })).toBe(
      'result      deployed\ncustom-url  https://a.example\n',
    );
    expect(outputsText({})).toBe('');
  });
});
