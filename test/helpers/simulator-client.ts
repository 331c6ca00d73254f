// What the simulator's own tests send it as a client would: a create body, and a poll until it shows a state.
import { INTEGRATION } from './setup.ts';

/** A valid create of a codehost deployment named `name`, with one secret. */
export function codehostCreate(name: string) {
  return {
    name,
    source: 'codehost',
    source_config: { integration_id: INTEGRATION, repo_url: 'https://codehost.example/acme/agent' },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
    secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-secret' }],
  };
}

/**
 * Calls `fn` every 10 ms until it answers something. The simulator's timeline runs on this machine's clock, which
 * load slows: only the test's hang guard bounds the wait.
 */
export async function waitFor<T>(fn: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
}
