// In-process fake of the few GitLab REST endpoints the command line calls in a merge request pipeline (who the token
// is, and a merge request's notes), on 127.0.0.1, recording every request. The command line reaches it through
// CI_API_V4_URL (`apiUrl`).
import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from '../simulator/server.ts';
import { decodeEntities, render } from './hostile-checks.ts';
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

/** What a job of a push to main of acme/agent (project 7) has. */
export const PUSH_VARIABLES = {
  GITLAB_CI: 'true',
  CI_PROJECT_PATH: 'acme/agent',
  CI_PROJECT_ID: '7',
  CI_COMMIT_REF_NAME: 'main',
  CI_PIPELINE_SOURCE: 'push',
};
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

/** What GitLab makes references of (its MarkdownPreEscapeFilter): one with a backslash before it stays plain. */
const REFERENCE_CHARACTERS = '@#!$&~%^';
/** Stands in for an escaped one in the text checked. */
const ESCAPED = '\u0001';

/**
 * GitLab references in a note that its Markdown would link or act on (`!12`, `#12`, `&5`, `%"v1"`, `$123`,
 * `~label`, `@user`, `^…`): in text, not in code, a link or a comment, an escaped one (`\!12`) left out, entities
 * decoded. Stricter than GitLab: any reference character before a word character or a quote counts, whatever
 * precedes it (`group/project!12` is a reference too).
 */
export function gitLabReferences(markdown: string): string[] {
  let marked = '';
  for (let i = 0; i < markdown.length; i++) {
    const c = markdown[i]!;
    const next = markdown[i + 1];
    if (c === '\\' && next !== undefined) {
      // `\\` is an escaped backslash: the character after it is not escaped.
      marked += REFERENCE_CHARACTERS.includes(next) ? ESCAPED : c + next;
      i++;
    } else marked += c;
  }
  const text = decodeEntities(
    render(marked)
      .replace(/<(code|pre|a)\b[^>]*>[\s\S]*?<\/\1>/g, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<[^>]*>/g, ' '),
  );
  return [...text.matchAll(/[!#&$%~^]["\w]|@\w/g)].map(
    (m) => `${m[0]} in ${JSON.stringify(text.slice(Math.max(0, m.index - 30), m.index + 30))}`,
  );
}

/** Lines GitLab would run as a quick action (`/merge`, `/approve`): a line of the note, outside code, led by `/`. */
export function quickActions(markdown: string): string[] {
  let fence: string | undefined;
  const found: string[] = [];
  for (const line of markdown.split('\n')) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (f) fence = f;
      else if (/^\s*\//.test(line)) found.push(line);
    } else if (f && f[0] === fence[0] && f.length >= fence.length && line.trim() === f)
      fence = undefined;
  }
  return found;
}
