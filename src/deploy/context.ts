// What the steps after a command's lookup share (the write, the follow, the rollback, the diagnostics): the service,
// the run's report, its log, and the transport and excerpt for what they check and quote. A contract of its own, so
// that the steps that take it and the follow that calls them do not import each other for it.
import type { Logger } from '../core/logger.ts';
import type { RunReport } from '../core/report.ts';
import type { Excerpt } from '../core/sinks.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Transport } from '../service/transport.ts';
import type { Words } from '../core/words.ts';

export interface FollowContext {
  client: ServiceClient;
  report: RunReport;
  log: Logger;
  /** For verify-url: the run's transport, without the service's headers. */
  transport: Transport;
  /** Data a message quotes (a value in the advice): redacted before it is cut. */
  excerpt: Excerpt;
  /** How the host names the inputs, for advice. */
  words: Words;
}
