// How the CI a run is in speaks to its user. A message that tells the user what to change names the input and the
// way to give it as that CI does: a workflow step's `with:` on GitHub, a flag or its AGENT_DEPLOY_* variable on the
// command line, the job's variables in GitLab CI. Each host gives its own (src/hosts/<name>/words.ts).

export interface Words {
  /** An input as the user names it, mid-sentence: "input 'name'", "--name (AGENT_DEPLOY_NAME)". */
  input(name: string): string;
  /** How to give an input this value, as an instruction: "set create: always", "add --create always (…)". */
  set(name: string, value: string): string;
  /** How to give a required input that is missing, as an instruction ("set it in the step's with: …"). */
  give(name: string): string;
  /** What to do when the workspace lacks a file of the repository ("run actions/checkout first"). */
  checkout: string;
  /** Where the repository the run is for comes from, for when none is known ("GITHUB_REPOSITORY is not set"). */
  noRepository: string;
  /** How a pipeline asks for a pull request's own run, where a preview runs ("on: pull_request"). */
  changeRun: string;
}

/** `text` with its first letter upper case: an input's name that starts a sentence. */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
