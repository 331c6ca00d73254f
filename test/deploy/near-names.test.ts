// The near-name guard: a name one typo away from an existing deployment's is not created with create: true (a
// second server, billed, and the real agent never updated); siblings are. The runs are in-process on a fake clock.
import { describe, expect, it } from 'vitest';
import { PAGES_PER_TERM, searchTerms, typoOf } from '../../src/deploy/near-names.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { baseInputs, codehostInputs, INTEGRATION } from '../helpers/setup.ts';

/** [the name given, the deployment that exists, the typo] */
const TYPOS: [string, string, string][] = [
  ['suport-agent', 'support-agent', 'a dropped letter'],
  ['support-agen', 'support-agent', 'a dropped letter'],
  ['supportt-agent', 'support-agent', 'a doubled letter'],
  ['ssupport-agent', 'support-agent', 'a doubled letter'],
  ['support-agnet', 'support-agent', 'two letters swapped'],
  ['suppotr-agent', 'support-agent', 'two letters swapped'],
  ['Support-Agent', 'support-agent', 'another case'],
  ['support_agent', 'support-agent', '_ for -'],
  ['support-agent', 'support_agent', '_ for -'],
  ['supportagent', 'support-agent', 'a dropped letter'],
];

/** [the name given, the deployment that exists]: siblings, created beside it. */
const SIBLINGS: [string, string][] = [
  ['agent-c', 'agent-a'],
  ['agent-v3', 'agent-v2'],
  ['pr-8', 'pr-7'],
  ['support-agent-staging', 'support-agent'],
  ['agent-v11', 'agent-v1'],
  ['pr-1', 'pr-12'],
  ['agent-b', 'agent-ab'],
];

describe('typoOf', () => {
  it.each(TYPOS)('%s beside %s: %s', (name, existing, typo) => {
    expect(typoOf(name, existing)).toBe(typo);
  });

  it.each(SIBLINGS)('%s beside %s: a sibling', (name, existing) => {
    expect(typoOf(name, existing)).toBeUndefined();
    expect(typoOf(existing, name)).toBeUndefined();
  });

  it('is not a typo of itself, nor of a name two edits away', () => {
    expect(typoOf('support-agent', 'support-agent')).toBeUndefined();
    expect(typoOf('suport-agnet', 'support-agent')).toBeUndefined();
  });
});

describe('searchTerms', () => {
  it('splits the name where both parts are longest, in lower case, longest first', () => {
    expect(searchTerms('Support_Agent')).toEqual(['support', 'agent']);
    // The parts as typed, and with their separators spelled the other way.
    expect(searchTerms('checkout-assistant-prod')).toEqual([
      'checkout-as',
      'checkout_as',
      'istant-prod',
      'istant_prod',
    ]);
    expect(searchTerms('ab')).toEqual([]);
  });

  it('finds every name one typo away: one term is whole in it, whichever letter the typo is at', () => {
    const existing = [
      'support-agent',
      'support_agent',
      'a-b-c-agent',
      'a_b_c_d_e',
      'agent2-x',
      'billing',
    ];
    let checked = 0;
    for (const name of existing) {
      for (const typo of typosOf(name)) {
        if (!typoOf(typo, name)) continue;
        checked++;
        const terms = searchTerms(typo);
        expect(
          terms.some((term) => name.toLowerCase().includes(term)),
          `${typo} → ${name}`,
        ).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});

/** Every name one letter dropped, doubled or swapped away from `name`, and it in upper case. */
function typosOf(name: string): string[] {
  const out = [name.toUpperCase()];
  for (let i = 0; i < name.length; i++) {
    out.push(name.slice(0, i) + name.slice(i + 1));
    out.push(name.slice(0, i) + name[i] + name.slice(i));
    if (i + 1 < name.length) out.push(name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2));
  }
  return out;
}

const world = useWorld();
const deployOf = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, name, extra);

/** A world with `existing` deployed and the repository the integration lists for a create. */
function seed(...existing: string[]) {
  world.sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
  return existing.map((name) => world.sim.addDeployment({ name }));
}

describe('create: true refuses a name one typo away', () => {
  it.each(TYPOS)(
    '%s beside %s: nothing written, the near name and both ways on',
    async (name, existing, typo) => {
      const [real] = seed(existing);

      const run = await runInProcess(world, { inputs: deployOf(name) });

      expect(run.code).toBe(1);
      expect(run.outputs).toMatchObject({ result: 'failed', created: 'false' });
      expect(world.sim.writes()).toEqual([]);
      expect(run.errors).toEqual([
        `Did you mean '${existing}'? No deployment is named '${name}', and '${existing}' (${real!.id}, ${typo}) is one typo away: nothing was created. For '${existing}', set name: ${existing}; to create '${name}' beside it, set create: always.`,
      ]);
      expect(run.summary).toContain('Did you mean');
    },
  );

  it.each(SIBLINGS)('%s beside %s: created', async (name, existing) => {
    seed(existing);

    const run = await runInProcess(world, { inputs: deployOf(name) });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', created: 'true' });
    expect(world.sim.deploymentsNamed(name)).toHaveLength(1);
    expect(run.summary).not.toContain('partial');
  });

  it('create: always creates it beside the near name, and searches nothing for it', async () => {
    seed('support-agent');

    const run = await runInProcess(world, {
      inputs: deployOf('support-agnet', { create: 'always' }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', created: 'true' });
    expect(world.sim.deploymentsNamed('support-agnet')).toHaveLength(1);
    // The lookup's only: name_contains of the name itself.
    const terms = world.sim.requestsTo('GET', '/v2/deployments').map((r) => r.query.name_contains);
    expect(terms.filter(Boolean)).toEqual(['support-agnet']);
  });

  it('a dry run refuses it too: the plan would have created the typo', async () => {
    seed('support-agent');

    const run = await runInProcess(world, {
      inputs: deployOf('support-agnet', { 'dry-run': 'true' }),
    });

    expect(run.outputs.result).toBe('failed');
    expect(run.errors[0]).toMatch(/^Did you mean 'support-agent'\?/);
    expect(world.sim.writes()).toEqual([]);
  });

  it('without integration-id the message leads with the near name, not with the missing input', async () => {
    seed('support-agent');

    const run = await runInProcess(world, {
      inputs: baseInputs(world.sim, { name: 'support-agnet', 'graph-config-path': 'graph.json' }),
    });

    expect(run.errors[0]).toMatch(
      /^Did you mean 'support-agent'\? No deployment is named 'support-agnet'/,
    );
    expect(run.errors[0]).toContain('set create: always and integration-id.');
    expect(world.sim.writes()).toEqual([]);
  });

  it('create: false leads with the near name too; a tenant is named where it looked', async () => {
    seed('support-agent');
    const tenant = '22222222-2222-4222-8222-222222222222';

    const run = await runInProcess(world, {
      inputs: deployOf('Support-Agent', { create: 'false', 'tenant-id': tenant }),
    });

    expect(run.errors[0]).toMatch(
      new RegExp(
        `^Did you mean 'support-agent'\\? No deployment is named 'Support-Agent' in tenant ${tenant}, and 'support-agent' \\(.*, another case\\) is one typo away: create is false\\.`,
      ),
    );
    expect(run.errors[0]).toContain("to create 'Support-Agent', set create: always.");
  });

  it('command status names the near name of a name it cannot find', async () => {
    seed('support-agent');

    const run = await runInProcess(world, {
      inputs: baseInputs(world.sim, { command: 'status', name: 'suport-agent' }),
    });

    expect(run.errors[0]).toMatch(/^Did you mean 'support-agent'\? .*a dropped letter/);
    expect(run.errors[0]).toContain('status reads an existing deployment');
  });
});

describe('the search is bounded', () => {
  it(`reads at most ${PAGES_PER_TERM} pages a term, and says so in the log and the summary when it was cut`, async () => {
    const { sim } = world;
    seed();
    // 700 names contain "agent" and none "support"; none is one typo away from support-agnet or support-agent.
    sim.addDeployments(700, (i) => `agent-${i}`);

    const run = await runInProcess(world, { inputs: deployOf('support-agnet') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', created: 'true' });
    // "support" and "agnet" match nothing: one empty page each.
    expect(searched()).toEqual(['support-agnet', 'support', 'agnet']);
    expect(run.summary).not.toContain('partial');

    sim.reset();
    seed();
    sim.addDeployments(700, (i) => `agent-${i}`);
    const cut = await runInProcess(world, { inputs: deployOf('support-agent') });

    expect(cut.outputs).toMatchObject({ result: 'deployed', created: 'true' });
    expect(searched()).toEqual([
      'support-agent',
      'support',
      ...Array<string>(PAGES_PER_TERM).fill('agent'),
    ]);
    const note = `The check for a deployment named one typo away from 'support-agent' was partial: more than ${PAGES_PER_TERM * 100} names contain 'agent', and only the first ${PAGES_PER_TERM * 100} were compared.`;
    expect(cut.summary).toContain(note);
    expect(cut.lines).toContainEqual({ level: 'notice', text: note });
  });

  describe('among 10,000 deployments (team-<n>-agent-<i>)', () => {
    it.each([
      // A new name: the lookup, then one empty page for each term (t-bot in both spellings).
      ['support-bot', 'deployed', ['support-bot', 'suppo', 't-bot', 't_bot']],
      // A typo of the 9,008th: the lookup, then the first term's 100 names (a page, and the empty one after it).
      ['team-7-agnet-9007', 'failed', ['team-7-agnet-9007', 'team-7-a', 'team-7-a']],
    ])('%s costs the lookup and a few requests before it is %s', async (name, result, terms) => {
      const { sim } = world;
      seed();
      sim.addDeployments(10_000, (i) => `team-${i % 100}-agent-${i}`);

      const run = await runInProcess(world, { inputs: deployOf(name) });

      expect(run.outputs.result).toBe(result);
      expect(searched()).toEqual(terms);
      if (result === 'failed') expect(run.errors[0]).toMatch(/^Did you mean 'team-7-agent-9007'\?/);
    });
  });
});

/** The name_contains of each listing request before the first write. */
function searched(): string[] {
  const { requests } = world.sim;
  const write = requests.findIndex((r) => r.method !== 'GET');
  return (write < 0 ? requests : requests.slice(0, write))
    .map((r) => r.query.name_contains)
    .filter((term): term is string => term !== undefined);
}
