// The way to the service, through the bundled action as the runner runs it: what only a real process shows (the
// proxy variables it is started with, an IPv6 literal in base-url).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { API_KEY, codehostInputs } from '../../helpers/setup.ts';
import { Simulator } from '../../simulator/server.ts';

/** A deploy of my-agent to a service at `base-url` (nothing listens there: these runs end before any answer). */
const deployTo = (baseUrl: string) => ({
  ...codehostInputs({ url: baseUrl } as Simulator, 'my-agent'),
  timeout: '10s',
});

it('reaches a service at an IPv6 literal, http://[::1]:PORT', async () => {
  const sim6 = await Simulator.start({ apiKey: API_KEY, host: '::1' });
  try {
    const dep = sim6.addDeployment({ name: 'my-agent' });
    expect(sim6.url).toMatch(/^http:\/\/\[::1\]:\d+$/);

    const run = await runAction({ inputs: codehostInputs(sim6, 'my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'deployment-id': dep.id });
    expect(sim6.requestsTo('PATCH')).toHaveLength(1);
    expect(sim6.revisions(dep.id)).toHaveLength(2);
  } finally {
    await sim6.close();
  }
});

/** A proxy that answers every CONNECT with 407; `connects` counts them. */
const authProxy = async () => {
  const connects: string[] = [];
  const server = createServer();
  server.on('connect', (req, socket) => {
    connects.push(req.url ?? '');
    socket.end(
      'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

it("names a proxy's 407 as the proxy's, once, and writes nothing", async () => {
  const proxy = await authProxy();
  try {
    const run = await runAction({
      inputs: deployTo('https://deploy.example.test'),
      env: { HTTPS_PROXY: proxy.url },
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(proxy.connects).toEqual(['deploy.example.test:443']);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(
      `the proxy ${proxy.url.slice('http://'.length)} (HTTPS_PROXY) answered 407 Proxy Authentication Required`,
    );
    expect(run.errors[0]).toContain('never reached the service');
    expect(run.stdout).not.toContain('ECONNRESET');
  } finally {
    await proxy.close();
  }
});

it('names a proxy that is not there as the proxy, and does not retry it as a reset', async () => {
  const proxy = await authProxy();
  await proxy.close();

  const run = await runAction({
    inputs: deployTo('https://deploy.example.test'),
    env: { HTTPS_PROXY: proxy.url },
  });

  expect(run.code).toBe(1);
  expect(run.outputs.result).toBe('failed');
  expect(run.errors).toHaveLength(1);
  expect(run.errors[0]).toContain(
    `the proxy ${proxy.url.slice('http://'.length)} (HTTPS_PROXY) could not be reached`,
  );
  expect(run.errors[0]).toContain('ECONNREFUSED');
  expect(run.stdout).not.toContain('retrying until');
});
