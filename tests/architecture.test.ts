import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph, importSpecifiers } from './support/imports.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The layers, lowest first, and what each may import besides itself. A runtime folder is a layer
 * of its own; the top-level folders sit above the runtime. See CONTRIBUTING.md, "Layers".
 */
const LAYERS: Record<string, readonly string[]> = {
  'runtime/core': [],
  'runtime/kernel': ['runtime/core'],
  'runtime/import': ['runtime/core'],
  'runtime/node': ['runtime/core'],
  'runtime/jobs': ['runtime/core', 'runtime/node'],
  'runtime/graph': ['runtime/core', 'runtime/kernel', 'runtime/node', 'runtime/jobs'],
  nodes: ['runtime/core', 'runtime/node', 'runtime/jobs'],
  graphs: ['runtime/core', 'runtime/import', 'runtime/node', 'runtime/jobs', 'runtime/graph', 'nodes'],
  'editor-meta': ['runtime/core', 'runtime/kernel', 'runtime/import', 'runtime/node', 'runtime/jobs', 'runtime/graph', 'nodes', 'graphs'],
  'editor/model': ['runtime/core', 'runtime/kernel', 'runtime/import', 'runtime/node', 'runtime/jobs', 'runtime/graph', 'nodes', 'graphs', 'editor-meta'],
  three: ['runtime/core', 'runtime/kernel', 'runtime/graph'],
};

/** The layer of a project file: its runtime or editor folder, or its top-level folder. */
function layerOf(file: string): string {
  const parts = file.split('/');
  return parts[0] === 'runtime' || (parts[0] === 'editor' && parts.length > 2) ? `${parts[0]}/${parts[1]}` : parts[0];
}

describe('architecture', () => {
  const graph = importGraph(root);

  it('reads every source file (a wrong root would make the checks vacuous)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect([...graph.keys()]).toEqual(expect.arrayContaining(['runtime/core/pose.ts', 'runtime/kernel/sampling-kernel.ts', 'nodes/BlendTwo.ts', 'graphs/loader.ts']));
    expect(graph.get('runtime/kernel/sampling-kernel.ts')).toContain('runtime/core/pose.ts');
  });

  it('has no import circle anywhere, type-only imports included', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('finds a circle when there is one', () => {
    const circles = importCircles(new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']], ['e.ts', ['e.ts']]]));
    expect(circles).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  it('imports only downward: each layer from the layers below it', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      const allowed = LAYERS[layerOf(file)];
      if (allowed === undefined) continue; // the entry points, host, cli and viewer sit on top
      for (const target of targets) {
        const layer = layerOf(target);
        if (layer !== layerOf(file) && !allowed.includes(layer)) wrong.push(`${file} imports ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the runtime and the nodes free of node:* modules, so that they run in a browser', () => {
    // importGraph keeps relative imports only, so this reads the specifiers again.
    const nodeBuiltins = [...graph.keys()]
      .filter((f) => /^(runtime|nodes|graphs\/loader|editor-meta|editor\/model)\//.test(f) || f === 'index.ts')
      .flatMap((f) => nodeImportsOf(f).map((s) => `${f} imports ${s}`));
    expect(nodeBuiltins).toEqual([]);
  });

  it('lets only cli/, editor/page/ and the tests import editor/, so the runtime entries never pull in the editor', () => {
    expect([...graph.keys()]).toContain('editor/model/index.ts');
    const wrong = [...graph].flatMap(([file, targets]) => /^(cli|editor|tests)\//.test(file) && !file.startsWith('editor/model/')
      ? []
      : targets.filter((t) => t.startsWith('editor/') && layerOf(t) !== layerOf(file)).map((t) => `${file} imports ${t}`));
    expect(wrong).toEqual([]);
  });
});

function nodeImportsOf(file: string): string[] {
  return importSpecifiers(readFileSync(join(root, file), 'utf8')).filter((s) => s.startsWith('node:'));
}
