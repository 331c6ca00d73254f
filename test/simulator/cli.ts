// Standalone simulator for the demo script and CI:
//   npm exec -- node test/simulator/cli.ts [--port 8787] [--api-key K] [--repo owner/name]
//     [--integration-id UUID] [--time-scale N]
// Prints one line `simulator listening on <url>` and runs until SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { Simulator } from './server.ts';

function fail(msg: string): never {
  console.error(`simulator: ${msg}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8787' },
    'api-key': { type: 'string' },
    repo: { type: 'string' },
    'integration-id': { type: 'string', default: '11111111-1111-4111-8111-111111111111' },
    'time-scale': { type: 'string', default: '1' },
  },
  strict: true,
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`bad --port ${values.port}`);
const timeScale = Number(values['time-scale']);
if (!Number.isFinite(timeScale) || timeScale < 0) fail(`bad --time-scale ${values['time-scale']}`);
const repo = values.repo ?? (process.env.GITHUB_REPOSITORY || 'acme/agent');
const [owner, name, ...rest] = repo.split('/');
if (!owner || !name || rest.length > 0) fail(`bad --repo ${repo} (want owner/name)`);

const sim = await Simulator.start({ port, apiKey: values['api-key'], timeScale });
const integrationId = values['integration-id'];
sim.addRepository(integrationId, { owner, name }, 'codehost');
sim.addRepository(integrationId, { owner, name }, 'forge');
sim.addListener({ compute_id: 'prod-cluster', k8s_namespaces: ['agents', 'staging'] });
process.stdout.write(`simulator listening on ${sim.url}\n`);

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
