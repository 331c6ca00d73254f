// npm run docs: the input and output tables of README.md and docs/reference.md, and the GitLab CI/CD component
// (templates/agent-deploy.yml: scripts/component.ts), generated from action.yml.
// Each table sits between two marker comments; the prose around them is written by hand and kept:
//   <!-- BEGIN inputs (generated from action.yml by npm run docs) -->       every input, in action.yml's order
//   <!-- BEGIN inputs (generated from action.yml by npm run docs): command, base-url -->   only these, in this order
//   <!-- END inputs -->
// and the same with `outputs`. `npm run docs -- --check` changes nothing and fails, naming the files, when one is
// not what npm run docs would write (test/repo/docs.test.ts checks the same).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { ActionFile } from './action-file.ts';
import { COMPONENT_FILE, componentTemplate } from './component.ts';

/** The files with generated regions, relative to the repository root. */
export const GENERATED_FILES = ['README.md', 'docs/reference.md'];
/** Where the full tables are: a partial table links there. */
const REFERENCE = 'docs/reference.md';

const REGION =
  /(<!-- BEGIN (inputs|outputs) \(generated from action\.yml by npm run docs\)(?::([^>]*?))? -->\n)[\s\S]*?<!-- END \2 -->/g;

/** `text` (the content of `file`) with every generated region rendered anew from `action`. */
export function generate(text: string, action: ActionFile, file: string): string {
  let regions = 0;
  const out = text.replace(
    REGION,
    (_, begin: string, kind: 'inputs' | 'outputs', list?: string) => {
      regions++;
      const all = Object.keys(action[kind]);
      const names = list === undefined ? all : list.split(/[\s,]+/).filter(Boolean);
      const unknown = names.filter((name) => !all.includes(name));
      if (unknown.length > 0)
        throw new Error(
          `${file}: the ${kind} region names ${unknown.join(', ')}, which action.yml does not declare; fix the list in its BEGIN marker.`,
        );
      const table = kind === 'inputs' ? inputTable(action, names) : outputTable(action, names);
      const rest = all.length - names.length;
      const link = relative(dirname(file), REFERENCE);
      const more =
        rest > 0 ? `The other ${rest} ${kind} are in [the reference](${link}#${kind}).\n\n` : '';
      // Blank lines keep each part a block of its own: prettier-ignore then holds for the table alone.
      return `${begin}\n<!-- prettier-ignore -->\n${table}\n${more}<!-- END ${kind} -->`;
    },
  );
  if (regions === 0)
    throw new Error(
      `${file}: no region between <!-- BEGIN inputs|outputs (generated from action.yml by npm run docs) --> and <!-- END … -->.`,
    );
  return out;
}

function inputTable(action: ActionFile, names: string[]): string {
  const rows = names.map((name) => {
    const input = action.inputs[name]!;
    const shown =
      input.default !== undefined
        ? code(input.default)
        : input.required
          ? '(required)'
          : // No fixed default, but the description says how one is found.
            /\bDefault:/.test(input.description)
            ? '(computed)'
            : '';
    return row([code(name), shown, input.description]);
  });
  return [row(['input', 'default', 'description']), row(['---', '---', '---']), ...rows].join('');
}

function outputTable(action: ActionFile, names: string[]): string {
  const rows = names.map((name) => row([code(name), action.outputs[name]!.description]));
  return [row(['output', 'description']), row(['---', '---']), ...rows].join('');
}

/** A table row; a `|` in a cell is escaped, a line break becomes a space. */
function row(cells: string[]): string {
  return `| ${cells.map((c) => c.replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ')).join(' | ')} |\n`;
}

function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

function readAction(root: URL): ActionFile {
  return parse(readFileSync(new URL('action.yml', root), 'utf8')) as ActionFile;
}

// npm run docs [-- --check]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = new URL('../', import.meta.url);
  const check = process.argv.includes('--check');
  const action = readAction(root);
  const stale: string[] = [];
  for (const file of GENERATED_FILES) {
    const url = new URL(file, root);
    const text = readFileSync(url, 'utf8');
    const fresh = generate(text, action, file);
    if (fresh === text) continue;
    stale.push(file);
    if (!check) writeFileSync(url, fresh);
  }
  const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
    version: string;
  };
  const component = new URL(COMPONENT_FILE, root);
  const written = (() => {
    try {
      return readFileSync(component, 'utf8');
    } catch {
      return '';
    }
  })();
  const fresh = componentTemplate(action, version);
  if (fresh !== written) {
    stale.push(COMPONENT_FILE);
    if (!check) {
      mkdirSync(new URL('.', component), { recursive: true });
      writeFileSync(component, fresh);
    }
  }
  if (check && stale.length > 0) {
    console.error(
      `${stale.join(', ')}: not what npm run docs writes from action.yml; run npm run docs and commit.`,
    );
    process.exit(1);
  }
  console.log(
    stale.length === 0
      ? 'The tables match action.yml.'
      : `Rewrote the tables of ${stale.join(', ')}.`,
  );
}
