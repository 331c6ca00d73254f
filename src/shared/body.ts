// Reading answers from outside with bounds: a time limit through an AbortSignal, and a size cap.
import type { IncomingMessage, RequestOptions } from 'node:http';
import type { RequestHandler } from '@actions/http-client/lib/interfaces';

/** http.request takes an AbortSignal; @actions/http-client has no per-request hook for it but this one. */
export class SignalHandler implements RequestHandler {
  signal?: AbortSignal;
  prepareRequest(options: RequestOptions): void {
    options.signal = this.signal;
    // The client passes URL.hostname, which keeps an IPv6 literal's brackets ("[::1]"): a name no resolver knows.
    if (options.host?.startsWith('[')) options.host = options.host.slice(1, -1);
  }
  canHandleAuthentication(): boolean {
    return false;
  }
  handleAuthentication(): never {
    throw new Error('not used');
  }
}

/**
 * The body as text, or undefined when it is longer than `cap` bytes: past the cap the connection is dropped, never
 * buffered. Rejects like a reset when the connection closes early, or with the signal's reason.
 */
export function readBody(
  message: IncomingMessage,
  signal: AbortSignal,
  cap: number,
): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    if (Number(message.headers['content-length']) > cap) {
      message.destroy();
      return resolve(undefined);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    const onAbort = () => message.destroy(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    message.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= cap) chunks.push(chunk);
      else if (!over) {
        over = true;
        message.destroy();
      }
    });
    message.on('error', (error) => {
      if (!over) reject(error);
    });
    message.on('close', () => {
      signal.removeEventListener('abort', onAbort);
      if (over) resolve(undefined);
      else if (message.complete) resolve(Buffer.concat(chunks).toString('utf8'));
      else
        reject(
          Object.assign(new Error('connection closed before the answer was complete'), {
            code: 'ECONNRESET',
          }),
        );
    });
  });
}
