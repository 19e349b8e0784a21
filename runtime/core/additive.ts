import * as z from 'zod';
import { Clip, type AdditiveSpace, type ClipBinding } from './clip.ts';
import { quatNormalize } from './math.ts';
import { Pose } from './pose.ts';
import type { Skeleton } from './skeleton.ts';
import { lazy } from './lazy.ts';

/*
 * Additive poses, as Unreal makes and applies them (FAnimationRuntime::ConvertPoseToAdditive,
 * ConvertPoseToMeshRotation, FTransform::BlendFromIdentityAndAccumulate). An additive pose is a
 * Pose whose entries are deltas from a reference pose, per bone:
 *   translation  ΔT = T − Tref
 *   rotation     ΔR = R · Rref⁻¹          (applied on the left: R = ΔR · Rbase)
 *   scale        ΔS = S / Sref            (applied as Sbase · (1 + alpha · (ΔS − 1)))
 * so the identity Pose is the additive that changes nothing, and blending additive poses with the
 * ordinary pose blends (linear in T and S) blends their deltas. Unreal stores the scale as
 * S / Sref − 1; the ratio is the same number shifted by one, chosen so that a delta pose's identity
 * is Pose's own.
 *
 * In mesh space (Unreal's AAT_RotationOffsetMeshSpace) the rotations are taken in component space
 * (each bone's rotation composed with its parents', translations and scales ignored, as Unreal
 * does) before the delta; applying one composes the base's component rotations, rotates them by
 * the delta and goes back to local space. Translations and scales stay local deltas. A mesh-space
 * lean turns a bone about the character's axes whatever its parents do; a local one turns it about
 * its parent's.
 */

export type { AdditiveSpace } from './clip.ts';

/**
 * A reference for an additive: the skeleton's reference pose, or one frame of a clip as authored
 * (a negative frame counts from the end, -1 = last).
 */
export type AdditiveReference = 'skeleton' | { readonly clip: string; readonly frame: number };

/** How an asset writes an AdditiveReference (a clip's `additive.reference`, MakeAdditive's `reference`). */
export const additiveReferenceSchema = lazy(() => z.union([
  z.literal('skeleton').describe("The skeleton's reference pose."),
  z.object({
    clip: z.string().min(1).describe('A clip of the asset; its keys as authored (before any additive conversion).'),
    frame: z.number().int().describe('The frame of that clip (0 = first; a negative frame counts from the end, -1 = last).'),
  }).strict(),
]));

/** Scales below this have no usable reciprocal: the ratio is 0 there (Unreal's GetSafeScaleReciprocal). */
const SMALL_SCALE = 1e-8;

/**
 * Writes each bone's component-space rotation (its local rotation composed with its parents', the
 * skeleton's bones ordered parents first) into `out` (4 per bone). `out` may be `local.rotations`.
 */
export function meshRotations(out: Float64Array, local: Float64Array, parents: Int32Array): Float64Array {
  const n = parents.length;
  for (let bone = 0; bone < n; bone++) {
    const b4 = bone * 4, parent = parents[bone];
    const bx = local[b4], by = local[b4 + 1], bz = local[b4 + 2], bw = local[b4 + 3];
    if (parent < 0) {
      out[b4] = bx; out[b4 + 1] = by; out[b4 + 2] = bz; out[b4 + 3] = bw;
      continue;
    }
    const p4 = parent * 4;
    const ax = out[p4], ay = out[p4 + 1], az = out[p4 + 2], aw = out[p4 + 3];
    out[b4] = aw * bx + ax * bw + ay * bz - az * by;
    out[b4 + 1] = aw * by - ax * bz + ay * bw + az * bx;
    out[b4 + 2] = aw * bz + ax * by - ay * bx + az * bw;
    out[b4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
    quatNormalize(out, b4);
  }
  return out;
}

/**
 * What makeAdditive subtracts: the reference pose and, for mesh space, its component-space
 * rotations. Built once (when a graph is bound), shared by every instance.
 */
export class AdditiveReferencePose {
  readonly pose: Pose;
  /** Component-space rotations of `pose` (4 per bone), read in mesh space. */
  readonly meshRotations: Float64Array;

  constructor(pose: Pose, skeleton: Skeleton) {
    this.pose = pose;
    this.meshRotations = meshRotations(new Float64Array(pose.boneCount * 4), pose.rotations, skeleton.parents);
  }
}

/**
 * Turns `pose` into its additive from `reference`, in place: translations minus, rotations times
 * the reference's inverse (in component space for 'mesh'), scales divided. `scratch` holds 4 values
 * per bone (mesh space only). Allocates nothing.
 */
export function makeAdditive(pose: Pose, reference: AdditiveReferencePose, mesh: boolean, parents: Int32Array, scratch: Float64Array): Pose {
  const ref = reference.pose;
  const t = pose.translations, rt = ref.translations, s = pose.scales, rs = ref.scales;
  for (let i = 0; i < t.length; i++) {
    t[i] -= rt[i];
    const sr = rs[i];
    s[i] = sr > SMALL_SCALE || sr < -SMALL_SCALE ? s[i] / sr : 0;
  }
  const r = mesh ? meshRotations(scratch, pose.rotations, parents) : pose.rotations;
  const rr = mesh ? reference.meshRotations : ref.rotations;
  const out = pose.rotations;
  for (let o = 0; o < out.length; o += 4) {
    // R · conjugate(Rref)
    const ax = r[o], ay = r[o + 1], az = r[o + 2], aw = r[o + 3];
    const bx = -rr[o], by = -rr[o + 1], bz = -rr[o + 2], bw = rr[o + 3];
    out[o] = aw * bx + ax * bw + ay * bz - az * by;
    out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
    out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
    out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
    quatNormalize(out, o);
  }
  return pose;
}

/** Above this alpha the whole delta is applied, unscaled (Unreal's 1 − ZERO_ANIMWEIGHT_THRESH). */
const FULL_ALPHA = 1 - 0.00001;

/**
 * base += additive × weights[index], in place on `base`: translations plus the scaled delta, scales
 * times 1 + alpha × (ratio − 1), rotations turned by the delta scaled from the identity by alpha
 * (on the left; in component space for 'mesh'). The delta is scaled as Unreal's
 * FTransform::BlendFromIdentityAndAccumulate scales it, by nlerp (normalize((1 − alpha) · identity
 * + alpha · delta), the delta in the identity's hemisphere), or, with `slerp`, by slerp (alpha × its
 * angle about its axis). The weight is read from an array (see CONTRIBUTING.md, "Numbers in the
 * frame loop"); above 1 − 0.00001 the whole delta applies, as in Unreal. `scratch` holds 8 values
 * per bone (mesh space only). Allocates nothing.
 */
export function applyAdditive(
  base: Pose, additive: Pose, weights: Float64Array, index: number, mesh: boolean, parents: Int32Array, scratch: Float64Array, slerp = false,
): Pose {
  const alpha = weights[index];
  const t = base.translations, at = additive.translations, s = base.scales, as = additive.scales;
  for (let i = 0; i < t.length; i++) {
    t[i] += at[i] * alpha;
    s[i] *= 1 + (as[i] - 1) * alpha;
  }
  const r = base.rotations, ar = additive.rotations, n = base.boneCount;
  // Mesh space: scratch[0, 4n) the base's component rotations, [4n, 8n) the result's.
  const baseMesh = scratch, outMesh = scratch, m = n * 4;
  for (let bone = 0; bone < n; bone++) {
    const o = bone * 4;
    // The delta, in the hemisphere of the identity so that the blend takes the short way.
    let dx = ar[o], dy = ar[o + 1], dz = ar[o + 2], dw = ar[o + 3];
    if (dw < 0) { dx = -dx; dy = -dy; dz = -dz; dw = -dw; }
    if (alpha < FULL_ALPHA) {
      if (!slerp) {
        // nlerp(identity, delta, alpha), as Unreal.
        dx *= alpha; dy *= alpha; dz *= alpha; dw = 1 - alpha + dw * alpha;
        const len = Math.sqrt(dx * dx + dy * dy + dz * dz + dw * dw);
        dx /= len; dy /= len; dz /= len; dw /= len;
      } else {
        // slerp(identity, delta, alpha): the half angle scaled by alpha about the delta's axis.
        const sinHalf = Math.sqrt(dx * dx + dy * dy + dz * dz);
        if (sinHalf > 1e-9) {
          const half = Math.atan2(sinHalf, dw), k = Math.sin(half * alpha) / sinHalf;
          dx *= k; dy *= k; dz *= k; dw = Math.cos(half * alpha);
        } else {
          dx *= alpha; dy *= alpha; dz *= alpha; dw = 1;
        }
      }
    }
    let bx = r[o], by = r[o + 1], bz = r[o + 2], bw = r[o + 3];
    const parent = mesh ? parents[bone] : -1;
    if (mesh && parent >= 0) {
      // The base's component rotation: its parent's (already in scratch) times its local one.
      const p4 = parent * 4;
      const px = baseMesh[p4], py = baseMesh[p4 + 1], pz = baseMesh[p4 + 2], pw = baseMesh[p4 + 3];
      const cx = pw * bx + px * bw + py * bz - pz * by;
      const cy = pw * by - px * bz + py * bw + pz * bx;
      const cz = pw * bz + px * by - py * bx + pz * bw;
      const cw = pw * bw - px * bx - py * by - pz * bz;
      bx = cx; by = cy; bz = cz; bw = cw;
    }
    if (mesh) {
      baseMesh[o] = bx; baseMesh[o + 1] = by; baseMesh[o + 2] = bz; baseMesh[o + 3] = bw;
      quatNormalize(baseMesh, o);
    }
    // delta · base
    let qx = dw * bx + dx * bw + dy * bz - dz * by;
    let qy = dw * by - dx * bz + dy * bw + dz * bx;
    let qz = dw * bz + dx * by - dy * bx + dz * bw;
    let qw = dw * bw - dx * bx - dy * by - dz * bz;
    if (mesh) {
      const q = m + o;
      outMesh[q] = qx; outMesh[q + 1] = qy; outMesh[q + 2] = qz; outMesh[q + 3] = qw;
      quatNormalize(outMesh, q);
      if (parent >= 0) {
        // Back to local: conjugate(the parent's new component rotation) · this one's.
        const p = m + parent * 4;
        const px = -outMesh[p], py = -outMesh[p + 1], pz = -outMesh[p + 2], pw = outMesh[p + 3];
        const cx = outMesh[q], cy = outMesh[q + 1], cz = outMesh[q + 2], cw = outMesh[q + 3];
        qx = pw * cx + px * cw + py * cz - pz * cy;
        qy = pw * cy - px * cz + py * cw + pz * cx;
        qz = pw * cz + px * cy - py * cx + pz * cw;
        qw = pw * cw - px * cx - py * cy - pz * cz;
      }
    }
    r[o] = qx; r[o + 1] = qy; r[o + 2] = qz; r[o + 3] = qw;
    quatNormalize(r, o);
  }
  return base;
}

/**
 * Writes frame `frame` of a bound clip into `out` exactly as keyed (no interpolation): bones
 * without a track get the skeleton's reference transform, as sampling gives them.
 */
export function clipFramePose(out: Pose, binding: ClipBinding, frame: number): Pose {
  const clip = binding.clip, n = clip.tracks.length, ref = binding.skeleton.referencePose;
  const ot = out.translations, or = out.rotations, os = out.scales;
  for (let bone = 0; bone < out.boneCount; bone++) {
    const b3 = bone * 3, b4 = bone * 4;
    const tt = binding.translationTrack[bone], rt = binding.rotationTrack[bone], st = binding.scaleTrack[bone];
    const [tSrc, tAt] = tt >= 0 ? [clip.translations, (frame * n + tt) * 3] : [ref.translations, b3];
    const [rSrc, rAt] = rt >= 0 ? [clip.rotations, (frame * n + rt) * 4] : [ref.rotations, b4];
    const [sSrc, sAt] = st >= 0 ? [clip.scales, (frame * n + st) * 3] : [ref.scales, b3];
    for (let k = 0; k < 3; k++) {
      ot[b3 + k] = tSrc[tAt + k];
      os[b3 + k] = sSrc[sAt + k];
    }
    for (let k = 0; k < 4; k++) or[b4 + k] = rSrc[rAt + k];
  }
  return out;
}

/** The frame index a reference names in a clip of `frameCount` frames, or -1 when outside it. */
export function referenceFrameIndex(frame: number, frameCount: number): number {
  const index = frame < 0 ? frameCount + frame : frame;
  return Number.isInteger(index) && index >= 0 && index < frameCount ? index : -1;
}

/**
 * An additive clip made from `source` (as authored, bound to `skeleton`) minus `reference`, once at
 * load: one track per skeleton bone, every attribute keyed, each key the delta of the source's
 * pose at that frame. Bones the source does not animate get the delta of the skeleton's reference
 * transform, so sampling the result never falls back to the reference pose (which is no delta).
 */
export function additiveClip(binding: ClipBinding, reference: AdditiveReferencePose, space: AdditiveSpace): Clip {
  const source = binding.clip, skeleton = binding.skeleton, n = skeleton.boneCount, frames = source.frameCount;
  const clip = new Clip({
    name: source.name,
    interpolation: source.interpolation,
    frameRate: source.frameRate,
    frameCount: frames,
    tracks: skeleton.boneNames.map((bone) => ({ bone, translation: true, rotation: true, scale: true })),
  });
  const pose = new Pose(n), scratch = new Float64Array(n * 4);
  for (let f = 0; f < frames; f++) {
    clipFramePose(pose, binding, f);
    makeAdditive(pose, reference, space === 'mesh', skeleton.parents, scratch);
    clip.translations.set(pose.translations, f * n * 3);
    clip.rotations.set(pose.rotations, f * n * 4);
    clip.scales.set(pose.scales, f * n * 3);
  }
  clip.additive = { space, source };
  return clip;
}
