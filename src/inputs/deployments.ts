// The deployments input: several deployments in one step. A list (YAML or JSON, inline or @path to a file of the
// workspace) of items, each a name and the inputs it sets for itself. An item's inputs are the step's with its own
// values over them, read and checked by the very code that reads the step's: a value means in an item what the input
// of that name means on the step, and a mistake in it is named as the same input's, of that item.
import type { HostContext } from '../core/host.ts';
import { nearestHint } from '../shared/nearest.ts';
import { InputError, type Mistake } from '../core/errors.ts';
import { Mistakes } from './mistakes.ts';
import { type Inputs, type ReadInput, readInputs } from './index.ts';
import { kindOf } from './resource-spec.ts';
import { readDocument, type Workspace } from './workspace-file.ts';

/** The inputs an item may set for itself, besides its name (the contract's list; `from` with command promote). */
export const ITEM_INPUTS = [
  'repo-ref',
  'image-uri',
  'graph-config-path',
  'source-tarball-path',
  'source',
  'revision-source',
  'integration-id',
  'integration-kind',
  'repo-url',
  'deployment-type',
  'build-on-push',
  'custom-url',
  'install-command',
  'build-command',
  'listener',
  'k8s-namespace',
  'resource-spec',
  'verify-url',
  'paths',
  'from',
] as const;

/** The inputs that apply to every item of the list: set on the step, never in an item. */
export const STEP_INPUTS = [
  'command',
  'base-url',
  'api-key',
  'tenant-id',
  'create',
  'secrets',
  'secret-references',
  'wait',
  'timeout',
  'poll-interval',
  'stuck-after',
  'allow-skipped',
  'rollback-on-failure',
  'revision-id',
  'from-revision-id',
  'token-id',
  'provider-account-label',
  'is-default',
  'dry-run',
  'skip-unchanged',
  'github-token',
  'environment',
  'pr-comment',
  'verify-timeout',
  'preview',
  'preview-name',
  'deployments',
  'max-parallel',
  'fail-fast',
] as const;

/** The commands that take a list. */
const SET_COMMANDS = ['deploy', 'promote', 'status', 'drift'];
/** One summary, one comment and one output hold them all: a longer list is a list gone wrong. */
const MAX_ITEMS = 100;

const INPUT = 'deployments';
const FORM =
  'give a list of deployments, each a mapping with its name and the inputs it sets, e.g. [{"name": "agent-a"}, {"name": "agent-b", "graph-config-path": "b/graph.json"}] (see "Several deployments in one step" in docs/reference.md)';

/** One item of the list: its name, and the inputs it sets, as the text an input is given as. */
interface Item {
  name: string;
  values: Record<string, string>;
}

/**
 * With `deployments`: each item's name and inputs (the step's, with the item's over them), in the list's order;
 * undefined without it. Every mistake of the list and of each item's own values goes to `mistakes`, named by item
 * and key (the step's own are the step's, named once), and the caller throws them all before anything is sent.
 */
export async function itemInputs(
  read: ReadInput,
  inputs: Inputs,
  context: HostContext,
  commands: readonly [string, ...string[]],
  mistakes: Mistakes,
): Promise<{ name: string; inputs: Inputs }[] | undefined> {
  if (inputs.deployments === undefined) return undefined;
  if (!SET_COMMANDS.includes(inputs.command)) {
    // A command that takes no list has no items to read.
    mistakes.add(
      new InputError(
        INPUT,
        `applies to commands ${SET_COMMANDS.join(', ')}, not '${inputs.command}'; run ${inputs.command} once per deployment, or drop deployments.`,
      ),
    );
    return [];
  }
  mistakes.check(() => checkStep(inputs));
  const items = await readItems(inputs.deployments, context, inputs.command, mistakes);
  const overlay =
    (item: Item): ReadInput =>
    (name) => {
      if (name === 'name') return item.name;
      if (name === 'deployment-id' || name === INPUT) return '';
      return Object.hasOwn(item.values, name) ? item.values[name]! : read(name);
    };
  const all: { name: string; inputs: Inputs }[] = [];
  for (const item of items) {
    const own = new Mistakes();
    all.push({ name: item.name, inputs: await readInputs(overlay(item), context, commands, own) });
    own.moveTo(
      mistakes,
      `${INPUT} item '${item.name}'`,
      ({ input }) => input === 'name' || Object.hasOwn(item.values, input),
    );
  }
  return all;
}

/** An item's input error names the item: "Input 'image-uri' of deployments item 'agent-b' …". */
export function ofItem(error: unknown, name: string): unknown {
  return error instanceof InputError
    ? new InputError(
        error.mistakes.map((mistake) => ({ ...mistake, where: `${INPUT} item '${name}'` })),
        error.lead,
      )
    : error;
}

/** The step's inputs that do not go with a list: every one named. */
function checkStep({ name, deploymentId, fromRevisionId, common }: Inputs): void {
  const mistakes: Mistake[] = [];
  if (name !== undefined)
    mistakes.push({
      input: 'name',
      problem:
        'cannot be used with deployments: each item of the list names its deployment; drop name, or give it as an item.',
    });
  if (deploymentId !== undefined)
    mistakes.push({
      input: 'deployment-id',
      problem:
        'cannot be used with deployments: the items are found by their names; drop deployment-id.',
    });
  if (fromRevisionId !== undefined)
    mistakes.push({
      input: 'from-revision-id',
      problem:
        'cannot be used with deployments: a revision belongs to one source deployment; promote it in a step of its own (name, from and from-revision-id).',
    });
  if (common.preview)
    mistakes.push({
      input: 'preview',
      problem:
        "cannot be used with deployments: a preview is one pull request's deployment; run the previews in a step of their own.",
    });
  if (mistakes.length > 0) throw new InputError(mistakes);
}

/**
 * The list's items, each checked for its form (the values are checked as inputs later); names unique. Every
 * mistake goes to `mistakes`, each by item and key; the items answered are those with a name, with the values
 * that could be read, so that theirs are checked in the same run.
 */
export async function readItems(
  raw: string,
  workspace: Workspace,
  command: string,
  mistakes: Mistakes,
): Promise<Item[]> {
  const read = await mistakes.settle(() =>
    readDocument(INPUT, raw, workspace, {
      what: 'a deployments list',
      inline: 'the list',
      form: FORM,
    }),
  );
  if (!read) return [];
  const { doc, where } = read;
  const refuse = (problem: string): Item[] => {
    mistakes.add(new InputError(INPUT, problem));
    return [];
  };
  if (!Array.isArray(doc)) return refuse(`${where} is ${kindOf(doc)}, not a list; ${FORM}.`);
  if (doc.length === 0)
    return refuse(
      `${where} is an empty list; give at least one deployment (- name: my-agent), or drop deployments.`,
    );
  if (doc.length > MAX_ITEMS)
    return refuse(
      `${where} has ${doc.length} items, more than the ${MAX_ITEMS} one step deploys; split it over several steps or jobs.`,
    );
  const items = doc.flatMap((entry, i) => {
    const { item, problems } = readItem(entry, i + 1, command);
    for (const problem of problems) mistakes.add(new InputError(INPUT, problem));
    return item ? [{ ...item, n: i + 1 }] : [];
  });
  const first = new Map<string, number>();
  const twice: string[] = [];
  for (const { name, n } of items) {
    const seen = first.get(name);
    if (seen === undefined) first.set(name, n);
    else twice.push(`'${name}' (items ${seen} and ${n})`);
  }
  if (twice.length)
    refuse(
      `names ${twice.join(', ')} more than once; list each deployment once (its outputs, summary and GitHub Deployment are keyed by name).`,
    );
  return items.map(({ name, values }) => ({ name, values }));
}

/** An item, when it has a name, with the values that could be read; and a problem for each key that could not. */
function readItem(entry: unknown, n: number, command: string): { item?: Item; problems: string[] } {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    return {
      problems: [
        `item ${n} is ${kindOf(entry)}, not a mapping; give each item its name and the inputs it sets (- name: my-agent).`,
      ],
    };
  const fields = entry as Record<string, unknown>;
  const { name } = fields;
  if (typeof name !== 'string' || name.trim() === '')
    return {
      problems: [
        name === undefined || name === null || name === ''
          ? `item ${n} has no name; give each item the name of its deployment (name: my-agent).`
          : `item ${n}'s name is ${kindOf(name)}; give the deployment's name as text (name: "my-agent").`,
      ],
    };
  const values: Record<string, string> = {};
  const problems: string[] = [];
  const problem = (text: string) => problems.push(`item ${n} ('${name.trim()}'): ${text}.`);
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'name') continue;
    if (!(ITEM_INPUTS as readonly string[]).includes(key)) {
      problem(unknownKey(key));
      continue;
    }
    if (key === 'from' && command !== 'promote') {
      problem(`'from' applies to command promote, not '${command}'`);
      continue;
    }
    const text = valueText(key, value);
    if (text.problem === undefined) values[key] = text.value;
    else problem(text.problem);
  }
  return { item: { name: name.trim(), values }, problems };
}

/** An item's value as the text its input is given as; resource-spec is a mapping, the others are scalars. */
function valueText(
  key: string,
  value: unknown,
): { value: string; problem?: undefined } | { value?: undefined; problem: string } {
  if (value === null || value === undefined)
    return {
      problem: `'${key}' has no value; give one, or drop the key (the step's value applies then)`,
    };
  if (key === 'resource-spec') {
    if (typeof value === 'object' && !Array.isArray(value)) return { value: JSON.stringify(value) };
    return {
      problem: `'resource-spec' must be a mapping of ResourceSpec fields, not ${kindOf(value)}`,
    };
  }
  // A list of globs is the input's lines.
  if (key === 'paths' && Array.isArray(value)) {
    if (value.every((glob) => typeof glob === 'string')) return { value: value.join('\n') };
    return { problem: "'paths' must be a list of globs (text), or one text" };
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return { value: String(value) };
  return { problem: `'${key}' must be text, not ${kindOf(value)}` };
}

/** Why a key is not an item's: an input every item shares, or a typo (with the key nearest to it). */
function unknownKey(key: string): string {
  if (key === 'deployment-id')
    return "'deployment-id' cannot be set in an item: the items are found by their names";
  if ((STEP_INPUTS as readonly string[]).includes(key))
    return `'${key}' applies to every deployment of the list: set it on the step, not in an item`;
  return `'${key}' is not an input an item sets${nearestHint(key, ['name', ...ITEM_INPUTS])}`;
}
