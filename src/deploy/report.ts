import type { Command } from '../inputs.ts';
import type { Deployment, Revision } from '../service/schemas.ts';

export type Result =
  | 'deployed'
  | 'failed'
  | 'timed-out'
  | 'skipped'
  | 'no-change'
  | 'submitted'
  | 'rolled-back'
  | 'updated'
  | 'planned';

export interface TimelineEntry {
  status: string;
  /** When the status was first seen (ms since epoch); the first one starts at the trigger. */
  since: number;
  /** When the next status was seen, or the last read for the final one. */
  until: number;
}

export interface Plan {
  action: 'create' | 'update' | 'redeploy';
  method: string;
  path: string;
  /** The request body with secret values replaced. */
  body?: unknown;
  /** For updates: the fields the request sets. */
  changes: string[];
}

export interface Rollback {
  revisionId: string;
  status?: string;
  ok: boolean;
}

/**
 * What a run learned, filled in as it goes: the edge turns it into outputs and a summary, also when the run
 * fails or is cancelled half-way.
 */
export interface RunReport {
  /** Absent when the inputs could not be read. */
  command?: Command;
  result?: Result;
  ok: boolean;
  deployment?: Deployment;
  created: boolean;
  revisionCreated: boolean;
  previousRevisionId?: string;
  revisionId?: string;
  revision?: Revision;
  timeline: TimelineEntry[];
  waitStarted?: number;
  waitEnded?: number;
  /** The phase that failed and what to look at next. */
  failure?: { phase: string; message: string; next?: string };
  plan?: Plan;
  rollback?: Rollback;
  cancelled?: boolean;
  /** What the run was doing last: lookup, resolve, create, update, redeploy, wait, rollback, report. */
  phase?: string;
  notes: string[];
}

export function newReport(command?: Command): RunReport {
  return { command, ok: false, created: false, revisionCreated: false, timeline: [], notes: [] };
}
