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

describe('resource-spec is checked for meaning', () => {
  it('names every value that cannot be meant, with the numbers, and sends nothing', async () => {
    const spec = [
      'min_scale: 3',
      'max_scale: -2',
      'memory_mb: 0',
      'cpu: 2',
      'cpu_limit: 1',
      'queue_min_scale: 4',
      'queue_max_scale: 2',
      'db_memory_mb: 1024',
      'db_memory_limit_mb: 512',
      'db_storage_gi: -1',
    ].join('\n');
    await expect(parse({ 'resource-spec': spec })).rejects.toThrow(
      "Input 'resource-spec': inline has 7 mistakes: 'max_scale' must be zero or more, not -2; 'memory_mb' must be above zero, not 0; 'db_storage_gi' must be zero or more, not -1; 'min_scale' (3) is above 'max_scale' (-2); 'cpu' (2) is above its limit 'cpu_limit' (1); 'queue_min_scale' (4) is above 'queue_max_scale' (2); 'db_memory_mb' (1024) is above its limit 'db_memory_limit_mb' (512).",
    );
  });

  it.each([
    'cpu: 0',
    'orchestrator_cpu_limit: 0',
    'executor_memory_limit_mb: 0',
    'redis_cpu: -0.5',
  ])('memory and CPU are above zero: %s', async (spec) => {
    await expect(parse({ 'resource-spec': spec })).rejects.toThrow('must be above zero');
  });

  it('takes what can be meant: a scale of zero, equal bounds, a request at its limit, fractions of a CPU', async () => {
    const spec =
      '{min_scale: 0, max_scale: 0, cpu: 0.5, cpu_limit: 0.5, memory_mb: 512, memory_limit_mb: 1024, db_max_connections: 0}';
    await expect(parse({ 'resource-spec': spec })).resolves.toMatchObject({
      resourceSpec: { min_scale: 0, cpu: 0.5, memory_limit_mb: 1024 },
    });
  });
});

describe('every mistake at once', () => {
  const world = useWorld();

  it('all invalid inputs in one message, before any request', async () => {
    const run = await runInProcess(world, {
      inputs: codehostInputs(world.sim, 'my-agent', {
        timeout: '10ms',
        wait: 'yes',
        'tenant-id': 'acme',
        'resource-spec': 'max_scale: -1',
      }),
    });

    expect(run.errors).toEqual([
      `The inputs have 4 mistakes; nothing was sent. Input 'tenant-id': "acme" is not a uuid; use the form 123e4567-e89b-42d3-a456-426614174000. Input 'timeout': "10ms" is under one second (milliseconds): did you mean 10m (minutes) or 10s? Every duration is at least 1s; use seconds (900) or a duration such as 90s, 15m, 1h or 1h30m. Input 'wait': "yes" is not a boolean; use true or false. Input 'resource-spec': inline has a mistake: 'max_scale' must be zero or more, not -1. The fields are those of the service's ResourceSpec (see the self-hosted recipe in docs/recipes.md).`,
    ]);
    expect(run.report.failure?.phase).toBe('inputs');
    expect(world.sim.requests).toEqual([]);
  });

  it('all mistakes of all items of deployments in one message, each by item and key', async () => {
    const deployments = [
      '- name: agent-a',
      '  imag-uri: r.example/a:1', // not an item's key
      '  timeout: 5m', // the step's
      '- name: agent-b',
      '  build-on-push: maybe', // not a boolean
      '  integration-id: nope', // not a uuid
      '- name: agent-c',
      '  resource-spec: {min_scale: 2, max_scale: 1}',
      '- name: agent-a', // twice
    ].join('\n');
    const run = await runInProcess(world, {
      inputs: codehostInputs(world.sim, '', { deployments, 'poll-interval': 'soon' }),
    });

    expect(run.errors).toEqual([
      `The inputs have 7 mistakes; nothing was sent. Input 'poll-interval': "soon" is not a duration; use seconds (900) or a duration such as 90s, 15m, 1h or 1h30m. Input 'deployments': item 1 ('agent-a'): 'imag-uri' is not an input an item sets (did you mean 'image-uri'?). Input 'deployments': item 1 ('agent-a'): 'timeout' applies to every deployment of the list: set it on the step, not in an item. Input 'deployments': names 'agent-a' (items 1 and 4) more than once; list each deployment once (its outputs, summary and GitHub Deployment are keyed by name). Input 'integration-id' of deployments item 'agent-b': "nope" is not a uuid; use the form 123e4567-e89b-42d3-a456-426614174000. Input 'build-on-push' of deployments item 'agent-b': "maybe" is not a boolean; use true or false. Input 'resource-spec' of deployments item 'agent-c': inline has a mistake: 'min_scale' (2) is above 'max_scale' (1). The fields are those of the service's ResourceSpec (see the self-hosted recipe in docs/recipes.md).`,
    ]);
    expect(world.sim.requests).toEqual([]);
  });
});
