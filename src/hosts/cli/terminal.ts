// The command line with no CI around it (a laptop, or a CI the registry does not know): the working directory is
// the workspace, the checkout's origin remote names the repository, and nothing else is added.
import type { Ci, CiKind } from './ci.ts';
import { originRepository } from './origin.ts';
import { commandLineWords } from './words.ts';

export const terminal: CiKind = {
  detect: () => true,
  async build(_env, cwd): Promise<Ci> {
    const origin = await originRepository(cwd);
    return {
      context: {
        workspace: cwd,
        repository: origin.repository,
        words: commandLineWords({
          checkout:
            "run agent-deploy in the repository's checkout: @paths are read from the working directory",
          noRepository: origin.why,
          changeRun: "a merge request pipeline of a CI the command line knows (GitLab CI's)",
        }),
      },
      secrets: [],
      integrations(run) {
        if (run.environment || run.prComment)
          run.log.info(
            'environment and pr-comment are features of GitHub Actions (and merge request notes of GitLab CI): skipped here.',
          );
        return [];
      },
      files: {},
    };
  },
};
