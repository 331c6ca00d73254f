// The token-metadata command: one PATCH of a token's metadata, with exactly the fields the inputs give.
import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { baseInputs } from '../helpers/setup.ts';

const world = useWorld();
const tokenMetadata = (inputs: Record<string, string>) =>
  baseInputs(world.sim, { command: 'token-metadata', ...inputs });

describe('token-metadata', () => {
  it.each([
    [{ 'is-default': 'true' }, { is_default: true }],
    [{ 'provider-account-label': 'ci-bot' }, { provider_account_label: 'ci-bot' }],
  ])('sends exactly the fields given (%o)', async (inputs, body) => {
    const { sim } = world;
    const token = sim.addToken({ provider_account_label: 'old', is_default: false });

    const run = await runInProcess(world, {
      inputs: tokenMetadata({ 'token-id': token.id, ...inputs }),
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    const patches = sim.writes();
    expect(patches.map((r) => [r.method, r.path])).toEqual([
      ['PATCH', `/v2/auth/tokens/${token.id}/metadata`],
    ]);
    expect(patches[0]!.body).toEqual(body);
    expect(token).toMatchObject(body);
    expect(run.outputs.result).toBe('updated');
  });

  it("reports the service's refusal for a token of another owner", async () => {
    const { sim } = world;
    const token = sim.addToken({ ownedByCaller: false, provider_account_label: 'theirs' });

    const run = await runInProcess(world, {
      inputs: tokenMetadata({ 'token-id': token.id, 'provider-account-label': 'mine' }),
    });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('HTTP 403');
    expect(run.errors[0]).toContain('Only the token owner may update this token.');
    // The contract: result on every run, `failed` when no revision was reached.
    expect(run.outputs.result).toBe('failed');
    expect(token.provider_account_label).toBe('theirs');
  });

  it.each([
    ['a reset after it was applied', { reset: true, afterEffect: true }, 'ECONNRESET'],
    ['a 503 with Retry-After', { status: 503, headers: { 'retry-after': '1' } }, 'HTTP 503'],
  ])(
    'an update whose answer was lost (%s) is reported as possibly applied, never sent again',
    async (_, fault, said) => {
      const { sim } = world;
      const token = sim.addToken({ provider_account_label: 'old' });
      sim.fault({ method: 'PATCH', ...fault });

      const run = await runInProcess(world, {
        inputs: tokenMetadata({ 'token-id': token.id, 'provider-account-label': 'ci-bot' }),
      });

      expect(run.code).toBe(1);
      expect(run.outputs.result).toBe('failed');
      // Possibly applied, but a token update never makes a revision: surely none, so false, not unknown.
      expect(run.outputs['revision-created']).toBe('false');
      expect(sim.writes()).toHaveLength(1);
      expect(run.errors).toHaveLength(1);
      expect(run.errors[0]).toContain(said);
      expect(run.errors[0]).toContain(
        `The update may have been applied all the same, and a token update is never sent again on a guess: check token ${token.id}'s metadata on the service before running the job again.`,
      );
    },
  );
});
