// `npm run bench`'s line for deploying only what changed (issue 35): a monorepo of ten agents in a git repository made
// here, one agent's files changed since the commit all ten run; one step with `deployments` (each item its `paths`)
// against the simulator, through the bundle, without and with skip-unchanged: requests, writes, revisions built.
import { rmSync } from 'node:fs';
import { type ActionRun, runAction } from '../../test/helpers/action.ts';
import { monorepo } from '../../test/helpers/git.ts';
import type { Simulator } from '../../test/simulator/server.ts';
import { inputs, TIMELINE } from './several.ts';

const COUNT = 10;

export interface UnchangedRow {
  how: string;
  requests: number;
  writes: number;
  revisions: number;
  wallMs: number;
}

export interface Unchanged {
  count: number;
  changed: number;
  rows: UnchangedRow[];
}

const names = Array.from({ length: COUNT }, (_, i) => `agent-${String(i + 1).padStart(2, '0')}`);

export async function deployOnlyChanged(sim: Simulator): Promise<Unchanged> {
  const repo = monorepo(names, [names[3]!]);
  try {
    const list = JSON.stringify(names.map((name) => ({ name, paths: [`${name}/**`] })));
    const measure = async (how: string, skip: boolean): Promise<UnchangedRow> => {
      sim.reset();
      sim.builtCommits = names.map(() => repo.base);
      const deps = names.map((name) => sim.addDeployment({ name }));
      // A short build: the requests and revisions are what is measured, not the wait.
      sim.defaultTimeline = TIMELINE;
      const started = Date.now();
      const run: ActionRun = await runAction({
        inputs: inputs(sim, {
          'max-parallel': String(COUNT),
          'skip-unchanged': String(skip),
          deployments: list,
        }),
        env: { GITHUB_WORKSPACE: repo.dir, GITHUB_SHA: repo.head },
        killAfterMs: 600_000,
      });
      const wallMs = Date.now() - started;
      if (run.code !== 0) throw new Error(`bench: ${how} failed\n${run.stdout}\n${run.stderr}`);
      return {
        how,
        requests: sim.requests.length,
        writes: sim.writes().length,
        // Each seeded deployment has its one revision; the rest were built by this run.
        revisions: deps.reduce((sum, d) => sum + sim.revisions(d.id).length - 1, 0),
        wallMs,
      };
    };
    return {
      count: COUNT,
      changed: 1,
      rows: [
        await measure('without skip-unchanged', false),
        await measure('with skip-unchanged', true),
      ],
    };
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
  }
}
