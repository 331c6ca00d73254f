// Every regular expression written in the source, found with TypeScript's own parser (so no list to keep), and
// the verdict of a static ReDoS analyser on each: test/repo/patterns.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { check, type Diagnostics } from 'recheck';
import ts from 'typescript';

/** One regular expression in the source: a literal, or a `RegExp` built from strings known before the run. */
export interface SourcePattern {
  file: string;
  line: number;
  source: string;
  flags: string;
}

/** A `RegExp` built from something only known at run time: no analyser can vouch for it. */
interface UnknownPattern {
  file: string;
  line: number;
  code: string;
}

export interface Found {
  patterns: SourcePattern[];
  unknown: UnknownPattern[];
}

/** The patterns of every .ts file under `dir`, named relative to `root`. */
export function patternsUnder(dir: string, root: string): Found {
  const found: Found = { patterns: [], unknown: [] };
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    const { patterns, unknown } = patternsIn(relative(root, path), readFileSync(path, 'utf8'));
    found.patterns.push(...patterns);
    found.unknown.push(...unknown);
  }
  return found;
}

/** The regex literals and the `new RegExp(…)` / `RegExp(…)` calls of one file's text. */
export function patternsIn(file: string, text: string): Found {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Found = { patterns: [], unknown: [] };
  const lineOf = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isRegularExpressionLiteral(node)) {
      const end = node.text.lastIndexOf('/');
      found.patterns.push({
        file,
        line: lineOf(node),
        source: node.text.slice(1, end),
        flags: node.text.slice(end + 1),
      });
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'RegExp'
    ) {
      const [pattern, flags] = node.arguments ?? [];
      const source = pattern && constantString(pattern, sf);
      const flagText = flags ? constantString(flags, sf) : '';
      if (source === undefined || flagText === undefined)
        found.unknown.push({ file, line: lineOf(node), code: node.getText(sf) });
      else found.patterns.push({ file, line: lineOf(node), source, flags: flagText });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/**
 * The value of a string expression made only of literals, `+`, templates and names of top-level `const`s so made;
 * undefined for anything else.
 */
function constantString(
  node: ts.Expression,
  sf: ts.SourceFile,
  seen = new Set<string>(),
): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isParenthesizedExpression(node)) return constantString(node.expression, sf, seen);
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) {
      const part = constantString(span.expression, sf, seen);
      if (part === undefined) return undefined;
      text += part + span.literal.text;
    }
    return text;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = constantString(node.left, sf, seen);
    const right = constantString(node.right, sf, seen);
    return left === undefined || right === undefined ? undefined : left + right;
  }
  if (ts.isIdentifier(node) && !seen.has(node.text)) {
    const init = topLevelConst(node.text, sf);
    return init && constantString(init, sf, new Set(seen).add(node.text));
  }
  return undefined;
}

function topLevelConst(name: string, sf: ts.SourceFile): ts.Expression | undefined {
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    if (!(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const d of statement.declarationList.declarations)
      if (ts.isIdentifier(d.name) && d.name.text === name) return d.initializer;
  }
  return undefined;
}

/** The analyser: a verdict it gave stands for as long as both stay the same (test/repo/linear-patterns.json). */
export const ANALYSER = {
  recheck: (createRequire(import.meta.url)('recheck/package.json') as { version: string }).version,
  checker: 'automaton',
} as const;

/**
 * recheck's verdict on a pattern, by its automaton checker alone and without a time limit: the analysis of the
 * pattern's automaton gives the same answer on any machine under any load, where the fuzzing checker's answer
 * could depend on the time it was given. The pure-JavaScript build: no JVM, no native binary.
 */
export function analyse(pattern: { source: string; flags: string }): Promise<Diagnostics> {
  process.env.RECHECK_BACKEND = 'pure';
  return check(pattern.source, pattern.flags, { checker: ANALYSER.checker, timeout: null });
}

/** One line on the analyser's answer: "safe (linear)", "vulnerable (2nd degree polynomial), e.g. '=' × 31 + '\n'"… */
export function verdict(d: Diagnostics): string {
  if (d.status === 'safe') return `safe (${d.complexity.summary})`;
  if (d.status === 'vulnerable')
    return `vulnerable (${d.complexity.summary}), attack: ${JSON.stringify(d.attack.pattern)}`;
  return `unknown (${d.error.kind}${'message' in d.error ? `: ${d.error.message}` : ''})`;
}
