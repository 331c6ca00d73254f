// One note per deployment on the merge request, found again by the hidden marker the GitHub comment carries too,
// and only a note the token's own user wrote: a marked note by anyone else (the merge request's author) is never
// touched. When the notes or the user cannot be read, nothing is written: a blind create could duplicate.
import * as z from '../../shared/zod.ts';
import { type CallLimits, commentMarker } from '../best-effort.ts';
import type { GitLabApi } from './api.ts';

const PER_PAGE = 100;
// A guard, not a limit anyone should meet: 5,000 notes on one merge request.
const MAX_PAGES = 50;

const Note = z.object({
  id: z.int(),
  body: z.string(),
  system: z.optional(z.boolean()),
  author: z.nullish(z.object({ id: z.int() })),
});
const User = z.object({ id: z.int() });
type Note = z.infer<typeof Note>;

interface NoteTarget {
  projectId: string;
  mergeRequest: number;
  /** The deployment's name, for the marker. */
  name: string;
  body: string;
}

export async function upsertNote(
  api: GitLabApi,
  log: { info(message: string): void; warning(message: string): void },
  n: NoteTarget,
  limits: CallLimits,
): Promise<'created' | 'updated' | undefined> {
  const marker = commentMarker(n.name);
  const body = `${marker}\n${n.body}`;
  const notes = `/projects/${encodeURIComponent(n.projectId)}/merge_requests/${n.mergeRequest}/notes`;
  const marked = await markedNotes(api, log, n.mergeRequest, notes, marker, limits);
  if (marked === null) return undefined;
  let found: number | undefined;
  // Whose token this is matters only when a note carries the marker: most runs never ask.
  if (marked.length > 0) {
    const self = await api.call(
      {
        what: 'Reading who GITLAB_TOKEN acts as (GET /user), to find its note',
        method: 'GET',
        path: '/user',
        answer: User,
      },
      limits,
    );
    if (!self) return undefined;
    found = marked.find((note) => note.author?.id === self.id)?.id;
  }
  const written = await api.call(
    found === undefined
      ? {
          what: `Adding a note to merge request !${n.mergeRequest}`,
          method: 'POST',
          path: notes,
          body: { body },
          answer: z.unknown(),
        }
      : {
          what: `Updating note ${found} on merge request !${n.mergeRequest}`,
          method: 'PUT',
          path: `${notes}/${found}`,
          body: { body },
          answer: z.unknown(),
        },
    limits,
  );
  if (written === undefined) return undefined;
  if (found === undefined) {
    log.info(`Added a note to merge request !${n.mergeRequest}.`);
    return 'created';
  }
  log.info(`Updated the note on merge request !${n.mergeRequest}.`);
  return 'updated';
}

/** The notes (not GitLab's own system notes) starting with `marker`, oldest first; null when they cannot be read. */
async function markedNotes(
  api: GitLabApi,
  log: { warning(message: string): void },
  mergeRequest: number,
  notes: string,
  marker: string,
  limits: CallLimits,
): Promise<Note[] | null> {
  const marked: Note[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await api.call(
      {
        what: `Reading the notes of merge request !${mergeRequest}`,
        method: 'GET',
        path: `${notes}?sort=asc&order_by=created_at&per_page=${PER_PAGE}&page=${page}`,
        answer: z.array(z.unknown()),
      },
      limits,
    );
    if (!answer) return null;
    for (const item of answer) {
      // A note this action cannot read is not one it wrote.
      const note = Note.safeParse(item);
      if (note.success && !note.data.system && note.data.body.startsWith(marker))
        marked.push(note.data);
    }
    if (answer.length < PER_PAGE) return marked;
  }
  log.warning(
    `Merge request !${mergeRequest} has more than ${MAX_PAGES * PER_PAGE} notes; not adding another.`,
  );
  return null;
}
