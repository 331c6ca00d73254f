// The command line's log: on a terminal a live line per deployment being waited on, below the log, that leaves no
// trace once the wait is over; elsewhere plain lines only.
import { describe, expect, it } from 'vitest';
import type { Progress } from '../../../src/core/logger.ts';
import { Console } from '../../../src/hosts/cli/console.ts';
import { runCliInProcess, screen } from '../../helpers/cli-in-process.ts';
import { FakeClock } from '../../helpers/fake-clock.ts';
import { baseInputs } from '../../helpers/setup.ts';
import { useWorld } from '../../helpers/run.ts';

const world = useWorld();
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

describe('a deploy on a terminal', () => {
  const deploy = (terminal: boolean) => {
    world.sim.addDeployment({ name: 'my-agent' });
    world.sim.timelines.push([
      { status: 'QUEUED', ms: 5_000 },
      { status: 'BUILDING', ms: 65_000 },
      { status: 'DEPLOYED' },
    ]);
    return runCliInProcess(world, {
      inputs: baseInputs(world.sim, {
        name: 'my-agent',
        'repo-ref': 'main',
        'poll-interval': '10s',
        timeout: '5m',
      }),
      terminal,
    });
  };

  it('shows the status and the time in it on a live line, which is gone when the wait ends', async () => {
    const run = await deploy(true);

    expect(run.outputs.result).toBe('deployed');
    const revision = run.outputs['revision-id']!;
    // Redrawn at each read: the time in BUILDING grows by the poll interval.
    for (const time of ['10s', '20s', '1m', '1m10s'])
      expect(run.stderr).toContain(`… Revision ${revision}: BUILDING for ${time}\n`);
    const shown = screen(run.stderr);
    expect(shown.filter((line) => line.startsWith('… '))).toEqual([]);
    expect(shown.at(-1)).toBe(`Result: deployed (revision ${revision})`);
  });

  it('leaves on the screen exactly the lines a log file gets', async () => {
    const onTerminal = await deploy(true);
    world.sim.reset();
    const inFile = await deploy(false);

    expect(inFile.stderr).not.toContain('\x1b');
    expect(inFile.stderr).not.toContain('… Revision');
    const plain = inFile.stderr.replace(UUID, 'ID').split('\n');
    expect(plain.pop()).toBe('');
    expect(screen(onTerminal.stderr.replace(UUID, 'ID'))).toEqual(plain);
  });
});

describe('Console', () => {
  const progress = (deploymentId: string, status: string, since: number, done = false) =>
    ({ deploymentId, revisionId: `rev-${deploymentId}`, status, since, done }) satisfies Progress;

  it('keeps one live line per deployment below the log, cut to the width of the terminal', async () => {
    const clock = new FakeClock(0);
    const out = { text: '', columns: 40, write: (text: string) => (out.text += text) };
    const console = new Console(out, { live: true, color: false, debug: false, clock });

    console.log.progress!(progress('a', 'QUEUED', 0));
    console.log.progress!(progress('b', 'BUILDING_SOMETHING_VERY_LONG', 0));
    await clock.advance(3_000);
    console.log.info('a line of the log');

    expect(screen(out.text)).toEqual([
      'a line of the log',
      '… Revision rev-a: QUEUED for 3s',
      // 39 characters: one short of the width.
      '… Revision rev-b: BUILDING_SOMETHING_V…',
    ]);

    console.log.progress!(progress('a', 'DEPLOYED', 3_000, true));
    console.log.warning('another');
    console.close();

    expect(screen(out.text)).toEqual(['a line of the log', 'warning: another']);
  });

  it("leads the live line of a list's item with the item's name", async () => {
    const clock = new FakeClock(0);
    const out = { text: '', columns: 80, write: (text: string) => (out.text += text) };
    const console = new Console(out, { live: true, color: false, debug: false, clock });

    console.log.progress!({ ...progress('a', 'QUEUED', 0), name: 'agent-a' });
    await clock.advance(2_000);
    console.log.info('a line');

    expect(screen(out.text)).toEqual(['a line', '… agent-a: Revision rev-a: QUEUED for 2s']);
    console.close();
  });

  it('prints no live line and no escape where the log is not a terminal', () => {
    const out = { text: '', write: (text: string) => (out.text += text) };
    const console = new Console(out, {
      live: false,
      color: true,
      debug: false,
      clock: new FakeClock(),
    });

    console.log.progress!(progress('a', 'QUEUED', 0));
    console.log.warning('careful');
    console.log.debug('hidden');
    console.error('it failed');

    expect(out.text).toBe('warning: careful\nerror: it failed\n');
  });
});
