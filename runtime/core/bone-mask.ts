import * as z from 'zod';
import type { Skeleton } from './skeleton.ts';
import { AnimGraphError } from './errors.ts';
import { lazy } from './lazy.ts';

/*
 * Per-bone weight masks: which bones a layer (or an additive, or a one-shot slot) drives, and how
 * much. Built once per skeleton, in cacheBones, never per frame. Two ways to write one:
 *
 * - branch filters, as Unreal's Layered blend per bone: a bone and a blend depth. Each filter adds
 *   (depth + 1) / blendDepth to the bone `depth` levels below the filter bone (the filter bone is
 *   level 0), clamped to [0, 1]. So blend depth 0 or 1 gives the whole branch full weight, depth 2
 *   gives the filter bone 0.5 and everything below it 1, depth 3 ramps 1/3, 2/3, 1. A negative
 *   depth -N takes weight away the same way (-1 removes the whole branch): filters apply in order,
 *   so `[{ spine, 0 }, { neck, -1 }]` is the upper body without the head.
 * - an explicit mask, bone name to weight in [0, 1]. A bone the mask does not name takes its
 *   parent's weight (a root not named: 0), so `{ spine_01: 1, neck: 0.5 }` is a whole upper body
 *   with the head at half weight.
 */

/** One branch filter: the bone the branch starts at and Unreal's blend depth. */
export interface BranchFilter {
  readonly bone: string;
  /** Unreal's blend depth; absent: 0. */
  readonly depth?: number;
}

/** A mask as written in an asset: branch filters, or explicit per-bone weights. */
export type BoneMaskSpec =
  | { readonly filters: readonly BranchFilter[]; readonly mask?: undefined }
  | { readonly mask: Readonly<Record<string, number>>; readonly filters?: undefined };

export const branchFilterSchema = lazy(() => z.object({
  bone: z.string().describe('The bone the branch starts at (it and all its descendants).'),
  depth: z.number().int().min(-1000).max(1000).default(0)
    .describe('Blend depth: 0 or 1 gives the whole branch full weight; N > 1 ramps the weight over N levels (1/N at the bone); negative removes weight the same way.'),
}).strict());

export const branchFiltersSchema = lazy(() => z.array(branchFilterSchema).min(1)
  .describe('Branch filters, applied in order: each adds (or, with a negative depth, removes) weight from its bone down, clamped to [0, 1].'));

export const boneWeightsSchema = lazy(() => z.record(z.string(), z.number().min(0).max(1))
  .describe('Bone name to weight in [0, 1]; a bone not named takes its parent\'s weight (0 at a root).'));

/** A mask problem found against a skeleton: the path below the mask's own value (['filters', 2, 'bone'] or ['mask', name]). */
export interface BoneMaskProblem {
  readonly path: readonly (string | number)[];
  readonly bone: string;
  readonly message: string;
}

/** The bones a mask names that `skeleton` lacks, each with its path inside the spec. */
export function boneMaskProblems(skeleton: Skeleton, spec: BoneMaskSpec): BoneMaskProblem[] {
  const problems: BoneMaskProblem[] = [];
  const unknown = (bone: string, path: (string | number)[]) => {
    if (skeleton.indexOf(bone) < 0) problems.push({ path, bone, message: `the skeleton has no bone '${bone}'` });
  };
  if (spec.filters !== undefined) spec.filters.forEach((f, i) => unknown(f.bone, ['filters', i, 'bone']));
  if (spec.mask !== undefined) for (const bone of Object.keys(spec.mask)) unknown(bone, ['mask', bone]);
  return problems;
}

/**
 * The per-bone weights of `spec` on `skeleton`, written into `out` (one per bone, in [0, 1]) and
 * returned. Bones the skeleton lacks are left out (the loader reports them; see boneMaskProblems),
 * and each is passed to `onUnknownBone` if given. Allocates: call when binding, never per frame.
 */
export function boneMaskWeights(
  skeleton: Skeleton, spec: BoneMaskSpec, out = new Float64Array(skeleton.boneCount), onUnknownBone?: (bone: string) => void,
): Float64Array {
  const n = skeleton.boneCount;
  if (out.length !== n) throw new AnimGraphError('invalid-argument', `mask of ${out.length} weights for a skeleton of ${n} bones`);
  out.fill(0);
  if (spec.filters !== undefined) {
    for (const filter of spec.filters) {
      const start = skeleton.indexOf(filter.bone);
      if (start < 0) {
        onUnknownBone?.(filter.bone);
        continue;
      }
      const depth = Math.trunc(filter.depth ?? 0) || 0;
      const perLevel = depth === 0 ? 1 : 1 / depth;
      const addAt = (bone: number, level: number) => {
        const w = out[bone] + perLevel * (level + 1);
        out[bone] = w < 0 ? 0 : w > 1 ? 1 : w;
      };
      addAt(start, 0);
      const d = skeleton.descendants, depths = skeleton.depths;
      // A bone's level below the filter bone from the depths: walking up to it per bone took
      // time quadratic in a chain's length.
      for (let k = skeleton.descendantStart[start], end = skeleton.descendantEnd[start]; k < end; k++) {
        const bone = d[k];
        addAt(bone, depths[bone] - depths[start]);
      }
    }
    return out;
  }
  const explicit = new Float64Array(n).fill(NaN);
  for (const [bone, weight] of Object.entries(spec.mask ?? {})) {
    const index = skeleton.indexOf(bone);
    if (index < 0) onUnknownBone?.(bone);
    else explicit[index] = weight;
  }
  // Parents come before children, so a parent's weight is final when its children read it.
  for (let bone = 0; bone < n; bone++) {
    const own = explicit[bone];
    const parent = skeleton.parents[bone];
    const w = own === own ? own : parent >= 0 ? out[parent] : 0;
    out[bone] = w < 0 ? 0 : w > 1 ? 1 : w === w ? w : 0;
  }
  return out;
}

/**
 * The bones whose weight is above zero, in skeleton order (parents first): what a blend walks
 * instead of every bone.
 */
export function maskedBones(weights: Float64Array): Int32Array {
  const bones: number[] = [];
  for (let i = 0; i < weights.length; i++) if (weights[i] > 0) bones.push(i);
  return Int32Array.from(bones);
}
