// The deployments input (issue 22): a list of items, each a unique name and the inputs it sets, read before any
// request. Its form is tested on readItems; what an item's value means, and that a mistake stops the step before
// anything is sent, through whole runs in-process.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { gitHubWords } from '../../src/hosts/github/words.ts';
import { ITEM_INPUTS, readItems, STEP_INPUTS } from '../../src/inputs/deployments.ts';
import { Mistakes } from '../../src/inputs/mistakes.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { baseInputs, INTEGRATION } from '../helpers/setup.ts';

const world = useWorld();

const items = async (text: string, command = 'deploy') => {
  const mistakes = new Mistakes();
  const read = await readItems(
    text,
    { workspace: '/nonexistent', words: gitHubWords },
    command,
    mistakes,
  );
  mistakes.throwIfAny();
  return read;
};
const refused = async (text: string, command = 'deploy') => {
  try {
    await items(text, command);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`readItems took ${text}`);
};

describe('the form of the list', () => {
  it('reads YAML and JSON alike: each item its name and its values as an input takes them', async () => {
    const yaml = await items(`
- name: agent-a
- name: agent-b
  graph-config-path: b/graph.json
  build-on-push: false
  resource-spec:
    min_scale: 1
`);
    const json = await items(
      JSON.stringify([
        { name: 'agent-a' },
        {
          name: 'agent-b',
          'graph-config-path': 'b/graph.json',
          'build-on-push': false,
          'resource-spec': { min_scale: 1 },
        },
      ]),
    );
    const expected = [
      { name: 'agent-a', values: {} },
      {
        name: 'agent-b',
        values: {
          'graph-config-path': 'b/graph.json',
          'build-on-push': 'false',
          'resource-spec': '{"min_scale":1}',
        },
      },
    ];
    expect(yaml).toEqual(expected);
    expect(json).toEqual(expected);
  });

  it.each([
    ['[]', "Input 'deployments': the list is an empty list; give at least one deployment"],
    ['name: agent-a', "Input 'deployments': the list is a mapping, not a list; give a list"],
    ['[{name: a}', "Input 'deployments': the list is not valid YAML or JSON (line 1)"],
    ['[agent-a]', "Input 'deployments': item 1 is text, not a mapping; give each item its name"],
    ['[{graph-config-path: g.json}]', "Input 'deployments': item 1 has no name;"],
    ['[{name: [a]}]', "Input 'deployments': item 1's name is a list;"],
    [
      '[{name: a}, {name: b}, {name: a}, {name: b}]',
      "Input 'deployments': names 'a' (items 1 and 3), 'b' (items 2 and 4) more than once; list each deployment once",
    ],
    [
      '[{name: a, grap-config-path: g.json}]',
      "Input 'deployments': item 1 ('a'): 'grap-config-path' is not an input an item sets (did you mean 'graph-config-path'?).",
    ],
    [
      '[{name: a, colour: blue}]',
      "Input 'deployments': item 1 ('a'): 'colour' is not an input an item sets (the nearest is 'source').",
    ],
    [
      '[{name: a, timeout: 5m, secrets: "A=b"}]',
      "Input 'deployments': item 1 ('a'): 'timeout' applies to every deployment of the list: set it on the step, not in an item. Input 'deployments': item 1 ('a'): 'secrets' applies to every deployment",
    ],
    [
      '[{name: a, deployment-id: 22222222-2222-4222-8222-222222222222}]',
      "'deployment-id' cannot be set in an item: the items are found by their names",
    ],
    ['[{name: a, repo-ref: }]', "item 1 ('a'): 'repo-ref' has no value; give one, or drop the key"],
    ['[{name: a, repo-ref: [main]}]', "item 1 ('a'): 'repo-ref' must be text, not a list."],
    [
      '[{name: a, resource-spec: "min_scale: 1"}]',
      "item 1 ('a'): 'resource-spec' must be a mapping of ResourceSpec fields, not text.",
    ],
    [
      '[{name: a, from: staging}]',
      "item 1 ('a'): 'from' applies to command promote, not 'deploy'.",
    ],
  ])('refuses %s', async (text, message) => {
    expect(await refused(text)).toContain(message);
  });

  it('refuses more than 100 items', async () => {
    const list = JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ name: `a-${i}` })));
    expect(await refused(list)).toContain(
      'has 101 items, more than the 100 one step deploys; split it over several steps or jobs.',
    );
  });

  it('takes from with command promote', async () => {
    expect(await items('[{name: prod, from: staging}]', 'promote')).toEqual([
      { name: 'prod', values: { from: 'staging' } },
    ]);
  });

  it("knows every input of action.yml: an item's own, or the step's", () => {
    const action = parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as {
      inputs: Record<string, unknown>;
    };
    expect(['name', 'deployment-id', ...ITEM_INPUTS, ...STEP_INPUTS].sort()).toEqual(
      Object.keys(action.inputs).sort(),
    );
  });
});

describe('a list that cannot be used fails the step before any request', () => {
  const list = '[{name: agent-a}, {name: agent-b}]';
  it.each([
    [{ name: 'agent-a', deployments: list }, "Input 'name' cannot be used with deployments"],
    [
      { 'deployment-id': '22222222-2222-4222-8222-222222222222', deployments: list },
      "Input 'deployment-id' cannot be used with deployments",
    ],
    [
      { command: 'redeploy', 'revision-id': INTEGRATION, deployments: list },
      "Input 'deployments' applies to commands deploy, promote, status, drift, not 'redeploy'",
    ],
    [
      { deployments: '[{name: agent-a}, {name: agent-b, integration-id: nope}]' },
      `Input 'integration-id' of deployments item 'agent-b': "nope" is not a uuid`,
    ],
    [
      { deployments: '[{name: agent-a, source: codehost, image-uri: "r.example/a:1"}]' },
      "Input 'image-uri' of deployments item 'agent-a' cannot be used with source 'codehost'",
    ],
    [
      { deployments: '[{name: agent-a, resource-spec: {min_scael: 1}}]' },
      "Input 'resource-spec' of deployments item 'agent-a': inline has a mistake: 'min_scael' is not a field (did you mean 'min_scale'?)",
    ],
    [
      { command: 'promote', deployments: '[{name: prod-a, from: staging-a}, {name: prod-b}]' },
      "Input 'from' of deployments item 'prod-b' is required for command 'promote'",
    ],
    [
      {
        command: 'promote',
        deployments: '[{name: prod-a, from: staging-a, repo-ref: main}]',
      },
      "Input 'repo-ref' of deployments item 'prod-a' cannot be used with command 'promote'",
    ],
    [{ deployments: '@agents.yaml' }, "Input 'deployments' cannot read agents.yaml: no such file"],
    [
      { deployments: list, 'max-parallel': '0' },
      `Input 'max-parallel': "0" is not a whole number from 1 to 16`,
    ],
  ])('%j', async (inputs, message) => {
    const run = await runInProcess(world, {
      inputs: baseInputs(world.sim, { 'integration-id': INTEGRATION, ...inputs }),
    });
    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(message);
    expect(run.outputs.result).toBe('failed');
    expect(run.report.failure?.phase).toBe('inputs');
    expect(world.sim.requests).toEqual([]);
  });
});
