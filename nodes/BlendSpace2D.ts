import * as z from 'zod';
import { BlendSpaceNode, reportSampleRange } from '../runtime/jobs/blend-space.ts';
import type { ClipBinding } from '../runtime/core/clip.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { CLOCK_NUMBERS } from '../runtime/jobs/clip-playback.ts';
import { toUnitSquare, triangulate, triangulationProblems } from '../runtime/jobs/delaunay.ts';
import { defineBuiltInNodeType, type NodeCheckContext, type NodeType, type ScalarProperty } from '../runtime/node/node.ts';
import { lazy } from '../runtime/core/lazy.ts';

/** What a BlendSpace2D's samples give every instance: the triangulation and the axis scaling. */
export interface BlendSpace2DLayout {
  /** Sample coordinates scaled to the unit square, [x0, y0, x1, ...]. */
  readonly points: Float64Array;
  /** Counter-clockwise triangles of sample indices, [a0, b0, c0, ...]. */
  readonly triangles: Int32Array;
  /** [minX, 1 / rangeX, minY, 1 / rangeY]: input coordinates to the unit square. */
  readonly scale: Float64Array;
}

/**
 * Blends clips placed on a plane (Unreal's Blend Space): speed × direction, say. The samples are
 * triangulated once at load (Delaunay, in coordinates scaled per axis to the unit square the
 * samples span, so that axes in different units weigh alike); the input (x, y), smoothed per axis,
 * weighs the three samples of the triangle it falls in by barycentric coordinates. Outside every
 * triangle (outside the samples' hull), the input is projected to the nearest point of the hull
 * and weighs the two samples of that edge (or the one at that corner). Samples play in step (see
 * BlendSpaceNode).
 */
export class BlendSpace2D extends BlendSpaceNode {
  constructor(
    id: string,
    samples: readonly ClipBinding[],
    private readonly layout: BlendSpace2DLayout,
    x: ScalarProperty, y: ScalarProperty, smoothingTimes: readonly number[],
    playRate: ScalarProperty, loop: ScalarProperty, syncGroup: string,
    clockNumbers = -1,
    /** The node type's name: 'BlendSpace2D', or a node type built on it (AimOffset). */
    type = 'BlendSpace2D',
  ) {
    super(id, type, samples, [x, y], smoothingTimes, playRate, loop, syncGroup, clockNumbers);
  }

  protected sampleWeights(): void {
    const w = this.weights, { points: p, triangles: t, scale } = this.layout;
    const x = (this.coordinates[0] - scale[0]) * scale[1], y = (this.coordinates[1] - scale[2]) * scale[3];
    w.fill(0);
    // Inside a triangle: its barycentric weights (the first such triangle, for a point on a shared edge).
    for (let k = 0; k < t.length; k += 3) {
      const a = t[k], b = t[k + 1], c = t[k + 2];
      const ax = p[2 * a], ay = p[2 * a + 1], bx = p[2 * b], by = p[2 * b + 1], cx = p[2 * c], cy = p[2 * c + 1];
      const d = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy);
      const wa = ((by - cy) * (x - cx) + (cx - bx) * (y - cy)) / d;
      const wb = ((cy - ay) * (x - cx) + (ax - cx) * (y - cy)) / d;
      const wc = 1 - wa - wb;
      if (wa >= -1e-12 && wb >= -1e-12 && wc >= -1e-12) {
        const ca = Math.max(wa, 0), cb = Math.max(wb, 0), cc = Math.max(wc, 0), sum = ca + cb + cc;
        w[a] = ca / sum;
        w[b] = cb / sum;
        w[c] = cc / sum;
        return;
      }
    }
    // Outside: the nearest point on any triangle's edge, which for a point outside the hull is on the hull.
    let best = Infinity, bestA = t[0], bestB = t[1], bestT = 0;
    for (let k = 0; k < t.length; k += 3) {
      for (let e = 0; e < 3; e++) {
        const a = t[k + e], b = t[k + (e + 1) % 3];
        const ax = p[2 * a], ay = p[2 * a + 1], ex = p[2 * b] - ax, ey = p[2 * b + 1] - ay;
        const along = ((x - ax) * ex + (y - ay) * ey) / (ex * ex + ey * ey);
        const s = along > 0 ? (along < 1 ? along : 1) : 0;
        const dx = ax + s * ex - x, dy = ay + s * ey - y, distance = dx * dx + dy * dy;
        if (distance < best) {
          best = distance;
          bestA = a;
          bestB = b;
          bestT = s;
        }
      }
    }
    w[bestA] = 1 - bestT;
    w[bestB] += bestT;
  }
}

function samplePoints(samples: unknown): number[] | undefined {
  if (!Array.isArray(samples)) return undefined;
  const points: number[] = [];
  for (const s of samples) {
    const { x, y } = (typeof s === 'object' && s !== null ? s : {}) as { x?: unknown; y?: unknown };
    if (typeof x !== 'number' || typeof y !== 'number') return undefined;
    points.push(x, y);
  }
  return points;
}

/**
 * Coordinates out of range and duplicate samples at their paths; samples all on one line (no
 * triangle to blend in) at `samples`, once the coordinates are in range (beyond it the
 * triangulation's products overflow, and the samples only looked collinear). `type` names the node
 * type in messages, and `oneAxis` the type to use instead for samples on one axis.
 */
export function checkPlaneSamples(ctx: NodeCheckContext, type = 'BlendSpace2D', oneAxis = 'BlendSpace1D'): void {
  // The range first, whatever else is wrong with the samples (as BlendSpace1D does): a malformed
  // sample hid another's coordinate beyond the range until a second load.
  const samples = ctx.properties.samples;
  const outOfRange = reportSampleRange(ctx, samples, ['x', 'y']);
  // The sample schema, shared with BlendSpace1D, leaves y optional: a 2D sample without one was
  // reported by no one, and create failed with "the loader reports why".
  if (Array.isArray(samples)) {
    samples.forEach((s, i) => {
      for (const axis of ['x', 'y'] as const) {
        const value = typeof s === 'object' && s !== null ? (s as Record<string, unknown>)[axis] : undefined;
        if (typeof value !== 'number') ctx.report(['samples', i, axis], 'schema', `a ${type} sample needs a number ${axis}: its place on the ${axis} axis`);
      }
    });
  }
  const points = samplePoints(samples);
  if (points === undefined || outOfRange) return;
  for (const problem of triangulationProblems(points)) {
    if (problem.kind === 'duplicate') {
      ctx.report(['samples', problem.index], 'duplicate-sample',
        `sample ${problem.index} is at (${points[2 * problem.index]}, ${points[2 * problem.index + 1]}), as sample ${problem.duplicateOf} is: samples must be at distinct coordinates`);
    } else {
      ctx.report(['samples'], 'collinear-samples', `the samples lie on one line: a 2D blend space needs three samples not on one line (use ${oneAxis} for one axis)`);
    }
  }
}

/**
 * A 2D blend space's samples as the node types built on it declare them (BlendSpace2D, AimOffset,
 * AimOffsetLookAt): three or more clips, each at its (x, y).
 */
export const PLANE_SAMPLES = {
  kind: 'list',
  minCount: 3,
  item: {
    clip: { kind: 'clip' },
    x: { kind: 'float', default: 0, bindable: false },
    y: { kind: 'float', default: 0, bindable: false },
  },
} as const;

/** The layout the samples' places give a 2D blend space (its node type's `prepare`, shared by every instance). */
export function planeLayout(samples: readonly { readonly x: number; readonly y: number }[]): BlendSpace2DLayout {
  const points = samples.flatMap((sample) => [sample.x, sample.y]);
  const scale = new Float64Array(4);
  for (let axis = 0; axis < 2; axis++) {
    let min = Infinity, max = -Infinity;
    for (let i = axis; i < points.length; i += 2) {
      min = Math.min(min, points[i]);
      max = Math.max(max, points[i]);
    }
    scale[2 * axis] = min;
    scale[2 * axis + 1] = max > min ? 1 / (max - min) : 0;
  }
  const unit = toUnitSquare(points);
  return { points: unit, triangles: triangulate(Array.from(unit)), scale };
}

export const BlendSpace2DType: NodeType = defineBuiltInNodeType({
  type: 'BlendSpace2D',
  space: 'local',
  properties: {
    samples: PLANE_SAMPLES,
    x: { kind: 'float', default: 0 },
    y: { kind: 'float', default: 0 },
    xSmoothingTime: { kind: 'float', default: 0, min: 0, max: 1e6, bindable: false },
    ySmoothingTime: { kind: 'float', default: 0, min: 0, max: 1e6, bindable: false },
    playRate: { kind: 'float', default: 1 },
    loop: { kind: 'bool', default: true },
    syncGroup: { kind: 'object', schema: lazy(() => z.string().min(1)) },
  },
  inputs: [],
  check: (ctx) => checkPlaneSamples(ctx),
  prepare: (ctx) => planeLayout(ctx.properties.samples),
  create: ({ id, properties: p, shared, numbers }) => {
    if (!shared || shared.triangles.length === 0) throw new AnimGraphError('invalid-data', `BlendSpace2D '${id}': its samples have no triangle (the loader reports why)`);
    return new BlendSpace2D(
      id, p.samples.map((s) => s.clip), shared, p.x, p.y, [p.xSmoothingTime, p.ySmoothingTime], p.playRate, p.loop, p.syncGroup ?? '',
      numbers(p.samples.length * CLOCK_NUMBERS),
    );
  },
});
