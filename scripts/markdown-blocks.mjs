// The fenced code blocks of a markdown file, with the `docs-test` marker before each (if any): read
// by the docs-code test (tests/docs/code-blocks.test.ts) and the README walk (scripts/readme-test.mjs).
// CONTRIBUTING.md, "Code in the docs", states the rules for writers.
//
// A marker is an HTML comment on the lines right before a fence (nothing but blank lines between):
//
//   <!-- docs-test: MODE [needs=FILE,FILE]
//   hidden lines, prepended to the block when it is compiled (declarations a fragment leans on)
//   -->
//
// MODE is `typecheck` (the default for a script block with no marker), `node`, `browser`,
// `fragment REASON` (not compiled), or `walk` (a README shell block the README walk runs).

const MODES = ['typecheck', 'node', 'browser', 'fragment', 'walk'];

/**
 * Every fenced block of `text`: `line` is the 1-based line of the block's first code line, `code`
 * its lines with the fence's indentation removed (a block inside a list item), `lang` the fence's
 * info word (`ts`, `sh`, ``).
 * (Types: markdown-blocks.d.mts.)
 */
export function markdownBlocks(file, text) {
  const lines = text.split('\n');
  /** @type {Block[]} */
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,})\s*([\w+-]*)[^`]*$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^ *${fence}\\s*$`).test(lines[end])) end++;
    const code = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart())).join('\n');
    const { marker, markerLine } = markerBefore(lines, i, file);
    blocks.push({ file, line: i + 2, lang: lang.toLowerCase(), code, marker, markerLine });
    i = end;
  }
  return blocks;
}

/** The `docs-test` comment ending on the lines before line `fenceIndex` (blank lines between allowed). */
function markerBefore(lines, fenceIndex, file) {
  let j = fenceIndex - 1;
  while (j >= 0 && lines[j].trim() === '') j--;
  if (j < 0 || !lines[j].trim().endsWith('-->')) return { marker: undefined, markerLine: 0 };
  let start = j;
  while (start >= 0 && !lines[start].includes('<!--')) start--;
  if (start < 0) return { marker: undefined, markerLine: 0 };
  const comment = lines.slice(start, j + 1).map((l) => l.trim()).join('\n');
  const m = /^<!--\s*docs-test:\s*([^\n]*?)\s*(?:-->)?(?:\n([\s\S]*?))?\s*-->$/.exec(comment);
  if (!m) return { marker: undefined, markerLine: 0 };
  const words = m[1].split(/\s+/);
  const mode = words[0] ?? '';
  if (!MODES.includes(mode)) throw new Error(`${file}:${start + 1}: docs-test marker with an unknown mode '${mode}' (modes: ${MODES.join(', ')})`);
  const needs = [];
  const rest = [];
  for (const w of words.slice(1)) {
    if (w.startsWith('needs=')) needs.push(...w.slice('needs='.length).split(',').filter(Boolean));
    else rest.push(w);
  }
  // The prelude keeps the comment's own lines (not trimmed: indentation inside it is the writer's).
  const raw = lines.slice(start + 1, j).join('\n');
  const lastLine = lines[j].replace(/-->\s*$/, '');
  const prelude = start === j ? '' : `${raw}${lastLine.trim() ? `\n${lastLine}` : ''}`;
  return { marker: { mode, reason: rest.join(' '), needs, prelude }, markerLine: start + 1 };
}

/** The blocks of `lang` ts/typescript/js/javascript (what the docs-code test compiles). */
export const isScript = (block) => ['ts', 'typescript', 'js', 'javascript', 'mjs'].includes(block.lang);

/**
 * The lines of a markdown section: from the heading whose text is `heading` (any level) to the next
 * heading of the same or a higher level.
 */
export function markdownSection(text, heading) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && l.replace(/^#+ /, '').trim() === heading);
  if (start < 0) return undefined;
  const level = /^#+/.exec(lines[start])[0].length;
  let end = start + 1;
  let inFence = false;
  for (; end < lines.length; end++) {
    if (/^ *`{3,}/.test(lines[end])) inFence = !inFence;
    const h = /^(#+) /.exec(lines[end]);
    if (!inFence && h && h[1].length <= level) break;
  }
  return { text: lines.slice(start, end).join('\n'), line: start + 1 };
}
