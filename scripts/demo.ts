// npm run demo: the bundled action (dist/index.js) deploys an agent to the embedded simulator, as a runner would run it.
import { createInterface } from 'node:readline';
import { runAction } from '../test/helpers/action.ts';
import { Simulator } from '../test/simulator/server.ts';

const INTEGRATION = '11111111-1111-4111-8111-111111111111';
// Bold rules on a terminal only: a CI log or a file gets plain text.
const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
const rule = (title: string) =>
  console.log(`\n${bold(`── ${title} ${'─'.repeat(Math.max(0, 70 - title.length))}`)}`);

const sim = await Simulator.start({ apiKey: 'demo-api-key' });
try {
  sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
  sim.addDeployments(3, (i) => `support-agent-canary-${i}`);
  sim.timelines.push([
    { status: 'QUEUED', ms: 800 },
    { status: 'BUILDING', ms: 2500 },
    { status: 'DEPLOYING', ms: 1500 },
    { status: 'DEPLOYED' },
  ]);
  const inputs = {
    'base-url': sim.url,
    'api-key': 'demo-api-key',
    name: 'support-agent',
    'integration-id': INTEGRATION,
    'graph-config-path': 'graph.json',
    'custom-url': 'https://support-agent.example.com',
    secrets: 'OPENAI_API_KEY=sk-demo-not-a-real-key',
    'poll-interval': '2s',
    timeout: '2m',
  };
  rule(
    `simulator on ${sim.url}; running node dist/index.js (deploy support-agent from acme/agent@main)`,
  );
  // As the job log on GitHub reads: the runner swallows mask commands, and hides ::debug:: lines unless debug
  // logging is on (RUNNER_DEBUG=1 here too).
  const shown = (line: string) =>
    !line.startsWith('::add-mask::') &&
    (process.env.RUNNER_DEBUG === '1' || !line.startsWith('::debug::'));
  const run = await runAction({
    inputs,
    onSpawn: (child) =>
      createInterface({ input: child.stdout! }).on(
        'line',
        (line) => shown(line) && console.log(line),
      ),
  });
  rule('requests the service received');
  for (const r of sim.requests)
    console.log(
      `${r.method.padEnd(5)} ${r.path}${Object.keys(r.query).length ? `?${new URLSearchParams(r.query)}` : ''}`,
    );
  rule('step outputs (GITHUB_OUTPUT)');
  for (const [name, value] of Object.entries(run.outputs))
    console.log(`${name.padEnd(22)} ${value}`);
  rule('job summary (GITHUB_STEP_SUMMARY, Markdown)');
  console.log(run.summary);
  rule(`exit code ${run.code} after ${(run.ms / 1000).toFixed(1)} s`);
  process.exitCode = run.code ?? 1;
} finally {
  await sim.close();
}
