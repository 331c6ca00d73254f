/** What the core needs to say things; the action's edge maps it to @actions/core, a CLI could map it to stderr. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warning(message: string): void;
}
