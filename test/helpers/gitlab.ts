// In-process fake of the few GitLab REST endpoints the command line calls in a merge request pipeline (who the token
// is, and a merge request's notes), on 127.0.0.1, recording every request. The command line reaches it through
// CI_API_V4_URL (`apiUrl`).
import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from '../simulator/server.ts';
import { Loopback, LoopbackFake, sendJson as send, useFake } from './loopback.ts';

interface FakeGitLabUser {
  id: number;
  username: string;
}

interface FakeNote {
  id: number;
  projectId: string;
  mergeRequest: number;
  body: string;
  author: FakeGitLabUser;
  system: boolean;
}

export const GITLAB_TOKEN = 'glpat-test-token-0123456789';

/** What a job of merge request !12's pipeline adds: from branch feature/login of the same project, 7. */
export const MERGE_REQUEST_VARIABLES = {
  CI_PIPELINE_SOURCE: 'merge_request_event',
  CI_COMMIT_REF_NAME: 'feature/login',
  CI_MERGE_REQUEST_IID: '12',
  CI_MERGE_REQUEST_PROJECT_ID: '7',
  CI_MERGE_REQUEST_SOURCE_PROJECT_ID: '7',
  CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'feature/login',
};
/** Whom GITLAB_TOKEN acts as (a project access token's bot user). */
export const TOKEN_USER: FakeGitLabUser = { id: 4242, username: 'project_7_bot_deploy' };

class FakeGitLab extends LoopbackFake {
  notes: FakeNote[] = [];
  /** Answer 403 to the requests matching `METHOD /path` (true: all). */
  forbidden: boolean | RegExp = false;
  /** The message of that 403. */
  refusal = '403 Forbidden';
  private nextId = 5001;

  static async start(): Promise<FakeGitLab> {
    return new FakeGitLab(await Loopback.start());
  }

  /** CI_API_V4_URL. */
  get apiUrl(): string {
    return `${this.url}/api/v4`;
  }

  reset(): void {
    this.requests.length = 0;
    this.notes = [];
    this.forbidden = false;
    this.refusal = '403 Forbidden';
  }

  /** Requests other than reads. */
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method !== 'GET');
  }

  addNote(
    projectId: string,
    mergeRequest: number,
    body: string,
    author: FakeGitLabUser = TOKEN_USER,
    system = false,
  ): FakeNote {
    const note = { id: this.nextId++, projectId, mergeRequest, body, author, system };
    this.notes.push(note);
    return note;
  }

  notesOn(projectId: string, mergeRequest: number): FakeNote[] {
    return this.notes.filter((n) => n.projectId === projectId && n.mergeRequest === mergeRequest);
  }

  protected answer(rec: RecordedRequest, res: ServerResponse): void {
    const { method, path } = rec;
    if (rec.headers['private-token'] !== GITLAB_TOKEN)
      return send(res, 401, { message: '401 Unauthorized' });
    const key = `${method} ${path}`;
    if (this.forbidden === true || (this.forbidden instanceof RegExp && this.forbidden.test(key)))
      return send(res, 403, { message: this.refusal });
    if (key === 'GET /api/v4/user') return send(res, 200, { ...TOKEN_USER, state: 'active' });
    const body = (rec.body ?? {}) as { body?: unknown };
    let m = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes$/.exec(path);
    if (m) {
      const projectId = decodeURIComponent(m[1]!);
      const mergeRequest = Number(m[2]);
      if (method === 'GET') {
        const perPage = Number(rec.query.per_page ?? 20);
        const page = Number(rec.query.page ?? 1);
        const all = this.notesOn(projectId, mergeRequest);
        return send(res, 200, all.slice((page - 1) * perPage, page * perPage).map(wire));
      }
      if (method === 'POST')
        return send(res, 201, wire(this.addNote(projectId, mergeRequest, String(body.body))));
    }
    m = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes\/(\d+)$/.exec(path);
    if (m && method === 'PUT') {
      const note = this.notes.find((n) => n.id === Number(m![3]));
      if (!note) return send(res, 404, { message: '404 Not found' });
      if (note.author.id !== TOKEN_USER.id) return send(res, 403, { message: '403 Forbidden' });
      note.body = String(body.body);
      return send(res, 200, wire(note));
    }
    send(res, 404, { message: '404 Not Found' });
  }
}

/** A note as GitLab's API shows it. */
function wire(note: FakeNote): unknown {
  return {
    id: note.id,
    type: null,
    body: note.body,
    author: { ...note.author, name: note.author.username, state: 'active' },
    system: note.system,
    noteable_type: 'MergeRequest',
    noteable_iid: note.mergeRequest,
  };
}

/** One fake GitLab per test file, emptied before each test. */
export function useGitLab(): { gitlab: FakeGitLab } {
  return useFake('gitlab', () => FakeGitLab.start());
}
