// Issues 9, 17 and 31 through the bundled action, as the runner runs it: one hostile run per kind of sink (the job
// log with its commands, the GITHUB_OUTPUT file, the step summary file, the GitHub API bodies), the bounds measured
// on the child process (peak resident memory, the time of a worst-case page; 100 deployments answering near every
// limit), an answer about another resource and a bad repo_commit_sha once, and issue 17's fixes to the inputs once.
// Every run goes through the same checks (expectSafe); test/core/hostile.test.ts runs the rest of the suite
// in-process (where verify-url goes among it: a core rule, which needs no runner).
// Each test has its own fakes, so the tests run at once.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActionRun, runAction } from '../../helpers/action.ts';
import { FakeGitHub } from '../../helpers/github.ts';
import {
  endlessBody,
  exactNamesForever,
  fullWidth,
  HostileService,
  htmlEntities,
  hugePage,
  percentEveryByte,
  revisionAnswer,
  splitEvery,
  titleBomb,
} from '../../helpers/hostile.ts';
import {
  API_KEY,
  commentBodies,
  expectFailure,
  expectSafe,
  hostileInputs,
  hostileWorkspace,
  KILL_ABOVE_KB,
  ourComments,
  prEnv,
  prEvent,
} from '../../helpers/hostile-checks.ts';

const PEAK_LIMIT_MB = 300;

interface HostileRun extends ActionRun {
  /** Peak resident memory of the child (VmHWM), MB. */
  peakMb: number;
}

interface Fakes {
  service: HostileService;
  gh: FakeGitHub;
}

/** `test` with a hostile service and a fake GitHub of its own, closed after it. */
async function withFakes(test: (fakes: Fakes) => Promise<void>): Promise<void> {
  const [service, gh] = await Promise.all([HostileService.start(), FakeGitHub.start()]);
  try {
    await test({ service, gh });
  } finally {
    await Promise.all([service.close(), gh.close()]);
  }
}

/**
 * A deploy (or another command) on a pull_request event with a hostile head branch, a secret, the GitHub features
 * on (environment and pr-comment), against the hostile service; then the checks every hostile run must pass.
 */
async function deployHostile(
  { service, gh }: Fakes,
  inputs: Record<string, string> = {},
  options: { env?: Record<string, string> } = {},
): Promise<HostileRun> {
  const peak = { kb: 0 };
  const run = await runAction({
    // On the system clock the run's own timeout is a wall-clock limit too: the action's default, which load never
    // reaches (no case here ends by it).
    inputs: hostileInputs(service, { timeout: '30m', ...inputs }),
    env: { ...prEnv, GITHUB_API_URL: gh.url, ...options.env },
    event: prEvent,
    onSpawn: (child) => watchMemory(child, peak),
  });
  const hostileRun = { ...run, peakMb: Math.round(peak.kb / 1024) };
  expectSafe(hostileRun, gh);
  return hostileRun;
}

/** Polls the child's VmHWM (the kernel's peak RSS) until it exits; kills it past KILL_ABOVE_KB. */
function watchMemory(child: ChildProcess, peak: { kb: number }): void {
  const timer = setInterval(() => {
    let status: string;
    try {
      status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    } catch {
      return;
    }
    peak.kb = Math.max(peak.kb, Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0));
    if (peak.kb > KILL_ABOVE_KB) child.kill('SIGKILL');
  }, 20);
  child.on('exit', () => clearInterval(timer));
}

describe.concurrent(
  'a hostile service: every field it answers is data, in every sink of the runner',
  () => {
    it.each([
      ['an http custom_url with <> and a newline', {}],
      // One argument per run of backticks was a RangeError: no summary, and the GitHub Deployment left in_progress.
      ['values with 150,000 runs of backticks', { padding: '`x'.repeat(150_000) }],
    ])(
      'a deploy through it (%s) is deployed, and nothing in it is injected, rendered or leaked',
      (_, setup) =>
        withFakes(async (fakes) => {
          Object.assign(fakes.service, setup);

          const run = await deployHostile(fakes);

          expect(run.code).toBe(0);
          expect(run.outputs.result).toBe('deployed');
          expect(ourComments(fakes.gh)).toHaveLength(1);
          expect(fakes.gh.deployments[0]?.statuses.map((s) => s.state)).toEqual([
            'in_progress',
            'success',
          ]);
        }),
    );

    it('a name the service gives, with the key split by NULs: marker, outputs and statuses', () =>
      withFakes(async (fakes) => {
        const { service } = fakes;
        service.name = `agent-${splitEvery(API_KEY, '\u0000')}`;
        const id = String(service.targetDeployment().id);

        const run = await deployHostile(fakes, { name: '', 'deployment-id': id });

        expect(run.outputs.result).toBe('deployed');
        expect(run.outputs['deployment-name']).toBe('agent-***');
        expect(ourComments(fakes.gh)).toHaveLength(1);
        expect(ourComments(fakes.gh)[0]!.body).toMatch(
          /^<!-- agent-deploy-action:agent-\*\*\* -->\n/,
        );
      }));

    it('a 400 that echoes the key in upper case, hex, every byte percent-encoded, full width and entities: no sink shows it, the GitHub Deployment status included', () =>
      withFakes(async (fakes) => {
        const forms = [
          API_KEY.toUpperCase(),
          Buffer.from(API_KEY).toString('hex').toUpperCase(),
          percentEveryByte(API_KEY),
          fullWidth(API_KEY),
          htmlEntities(API_KEY),
        ];
        fakes.service.on('patch', { status: 400, body: { detail: `bad key ${forms.join(' ')}` } });

        const run = await deployHostile(fakes);

        expectFailure(run, 'PATCH /v2/deployments/', 'bad key ***');
        const statuses = fakes.gh.deployments[0]?.statuses ?? [];
        expect(statuses.map((st) => st.state)).toEqual(['in_progress', 'failure']);
        expect(statuses[1]?.description).toContain('bad key ***');
      }));

    it('a status read that answers another revision: an error naming the endpoint', () =>
      withFakes(async (fakes) => {
        const other = randomUUID();
        fakes.service.on('revision', () => revisionAnswer(other));

        const run = await deployHostile(fakes, { command: 'status' });

        expectFailure(
          run,
          /GET \/v2\/deployments\/[0-9a-f-]{36}\/revisions\/[0-9a-f-]{36} answered about revision/,
        );
        expect(run.outputs['revision-status'] ?? '').toBe('');
      }));

    it('a repo_commit_sha that is not 7 to 64 hex characters: a schema error naming the endpoint and the field', () =>
      withFakes(async (fakes) => {
        fakes.service.commit = 'abc1234 COMMIT_INJ=1';

        const run = await deployHostile(fakes, { command: 'status' });

        expectFailure(
          run,
          /GET \/v2\/deployments answered with an unexpected body: field '.*repo_commit_sha': not a commit sha/,
        );
        expect(run.outputs['commit-sha'] ?? '').toBe('');
      }));
  },
);

/** `agent-001`…: names none of which contains another, as the service's name_contains search would match. */
const names = (n: number) =>
  Array.from({ length: n }, (_, i) => `agent-${String(i + 1).padStart(3, '0')}`);

// A deploy, whose peak is the higher (it holds its lookup's answer and its update's at once; a status, one per call,
// is the same bound's lesser case: docs/performance.md has the figures of both). At the default max-parallel (4): at
// 16, 16 answers of 4 MiB are read at once, and the peak varies more from run to run with the garbage collector's
// timing.
describe('100 deployments answering near every limit, on the child process', () => {
  it('deploy: peak memory under 300 MiB, past 16 MiB a clear error, every deployment keeps its row', () =>
    withFakes(async (fakes) => {
      const { service } = fakes;
      service.exists = false;
      for (const name of names(100)) service.add(name);
      // 56 strings of 64 KiB in each deployment: its page of the name listing is near the 4 MiB an answer may be.
      service.labels = Object.fromEntries(
        Array.from({ length: 56 }, (_, i) => [`l${i}`, 'v'.repeat(64 * 1024 - 8)]),
      );
      service.statuses = ['DEPLOYED'];

      const run = await deployHostile(fakes, {
        name: '',
        deployments: JSON.stringify(names(100).map((name) => ({ name }))),
      });

      console.info(
        `100 deployments near every limit, deploy: peak RSS ${run.peakMb} MB, ${run.ms} ms`,
      );
      expect(run.peakMb).toBeLessThan(PEAK_LIMIT_MB);
      expectFailure(
        run,
        /more than the 16\.0 MiB one run keeps however many deployments it acts on/,
      );
      const rows = (markdown: string) =>
        markdown.split('\n').filter((line) => /^\| agent-\d{3} \|/.test(line));
      const shown = names(100).map((name) =>
        expect.stringMatching(new RegExp(`^\\| ${name} \\| \``)),
      );
      expect(rows(run.summary)).toEqual(shown);
      expect(rows(commentBodies(fakes.gh)[0] ?? '')).toEqual(shown);
    }));
});

describe.concurrent('bounds, on the child process', () => {
  it('a body that never ends is cut at the cap: a clear failure, under 300 MB', () =>
    withFakes(async (fakes) => {
      fakes.service.on('list', endlessBody());

      const run = await deployHostile(fakes);

      console.info(`endless body: peak RSS ${run.peakMb} MB, ${run.ms} ms`);
      expectFailure(run, 'GET /v2/deployments', /\d+(\.\d+)? ?(KiB|MiB|GiB|KB|MB|bytes)\b/);
      expect(run.peakMb).toBeLessThan(PEAK_LIMIT_MB);
    }));

  it('a valid page of 12 MiB is over the cap: a clear failure', () =>
    withFakes(async (fakes) => {
      fakes.service.on('list', hugePage(fakes.service, 100, 126 * 1024));

      const run = await deployHostile(fakes);

      console.info(`12 MiB page: peak RSS ${run.peakMb} MB`);
      expectFailure(run, 'GET /v2/deployments', /\d+(\.\d+)? ?(KiB|MiB|GiB|KB|MB|bytes)\b/);
      expect(run.peakMb).toBeLessThan(PEAK_LIMIT_MB);
    }));

  it.each([
    ['700 KiB', 700 * 1024],
    ['4 MiB', 4 * 1024 * 1024],
  ])(
    'an HTML page of %s that opens <title over and over fails at once, a clear failure',
    (size, bytes) =>
      withFakes(async (fakes) => {
        fakes.service.on('list', titleBomb(bytes));

        const run = await deployHostile(fakes);

        console.info(`<title bomb of ${size}: ${run.ms} ms`);
        expectFailure(run, 'GET', /an HTML page \(text\/html\), not the service's JSON/);
      }),
  );

  it('a listing of endless 3.75 MiB pages of exact matches stops at the cap: a clear failure, under 300 MB', () =>
    withFakes(async (fakes) => {
      const { service } = fakes;
      service.on('list', exactNamesForever(service, 37 * 1024));

      const run = await deployHostile(fakes);

      console.info(`endless listing of exact matches: peak RSS ${run.peakMb} MB, ${run.ms} ms`);
      expectFailure(run, 'GET /v2/deployments', /more than this action keeps from one listing/);
      expect(run.errors[0]).toContain('Narrow the name, or set deployment-id.');
      expect(run.peakMb).toBeLessThan(PEAK_LIMIT_MB);
      expect(service.requestsTo('list').length).toBeLessThanOrEqual(10);
    }));
});

describe.concurrent('inputs that would publish, or rewrite what is deployed or where', () => {
  it('pull_request_target gives no default repo-ref: an explicit one is required, before any request', () =>
    withFakes(async (fakes) => {
      const run = await deployHostile(
        fakes,
        {},
        { env: { GITHUB_EVENT_NAME: 'pull_request_target', GITHUB_REF: 'refs/heads/main' } },
      );

      expectFailure(run, /Input 'repo-ref' is required on pull_request_target/, /head branch/);
      expect(run.errors).toHaveLength(1);
      expect(fakes.service.requests).toEqual([]);
    }));

  it('token-id "../../deployments/x" is refused, naming the accepted form, before any request', () =>
    withFakes(async (fakes) => {
      const run = await deployHostile(fakes, {
        command: 'token-metadata',
        name: '',
        'token-id': '../../deployments/x',
        'provider-account-label': 'ci',
      });

      expectFailure(run, /Input 'token-id': .* is not a token id; use .*letters, digits/);
      expect(fakes.service.requests).toEqual([]);
    }));

  it('a dry run: the summary and the PR comment show ref and paths, and every other field as "set"; the log keeps all', () =>
    withFakes(async (fakes) => {
      const run = await deployHostile(fakes, {
        'dry-run': 'true',
        'repo-ref': 'release-7',
        'build-command': 'make BUILD_TOKEN=build-value-123',
        'install-command': 'pip install --index-url https://u:install-value-456@pypi.example',
        'resource-spec': '{"labels": {"team": "spec-value-789"}}',
        'custom-url': 'https://agent.example',
        'verify-url': '/health?token=verify-query-value',
      });

      expect(run.outputs.result).toBe('planned');
      const values = [
        'build-value-123',
        'install-value-456',
        'spec-value-789',
        'verify-query-value',
      ];
      const comments = commentBodies(fakes.gh);
      for (const text of [run.summary, ...comments]) {
        expect(text).toContain('release-7');
        expect(text).toContain('graph.json');
        expect(text).toContain('"build_command": "set"');
        for (const value of values) expect(text).not.toContain(value);
      }
      expect(comments).toHaveLength(1);
      for (const value of values) expect(run.stdout).toContain(value);
    }));
});

// Files a careless read waits on forever: a child that hangs is killed, an in-process run would hang its worker.
describe.concurrent('resource-spec @file: a FIFO or a device is refused before any request', () => {
  let ws: ReturnType<typeof hostileWorkspace>;
  beforeAll(() => {
    ws = hostileWorkspace();
  });
  afterAll(() => ws.dispose());

  it.each([
    ['a symlink to /dev/zero', 'zero.yaml'],
    ['a FIFO', 'fifo.yaml'],
  ])('%s is refused', (_, path) =>
    withFakes(async (fakes) => {
      const run = await deployHostile(
        fakes,
        { 'resource-spec': `@${path}` },
        { env: { GITHUB_WORKSPACE: ws.workspace } },
      );

      expect(run.code, 'ended by itself').not.toBeNull();
      expectFailure(run, /resource-spec/);
      expect(fakes.service.requests).toEqual([]);
    }),
  );
});
