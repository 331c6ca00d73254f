// The results the commands declare (core/result.ts, each command's `results`) against the contract: the names the
// `result` output may take, and the order a list's worst follows. A command adds a result in its own file; this is
// what keeps the names and the ranks the contract's.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMMANDS } from '../../src/commands/index.ts';
import { FAILED, NOT_STARTED, type ResultKind, resultKind } from '../../src/core/result.ts';

const action = parse(readFileSync(resolve(import.meta.dirname, '../../action.yml'), 'utf8')) as {
  outputs: { result: { description: string } };
};
/** The names action.yml gives the `result` output, before "set on every run". */
const CONTRACT_NAMES = [
  ...action.outputs.result.description.split(';')[0]!.matchAll(/`([a-z-]+)`/g),
].map((m) => m[1]!);

/** The contract's order of a list's results, worst first, and the results that rank as another. */
const WORST_FIRST = [
  'failed',
  'timed-out',
  'unhealthy',
  'rolled-back',
  'skipped',
  'not-started',
  'submitted',
  'no-change',
  'deployed',
  'planned',
];
const RANKS_AS: Record<string, string> = { drifted: 'failed', 'in-sync': 'no-change' };

const declared: [string, ResultKind][] = [
  ['the run', FAILED],
  ['the run', NOT_STARTED],
  ...Object.entries(COMMANDS).flatMap(([name, command]) =>
    command.results.map((kind): [string, ResultKind] => [name, kind]),
  ),
];

describe('the results the commands declare', () => {
  it("are the contract's names, every one of them", () => {
    expect(CONTRACT_NAMES).toContain('deployed');
    for (const [who, kind] of declared) expect(CONTRACT_NAMES, who).toContain(kind.name);
    expect(new Set(declared.map(([, kind]) => kind.name))).toEqual(new Set(CONTRACT_NAMES));
  });

  it('rank alike wherever one name is declared', () => {
    const ranks = new Map<string, Set<number>>();
    for (const [, { name, rank }] of declared)
      ranks.set(name, (ranks.get(name) ?? new Set()).add(rank));
    for (const [name, seen] of ranks) expect(seen.size, name).toBe(1);
  });

  it("rank in the contract's order of a list's worst", () => {
    const rank = (name: string) => declared.find(([, kind]) => kind.name === name)![1].rank;
    const ordered = WORST_FIRST.map(rank);
    expect(ordered).toEqual([...ordered].sort((a, b) => b - a));
    expect(new Set(ordered).size).toBe(WORST_FIRST.length);
    for (const [name, as] of Object.entries(RANKS_AS)) expect(rank(name), name).toBe(rank(as));
    // Each declared rank is the rank of a name in the contract's order.
    for (const [, kind] of declared) expect(ordered, kind.name).toContain(kind.rank);
  });

  it("are read as the command words them, the run's failed when the command's does not fit", () => {
    const status = COMMANDS.status.results;
    expect(resultKind(status, { result: 'failed', ok: true }).headline).toBe(
      '📋 Status: latest revision failed',
    );
    expect(resultKind(status, { result: 'failed', ok: false }).headline).toBe('❌ Failed');
    expect(resultKind(COMMANDS.promote.results, { result: 'deployed', ok: true }).headline).toBe(
      '✅ Promoted',
    );
    expect(resultKind([], { ok: false }).headline).toBe('❌ Failed');
  });
});
