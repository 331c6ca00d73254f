// Input mistakes a first afternoon makes, named before any request: a duration under a second (with what it most
// likely meant), and every mistake of a resource-spec at once, each by its key, with the key it was meant to be.
import { describe, expect, it } from 'vitest';
import { settingsOf } from '../helpers/core.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs } from '../helpers/setup.ts';

const BASE = { 'base-url': 'https://api.example.com', 'api-key': 'key', name: 'my-agent' };
const parse = (inputs: Record<string, string>) => settingsOf({ ...BASE, ...inputs });

describe('durations under one second are refused, for every duration input', () => {
  it.each(['timeout', 'poll-interval', 'verify-timeout'])(
    '%s: 10ms is named as 10m or 10s',
    async (input) => {
      await expect(parse({ [input]: '10ms' })).rejects.toThrow(
        `Input '${input}': "10ms" is under one second (milliseconds): did you mean 10m (minutes) or 10s? Every duration is at least 1s; use seconds (900) or a duration such as 90s, 15m, 1h or 1h30m.`,
      );
    },
  );

  it.each(['0', '0s', '0.5s', '999ms'])('timeout %s is refused', async (timeout) => {
    await expect(parse({ timeout })).rejects.toThrow(/^Input 'timeout': ".*" is under one second/);
  });

  it('verify-timeout is checked without verify-url, and one second is enough everywhere', async () => {
    await expect(parse({ 'verify-timeout': '1ms' })).rejects.toThrow("Input 'verify-timeout'");
    await expect(
      parse({
        timeout: '1s',
        'poll-interval': '1000ms',
        'verify-timeout': '1s',
        'verify-url': '/ok',
      }),
    ).resolves.toMatchObject({
      timeoutMs: 1000,
      pollIntervalMs: 1000,
      verify: { timeoutMs: 1000 },
    });
  });
});

describe('resource-spec', () => {
  const world = useWorld();

  it('one run names three mistakes at once, each by its key, in our words; nothing is sent', async () => {
    const spec = [
      'min_scale: two', // a number expected
      'memroy_mb: 512', // misspelt
      'init_containers:',
      '  - name: migrate',
      '    imag: registry.example/migrate:1', // misspelt (so image is missing too)
    ].join('\n');

    const run = await runInProcess(world, {
      inputs: codehostInputs(world.sim, 'my-agent', { 'resource-spec': spec }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(world.sim.requests).toEqual([]);
    expect(run.errors).toEqual([
      "Input 'resource-spec': inline has 4 mistakes: 'min_scale' must be a whole number, not text; 'init_containers[0].image' is missing (it needs text); 'init_containers[0].imag' is not a field (did you mean 'init_containers[0].image'?); 'memroy_mb' is not a field (did you mean 'memory_mb'?). The fields are those of the service's ResourceSpec (see the self-hosted recipe in docs/recipes.md).",
    ]);
    expect(run.summary).toContain('Failed in: inputs');
  });

  it('names the nearest key even when it is far, as the nearest rather than as meant', async () => {
    await expect(parse({ 'resource-spec': 'replicas: 3' })).rejects.toThrow(
      /^Input 'resource-spec': inline has a mistake: 'replicas' is not a field \(the nearest is '.*'\)\./,
    );
  });

  it('says what kind of value a key holds, never the value itself', async () => {
    const error = await parse({
      'resource-spec': '{"cpu": "lots-of-secret-cpu", "max_scale": 1.5, "labels": {"team": 7}}',
    }).catch((e: unknown) => (e as Error).message);
    expect(error).toContain("'cpu' must be a number (e.g. 0.5), not text");
    expect(error).toContain("'max_scale' must be a whole number, not a fraction");
    expect(error).toContain("'labels.team' must be text, not a whole number");
    expect(error).not.toContain('lots-of-secret-cpu');
  });
});
