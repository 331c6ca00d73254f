// The command line's words: an input is its flag and its variable (`--name` / `AGENT_DEPLOY_NAME`). A CI that runs
// the command line (GitLab CI) gives its inputs as the job's variables: its words say where those are set.
import type { Words } from '../../core/words.ts';
import { variableOf } from './args.ts';

export interface CommandLineWords {
  /** Where a job of the CI sets its variables ("the job's variables"); none on a terminal. */
  variables?: string;
  /** Where it keeps a secret one ("a masked CI/CD variable"); none on a terminal. */
  secretVariable?: string;
  checkout: string;
  noRepository: string;
  changeRun: string;
}

export function commandLineWords({
  variables,
  secretVariable,
  checkout,
  noRepository,
  changeRun,
}: CommandLineWords): Words {
  const flag = (name: string, value: string) => `--${name} ${value}`;
  return {
    input: (name) => `--${name} / ${variableOf(name)}`,
    set: (name, value) =>
      variables
        ? `set ${variableOf(name)}: ${value} in ${variables}, or add ${flag(name, value)}`
        : `add ${flag(name, value)} (or set ${variableOf(name)}=${value})`,
    give: (name) => {
      // A flag shows in the process list: the key goes in a variable.
      if (name === 'api-key')
        return secretVariable
          ? `set ${variableOf(name)} as ${secretVariable}`
          : `give it as the variable ${variableOf(name)}, not as a flag (a flag shows in the process list)`;
      return variables
        ? `set ${variableOf(name)} in ${variables}, or give ${flag(name, '<value>')}`
        : `give ${flag(name, '<value>')} or set the variable ${variableOf(name)}`;
    },
    checkout,
    noRepository,
    changeRun,
  };
}
