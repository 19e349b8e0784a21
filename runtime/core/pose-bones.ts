import { quatNormalize } from './math.ts';
import type { Pose, PoseKernel } from './pose.ts';

/**
 * Pose operations weighted bone by bone: a layered blend, a filtered slot, a crossfade following a
 * blend profile. Each runs in the poses' kernel when they are in its memory (a batch's character:
 * see PoseKernel), with the weights written to its per-bone weights, and in JavaScript otherwise:
 * the same IEEE operations in the same order, so the poses are bit-identical either way.
 *
 * Weights come by array and index, never as a number argument (CONTRIBUTING.md, "Numbers in the
 * frame loop").
 */

/**
 * The kernel holding `out` (a whole pose of its skeleton) and `source` (null: none), whose per-bone
 * weights then cover out's bones; else null.
 */
export function kernelWithBoneWeights(out: Pose, source: Pose | null): PoseKernel | null {
  const kernel = out.kernel;
  return kernel !== null && (source === null || source.kernel === kernel) && out.boneCount === kernel.boneWeights.length ? kernel : null;
}

/**
 * out = lerp(out, layer, mask[b] × alphas[index]) for each bone b of `bones` (bones the weight
 * leaves at 0 or below are left as they are), rotations by normalised lerp on the shorter arc:
 * LayeredBlendPerBone's local blend.
 */
export function poseLayerBones(out: Pose, layer: Pose, bones: ArrayLike<number>, mask: Float64Array, alphas: Float64Array, index: number): void {
  const alpha = alphas[index];
  const kernel = kernelWithBoneWeights(out, layer);
  if (kernel !== null) {
    const weights = kernel.boneWeights;
    weights.fill(0);
    for (let k = 0; k < bones.length; k++) weights[bones[k]] = mask[bones[k]] * alpha;
    kernel.layer(out, layer);
    return;
  }
  const ot = out.translations, os = out.scales, or = out.rotations;
  const lt = layer.translations, ls = layer.scales, lr = layer.rotations;
  for (let k = 0; k < bones.length; k++) {
    const bone = bones[k];
    const w = mask[bone] * alpha;
    if (!(w > 0)) continue;
    const s = 1 - w;
    const t = bone * 3;
    ot[t] = ot[t] * s + lt[t] * w; ot[t + 1] = ot[t + 1] * s + lt[t + 1] * w; ot[t + 2] = ot[t + 2] * s + lt[t + 2] * w;
    os[t] = os[t] * s + ls[t] * w; os[t + 1] = os[t + 1] * s + ls[t + 1] * w; os[t + 2] = os[t + 2] * s + ls[t + 2] * w;
    const o = bone * 4;
    const wl = or[o] * lr[o] + or[o + 1] * lr[o + 1] + or[o + 2] * lr[o + 2] + or[o + 3] * lr[o + 3] < 0 ? -w : w;
    or[o] = or[o] * s + lr[o] * wl;
    or[o + 1] = or[o + 1] * s + lr[o + 1] * wl;
    or[o + 2] = or[o + 2] * s + lr[o + 2] * wl;
    or[o + 3] = or[o + 3] * s + lr[o + 3] * wl;
    quatNormalize(or, o);
  }
}

/**
 * out += (pose - out) × weights[index] × mask[b] for each bone b of `bones` (the others left as
 * they are), rotations by normalised lerp on the shorter arc: a filtered Slot's blend of its voice.
 */
export function poseLerpBones(out: Pose, pose: Pose, bones: ArrayLike<number>, mask: Float64Array, weights: Float64Array, index: number): void {
  const w = weights[index];
  const kernel = kernelWithBoneWeights(out, pose);
  if (kernel !== null) {
    const boneWeights = kernel.boneWeights;
    boneWeights.fill(-1);
    for (let k = 0; k < bones.length; k++) boneWeights[bones[k]] = w * mask[bones[k]];
    kernel.lerpBones(out, pose);
    return;
  }
  const ot = out.translations, or = out.rotations, os = out.scales, pt = pose.translations, pr = pose.rotations, ps = pose.scales;
  for (let k = 0; k < bones.length; k++) {
    const b = bones[k], a = w * mask[b], b3 = b * 3, b4 = b * 4;
    for (let c = 0; c < 3; c++) {
      ot[b3 + c] += (pt[b3 + c] - ot[b3 + c]) * a;
      os[b3 + c] += (ps[b3 + c] - os[b3 + c]) * a;
    }
    const dot = or[b4] * pr[b4] + or[b4 + 1] * pr[b4 + 1] + or[b4 + 2] * pr[b4 + 2] + or[b4 + 3] * pr[b4 + 3];
    const wb = dot < 0 ? -a : a, wa = 1 - a;
    for (let c = 0; c < 4; c++) or[b4 + c] = or[b4 + c] * wa + pr[b4 + c] * wb;
    quatNormalize(or, b4);
  }
}

/** Weights[base ..] (one per bone) into a kernel's per-bone weights, copied rather than through a view (no object per call). */
function copyBoneWeights(to: Float64Array, weights: Float64Array, base: number): void {
  for (let b = 0; b < to.length; b++) to[b] = weights[base + b];
}

/**
 * out = out × weights[base + b] per bone b, rotations unnormalised: the first term of a per-bone
 * weighted sum of poses (poseAccumulateBones adds the others, poseNormalizeRotations ends it).
 */
export function poseScaleBones(out: Pose, weights: Float64Array, base: number): void {
  const kernel = kernelWithBoneWeights(out, null);
  if (kernel !== null) {
    copyBoneWeights(kernel.boneWeights, weights, base);
    kernel.scaleBones(out);
    return;
  }
  const t = out.translations, s = out.scales, r = out.rotations, bones = out.boneCount;
  for (let b = 0; b < bones; b++) {
    const w = weights[base + b];
    t[b * 3] *= w; t[b * 3 + 1] *= w; t[b * 3 + 2] *= w;
    s[b * 3] *= w; s[b * 3 + 1] *= w; s[b * 3 + 2] *= w;
    r[b * 4] *= w; r[b * 4 + 1] *= w; r[b * 4 + 2] *= w; r[b * 4 + 3] *= w;
  }
}

/**
 * out += source × weights[base + b] per bone b (a bone of weight 0 skipped), each rotation taken
 * into the running sum's hemisphere so that q and -q add up instead of cancelling.
 */
export function poseAccumulateBones(out: Pose, source: Pose, weights: Float64Array, base: number): void {
  const kernel = kernelWithBoneWeights(out, source);
  if (kernel !== null) {
    copyBoneWeights(kernel.boneWeights, weights, base);
    kernel.accumulateBones(out, source);
    return;
  }
  const st = source.translations, ss = source.scales, sr = source.rotations;
  const ot = out.translations, os = out.scales, or = out.rotations, bones = out.boneCount;
  for (let b = 0; b < bones; b++) {
    const w = weights[base + b];
    if (w === 0) continue;
    const v = b * 3, o = b * 4;
    ot[v] += st[v] * w; ot[v + 1] += st[v + 1] * w; ot[v + 2] += st[v + 2] * w;
    os[v] += ss[v] * w; os[v + 1] += ss[v + 1] * w; os[v + 2] += ss[v + 2] * w;
    const dot = or[o] * sr[o] + or[o + 1] * sr[o + 1] + or[o + 2] * sr[o + 2] + or[o + 3] * sr[o + 3];
    const wr = dot < 0 ? -w : w;
    or[o] += sr[o] * wr; or[o + 1] += sr[o + 1] * wr; or[o + 2] += sr[o + 2] * wr; or[o + 3] += sr[o + 3] * wr;
  }
}
