import { loadGraphAsset } from '../../host/files.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';

/** An instance of a graph on the built-in biped with the built-in clips and the given nodes. */
export function bipedInstance(nodes: Record<string, unknown>, output: string, parameters: Record<string, unknown> = {}): AnimGraphInstance {
  return loadGraphAsset({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    parameters,
    nodes,
    output,
  }).createInstance();
}

export function hasNaN(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return true;
  return false;
}

/** Asserts two number arrays agree element by element to `digits` decimal places. */
export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance = 1e-9): void {
  if (actual.length !== expected.length) throw new Error(`length ${actual.length} != ${expected.length}`);
  for (let i = 0; i < actual.length; i++) {
    if (!(Math.abs(actual[i] - expected[i]) <= tolerance)) {
      throw new Error(`element ${i}: ${actual[i]} differs from ${expected[i]} by more than ${tolerance}`);
    }
  }
}
