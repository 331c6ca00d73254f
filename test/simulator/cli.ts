// Standalone simulator, for trying the action locally, the demo and CI:
//   npm run simulator -- [--port 8787] [--api-key K] [--repo owner/name] [--integration-id UUID]
//     [--time-scale N] [--rate-limit N] [--retry-after S] [--quiet]
// (CI runs it as `npm exec -- node test/simulator/cli.ts --port 8787`.) Prints `simulator listening on
// <url>`, then the values to put in the action's inputs, then one line per answered request (unless
// --quiet); runs until SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { Simulator, type RecordedRequest } from './server.ts';

function fail(msg: string): never {
  console.error(`simulator: ${msg}`);
  process.exit(2);
}

/** `--flag` as a number of at least `min` (or undefined when absent). */
function numberFlag(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min) fail(`bad --${name} ${value}`);
  return n;
}

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8787' },
    'api-key': { type: 'string' },
    repo: { type: 'string' },
    'integration-id': { type: 'string', default: '11111111-1111-4111-8111-111111111111' },
    'time-scale': { type: 'string', default: '1' },
    'rate-limit': { type: 'string' },
    'retry-after': { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
  strict: true,
});

const port = numberFlag('port', values.port, 0)!;
if (!Number.isInteger(port) || port > 65535) fail(`bad --port ${values.port}`);
const timeScale = numberFlag('time-scale', values['time-scale'], 0)!;
const perSecond = numberFlag('rate-limit', values['rate-limit'], 1);
const retryAfterSeconds = numberFlag('retry-after', values['retry-after'], 0);
if (retryAfterSeconds !== undefined && perSecond === undefined)
  fail('--retry-after needs --rate-limit');
const repo = values.repo ?? (process.env.GITHUB_REPOSITORY || 'acme/agent');
const [owner, name, ...rest] = repo.split('/');
if (!owner || !name || rest.length > 0) fail(`bad --repo ${repo} (want owner/name)`);

const sim = await Simulator.start({
  port,
  apiKey: values['api-key'],
  timeScale,
  rateLimit: perSecond === undefined ? undefined : { perSecond, retryAfterSeconds },
});
const integrationId = values['integration-id'];
sim.addRepository(integrationId, { owner, name }, 'codehost');
sim.addRepository(integrationId, { owner, name }, 'forge');
const listener = sim.addListener({
  compute_id: 'prod-cluster',
  k8s_namespaces: ['agents', 'staging'],
});

const limit = sim.rateLimit
  ? `${sim.rateLimit.perSecond} requests/s, then 429 with Retry-After: ${sim.rateLimit.retryAfterSeconds ?? 1}`
  : 'none';
// A key chosen with --api-key is not echoed: it may be one the user also uses elsewhere.
const key = values['api-key'] === undefined ? sim.apiKey : '(the value given with --api-key)';
process.stdout.write(
  [
    `simulator listening on ${sim.url}`,
    `  base-url:          ${sim.url}`,
    `  api-key:           ${key}`,
    `  integration-id:    ${integrationId} (lists the repository ${owner}/${name})`,
    `  listener:          prod-cluster (${listener.id}), namespaces agents, staging`,
    `  revisions go live: ${timelineText(sim)}`,
    `  rate limit:        ${limit}`,
    '',
  ].join('\n'),
);

function timelineText(s: Simulator): string {
  return s.defaultTimeline
    .map((step) => (step.ms ? `${step.status} ${(step.ms * s.timeScale) / 1000} s` : step.status))
    .join(' → ');
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
