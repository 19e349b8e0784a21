// What importing the package does not do: build the loader's zod schemas (built on first use,
// runtime/core/lazy.ts) or check the built-in node types (a test checks them: defineBuiltInNodeType).
// A fresh process imports the package's sources and counts the schemas built and the types checked,
// then loads an asset, defines and registers a type. Counts, no clocks: bench/cold-start.ts times
// the import.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lazy, lazyValuesBuilt, unlazy } from '../../runtime/core/lazy.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('lazy values', () => {
  it('builds once, on the first read, and forwards everything to the value', () => {
    let builds = 0;
    class Box { constructor(readonly n: number) {} twice() { return this.n * 2; } }
    const before = lazyValuesBuilt();
    const box = lazy(() => { builds++; return new Box(21); });
    expect(builds).toBe(0);
    expect(box.twice()).toBe(42);
    expect(box instanceof Box).toBe(true);
    expect(Object.keys(box)).toEqual(['n']);
    expect(unlazy(box)).not.toBe(box);
    expect(unlazy(box).n).toBe(21);
    expect(builds).toBe(1);
    expect(lazyValuesBuilt()).toBe(before + 1);
    expect(unlazy(box)).toBe(unlazy(box));
  });
});

describe('import checks no node type', () => {
  it('importing animgraph and animgraph/nodes checks no built-in type, nor does a default registry; a custom type is checked when defined and registered', () => {
    const program = `
const { nodeTypesChecked } = await import('./runtime/node/node-type-check.ts');
const { NodeRegistry, builtInNodeTypes } = await import('./index.ts');
const { defineNodeType, NodeTypeError } = await import('./custom-nodes.ts');
const atImport = nodeTypesChecked();
const registry = new NodeRegistry();
const withRegistry = nodeTypesChecked();
const custom = defineNodeType({ type: 'Custom', space: 'local', properties: {}, inputs: [], create: () => { throw new Error('unused'); } });
const defined = nodeTypesChecked();
registry.register(custom);
const registered = nodeTypesChecked();
let refused = '';
try { registry.register({ ...builtInNodeTypes[0], type: 'Copy', space: 'world' }); } catch (e) { refused = e instanceof NodeTypeError ? e.message : String(e); }
console.log(JSON.stringify({ atImport, withRegistry, defined, registered, known: registry.list().length, builtIns: builtInNodeTypes.length, refused }));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { atImport: number; withRegistry: number; defined: number; registered: number; known: number; builtIns: number; refused: string };
    expect(result.atImport).toBe(0);
    expect(result.withRegistry).toBe(0);
    expect(result.defined).toBe(1);
    expect(result.registered).toBe(2);
    expect(result.known).toBe(result.builtIns + 1);
    expect(result.builtIns).toBe(30);
    // A copy of a built-in type is not the built-in: it is checked.
    expect(result.refused).toMatch(/Copy.*space.*expected 'local' or 'component', got "world"/s);
  });
});

describe('import builds no schema', () => {
  it('importing animgraph and animgraph/nodes builds none; loading an asset builds them', () => {
    const program = `
const { lazyValuesBuilt } = await import('./runtime/core/lazy.ts');
await import('./index.ts');
await import('./custom-nodes.ts');
const atImport = lazyValuesBuilt();
const { loadGraphFile } = await import('./node.ts');
const graph = loadGraphFile('graphs/examples/sample-locomotion.json');
console.log(JSON.stringify({ atImport, afterLoad: lazyValuesBuilt(), bones: graph.skeleton.boneCount }));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { atImport: number; afterLoad: number; bones: number };
    expect(result.atImport).toBe(0);
    // The envelope, clip, parameter and node-id schemas and what they hold, at least.
    expect(result.afterLoad).toBeGreaterThanOrEqual(5);
    expect(result.bones).toBe(22);
  });
});
