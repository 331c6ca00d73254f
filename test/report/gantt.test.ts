// The status timeline as a Mermaid gantt chart: one bar per status, one section per deployment, on the run's clock;
// its text only known status names and a-z0-9- names, whatever the service or a name holds.
import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../src/core/report.ts';
import { gantt, type GanttRow, sectionName } from '../../src/report/gantt.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { baseInputs } from '../helpers/setup.ts';

/** Every line a chart may have: nothing else can reach Mermaid's syntax. */
const LINE =
  /^(```mermaid|gantt| {2}dateFormat x| {2}axisFormat %M:%S| {2}section [a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?| {2}(?:[A-Z_]+|other) :(milestone, (done|crit), )?\d+, \d+|```)$/;

const entries = (...steps: [string, number, number][]): TimelineEntry[] =>
  steps.map(([status, since, until]) => ({ status, since, until }));

describe('gantt', () => {
  it('draws one bar per status from the first status seen, the end a milestone', () => {
    expect(
      gantt([
        {
          name: 'support-agent',
          timeline: entries(
            ['QUEUED', 5000, 5800],
            ['BUILDING', 5800, 8300],
            ['DEPLOYING', 8300, 9800],
            ['DEPLOYED', 9800, 9800],
          ),
        },
      ]),
    ).toBe(
      [
        '```mermaid',
        'gantt',
        '  dateFormat x',
        '  axisFormat %M:%S',
        '  section support-agent',
        '  QUEUED :0, 800',
        '  BUILDING :800, 3300',
        '  DEPLOYING :3300, 4800',
        '  DEPLOYED :milestone, done, 4800, 4800',
        '```',
      ].join('\n'),
    );
  });

  it('puts every deployment of a list on one axis, one section each, a failure marked', () => {
    const chart = gantt([
      { name: 'agent-a', timeline: entries(['BUILDING', 1000, 4000], ['DEPLOYED', 4000, 4000]) },
      { name: 'agent-b', timeline: [] },
      { name: 'agent-c', timeline: entries(['QUEUED', 2000, 2500], ['BUILD_FAILED', 2500, 2600]) },
    ]);
    expect(chart.split('\n').slice(4, -1)).toEqual([
      '  section agent-a',
      '  BUILDING :0, 3000',
      '  DEPLOYED :milestone, done, 3000, 3000',
      '  section agent-c',
      '  QUEUED :1000, 1500',
      '  BUILD_FAILED :milestone, crit, 1500, 1500',
    ]);
  });

  it('draws nothing without a status', () => {
    expect(gantt([])).toBe('');
    expect(gantt([{ name: 'a', timeline: [] }])).toBe('');
  });

  it('an unfinished last status is a bar to the last read', () => {
    expect(gantt([{ timeline: entries(['BUILDING', 0, 1500]) }])).toContain(
      '  section deployment-1\n  BUILDING :0, 1500\n',
    );
  });

  const HOSTILE = [
    'a\nsection x',
    'x :crit, 0, 99999999',
    '%%{init: {"theme": "dark"}}%%',
    '```',
    '<script>alert(1)</script>',
    'click a href "javascript:alert(1)"',
    'Agent_Ünïcode #1; title',
    '-'.repeat(200),
    '',
    'a'.repeat(500),
  ];
  it.each(HOSTILE)('keeps the syntax its own for a name or a status %j', (text) => {
    const chart = gantt([
      { name: text, timeline: entries([text, 0, 10], ['BUILDING', 10, 20], [text, 20, 20]) },
    ]);
    for (const line of chart.split('\n')) expect(line).toMatch(LINE);
    expect(chart).toContain('  other :0, 10');
  });

  it('sanitises a name to a-z0-9-', () => {
    expect(sectionName('Support_Agent (EU)', 0)).toBe('support-agent-eu');
    expect(sectionName('---', 2)).toBe('deployment-3');
    expect(sectionName(undefined, 0)).toBe('deployment-1');
  });
});

describe('in the summary', () => {
  const world = useWorld();

  const chartOf = (summary: string) => {
    const charts = summary.match(/```mermaid\n[\s\S]*?\n```/g) ?? [];
    expect(charts).toHaveLength(1);
    return charts[0]!.split('\n');
  };
  /** The chart a report's timelines make, as the run's own clock measured them. */
  const expected = (rows: GanttRow[]) => gantt(rows).split('\n');

  it('a deploy: its statuses as polled on the run clock', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([
      { status: 'QUEUED', ms: 3000 },
      { status: 'BUILDING', ms: 9000 },
      { status: 'DEPLOYED' },
    ]);
    const run = await runInProcess(world, {
      inputs: baseInputs(sim, { name: 'my-agent', 'repo-ref': 'main' }),
    });

    expect(run.outputs.result).toBe('deployed');
    const chart = chartOf(run.summary);
    expect(chart).toEqual(expected([{ name: 'my-agent', timeline: run.report.timeline }]));
    expect(
      chart.filter((line) => / :/.test(line)).map((line) => line.split(' :')[0]!.trim()),
    ).toEqual(run.report.timeline.map((entry) => entry.status));
    expect(run.summary).toContain('#### Status timeline chart');
  });

  it('a list: one chart, one section per deployment, in the list order', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'agent-a' });
    sim.addDeployment({ name: 'agent-b' });
    sim.timelines.push(
      [{ status: 'BUILDING', ms: 2000 }, { status: 'DEPLOYED' }],
      [{ status: 'BUILDING', ms: 1000 }, { status: 'BUILD_FAILED' }],
    );
    const run = await runInProcess(world, {
      inputs: baseInputs(sim, {
        deployments: '[{name: agent-a}, {name: agent-b}]',
        'repo-ref': 'main',
      }),
    });

    const chart = chartOf(run.summary);
    expect(chart.filter((line) => line.startsWith('  section'))).toEqual([
      '  section agent-a',
      '  section agent-b',
    ]);
    const items = run.report.items!;
    expect(chart).toEqual(
      expected(items.map((item) => ({ name: item.name, timeline: item.report.timeline }))),
    );
    expect(chart.some((line) => line.startsWith('  BUILD_FAILED :milestone, crit, '))).toBe(true);
  });
});
