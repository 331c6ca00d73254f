// The part every in-process fake shares: an HTTP server on 127.0.0.1, port 0, that records each request (body
// parsed as JSON) before the fake's handler answers, and closes with its open connections.
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { RecordedRequest } from '../simulator/server.ts';

export type Answer = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export class Loopback {
  readonly url: string;
  readonly requests: RecordedRequest[] = [];
  /** The fake's handler; until one is set, every request is recorded and answered 404. */
  answer: Answer = (_, res) => sendJson(res, 404, { message: 'Not Found' });
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  private constructor(server: Server, url: string) {
    this.server = server;
    this.url = url;
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('request', (req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', this.url);
        const request: RecordedRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers as Record<string, string | undefined>,
          body: raw ? (JSON.parse(raw) as unknown) : undefined,
          at: Date.now(),
        };
        this.requests.push(request);
        void this.answer(request, res);
      });
    });
  }

  static async start(): Promise<Loopback> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new Loopback(server, `http://127.0.0.1:${port}`);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** Base of the fakes: the address, the recorded requests and close, from the Loopback they answer on. */
export abstract class LoopbackFake {
  readonly url: string;
  readonly requests: RecordedRequest[];
  private readonly http: Loopback;

  protected constructor(http: Loopback) {
    this.http = http;
    this.url = http.url;
    this.requests = http.requests;
    http.answer = (request, res) => this.answer(request, res);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  protected abstract answer(request: RecordedRequest, res: ServerResponse): void | Promise<void>;
}

/** One fake per test file under `key`, started before the first test, reset before each, closed after the last. */
export function useFake<K extends string, T extends { reset(): void; close(): Promise<void> }>(
  key: K,
  start: () => Promise<T>,
): Record<K, T> {
  const holder = {} as Record<K, T>;
  beforeAll(async () => {
    holder[key] = await start();
  });
  beforeEach(() => holder[key].reset());
  afterAll(() => holder[key].close());
  return holder;
}
