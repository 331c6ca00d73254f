// A key with several tenants: a tenant it has no access to and a missing tenant-id are told apart, a deployment-id
// not found is named with the tenant the run looked in, and each tenant has deployments of its own (the simulator's
// second tenant, which `npm run simulator -- --tenant-id A --tenant-id B` starts).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { API_KEY, baseInputs, codehostInputs, INTEGRATION } from '../helpers/setup.ts';

const world = useWorld();
const A = '22222222-2222-4222-8222-222222222222';
const B = '33333333-3333-4333-8333-333333333333';
const OTHER = '44444444-4444-4444-8444-444444444444';

afterEach(() => {
  world.sim.tenantId = undefined;
});

describe('tenants', () => {
  it('a 403 for a tenant-id says the key has no access to that tenant; without tenant-id it says to set one', async () => {
    const { sim } = world;
    sim.tenantId = A;
    sim.addDeployment({ name: 'my-agent' });

    const wrong = await runInProcess(world, {
      inputs: codehostInputs(sim, 'my-agent', { 'tenant-id': OTHER }),
    });
    const missing = await runInProcess(world, { inputs: codehostInputs(sim, 'my-agent') });

    expect(wrong.errors[0]).toContain(
      `HTTP 403 X-Tenant-Id does not match a tenant this API key may access. The key has no access to tenant ${OTHER} (tenant-id)`,
    );
    expect(missing.errors[0]).toContain(
      'The key was refused, and no tenant-id was sent: if the key has access to several tenants, set tenant-id',
    );
    expect(sim.writes()).toEqual([]);
  });

  it('a deployment-id of another tenant is not found, naming the tenant the run looked in', async () => {
    const { sim } = world;
    sim.tenantId = A;
    sim.addTenant(B);
    const elsewhere = sim.addDeployment({ name: 'my-agent', tenantId: B });

    const run = await runInProcess(world, {
      inputs: baseInputs(sim, {
        'deployment-id': elsewhere.id,
        'tenant-id': A,
        'repo-ref': 'main',
      }),
    });

    expect(run.errors[0]).toBe(
      `deployment-id ${elsewhere.id} does not exist in tenant ${A} (tenant-id), where this run looked; check the id, and that tenant-id names the tenant that owns it (deployment-id never creates).`,
    );
    expect(sim.writes()).toEqual([]);
  });

  it('each tenant of the key has deployments of its own: a name in one is created in the other', async () => {
    const { sim } = world;
    sim.tenantId = A;
    sim.addTenant(B);
    sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
    const inA = sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, {
      inputs: codehostInputs(sim, 'my-agent', { 'tenant-id': B }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs.created).toBe('true');
    const [first, second] = sim.deploymentsNamed('my-agent');
    expect(first!.id).toBe(inA.id);
    expect(second!.tenant_id).toBe(B);
    expect(sim.requestsTo('PATCH')).toEqual([]);
  });
});

describe('npm run simulator -- --tenant-id A --tenant-id B', () => {
  it('serves both tenants, each its own deployments, and refuses any other with 403', async () => {
    const cli = spawn(
      process.execPath,
      [new URL('../simulator/cli.ts', import.meta.url).pathname, '--port', '0', '--quiet'].concat([
        '--tenant-id',
        A,
        '--tenant-id',
        B,
        '--api-key',
        API_KEY,
      ]),
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const banner: string[] = [];
      for await (const line of createInterface({ input: cli.stdout })) {
        banner.push(line);
        if (line.includes('rate limit:')) break;
      }
      const url = /^simulator listening on (\S+)$/.exec(banner[0] ?? '')?.[1];
      expect(banner).toContain(
        `  tenant-id:         ${A} (required; any other is refused with 403)`,
      );
      expect(banner).toContain(
        `  second tenant:     ${B} (the key's too; its deployments are its own)`,
      );
      const call = (tenant: string, init: RequestInit = {}) =>
        fetch(`${url}/v2/deployments`, {
          ...init,
          headers: {
            'x-api-key': API_KEY,
            'content-type': 'application/json',
            'x-tenant-id': tenant,
          },
        });
      expect((await call(OTHER)).status).toBe(403);
      const created = await call(B, {
        method: 'POST',
        body: JSON.stringify({
          name: 'in-b',
          source: 'external_docker',
          source_config: {},
          source_revision_config: { image_uri: 'registry.example/in-b:1' },
          secrets: [],
        }),
      });
      expect(created.status).toBe(201);
      const names = async (tenant: string) =>
        ((await (await call(tenant)).json()) as { resources: { name: string }[] }).resources.map(
          (d) => d.name,
        );
      expect(await names(B)).toEqual(['in-b']);
      expect(await names(A)).toEqual([]);
    } finally {
      cli.kill('SIGTERM');
      await once(cli, 'exit');
    }
  });
});
