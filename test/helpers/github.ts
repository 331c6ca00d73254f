// In-process fake of the few GitHub REST endpoints the action calls (deployments, deployment statuses, issue
// comments), on 127.0.0.1, recording every request. The action reaches it through GITHUB_API_URL.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { RecordedRequest } from '../simulator/server.ts';

/** Recorded like the service simulator records its requests. */
export type GitHubRequest = RecordedRequest;

export interface FakeDeployment {
  id: number;
  ref: string;
  environment: string;
  description: string | null;
  statuses: Record<string, unknown>[];
  request: Record<string, unknown>;
}

export interface FakeComment {
  id: number;
  issue_number: number;
  body: string;
}

const FORBIDDEN = { message: 'Resource not accessible by integration' };

export class FakeGitHub {
  readonly url: string;
  readonly requests: GitHubRequest[] = [];
  deployments: FakeDeployment[] = [];
  comments: FakeComment[] = [];
  /** Answer 403 "Resource not accessible by integration": to everything (true) or to `METHOD /path` matches. */
  forbidden: boolean | RegExp = false;
  /** Never answer: everything (true) or `METHOD /path` matches. */
  hang: boolean | RegExp = false;

  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private nextId = 1001;

  private constructor(server: Server, url: string) {
    this.server = server;
    this.url = url;
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('request', (req, res) => void this.onRequest(req, res));
  }

  static async start(): Promise<FakeGitHub> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new FakeGitHub(server, `http://127.0.0.1:${port}`);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  reset(): void {
    this.requests.length = 0;
    this.deployments = [];
    this.comments = [];
    this.forbidden = false;
    this.hang = false;
  }

  /** Requests other than reads. */
  writes(): GitHubRequest[] {
    return this.requests.filter((r) => r.method !== 'GET');
  }

  addComment(issueNumber: number, body: string): FakeComment {
    const comment = { id: this.nextId++, issue_number: issueNumber, body };
    this.comments.push(comment);
    return comment;
  }

  commentsOn(issueNumber: number): FakeComment[] {
    return this.comments.filter((c) => c.issue_number === issueNumber);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const raw = await new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => resolve(text));
    });
    const method = req.method ?? 'GET';
    const rec: GitHubRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers as Record<string, string | undefined>,
      body: raw ? JSON.parse(raw) : undefined,
      at: Date.now(),
    };
    this.requests.push(rec);
    const key = `${method} ${url.pathname}`;
    if (matches(this.hang, key)) return;
    if (matches(this.forbidden, key)) return send(res, 403, FORBIDDEN);
    const body = (rec.body ?? {}) as Record<string, unknown>;

    let m = /^\/repos\/[^/]+\/[^/]+\/deployments$/.exec(url.pathname);
    if (m && method === 'POST') {
      const deployment: FakeDeployment = {
        id: this.nextId++,
        ref: String(body.ref),
        environment: String(body.environment ?? 'production'),
        description: typeof body.description === 'string' ? body.description : null,
        statuses: [],
        request: body,
      };
      this.deployments.push(deployment);
      const { id, ref, environment, description } = deployment;
      return send(res, 201, { id, ref, sha: ref, environment, description, task: 'deploy' });
    }
    m = /^\/repos\/[^/]+\/[^/]+\/deployments\/(\d+)\/statuses$/.exec(url.pathname);
    if (m && method === 'POST') {
      const deployment = this.deployments.find((d) => d.id === Number(m![1]));
      if (!deployment) return send(res, 404, { message: 'Not Found' });
      const status = { id: this.nextId++, ...body };
      deployment.statuses.push(status);
      return send(res, 201, status);
    }
    m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(url.pathname);
    if (m && method === 'GET') {
      const perPage = Number(rec.query.per_page ?? 30);
      const page = Number(rec.query.page ?? 1);
      const all = this.commentsOn(Number(m[1]));
      return send(res, 200, all.slice((page - 1) * perPage, page * perPage));
    }
    if (m && method === 'POST') {
      return send(res, 201, this.addComment(Number(m[1]), String(body.body)));
    }
    m = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (m && method === 'PATCH') {
      const comment = this.comments.find((c) => c.id === Number(m![1]));
      if (!comment) return send(res, 404, { message: 'Not Found' });
      comment.body = String(body.body);
      return send(res, 200, comment);
    }
    send(res, 404, { message: 'Not Found' });
  }
}

function matches(rule: boolean | RegExp, key: string): boolean {
  return rule === true || (rule instanceof RegExp && rule.test(key));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** One fake GitHub per test file, emptied before each test. */
export function useGitHub(): { gh: FakeGitHub } {
  const holder = {} as { gh: FakeGitHub };
  beforeAll(async () => {
    holder.gh = await FakeGitHub.start();
  });
  beforeEach(() => holder.gh.reset());
  afterAll(() => holder.gh.close());
  return holder;
}
