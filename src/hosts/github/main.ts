// The action's entry on the GitHub runner: a GitHubHost, the system's clock and HTTP, the runner's signals as the
// job's cancellation, and the run.
import { runAction, USER_AGENT } from '../../run.ts';
import { httpTransport } from '../../service/transport.ts';
import { systemClock } from '../../shared/clock.ts';
import { systemGit } from '../git.ts';
import { GitHubHost } from './host.ts';

/** Never rejects: the run reports every failure itself. */
export async function run(): Promise<void> {
  const host = new GitHubHost(process.env, process.cwd(), USER_AGENT);
  const controller = new AbortController();
  // The runner sends SIGINT on cancel, then SIGTERM 7.5 s later.
  const onSignal = (signal: NodeJS.Signals) => controller.abort(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const transport = httpTransport(USER_AGENT);
  try {
    await runAction({
      host,
      clock: systemClock,
      transport,
      signal: controller.signal,
      git: systemGit,
    });
  } finally {
    transport.dispose();
  }
}
