// A stand-in for a deployed agent: answers each GET from a script of statuses, recording every request.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

interface AgentAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export class FakeAgent {
  readonly url: string;
  readonly requests: { path: string; headers: IncomingHttpHeaders; at: number }[] = [];
  /** Answers in order; the last one repeats. */
  script: AgentAnswer[] = [{ status: 200, body: 'ok' }];
  /** Where `requests[].at` is read: this machine's clock, unless a test gives its fake one's wall time. */
  now: () => number = () => Date.now();
  private readonly server: Server;

  private constructor(server: Server, url: string) {
    this.server = server;
    this.url = url;
    server.on('request', (req, res) => {
      this.requests.push({ path: req.url ?? '/', headers: req.headers, at: this.now() });
      const answer = this.script[Math.min(this.requests.length - 1, this.script.length - 1)]!;
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body ?? '');
    });
  }

  static async start(): Promise<FakeAgent> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new FakeAgent(server, `http://127.0.0.1:${port}`);
  }

  reset(): void {
    this.requests.length = 0;
    this.script = [{ status: 200, body: 'ok' }];
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** One fake agent per test file, reset before each test; `now` times its requests (e.g. a FakeClock's wall). */
export function useAgent(now?: () => number): { agent: FakeAgent } {
  const holder = {} as { agent: FakeAgent };
  beforeAll(async () => {
    holder.agent = await FakeAgent.start();
    if (now) holder.agent.now = now;
  });
  beforeEach(() => holder.agent.reset());
  afterAll(() => holder.agent.close());
  return holder;
}
