// --json: every output as JSON of its own type, as action.yml describes it ("`true` when …" a boolean, "Seconds …" a
// number, "… a JSON object …" an object), the rest as text. A value known to be none ('' for a boolean or a number)
// is null; text stays text, '' included.
import type { ActionTable } from './action.ts';

export type OutputType = 'boolean' | 'number' | 'object' | 'string';

/** An output's type, from its description in action.yml. */
export function outputType(description: string): OutputType {
  if (description.startsWith('`true` when')) return 'boolean';
  if (description.startsWith('Seconds ')) return 'number';
  if (description.includes('a JSON object')) return 'object';
  return 'string';
}

/** The outputs, each as its type says; a value that does not read as its type stays text. */
export function typedOutputs(
  outputs: Record<string, string>,
  table: ActionTable['outputs'],
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(outputs).map(([name, value]) => {
      const description = Object.hasOwn(table, name) ? table[name]!.description : '';
      return [name, typed(value, outputType(description))];
    }),
  );
}

function typed(value: string, type: OutputType): unknown {
  if (type === 'string') return value;
  if (value === '') return null;
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  if (type === 'number') return Number.isFinite(Number(value)) ? Number(value) : value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
