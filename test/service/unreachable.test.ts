// A service that has not answered once in the run: a refused connection, an unknown host or a refused certificate is
// base-url's or the network's fault far more often than an outage, so it costs at most 15 s, never the timeout.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/service/transport.ts';
import { runInProcess, useWorld, type World } from '../helpers/run.ts';
import { codehostInputs } from '../helpers/setup.ts';

const world = useWorld();

/** A port nothing listens on: one the system gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The deploy inputs with the default timeout (30m): only base-url differs from a usual run. */
function inputsFor(baseUrl: string): Record<string, string> {
  const inputs = codehostInputs(world.sim, 'my-agent', { 'base-url': baseUrl });
  delete inputs.timeout;
  return inputs;
}

/** The world's wire, but requests for which `fail` answers a code are refused with that error instead. */
function failingWith(fail: (exchange: Exchange) => string | undefined): World {
  const transport = {
    inFlight: 0,
    send(exchange: Exchange) {
      const code = fail(exchange);
      if (code === undefined) return world.transport.send(exchange);
      return Promise.reject(Object.assign(new Error(`${code} (simulated)`), { code }));
    },
    dispose: () => undefined,
  };
  return { ...world, transport };
}

describe('before the first answer', () => {
  it('a closed port fails within 15 s with the default 30m timeout, naming host, port, base-url and what to check', async () => {
    const port = await closedPort();
    const baseUrl = `http://127.0.0.1:${port}`;

    const run = await runInProcess(world, { inputs: inputsFor(baseUrl) });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.ms).toBeLessThanOrEqual(15_000);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatch(
      new RegExp(
        `^Cannot reach the service at 127\\.0\\.0\\.1 port ${port} \\(base-url ${baseUrl}\\): network error ECONNREFUSED, the connection was refused: nothing listens there \\(\\d+ attempts over \\d+\\.\\d s, no answer yet in this run\\)\\. Check base-url's port and host, that the service runs, and that the runner's network reaches it`,
      ),
    );
    expect(run.errors[0]).toContain('the proxy: HTTPS_PROXY, NO_PROXY');
    expect(run.stdout).toMatch(
      /retrying until \d\d:\d\d:\d\d UTC \(15s: no answer yet in this run\)/,
    );
    expect(run.summary).toContain('Cannot reach the service at 127.0.0.1');
  });

  it('an unknown host fails at once, naming it', async () => {
    const run = await runInProcess(
      failingWith(() => 'ENOTFOUND'),
      { inputs: inputsFor('https://deploy.exmaple.com') },
    );

    expect(run.ms).toBe(0);
    expect(run.errors[0]).toBe(
      "Cannot reach the service at deploy.exmaple.com port 443 (base-url https://deploy.exmaple.com): network error ENOTFOUND, the host name does not resolve (no answer yet in this run). Check base-url's host name, the runner's DNS, and the proxy (HTTPS_PROXY, NO_PROXY).",
    );
  });

  it('a certificate the runner refuses is retried up to 15 s, then named with NODE_EXTRA_CA_CERTS', async () => {
    let attempts = 0;
    const run = await runInProcess(
      failingWith(() => (attempts++, 'SELF_SIGNED_CERT_IN_CHAIN')),
      { inputs: inputsFor('https://deploy.example.com:8443') },
    );

    expect(run.ms).toBeLessThanOrEqual(15_000);
    expect(attempts).toBeGreaterThan(1);
    expect(run.errors[0]).toContain(
      'Cannot reach the service at deploy.example.com port 8443 (base-url https://deploy.example.com:8443): network error SELF_SIGNED_CERT_IN_CHAIN, its TLS certificate was not accepted (',
    );
    expect(run.errors[0]).toContain('NODE_EXTRA_CA_CERTS');
  });
});

describe('once the service has answered', () => {
  it('a refused connection is an outage like any other: retried past 15 s, and the deploy goes on', async () => {
    const { sim, clock } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING', ms: 5000 }, { status: 'DEPLOYED' }]);
    let answered = 0;
    let refusedUntil = 0;
    const run = await runInProcess(
      failingWith((exchange) => {
        // After the lookup answered, status reads are refused for 40 s.
        if (exchange.url.includes('/revisions/') && refusedUntil === 0)
          refusedUntil = clock.now() + 40_000;
        if (clock.now() < refusedUntil) return 'ECONNREFUSED';
        answered++;
        return undefined;
      }),
      { inputs: codehostInputs(sim, 'my-agent', { timeout: '5m' }) },
    );

    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    expect(answered).toBeGreaterThan(2);
    expect(run.ms).toBeGreaterThan(40_000);
  });
});
