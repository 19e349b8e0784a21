import { BlendSpaceNode, reportSampleRange } from '../runtime/jobs/blend-space.ts';
import type { ClipBinding } from '../runtime/core/clip.ts';
import { CLOCK_NUMBERS } from '../runtime/jobs/clip-playback.ts';
import { defineBuiltInNodeType, type NodeCheckContext, type NodeType, type ScalarProperty } from '../runtime/node/node.ts';
import * as z from 'zod';
import { lazy } from '../runtime/core/lazy.ts';

/**
 * Blends clips placed along one axis (Unreal's Blend Space 1D): idle at speed 0, walk at 150, run
 * at 400. The input `x`, smoothed, weighs the two samples around it linearly; below the first or
 * above the last sample, that sample alone plays (clamped). Samples play in step (see BlendSpaceNode).
 */
export class BlendSpace1D extends BlendSpaceNode {
  constructor(
    id: string,
    samples: readonly ClipBinding[],
    /** Sample indices by increasing x, and their x in that order. */
    private readonly order: Int32Array,
    private readonly xs: Float64Array,
    x: ScalarProperty, smoothingTime: number, playRate: ScalarProperty, loop: ScalarProperty, syncGroup: string,
    clockNumbers = -1,
    /** The node type's name: 'BlendSpace1D', or a node type built on it (AimOffset1D). */
    type = 'BlendSpace1D',
  ) {
    super(id, type, samples, [x], [smoothingTime], playRate, loop, syncGroup, clockNumbers);
  }

  protected sampleWeights(): void {
    const w = this.weights, xs = this.xs, order = this.order, n = xs.length, x = this.coordinates[0];
    w.fill(0);
    if (!(x > xs[0])) {
      w[order[0]] = 1;
      return;
    }
    if (!(x < xs[n - 1])) {
      w[order[n - 1]] = 1;
      return;
    }
    let k = 0;
    while (k + 2 < n && xs[k + 1] <= x) k++;
    const span = xs[k + 1] - xs[k];
    let t = 0;
    // Samples further apart than a double holds (-1e308 and 1e308) made the span Infinity: t was 0
    // half way and NaN (Infinity / Infinity) beyond. Halved (exactly, but for subnormals), the ends
    // and the input lie within one double of each other.
    if (span - span === 0) t = (x - xs[k]) / span;
    else t = (x * 0.5 - xs[k] * 0.5) / (xs[k + 1] * 0.5 - xs[k] * 0.5);
    w[order[k]] = 1 - t;
    w[order[k + 1]] = t;
  }
}

/** The samples' order by x, checked: no two at the same x, none beyond ±1e15. */
function checkSamples(ctx: NodeCheckContext): void {
  const samples = ctx.properties.samples;
  if (!Array.isArray(samples)) return;
  reportSampleRange(ctx, samples, ['x']);
  const first = new Map<number, number>();
  samples.forEach((s: unknown, i) => {
    const x = typeof s === 'object' && s !== null ? (s as { x?: unknown }).x : undefined;
    if (typeof x !== 'number') return;
    const earlier = first.get(x);
    if (earlier === undefined) first.set(x, i);
    else ctx.report(['samples', i, 'x'], 'duplicate-sample', `sample ${i} is at x = ${x}, as sample ${earlier} is: samples must be at distinct coordinates`);
  });
}

/**
 * A 1D blend space's samples as the node types built on it declare them (BlendSpace1D,
 * AimOffset1D): one or more clips, each at its x.
 */
export const LINE_SAMPLES = {
  kind: 'list',
  minCount: 1,
  item: {
    clip: { kind: 'clip' },
    x: { kind: 'float', default: 0, bindable: false },
  },
} as const;

/** The samples' indices in increasing x (ties in the asset's order), and their xs in that order. */
export function lineOrder(samples: readonly { readonly x: number }[]): { order: Int32Array; xs: Float64Array } {
  const order = Int32Array.from(samples.map((_, i) => i).sort((a, b) => samples[a].x - samples[b].x || a - b));
  return { order, xs: Float64Array.from(order, (i) => samples[i].x) };
}

export const BlendSpace1DType: NodeType = defineBuiltInNodeType({
  type: 'BlendSpace1D',
  space: 'local',
  properties: {
    samples: LINE_SAMPLES,
    x: { kind: 'float', default: 0 },
    smoothingTime: { kind: 'float', default: 0, min: 0, max: 1e6, bindable: false },
    playRate: { kind: 'float', default: 1 },
    loop: { kind: 'bool', default: true },
    syncGroup: { kind: 'object', schema: lazy(() => z.string().min(1)) },
  },
  inputs: [],
  check: checkSamples,
  create: ({ id, properties: p, numbers }) => {
    const { order, xs } = lineOrder(p.samples);
    return new BlendSpace1D(
      id, p.samples.map((s) => s.clip), order, xs, p.x, p.smoothingTime, p.playRate, p.loop, p.syncGroup ?? '', numbers(p.samples.length * CLOCK_NUMBERS),
    );
  },
});

