// The loader's zod schemas are built on first use, not at import (runtime/core/lazy.ts): a fresh
// process imports the package's sources and counts the lazy values built, then loads an asset.
// Counts, no clocks: bench/cold-start.ts times the import.
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
