// The CIs the command line knows, tried in order: the first whose detect() holds is the run's; none, a terminal.
// To add a CI: a folder src/hosts/<name>/ exporting a CiKind, and its line here (CONTRIBUTING, "To add a CI").
import type { Transport } from '../../service/transport.ts';
import { gitLab } from '../gitlab/ci.ts';
import type { Ci, CiKind } from './ci.ts';
import { terminal } from './terminal.ts';

export const CIS: readonly CiKind[] = [gitLab];

/** The CI this run is in (a terminal when none is detected), built. */
export function detectCi(env: NodeJS.ProcessEnv, cwd: string, transport: Transport): Promise<Ci> {
  return (CIS.find((ci) => ci.detect(env)) ?? terminal).build(env, cwd, transport);
}
