import { afterAll, beforeAll, beforeEach } from 'vitest';
import { Simulator } from '../simulator/server.ts';

export const INTEGRATION = '11111111-1111-4111-8111-111111111111';
export const API_KEY = 'test-api-key';

/** One simulator per test file, emptied before each test. */
export function useSimulator(): { sim: Simulator } {
  const holder = {} as { sim: Simulator };
  beforeAll(async () => {
    holder.sim = await Simulator.start({ apiKey: API_KEY });
  });
  beforeEach(() => holder.sim.reset());
  afterAll(() => holder.sim.close());
  return holder;
}

/** The inputs every deploy needs, for the simulator in `sim`. */
export function baseInputs(
  sim: Simulator,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    'base-url': sim.url,
    'api-key': API_KEY,
    'poll-interval': '1s',
    timeout: '30s',
    ...extra,
  };
}

/** A codehost deploy of `name`: the inputs a create needs besides the simulator's. */
export function codehostInputs(
  sim: Simulator,
  name: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return baseInputs(sim, {
    name,
    'integration-id': INTEGRATION,
    'graph-config-path': 'graph.json',
    ...extra,
  });
}

export const IMAGE = 'registry.example/edge-agent:v2';

/** An external_docker deploy of `name` from IMAGE. */
export function dockerInputs(
  sim: Simulator,
  name: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return baseInputs(sim, { name, 'image-uri': IMAGE, ...extra });
}

/** What the plan shows for a codehost create from codehostInputs of a deployment not there yet, building `commit`. */
export function plannedCreate(commit: string) {
  return {
    deployment: { live: null, wanted: 'created' },
    repo_ref: { live: null, wanted: 'main' },
    commit: { live: null, wanted: commit },
    graph_config_path: { live: null, wanted: 'graph.json' },
    'source_config.integration_id': { live: null, wanted: INTEGRATION },
    'source_config.repo_url': { live: null, wanted: 'https://codehost.example/acme/agent' },
  };
}
