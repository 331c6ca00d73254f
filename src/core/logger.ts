/** What the core needs to say things; a host maps it to its CI's log (the runner's commands, stderr). */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  /** Worth seeing on the run's page, not a problem (an annotation on GitHub). */
  notice(message: string): void;
  warning(message: string): void;
}
