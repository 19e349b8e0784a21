import * as z from 'zod';
import { boneMaskProblems, boneMaskWeights, branchFiltersSchema, type BranchFilter } from './bone-mask.ts';
import type { Skeleton } from './skeleton.ts';
import { quoted } from './names.ts';
import { lazy } from './lazy.ts';

/*
 * Blend profiles (Unreal's UBlendProfile): a named set of per-bone scales declared once in an asset
 * (`blendProfiles`) and named by the nodes that blend with them. A profile has a mode:
 *
 * - timeFactor: a bone's share of a transition's time. 0.5 finishes the bone at half the
 *   transition, 0 switches it at once; scales lie in [0, 1] (Unreal clamps them; the loader refuses
 *   them above 1), so no bone outlasts the transition. Bones not named: 1.
 * - weightFactor: the incoming pose's weight on the bone is multiplied by the scale and renormalised
 *   against the outgoing weight, as Unreal's CalculateBoneWeight and per-bone normalisation do:
 *   the bone's progress is w·s / (w·s + 1 − w) for the transition's weight w. 2 leads, 0.5 lags,
 *   every bone above 0 arrives with the transition; 0 holds the bone on the old pose until the
 *   transition ends (then it switches). Bones not named: 1.
 * - blendMask: a per-bone alpha in [0, 1] for LayeredBlendPerBone. Bones not named: 0.
 *
 * Written as `bones` (a bone name to its scale: that bone only), `branches` (a bone and its
 * descendants, in order, before `bones`) and, for blendMask, `filters`: the layered blend's branch
 * filters with blend depth (runtime/core/bone-mask.ts), the base the other two overwrite. Resolved to one
 * Float64Array per skeleton when a graph is bound, never per frame.
 */

export const BLEND_PROFILE_MODES = ['timeFactor', 'weightFactor', 'blendMask'] as const;
export type BlendProfileMode = (typeof BLEND_PROFILE_MODES)[number];

/** The modes a crossfade's or an inertialization's time can be shaped by. */
export const TRANSITION_PROFILE_MODES: readonly BlendProfileMode[] = ['timeFactor', 'weightFactor'];
/** The mode a layer's per-bone alpha comes from. */
export const MASK_PROFILE_MODES: readonly BlendProfileMode[] = ['blendMask'];

/** A scale: finite and not negative (the mode bounds it further; see blendProfileProblems). */
const scaleSchema = lazy(() => z.number().min(0).max(1e6));

export const blendProfileSchema = lazy(() => z.object({
  mode: z.enum(BLEND_PROFILE_MODES).describe('timeFactor: each bone blends over scale × the transition time (scales in [0, 1], 0 = at once); weightFactor: the incoming weight on the bone is multiplied by the scale (then renormalised); blendMask: a per-bone alpha in [0, 1] for LayeredBlendPerBone layers.'),
  bones: z.record(z.string(), scaleSchema).optional()
    .describe('Bone name to scale, for that bone only (applied after branches). Bones not set: 1 (timeFactor, weightFactor) or 0 (blendMask).'),
  branches: z.array(z.object({
    bone: z.string().describe('The bone the branch starts at.'),
    scale: scaleSchema.describe('The scale of the bone and, unless includeDescendants is false, of every bone below it.'),
    includeDescendants: z.boolean().optional().describe('Whether the bones below take the scale too (default true).'),
  }).strict()).optional().describe('Scales set on whole branches, in order (a later branch overwrites an earlier one).'),
  filters: branchFiltersSchema.optional()
    .describe('blendMask only: the layered blend\'s branch filters with blend depth (see LayeredBlendPerBone), the base that branches and bones overwrite.'),
}).strict());

export type BlendProfileJson = z.infer<typeof blendProfileSchema>;

export const blendProfilesSchema = lazy(() => z.record(z.string(), blendProfileSchema)
  .describe('Named per-bone blend profiles (Unreal\'s blend profiles), named by BlendList and StateMachine transitions (timeFactor, weightFactor), Inertialization requests (per-bone blend time) and LayeredBlendPerBone layers (blendMask).'));

/** A profile bound to a skeleton: one scale per bone, in skeleton order. Immutable, shared by every instance. */
export class BlendProfile {
  /**
   * For an inertialization, each bone's share of the transition's duration (Unreal's
   * FillBoneDurations): timeFactor the scale itself; weightFactor 1 / scale (a bone weighted twice
   * settles in half the time), 1 for a scale of (nearly) 0. Empty for a blendMask.
   */
  readonly durationScales: Float64Array;
  /** The largest of durationScales (at least 0): the whole transition lasts the duration times this. */
  readonly maxDurationScale: number;

  constructor(
    readonly name: string,
    readonly mode: BlendProfileMode,
    readonly scales: Float64Array,
  ) {
    this.durationScales = mode === 'blendMask' ? new Float64Array(0)
      : scales.map((s) => (mode === 'timeFactor' ? s : s > 1e-6 ? 1 / s : 1));
    this.maxDurationScale = this.durationScales.reduce((a, b) => Math.max(a, b), 0);
  }
}

/** The value a bone takes when the profile does not set it. */
export function defaultScale(mode: BlendProfileMode): number {
  return mode === 'blendMask' ? 0 : 1;
}

/** A problem of one profile, at a path below the profile (['bones', name], ['branches', 2, 'bone']...). */
export interface BlendProfileProblem {
  readonly path: readonly (string | number)[];
  readonly code: 'unknown-bone' | 'schema';
  readonly message: string;
}

/** Everything wrong with a well-formed profile against `skeleton` (undefined: no bone checks). */
export function blendProfileProblems(profile: BlendProfileJson, skeleton: Skeleton | undefined): BlendProfileProblem[] {
  const problems: BlendProfileProblem[] = [];
  const unitRange = profile.mode !== 'weightFactor';
  const scale = (value: number, path: (string | number)[]) => {
    if (unitRange && value > 1) {
      problems.push({ path, code: 'schema', message: profile.mode === 'timeFactor'
        ? `a timeFactor scale is a share of the transition time, in [0, 1] (got ${value}): no bone may blend for longer than the transition`
        : `a blendMask scale is an alpha in [0, 1] (got ${value})` });
    }
  };
  const bone = (name: string, path: (string | number)[]) => {
    if (skeleton && skeleton.indexOf(name) < 0) problems.push({ path, code: 'unknown-bone', message: `the skeleton has no bone ${quoted(name)}` });
  };
  for (const [name, value] of Object.entries(profile.bones ?? {})) {
    bone(name, ['bones', name]);
    scale(value, ['bones', name]);
  }
  (profile.branches ?? []).forEach((b, i) => {
    bone(b.bone, ['branches', i, 'bone']);
    scale(b.scale, ['branches', i, 'scale']);
  });
  if (profile.filters !== undefined) {
    if (profile.mode !== 'blendMask') {
      problems.push({ path: ['filters'], code: 'schema', message: `filters (blend depth ramps) make a mask: only a blendMask profile takes them, this one is ${profile.mode} (use branches)` });
    } else if (skeleton) {
      for (const p of boneMaskProblems(skeleton, { filters: profile.filters as readonly BranchFilter[] })) problems.push({ path: p.path, code: 'unknown-bone', message: p.message });
    }
  }
  return problems;
}

/** Binds a (checked) profile to `skeleton`: one scale per bone. Allocates: call when binding, never per frame. */
export function resolveBlendProfile(name: string, profile: BlendProfileJson, skeleton: Skeleton): BlendProfile {
  const n = skeleton.boneCount;
  const scales = new Float64Array(n).fill(defaultScale(profile.mode));
  if (profile.mode === 'blendMask' && profile.filters !== undefined) boneMaskWeights(skeleton, { filters: profile.filters }, scales);
  const bound = profile.mode === 'weightFactor' ? 1e6 : 1;
  const set = (bone: number, value: number) => {
    scales[bone] = value > 0 ? Math.min(value, bound) : 0;
  };
  for (const branch of profile.branches ?? []) {
    const start = skeleton.indexOf(branch.bone);
    if (start < 0) continue;
    set(start, branch.scale);
    if (branch.includeDescendants === false) continue;
    const d = skeleton.descendants;
    for (let k = skeleton.descendantStart[start], end = skeleton.descendantEnd[start]; k < end; k++) set(d[k], branch.scale);
  }
  for (const [bone, value] of Object.entries(profile.bones ?? {})) {
    const index = skeleton.indexOf(bone);
    if (index >= 0) set(index, value);
  }
  return new BlendProfile(name, profile.mode, scales);
}
