// Standalone simulator, for trying the action locally (its failure paths included), the demo and CI:
//   npm run simulator -- [flags]      (`npm run simulator -- --help` lists them, from FLAGS below)
// (CI runs it as `npm exec -- node test/simulator/cli.ts --port 8787`.) Prints `simulator listening on
// <url>`, then every value a first deploy needs and the command line of one from this checkout, then one line per
// answered request (unless --quiet); runs until SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { originRepository } from '../../src/hosts/cli/origin.ts';
import { Simulator, type RecordedRequest, type TimelineStep } from './server.ts';

interface Flag {
  /** What the value looks like in --help; a flag without one is a switch. */
  value?: string;
  default?: string;
  /** May be given more than once. */
  multiple?: boolean;
  help: string;
}

// One table for parseArgs and --help. The failure paths are what a newcomer should try before meeting them for real.
const SETUP: Record<string, Flag> = {
  port: { value: 'N', default: '8787', help: 'port to listen on (0: any free port)' },
  'api-key': { value: 'KEY', help: 'the key it accepts (default test-api-key)' },
  repo: {
    value: 'OWNER/NAME',
    help: "the repository the integration lists (default $GITHUB_REPOSITORY, else this checkout's origin, else acme/agent)",
  },
  'integration-id': {
    value: 'UUID',
    default: '11111111-1111-4111-8111-111111111111',
    help: 'the code-hosting integration it knows',
  },
  'time-scale': {
    value: 'N',
    default: '1',
    help: 'stretch each step of a revision N times (a revision goes live in 0.18 s at 1)',
  },
  quiet: { help: 'do not print a line per answered request' },
  help: { help: 'print this list and exit' },
};
const FAILURES: Record<string, Flag> = {
  'fail-build': { help: 'every new revision ends BUILD_FAILED' },
  'fail-deploy': { help: 'every new revision builds, then ends DEPLOY_FAILED' },
  'slow-build': {
    value: 'S',
    help: 'every build takes S seconds (try it with a short timeout)',
  },
  outage: {
    value: 'S',
    help: 'answer every request 503 for S seconds from the start (watch the retries)',
  },
  'outage-after': { value: 'S', help: 'with --outage: start it S seconds after the start' },
  'tenant-id': {
    value: 'UUID',
    multiple: true,
    help: 'serve this tenant only: a request naming no tenant or another is refused (403); twice: a second tenant, with deployments of its own',
  },
  'no-switch': { help: 'a DEPLOYED revision never becomes the active one' },
  'rate-limit': { value: 'N', help: 'answer 429 beyond N requests per second' },
  'retry-after': { value: 'S', help: 'with --rate-limit: the Retry-After of the 429s (default 1)' },
};
const FLAGS = { ...SETUP, ...FAILURES };

function usage(): string {
  const rows = (flags: Record<string, Flag>) =>
    Object.entries(flags).map(([name, f]) => {
      const left = `  --${name}${f.value ? ` ${f.value}` : ''}`;
      return `${left.padEnd(26)} ${f.help}${f.default ? ` (default ${f.default})` : ''}`;
    });
  return [
    'usage: npm run simulator -- [flags]',
    'A simulator of the Deployment Management Service on 127.0.0.1, for trying the action locally.',
    '',
    'Set-up:',
    ...rows(SETUP),
    '',
    'Failure paths to try:',
    ...rows(FAILURES),
    '',
  ].join('\n');
}

function fail(msg: string): never {
  console.error(`simulator: ${msg} (npm run simulator -- --help lists the flags)`);
  process.exit(2);
}

/** `--flag` as a number of at least `min` (or undefined when absent). */
function numberFlag(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min) fail(`bad --${name} ${value}`);
  return n;
}

let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
try {
  ({ values } = parseArgs({
    options: Object.fromEntries(
      Object.entries(FLAGS).map(([name, f]) => [
        name,
        f.value
          ? f.multiple
            ? { type: 'string' as const, multiple: true }
            : { type: 'string' as const, default: f.default }
          : { type: 'boolean' as const, default: false },
      ]),
    ),
    strict: true,
  }));
} catch (error) {
  fail((error as Error).message.split('\n')[0]!);
}
const text = (name: string) => values[name] as string | undefined;
const texts = (name: string) => (values[name] as string[] | undefined) ?? [];
if (values.help) {
  process.stdout.write(usage());
  process.exit(0);
}

const port = numberFlag('port', text('port'), 0)!;
if (!Number.isInteger(port) || port > 65535) fail(`bad --port ${text('port')}`);
const timeScale = numberFlag('time-scale', text('time-scale'), 0)!;
const perSecond = numberFlag('rate-limit', text('rate-limit'), 1);
const retryAfterSeconds = numberFlag('retry-after', text('retry-after'), 0);
if (retryAfterSeconds !== undefined && perSecond === undefined)
  fail('--retry-after needs --rate-limit');
if (values['fail-build'] && values['fail-deploy'])
  fail('--fail-build and --fail-deploy exclude each other');
const buildSeconds = numberFlag('slow-build', text('slow-build'), 0);
const outageSeconds = numberFlag('outage', text('outage'), 0);
const outageAfter = numberFlag('outage-after', text('outage-after'), 0);
if (outageAfter !== undefined && outageSeconds === undefined) fail('--outage-after needs --outage');
const [tenantId, ...otherTenants] = texts('tenant-id');
for (const tenant of texts('tenant-id'))
  if (!/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(tenant))
    fail(`bad --tenant-id ${tenant} (want a uuid)`);
if (otherTenants.length > 1) fail('--tenant-id is given at most twice');
// What the command line looks for in the listing when run here: the checkout's origin (hosts/cli/origin.ts).
const origin = (await originRepository(process.cwd())).repository;
const repo =
  text('repo') ??
  (process.env.GITHUB_REPOSITORY ||
    (origin ? `${origin.owner}/${origin.name}` : undefined) ||
    'acme/agent');
const fromHere =
  text('repo') === undefined && !process.env.GITHUB_REPOSITORY && origin !== undefined;
const [owner, name, ...rest] = repo.split('/');
if (!owner || !name || rest.length > 0) fail(`bad --repo ${repo} (want owner/name)`);

const sim = await Simulator.start({
  port,
  apiKey: text('api-key'),
  tenantId,
  timeScale,
  rateLimit: perSecond === undefined ? undefined : { perSecond, retryAfterSeconds },
});
for (const tenant of otherTenants) sim.addTenant(tenant);
sim.defaultTimeline = timeline(sim.defaultTimeline);
if (values['no-switch']) sim.activeSwitch = 'never';
if (outageSeconds !== undefined)
  sim.fault({ status: 503, fromMs: (outageAfter ?? 0) * 1000, forMs: outageSeconds * 1000 });
const integrationId = text('integration-id')!;
sim.addRepository(integrationId, { owner, name }, 'codehost');
sim.addRepository(integrationId, { owner, name }, 'forge');
const listener = sim.addListener({
  compute_id: 'prod-cluster',
  k8s_namespaces: ['agents', 'staging'],
});

/** The simulator's usual revision life, changed as the failure flags ask. */
function timeline(usual: TimelineStep[]): TimelineStep[] {
  // --slow-build is in real seconds, whatever --time-scale stretches.
  const buildMs = buildSeconds === undefined ? undefined : (buildSeconds * 1000) / (timeScale || 1);
  const steps = usual.map((s) =>
    s.status === 'BUILDING' && buildMs !== undefined ? { ...s, ms: buildMs } : s,
  );
  if (values['fail-build'])
    return [
      ...steps.slice(0, steps.findIndex((s) => s.status === 'BUILDING') + 1),
      { status: 'BUILD_FAILED' },
    ];
  if (values['fail-deploy']) return [...steps.slice(0, -1), { status: 'DEPLOY_FAILED' }];
  return steps;
}

const limit = sim.rateLimit
  ? `${sim.rateLimit.perSecond} requests/s, then 429 with Retry-After: ${sim.rateLimit.retryAfterSeconds ?? 1}`
  : 'none';
// A key chosen with --api-key is not echoed: it may be one the user also uses elsewhere.
const key = text('api-key') === undefined ? sim.apiKey : '(the value given with --api-key)';
process.stdout.write(
  [
    `simulator listening on ${sim.url}`,
    `  base-url:          ${sim.url}`,
    `  api-key:           ${key}`,
    ...(tenantId
      ? [`  tenant-id:         ${tenantId} (required; any other is refused with 403)`]
      : []),
    ...otherTenants.map(
      (tenant) => `  second tenant:     ${tenant} (the key's too; its deployments are its own)`,
    ),
    `  integration-id:    ${integrationId} (lists the repository ${owner}/${name}${fromHere ? ", this checkout's origin" : ''})`,
    `  graph-config-path: any path, e.g. graph.json (the simulator builds nothing)`,
    `  listener:          prod-cluster (${listener.id}), namespaces agents, staging`,
    `  revisions:         ${timelineText(sim)}`,
    ...(values['no-switch'] ? ['  active revision:   never switches to a new one'] : []),
    ...(outageSeconds !== undefined
      ? [`  outage:            every request answered 503 ${outageText()}`]
      : []),
    `  rate limit:        ${limit}`,
    '',
    'A first deploy from this checkout, in another terminal:',
    `  ${firstDeploy()}`,
    '',
  ].join('\n'),
);

/** The command line of a first deploy, with the values above; repo-url only when the checkout cannot say it. */
function firstDeploy(): string {
  const flags = [
    'deploy',
    `--base-url ${sim.url}`,
    '--name my-agent',
    `--integration-id ${integrationId}`,
    '--graph-config-path graph.json',
    ...(fromHere ? [] : [`--repo-url https://codehost.example/${owner}/${name}`]),
    ...(tenantId ? [`--tenant-id ${tenantId}`] : []),
  ];
  const variable = text('api-key') === undefined ? sim.apiKey : '<the key given with --api-key>';
  return `AGENT_DEPLOY_API_KEY=${variable} npm exec -- node dist/cli.js ${flags.join(' ')}`;
}

function timelineText(s: Simulator): string {
  return s.defaultTimeline
    .map((step) => (step.ms ? `${step.status} ${(step.ms * s.timeScale) / 1000} s` : step.status))
    .join(' → ');
}

function outageText(): string {
  const from = outageAfter ? `from ${outageAfter} s after the start` : 'from the start';
  return `${from} for ${outageSeconds} s`;
}

function logLine(r: RecordedRequest, ms: number): string {
  const query = new URLSearchParams(r.query).toString();
  const time = new Date(r.at).toISOString().slice(11, 23);
  return `${time} ${r.method} ${r.path}${query ? `?${query}` : ''} ${r.status} ${ms} ms\n`;
}

if (!values.quiet) sim.onAnswer = (r, ms) => process.stdout.write(logLine(r, ms));

let closing = false;
const stop = () => {
  if (closing) return;
  closing = true;
  void sim.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// `npm exec` does not pass SIGTERM on to us: when it dies we are re-parented, so stop then.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop();
}, 500).unref();
