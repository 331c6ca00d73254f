// A service that has not answered once in the run: a refused connection, an unknown host, a refused certificate, a
// scheme the port does not speak or a proxy that cannot reach it is base-url's or the network's fault far more often
// than an outage, so it costs at most 15 s, never the timeout. The scheme and proxy cases go over real loopback
// sockets: a TLS handshake with the simulator's plain-HTTP port, a TLS server, a proxy answering CONNECT.
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { type Exchange, httpTransport } from '../../src/service/transport.ts';
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

/** Listens on 127.0.0.1 until `close`: the URL's port. */
async function listening(server: {
  listen(port: number, host: string, done: () => void): unknown;
  address(): unknown;
}): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('a scheme the port does not speak, a proxy that cannot reach the service: 15 s, named', () => {
  it('https:// to a plain-HTTP port (EPROTO) fails within 15 s, naming the scheme', async () => {
    const baseUrl = world.sim.url.replace('http://', 'https://');

    const run = await runInProcess(world, { inputs: inputsFor(baseUrl) });

    expect(run.outputs.result).toBe('failed');
    expect(run.ms).toBeLessThanOrEqual(15_000);
    expect(world.sim.requests).toEqual([]);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatch(
      new RegExp(
        `^Cannot reach the service at 127\\.0\\.0\\.1 port \\d+ \\(base-url ${baseUrl}\\): network error EPROTO, the TLS handshake failed: base-url starts with https://, but the server at that port does not speak TLS \\(a plain-HTTP port\\?\\) \\(\\d+ attempts over \\d+\\.\\d s, no answer yet in this run\\)\\. Check base-url's scheme and port`,
      ),
    );
  });

  it('http:// to a TLS port (closed without an answer) fails within 15 s, naming the scheme', async () => {
    const tls = createTlsServer({
      pskCallback: () => Buffer.alloc(16, 7),
      ciphers: 'PSK-AES128-GCM-SHA256',
      maxVersion: 'TLSv1.2',
    });
    const port = await listening(tls);
    try {
      const run = await runInProcess(world, { inputs: inputsFor(`http://127.0.0.1:${port}`) });

      expect(run.outputs.result).toBe('failed');
      expect(run.ms).toBeLessThanOrEqual(15_000);
      expect(run.errors[0]).toContain(
        `Cannot reach the service at 127.0.0.1 port ${port} (base-url http://127.0.0.1:${port}): network error ECONNRESET, the server closed the connection without an answer in HTTP: base-url starts with http://, and a port that serves HTTPS does that to plain HTTP (`,
      );
      expect(run.errors[0]).toContain('if that port serves HTTPS, write https://');
    } finally {
      await new Promise((resolve) => tls.close(resolve));
    }
  });

  it('a proxy answering 502 to CONNECT fails within 15 s, naming the proxy', async () => {
    const proxy = createHttpServer();
    const connects: string[] = [];
    proxy.on('connect', (req, socket) => {
      connects.push(req.url ?? '');
      socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    });
    const port = await listening(proxy);
    // Node's HTTP through the proxy, counted on the world's wire so the fake clock waits for it.
    const proxied = httpTransport('agent-deploy-action/test');
    const through: World = {
      ...world,
      transport: {
        inFlight: 0,
        async send(exchange: Exchange) {
          world.transport.inFlight++;
          try {
            return await proxied.send(exchange);
          } finally {
            world.transport.inFlight--;
          }
        },
        dispose: () => proxied.dispose(),
      },
    };
    const saved = process.env.HTTPS_PROXY;
    process.env.HTTPS_PROXY = `http://127.0.0.1:${port}`;
    try {
      const run = await runInProcess(through, { inputs: inputsFor('https://deploy.example.test') });

      expect(run.outputs.result).toBe('failed');
      expect(run.ms).toBeLessThanOrEqual(15_000);
      expect(connects.length).toBeGreaterThan(1);
      expect(connects.every((to) => to === 'deploy.example.test:443')).toBe(true);
      expect(run.errors[0]).toMatch(
        new RegExp(
          `^Cannot reach the service at deploy\\.example\\.test port 443 \\(base-url https://deploy\\.example\\.test\\): the proxy 127\\.0\\.0\\.1:${port} \\(HTTPS_PROXY\\) could not reach the service \\(CONNECT answered 502\\) \\(\\d+ attempts over \\d+\\.\\d s, no answer yet in this run\\)\\. Check base-url's host and port, that the service runs, and that the proxy may reach it`,
        ),
      );
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved;
      proxied.dispose();
      await new Promise((resolve) => proxy.close(resolve));
    }
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
