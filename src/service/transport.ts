// One HTTP exchange, bounded in size and by a signal: what the service client and the verify-url check send their
// requests through. Injected, so the run never reaches for a client of its own, and a test can count what is on
// the wire (its fake clock waits for it).
import type { IncomingHttpHeaders } from 'node:http';
import { HttpClient } from '@actions/http-client';
import { readBody, SignalHandler } from '../shared/body.ts';

export interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborts the exchange, answer body included: a time limit, the job's cancellation. */
  signal: AbortSignal;
  /** The most of a body read: past it the connection is dropped and the answer has no body. */
  maxBytes: number;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** Undefined when the body is longer than `maxBytes`. */
  body: string | undefined;
}

export interface Transport {
  /** Rejects with the network error (its `code`), or the signal's reason once it aborts. */
  send(exchange: Exchange): Promise<Answer>;
  dispose(): void;
}

/**
 * Node's HTTP through @actions/http-client (which honours HTTPS_PROXY and NO_PROXY). Redirects are never followed:
 * the key travels in a header the client would forward to any host, and verify-url must answer itself.
 */
export function httpTransport(userAgent: string): Transport {
  const handler = new SignalHandler();
  // One client per scheme: a keep-alive client keeps the agent of its first request, http or https, for all.
  const clients = new Map<string, HttpClient>();
  const clientFor = (url: string) => {
    const scheme = new URL(url).protocol;
    let client = clients.get(scheme);
    if (!client) {
      client = new HttpClient(userAgent, [handler], {
        keepAlive: true,
        allowRedirects: false,
        allowRetries: false,
      });
      clients.set(scheme, client);
    }
    return client;
  };
  return {
    async send({ method, url, headers, body, signal, maxBytes }) {
      const client = clientFor(url);
      // The handler's signal is read while request() prepares, before its first await: each exchange gets its own.
      handler.signal = signal;
      const response = client.request(method, url, body ?? null, headers);
      handler.signal = undefined;
      const { message } = await response;
      return {
        status: message.statusCode ?? 0,
        headers: message.headers,
        body: await readBody(message, signal, maxBytes),
      };
    },
    dispose: () => {
      for (const client of clients.values()) client.dispose();
    },
  };
}
