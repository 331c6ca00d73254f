import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface ActionInput {
  description: string;
  required?: boolean;
  default?: unknown;
}

interface ActionFile {
  name: string;
  description: string;
  branding: { icon: string; color: string };
  inputs: Record<string, ActionInput>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string };
}

const root = new URL('../', import.meta.url);
const action = parse(readFileSync(new URL('action.yml', root), 'utf8')) as ActionFile;
const readme = readFileSync(new URL('README.md', root), 'utf8');

// Splits a Markdown table row on unescaped pipes; `\|` stands for a literal pipe in a cell.
function cells(line: string): string[] {
  const inner = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.replaceAll('\\|', '|').trim());
}

// Rows of the first table whose header cells equal `header`.
function table(header: string[]): string[][] {
  const lines = readme.split('\n');
  const start = lines.findIndex(
    (line) => line.trim().startsWith('|') && cells(line).join('\0') === header.join('\0'),
  );
  if (start < 0) throw new Error(`README has no table with header ${header.join(' | ')}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.trim().startsWith('|')) break;
    const row = cells(line);
    expect(row, `row of the ${header[0]} table: ${line}`).toHaveLength(header.length);
    rows.push(row);
  }
  return rows;
}

function unquoteName(cell: string): string {
  const match = /^`([^`]+)`$/.exec(cell);
  if (!match?.[1]) throw new Error(`name cell is not a code span: ${cell}`);
  return match[1];
}

describe('action.yml', () => {
  it('runs the bundle on node24', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
  });

  // The Marketplace refuses a longer description and a name another action already uses.
  it('is ready for the Marketplace: a specific name, a short description, branding', () => {
    expect(action.name).toMatch(/Deployment Management Service/);
    expect(action.description.length).toBeLessThan(125);
    expect(action.description).not.toContain('\n');
    expect(action.branding).toEqual({ icon: expect.any(String), color: expect.any(String) });
  });

  it('gives every default as a string', () => {
    for (const [name, input] of Object.entries(action.inputs)) {
      if ('default' in input) expect(typeof input.default, name).toBe('string');
    }
  });
});

describe('README tables match action.yml', () => {
  it('lists the same inputs, defaults and descriptions in the same order', () => {
    const rows = table(['input', 'default', 'description']);
    const documented = rows.map(([name, def, description]) => {
      const input = unquoteName(name ?? '');
      if (def === '(required)') return { input, required: true, description };
      if (def === '' || def === '(computed)') return { input, description };
      const match = /^`([^`]*)`$/.exec(def ?? '');
      if (!match) throw new Error(`default of ${input} is not a code span: ${def}`);
      return { input, default: match[1], description };
    });
    const declared = Object.entries(action.inputs).map(([input, spec]) => ({
      input,
      ...(spec.required === true && !('default' in spec) ? { required: true } : {}),
      ...('default' in spec ? { default: spec.default } : {}),
      description: spec.description,
    }));
    expect(documented).toEqual(declared);
  });

  it('lists the same outputs and descriptions in the same order', () => {
    const documented = table(['output', 'description']).map(([name, description]) => ({
      output: unquoteName(name ?? ''),
      description,
    }));
    const declared = Object.entries(action.outputs).map(([output, spec]) => ({
      output,
      description: spec.description,
    }));
    expect(documented).toEqual(declared);
  });
});

describe('the examples of the README and docs/*.md', () => {
  const pages = [
    readme,
    ...readdirSync(new URL('docs/', root))
      .filter((f) => f.endsWith('.md'))
      .map((f) => readFileSync(new URL(`docs/${f}`, root), 'utf8')),
  ];
  const blocks = pages
    .flatMap((page) => [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? ''))
    .filter((block) => /^jobs:/m.test(block));

  it('are valid YAML that only uses declared inputs', () => {
    const steps = blocks.flatMap((block) => {
      const workflow = parse(block) as {
        jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
      };
      return Object.values(workflow.jobs).flatMap((job) => job.steps);
    });
    const ours = steps.filter((step) => step.uses === 'acme/agent-deploy-action@v1');
    expect(ours.length).toBeGreaterThan(0);
    for (const step of ours) {
      for (const key of Object.keys(step.with ?? {})) expect(action.inputs).toHaveProperty([key]);
      for (const [key, spec] of Object.entries(action.inputs)) {
        if (spec.required === true) expect(step.with).toHaveProperty([key]);
      }
    }
  });
});
