/** What the core needs to say things; a host maps it to its CI's log (the runner's commands, stderr). */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  /** Worth seeing on the run's page, not a problem (an annotation on GitHub). */
  notice(message: string): void;
  warning(message: string): void;
  /**
   * Each read of a wait, for a host that can show it live (a terminal's status line). Optional: every status change
   * is also logged as a line, which is all a host without a live display needs.
   */
  progress?(update: Progress): void;
}

/** Where a wait stands: the revision's status as last read, and since when. */
export interface Progress {
  /** The deployment waited on: one live line each. */
  deploymentId: string;
  /** With deployments: the item's name, which its live line leads with. */
  name?: string;
  revisionId: string;
  /** As the service answered it (the run makes it safe for a log line before a host sees it). */
  status: string;
  /** When the revision entered this status, on the run's monotonic clock. */
  since: number;
  /** The wait is over (a terminal status, its deadline, a cancel or an error): the live line can go. */
  done: boolean;
}
