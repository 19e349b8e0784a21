import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as entry from '../custom-nodes.ts';
import * as main from '../index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The names a file imports from the runtime (`import { a, type B } from '../runtime/...'`), each with whether it is a type only. */
function runtimeImports(source: string): { name: string; type: boolean }[] {
  const out: { name: string; type: boolean }[] = [];
  for (const m of source.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'\.\.\/runtime\/[^']+'/g)) {
    for (const raw of m[2].split(',')) {
      const item = raw.trim();
      if (item === '') continue;
      out.push({ name: item.replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim(), type: m[1] !== undefined || item.startsWith('type ') });
    }
  }
  return out;
}

/** The names an entry's source exports (`export { a } from`, `export type { B } from`). */
function exportedNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const raw of m[1].split(',')) {
      const item = raw.trim();
      if (item !== '') names.add(item.split(/\s+as\s+/).pop()!.trim());
    }
  }
  return names;
}

describe('animgraph/nodes, the entry custom nodes are written with', () => {
  const files = readdirSync(join(root, 'nodes')).filter((f) => f.endsWith('.ts'));
  // The built-in types are defined with defineBuiltInNodeType, defineNodeType without the check
  // (which a test runs on them instead of every import): a custom node uses defineNodeType.
  const used = files.flatMap((f) => runtimeImports(readFileSync(join(root, 'nodes', f), 'utf8'))
    .map((u) => ({ ...u, name: u.name === 'defineBuiltInNodeType' ? 'defineNodeType' : u.name, file: f })));

  it('reads the built-in nodes (a wrong folder would make the check vacuous)', () => {
    expect(files).toEqual(expect.arrayContaining(['BlendTwo.ts', 'StateMachine.ts', 'StrideWarping.ts']));
    expect(used.map((u) => u.name)).toEqual(expect.arrayContaining(['defineNodeType', 'ClipPlayback', 'poseBlendTwo']));
  });

  it('exports every name a built-in node imports from the runtime', () => {
    const exported = exportedNames(readFileSync(join(root, 'custom-nodes.ts'), 'utf8'));
    expect(used.filter((u) => !exported.has(u.name)).map((u) => `${u.file}: ${u.name}`)).toEqual([]);
    // The values resolve to what the nodes use, not to a name that merely appears in the source.
    const values = entry as Record<string, unknown>;
    expect(used.filter((u) => !u.type && values[u.name] === undefined).map((u) => u.name)).toEqual([]);
  });

  it('keeps node authoring out of the main entry, which keeps its errors', () => {
    const m = main as Record<string, unknown>;
    expect(m.defineNodeType).toBeUndefined();
    expect(m.LocalPoseNode).toBeUndefined();
    expect(m.NodeTypeError).toBe(entry.NodeTypeError);
    expect(m.builtInNodeTypes).toBe(entry.builtInNodeTypes);
  });
});
