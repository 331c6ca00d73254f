// GitHub's words: an input is a key of the workflow step's `with:`, set as YAML.
import type { Words } from '../../core/words.ts';

export const gitHubWords: Words = {
  input: (name) => `input '${name}'`,
  set: (name, value) => `set ${name}: ${value}`,
  give: (name) =>
    `set it in the step's 'with:' (for ${name === 'api-key' ? 'the key, use a secret' : 'example from a variable'})`,
  checkout: 'run actions/checkout first',
  noRepository: 'GITHUB_REPOSITORY is not set',
  changeRun: 'on: pull_request',
};
