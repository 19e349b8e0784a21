/**
 * The project's import graph, read from the sources: every relative import, re-export and dynamic
 * import, `import type` included (a circle of types is still a circle a reader has to hold). Used
 * by tests/architecture.test.ts and tests/editor-meta/editor-meta.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { createScanner, LanguageVariant, SyntaxKind } from 'typescript/unstable/ast';

/** Source folders whose files make up the graph (tests and benches import them but are not layered). */
export const SOURCE_ROOTS = ['runtime', 'nodes', 'graphs', 'editor-meta', 'editor', 'host', 'cli', 'viewer', 'three', 'index.ts', 'node.ts', 'custom-nodes.ts'];

function sourceFiles(root: string, entry: string): string[] {
  const full = join(root, entry);
  if (entry.endsWith('.ts')) return [entry];
  const out: string[] = [];
  for (const item of readdirSync(full, { recursive: true, withFileTypes: true })) {
    if (!item.isFile() || !/\.(ts|tsx|mts)$/.test(item.name) || item.name.endsWith('.d.ts')) continue;
    out.push(relative(root, join(item.parentPath, item.name)).split('\\').join('/'));
  }
  return out;
}

/** Tokens after which a `/` ends an expression (division), so it cannot open a regular expression. */
const EXPRESSION_ENDS = new Set([
  SyntaxKind.Identifier, SyntaxKind.CloseParenToken, SyntaxKind.CloseBracketToken, SyntaxKind.CloseBraceToken,
  SyntaxKind.NumericLiteral, SyntaxKind.BigIntLiteral, SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.TemplateTail, SyntaxKind.ThisKeyword, SyntaxKind.SuperKeyword, SyntaxKind.TrueKeyword, SyntaxKind.FalseKeyword,
  SyntaxKind.NullKeyword, SyntaxKind.PlusPlusToken, SyntaxKind.MinusMinusToken,
]);

/**
 * Module specifiers imported, re-exported, required or dynamically imported by `source`, type-only
 * imports included. The compiler's scanner (TypeScript 7 has no `preProcessFile`: the pre-processor
 * that did this was a scan like this one) skips comments and reads strings, templates and regular
 * expressions whole, so only a string at an import site counts: after `from`, after `import`, or
 * as the argument of `import(` or `require(`.
 */
export function importSpecifiers(source: string, jsx = false): string[] {
  // In a .tsx file an apostrophe in JSX text reads as a string to the end of its line (the
  // scanner alone cannot tell JSX text from code), which an import never shares.
  const scanner = createScanner(true, jsx ? LanguageVariant.JSX : LanguageVariant.Standard, source);
  const found: string[] = [];
  const templates: number[] = []; // brace depth at each open `${`
  let depth = 0;
  let previous = SyntaxKind.Unknown, before = SyntaxKind.Unknown; // the two tokens before this one
  for (let token = scanner.scan(); token !== SyntaxKind.EndOfFile; token = scanner.scan()) {
    if ((token === SyntaxKind.SlashToken || token === SyntaxKind.SlashEqualsToken) && !EXPRESSION_ENDS.has(previous)) token = scanner.reScanSlashToken();
    if (token === SyntaxKind.OpenBraceToken) depth++;
    else if (token === SyntaxKind.CloseBraceToken) {
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        token = scanner.reScanTemplateToken(false);
        if (token === SyntaxKind.TemplateTail) templates.pop();
      } else depth--;
    } else if (token === SyntaxKind.TemplateHead) templates.push(depth);
    if (token === SyntaxKind.StringLiteral && (previous === SyntaxKind.FromKeyword || previous === SyntaxKind.ImportKeyword
      || (previous === SyntaxKind.OpenParenToken && (before === SyntaxKind.ImportKeyword || before === SyntaxKind.RequireKeyword)))) {
      found.push(scanner.getTokenValue());
    }
    before = previous;
    previous = token;
  }
  return found;
}

/** Each source file (path from `root`, with '/') and the project files it imports. */
export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const entry of SOURCE_ROOTS) {
    for (const file of sourceFiles(root, entry)) {
      const targets = new Set<string>();
      for (const specifier of importSpecifiers(readFileSync(join(root, file), 'utf8'), file.endsWith('.tsx'))) {
        if (specifier.startsWith('.')) targets.add(normalize(join(dirname(file), specifier)).split('\\').join('/'));
      }
      graph.set(file, [...targets]);
    }
  }
  return graph;
}

/** The import circles: strongly connected components of more than one file (or a file importing itself), each sorted. */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative so that a long chain cannot overflow the stack.
  let counter = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>();
  const stack: string[] = [], circles: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: [string, number][] = [[start, 0]];
    index.set(start, counter); low.set(start, counter); counter++; stack.push(start); onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const [node, next] = top;
      const edges = (graph.get(node) ?? []).filter((t) => graph.has(t));
      if (next < edges.length) {
        top[1]++;
        const target = edges[next];
        if (!index.has(target)) {
          index.set(target, counter); low.set(target, counter); counter++; stack.push(target); onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent)!, low.get(node)!));
      }
      if (low.get(node) === index.get(node)) {
        const component: string[] = [];
        let member: string;
        do { member = stack.pop()!; onStack.delete(member); component.push(member); } while (member !== node);
        if (component.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(component.sort());
      }
    }
  }
  return circles;
}
