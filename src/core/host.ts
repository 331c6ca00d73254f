// What the run needs from the CI it runs in. Everything CI-specific sits behind this interface: a host is one
// folder under src/hosts/ (the GitHub runner, and the command line with GitLab CI's facts when it runs there), and
// the run itself never learns which one it is in.
import type { Clock } from '../shared/clock.ts';
import type { Logger } from './logger.ts';
import type { RunReport } from './report.ts';
import type { Words } from './words.ts';

/** What the CI run knows about itself: the facts the inputs' defaults and the integrations are made from. */
export interface HostContext {
  /** owner/name of the repository the run is for (GITHUB_REPOSITORY, GitLab's CI_PROJECT_PATH). */
  repository?: { owner: string; name: string };
  /** The ref deployed by default: the pushed branch, the change's head branch, or a tag in full (refs/tags/…). */
  ref?: string;
  /**
   * The commit `ref` is at for this run (GITHUB_SHA, a pull request's head commit, CI_COMMIT_SHA): the one a deploy of
   * `ref` builds, which the plan compares with the live revision's. Unset where `ref` is.
   */
  commit?: string;
  /** The event that started the run, as the CI names it ("push", "pull_request"). */
  event?: string;
  /** The pull (or merge) request the run is about, on such events. */
  change?: Change;
  /**
   * Set (to the event's name, for messages) when the run holds secrets but its change's head is its author's
   * code (GitHub's pull_request_target): then there is no default ref, and repo-ref must be given.
   */
  untrustedHead?: string;
  /** Where `@path` inputs are read from: the checkout. */
  workspace: string;
  /** A link to this CI run, for the comment. */
  runUrl?: string;
  /** How this CI names an input and the ways to give one, for messages. */
  words: Words;
}

/** The repository checked out for the run, read through the `git` on the host's PATH (the plan's `paths`). */
export interface Git {
  /**
   * The files, as paths from the repository's root, that differ between commits `from` and `to` of the checkout
   * holding `dir`; or, when git cannot tell (no checkout, a commit its history lacks), why and what to do, in a
   * sentence.
   */
  changedFiles(
    dir: string,
    from: string,
    to: string,
    signal: AbortSignal,
  ): Promise<{ files: string[] } | { problem: string }>;
}

/** A pull or merge request, as far as the CI tells. Its head's names are its author's: data, never trusted. */
export interface Change {
  number: number;
  /** The head branch. */
  headRef?: string;
  /** True when the head is in another repository than the base (a fork). */
  fromFork?: boolean;
}

/** A change's preview deployment (`preview: true`, or command preview-close), as the inputs made it. */
export interface Preview {
  /** The preview deployment's name: preview-name filled in and checked. */
  name: string;
  /** The change's number. */
  number: number;
  /** True when the run closes the preview (the change was closed) instead of deploying it. */
  closing: boolean;
}

/**
 * A CI feature beside the deploy (a GitHub Deployment, a pull request comment): best effort, never its failure. With
 * `deployments` the run is a list: `start` and `finish` are the list's (one comment for all), and an integration that
 * records each deployment (a GitHub Deployment per item) does so in `startItem` and `finishItem`.
 */
export interface Integration {
  /** Called once the settings are known; the run goes on beside it and awaits it only before finish. Never rejects. */
  start(): Promise<void>;
  /**
   * With `deployments`: one item starts (after `start` was called, maybe before it resolved); the item's run goes
   * on beside it. Never rejects.
   */
  startItem?(item: ItemRun): Promise<void>;
  /** With `deployments`: the item has ended, with its own report; called once its startItem resolved. Never rejects. */
  finishItem?(item: ItemRun, report: RunReport): Promise<void>;
  /** Once the run has ended, with its report and the comment rendered for it. Never rejects. */
  finish(report: RunReport, comment: { name: string; body: string }): Promise<void>;
}

/** One deployment of a list, as an integration may know it when it starts. */
export interface ItemRun {
  /** Its name in the list: unique in it. */
  name: string;
  /** The deployment's name or id as the inputs give it. */
  target: string;
  customUrl?: string;
  /** Its own deadline, on the run's clock: each item of a list has its whole timeout. */
  deadline: number;
}

export interface Host {
  /** An input's value as given ('' when not given). */
  input(name: string): string;
  readonly context: HostContext;
  /** The host's own secrets (its API token): hidden like api-key from the first line on. */
  secrets(): string[];
  /** Asks the CI to hide `value` wherever it prints it. */
  mask(value: string): void;
  /** Lines the sinks made safe for a log. */
  readonly log: Logger;
  setOutput(name: string, value: string): void;
  /** Appends the run's Markdown summary where the CI shows it; a host without one ignores it. */
  summary(markdown: string): Promise<void>;
  /** Marks the run failed, with one line the sinks made safe. */
  fail(line: string): void;
  /** The integrations that apply to a run with these facts (none when none applies), not yet started. */
  integrations(run: IntegrationRun): Integration[];
}

/** What an integration may know of the run before it starts. */
export interface IntegrationRun {
  command: string;
  /** Whether the command writes to the service (only a write is recorded as a deployment). */
  writes: boolean;
  dryRun: boolean;
  /** The deployment's name or id as the inputs give it. */
  target?: string;
  customUrl?: string;
  /** What the workflow asked for. */
  environment?: string;
  prComment: boolean;
  /** Set when the run deploys or closes a change's preview. */
  preview?: Preview;
  /** With `deployments`: the items' names, in the list's order (each item starts and finishes on its own). */
  items?: string[];
  /** The run's clock, deadline and cancellation, which bound the integrations' calls too. */
  time: Clock;
  deadline: number;
  signal: AbortSignal;
  log: Logger & { field(text: string, max: number): string };
}
