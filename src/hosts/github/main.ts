// The action's entry on the GitHub runner: a GitHubHost, the runner's signals as the job's cancellation, the run.
import { runAction, USER_AGENT } from '../../run.ts';
import { GitHubHost } from './host.ts';

/** Never rejects: the run reports every failure itself. */
export async function run(): Promise<void> {
  const host = new GitHubHost(process.env, process.cwd(), USER_AGENT);
  const controller = new AbortController();
  // The runner sends SIGINT on cancel, then SIGTERM 7.5 s later.
  const onSignal = (signal: NodeJS.Signals) => controller.abort(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  await runAction({ host, signal: controller.signal, secrets: host.secrets() });
}
