// In-process fake of the few GitHub endpoints the action calls (deployments and their list, deployment statuses,
// issue comments, and the GraphQL `viewer` that tells whose token it is), on 127.0.0.1, recording every request.
// The action reaches it through GITHUB_API_URL.
import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from '../simulator/server.ts';
import { Loopback, LoopbackFake, sendJson as send, useFake } from './loopback.ts';
import type { World } from './run.ts';

/** Recorded like the service simulator records its requests. */
type GitHubRequest = RecordedRequest;

export interface FakeDeployment {
  id: number;
  ref: string;
  environment: string;
  description: string | null;
  statuses: Record<string, unknown>[];
  request: Record<string, unknown>;
}

/** The author of a comment as GitHub's REST API shows it (`null` for some deleted accounts). */
export interface FakeUser {
  login: string;
  id: number;
  type: 'User' | 'Bot';
}

interface FakeComment {
  id: number;
  issue_number: number;
  body: string;
  user: FakeUser | null;
}

/** Whom a job's GITHUB_TOKEN acts as. */
const ACTIONS_BOT = { login: 'github-actions[bot]', id: 41898282 };

const FORBIDDEN = { message: 'Resource not accessible by integration' };

export class FakeGitHub extends LoopbackFake {
  deployments: FakeDeployment[] = [];
  comments: FakeComment[] = [];
  /**
   * Answer 403 "Resource not accessible by integration": to everything that needs a permission (true: all but the
   * GraphQL viewer query) or to `METHOD /path` matches.
   */
  forbidden: boolean | RegExp = false;
  /** Never answer: everything (true) or `METHOD /path` matches. */
  hang: boolean | RegExp = false;
  /** The identity the token acts as: GraphQL's `viewer` (login, databaseId) and the author of comments it writes. */
  viewer: { login: string; id: number } = { ...ACTIONS_BOT };
  /**
   * Requests `hang` is holding right now, until their socket closes. On a FakeClock they are not work that time
   * waits for: add them to what `busy` discounts, as the simulator's `parked`.
   */
  parked = 0;

  private nextId = 1001;

  static async start(): Promise<FakeGitHub> {
    return new FakeGitHub(await Loopback.start());
  }

  reset(): void {
    this.requests.length = 0;
    this.deployments = [];
    this.comments = [];
    this.forbidden = false;
    this.hang = false;
    this.viewer = { ...ACTIONS_BOT };
  }

  /** Requests other than reads (a GraphQL query is a POST, but a read). */
  writes(): GitHubRequest[] {
    return this.requests.filter((r) => r.method !== 'GET' && r.path !== '/graphql');
  }

  /** A comment already on the pull request; written by the token's own identity unless `user` says otherwise. */
  addComment(
    issueNumber: number,
    body: string,
    user: FakeUser | null = this.viewerUser(),
  ): FakeComment {
    const comment = { id: this.nextId++, issue_number: issueNumber, body, user };
    this.comments.push(comment);
    return comment;
  }

  commentsOn(issueNumber: number): FakeComment[] {
    return this.comments.filter((c) => c.issue_number === issueNumber);
  }

  /** The viewer as a comment's `user`: an App's login ends in `[bot]`. */
  viewerUser(): FakeUser {
    const { login, id } = this.viewer;
    return { login, id, type: login.endsWith('[bot]') ? 'Bot' : 'User' };
  }

  protected answer(rec: GitHubRequest, res: ServerResponse): void {
    const { method, path } = rec;
    const key = `${method} ${path}`;
    if (matches(this.hang, key)) {
      this.parked++;
      res.once('close', () => this.parked--);
      return;
    }
    // Asking who the token is needs no permission: only a rule naming the query refuses it.
    const viewerQuery = key === 'POST /graphql';
    if (
      viewerQuery
        ? this.forbidden instanceof RegExp && this.forbidden.test(key)
        : matches(this.forbidden, key)
    )
      return send(res, 403, FORBIDDEN);
    const body = (rec.body ?? {}) as Record<string, unknown>;

    if (viewerQuery) {
      // Only the viewer query is known; GitHub answers other queries' mistakes with 200 and `errors`.
      if (!/\bviewer\b/.test(String(body.query)))
        return send(res, 200, { errors: [{ message: 'The fake knows only the viewer query' }] });
      const { login, id } = this.viewer;
      return send(res, 200, { data: { viewer: { login, databaseId: id } } });
    }
    // What GitHub answers an installation token (GITHUB_TOKEN) that asks who it is over REST.
    if (path === '/user' && method === 'GET') return send(res, 403, FORBIDDEN);

    let m = /^\/repos\/[^/]+\/[^/]+\/deployments$/.exec(path);
    if (m && method === 'GET') {
      // Newest first, in pages, of one environment when the query names one (the only filter the action uses).
      const perPage = Number(rec.query.per_page ?? 30);
      const page = Number(rec.query.page ?? 1);
      const { environment } = rec.query;
      const listed = this.deployments
        .filter((d) => environment === undefined || d.environment === environment)
        .reverse()
        .slice((page - 1) * perPage, page * perPage)
        .map(({ id, ref, environment, description, request }) => ({
          id,
          ref,
          sha: ref,
          environment,
          description,
          task: 'deploy',
          payload: request.payload ?? {},
          transient_environment: request.transient_environment === true,
        }));
      return send(res, 200, listed);
    }
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
    m = /^\/repos\/[^/]+\/[^/]+\/deployments\/(\d+)\/statuses$/.exec(path);
    if (m && method === 'POST') {
      const deployment = this.deployments.find((d) => d.id === Number(m![1]));
      if (!deployment) return send(res, 404, { message: 'Not Found' });
      const status = { id: this.nextId++, ...body };
      deployment.statuses.push(status);
      return send(res, 201, status);
    }
    m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(path);
    if (m && method === 'GET') {
      const perPage = Number(rec.query.per_page ?? 30);
      const page = Number(rec.query.page ?? 1);
      const all = this.commentsOn(Number(m[1]));
      return send(res, 200, all.slice((page - 1) * perPage, page * perPage));
    }
    if (m && method === 'POST') {
      return send(res, 201, this.addComment(Number(m[1]), String(body.body)));
    }
    m = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(path);
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

/**
 * One fake GitHub per test file, emptied before each test. Given the world (call it after useWorld), time moves while
 * only it or the simulator holds a request (`hang`).
 */
export function useGitHub(world?: World): { gh: FakeGitHub } {
  return useFake('gh', async () => {
    const gh = await FakeGitHub.start();
    world?.holders.push(gh);
    return gh;
  });
}
