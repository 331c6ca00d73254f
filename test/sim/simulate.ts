// One seed: its schedule drawn, run, and checked; and what to print when it breaks a rule.
import { type Outcome, execute, type Wrap } from './execute.ts';
import { check, type Violation } from './invariants.ts';
import { known } from './known.ts';
import { describeSchedule, drawSchedule } from './schedule.ts';

export interface Verdict {
  seed: number;
  outcome: Outcome;
  /** Violations not in the allow-list, and those that are (each with the known bug it is). */
  violations: Violation[];
  known: { violation: Violation; bug: string }[];
}

/** `strict`: the known bugs count as violations too; `wrap`: a test's change to each run's wire. */
export async function simulate(
  seed: number,
  { strict = false, wrap }: { strict?: boolean; wrap?: Wrap } = {},
): Promise<Verdict> {
  const outcome = await execute(drawSchedule(seed), wrap);
  const verdict: Verdict = { seed, outcome, violations: [], known: [] };
  for (const violation of check(outcome)) {
    const bug = strict ? undefined : known(violation);
    if (bug) verdict.known.push({ violation, bug });
    else verdict.violations.push(violation);
  }
  return verdict;
}

/** The seed's schedule in words, what the wire did, how each run ended, and what broke: for a person to replay. */
export function report(verdict: Verdict, shown = verdict.violations): string[] {
  const { seed, outcome } = verdict;
  const lines = [`seed ${seed}:`];
  for (const line of describeSchedule(outcome.schedule)) lines.push(`  ${line}`);
  lines.push('  what the wire did (every write, and every read that met a fault):');
  for (const e of outcome.log) {
    if (!e.fault && e.method === 'GET') continue;
    const at = `${(e.at / 1000).toFixed(1)}s`;
    if (e.run === 0) {
      lines.push(`    ${at} another change to ${e.path}: made ${e.made?.join(', ')}`);
      continue;
    }
    const what = e.fault ?? (e.applied ? `applied (${e.served})` : 'not applied');
    const made = e.made?.length ? `, made ${e.made.join(', ')}` : '';
    lines.push(
      `    ${at} run ${e.run} ${e.method} ${e.path}: ${what}${made}; got ${e.status ?? e.error}`,
    );
  }
  lines.push('  how the runs ended:');
  for (const run of outcome.runs) {
    const o = run.outputs;
    const ended = run.endedAt === undefined ? 'never' : `at ${(run.endedAt / 1000).toFixed(1)}s`;
    lines.push(
      `    run ${run.plan.id}: ${o.result ?? '(no result)'} ${ended}; revision-id ${o['revision-id'] ?? '-'}, created ${o.created ?? '-'}, revision-created ${o['revision-created'] ?? '-'}${run.failure ? `; ${run.failure}` : ''}`,
    );
  }
  lines.push('  violations:');
  for (const v of shown) lines.push(`    [${v.invariant}] ${v.message}`);
  lines.push(`  replay: npm run simulate -- --seed ${seed} --seeds 1`);
  return lines;
}

/** Everything a replay must reproduce byte for byte: the wire's log, what the service served, each run's end. */
export function transcript(outcome: Outcome): string {
  const runs = outcome.runs.map((r) => ({
    id: r.plan.id,
    endedAt: r.endedAt,
    outputs: r.outputs,
    summary: r.summary,
    failure: r.failure,
  }));
  return JSON.stringify({ log: outcome.log, samples: outcome.samples, runs });
}
