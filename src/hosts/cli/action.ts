// The command line's inputs are the action's: read from action.yml, which sits beside dist/ in a clone (and beside
// src/ in the repository), so the flags, their defaults and --help come from the one table the runner reads too.
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as z from '../../shared/zod.ts';

const ActionInput = z.object({
  description: z.string(),
  required: z.optional(z.boolean()),
  default: z.optional(z.string()),
});
const ActionTable = z.object({
  description: z.string(),
  inputs: z.record(z.string(), ActionInput),
  outputs: z.record(z.string(), z.object({ description: z.string() })),
});

export type ActionInput = z.infer<typeof ActionInput>;
export type ActionTable = z.infer<typeof ActionTable>;

/** action.yml of the checkout that `script` (dist/cli.js, or src/cli.ts) is in: one folder up from it. */
export function actionFile(script: string): string {
  return resolve(dirname(realpathSync(script)), '..', 'action.yml');
}

/** The table of inputs; throws one line saying what is missing when the file is not an action's. */
export async function readActionTable(file: string): Promise<ActionTable> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}): run dist/cli.js from a clone of agent-deploy-action, where action.yml sits beside dist/.`,
      { cause: error },
    );
  }
  const { parse } = await import('yaml');
  const table = ActionTable.safeParse(parse(text));
  if (!table.success)
    throw new Error(`${file} is not the action's action.yml: it lists no inputs.`);
  return table.data;
}

/** A flag that may stand alone for `true`: an input whose default is a boolean. */
export function isSwitch(input: ActionInput): boolean {
  return input.default === 'true' || input.default === 'false';
}
