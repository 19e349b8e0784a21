/**
 * Sampling a bound clip into a pose: the play time wrapped or clamped, the two keys around it
 * interpolated, in the pose's kernel where it has one (see PoseKernel).
 */
import type { Clip, ClipBinding } from './clip.ts';
import { quatNlerp, quatNormalize, quatSlerp } from './math.ts';
import { KERNEL_ALPHA, KERNEL_WEIGHT_A, KERNEL_WEIGHT_B, type Pose } from './pose.ts';

/**
 * Wraps or clamps a play time into [0, duration]. Looping wraps (so the last key and the first are
 * one instant); clamping holds the end keys. A zero-length clip always samples time 0.
 */
export function clipLocalTime(clip: Clip, time: number, looping: boolean): number {
  const duration = clip.duration;
  if (!(duration > 0) || !Number.isFinite(time)) return 0;
  if (looping) {
    const t = time % duration;
    return t < 0 ? t + duration : t;
  }
  return time < 0 ? 0 : time > duration ? duration : time;
}

/**
 * Where to sample a clip, passed to sampleClipAt as an object rather than a time (see
 * CONTRIBUTING.md, "Numbers in the frame loop"); see also ClipPlayback.
 */
export class ClipCursor {
  /** Play time in seconds. */
  time = 0;
  looping = false;
}

const scratchCursor = new ClipCursor();

/** Samples a bound clip at `time` seconds (see sampleClipAt). */
export function sampleClip(out: Pose, binding: ClipBinding, time: number, looping: boolean): Pose {
  scratchCursor.time = time;
  scratchCursor.looping = looping;
  return sampleClipAt(out, binding, scratchCursor);
}

/**
 * Samples a bound clip at the cursor's time into `out`: linear translation and scale, spherical or
 * normalised-linear rotation (the clip's `interpolation`) between the two keys around the time.
 * Bones without a track get the skeleton's reference transform. Allocates nothing.
 */
export function sampleClipAt(out: Pose, binding: ClipBinding, cursor: ClipCursor): Pose {
  return sampleInto(out, binding, cursor, null);
}

/**
 * Samples a bound clip at the cursor's time and blends it into `out` as the second pose of
 * poseBlendTwo: out = out * weights[0] + sample * weights[1], each sampled rotation taken in the
 * hemisphere of out's, then normalised. The same numbers as sampling into a pose of its own and
 * calling poseBlendTwo, in one pass and with no pose in between (how BlendTwo blends a player).
 */
export function sampleClipBlendInto(out: Pose, binding: ClipBinding, cursor: ClipCursor, weights: Float64Array): Pose {
  return sampleInto(out, binding, cursor, weights);
}

/**
 * The largest angle between two consecutive rotation keys, as the arc between the quaternions
 * (half the rotation between the keys: 0.35 rad is a turn of 40.1° from one key to the next), for
 * which sampling a slerp clip takes the slerp's sines from their Taylor series to x^9 instead of
 * Math.sin: a few multiply-adds on data already in registers rather than two calls (the rotation
 * part of sampling in about 0.7 of the time, as cheap as nlerp: bench/slerp-sines.ts). Of the crowd bench's clips' spans (arcs up to 0.28), 94.3% take the series and 5.7%
 * quatSlerp's linear fallback (arcs below 0.0316, as before); of the CMU captures' (60 fps), 2.6%
 * the series, 97.4% the fallback and 0.01% Math.sin.
 *
 * The bound: for 0 ≤ x ≤ φ the series alternates with decreasing terms, so it is within the first
 * term left out, x^11 / 11!, of sin x, a relative error ε ≤ φ^10 / 11! / (1 − φ² / 6) ≤ 7.1e-13 for
 * both weights s0 = sin((1 − t)φ) / sin φ and s1 = sin(tφ) / sin φ at φ = 0.35, both errors of the
 * same sign (the series overestimates). The sample's components then differ from an exact slerp's,
 * and its length from 1, by at most ε (s0 + s1) ≤ ε / cos(φ / 2) ≤ 7.2e-13; the weights' errors ε0,
 * ε1 move it along the arc by s0 s1 sin φ (ε0 − ε1), at most tan(φ / 2) ε / 2 (at t = 1/2), so the
 * rotation it stands for is off by at most tan(φ / 2) ε ≤ 1.3e-13 rad (to first order, plus
 * rounding): far below the rounding of keys stored in single precision (6e-8) or of BVH angles
 * written to 6 digits. nlerp, as cheap, is off by up to φ³ / (18√3) rad in rotation (7e-4 on the
 * bench's clips). The test suite checks both bounds on hand-made key pairs and on the CMU
 * captures. Unlike Math.sin, whose last bit may differ between engines, the series is the same
 * IEEE operations everywhere.
 */
export const SLERP_SERIES_MAX_ANGLE = 0.35;

/** A sampled rotation on its way to being blended (see sampleInto). */
const blendRotation = new Float64Array(4);

/** sampleClipAt when `blend` is null, else sampleClipBlendInto with weights `blend`. */
function sampleInto(out: Pose, binding: ClipBinding, cursor: ClipCursor, blend: Float64Array | null): Pose {
  const clip = binding.clip;
  const looping = cursor.looping;
  const ref = binding.skeleton.referencePose;
  const trackCount = clip.tracks.length;
  // clipLocalTime, written out: see CONTRIBUTING.md, "Numbers in the frame loop"
  const duration = clip.duration;
  const time = cursor.time;
  let local = 0;
  if (duration > 0 && time - time === 0) {
    if (looping) {
      local = time % duration;
      if (local < 0) local += duration;
    } else {
      // Math.min/max rather than `time > duration ? duration : time`, which joins the field
      // `duration` untouched (see CONTRIBUTING.md, "Numbers in the frame loop"): optimised first on
      // non-looping samples (a pose-search database build), every looping sample would allocate.
      local = Math.min(Math.max(time, 0), duration);
    }
  }
  const position = local * clip.frameRate;
  let f0 = Math.floor(position);
  if (f0 > clip.frameCount - 1) f0 = clip.frameCount - 1;
  const alpha = position - f0;
  const f1 = f0 + 1 < clip.frameCount ? f0 + 1 : looping ? 0 : f0;
  const base0 = f0 * trackCount, base1 = f1 * trackCount;
  const slerp = clip.interpolation === 'slerp';
  // Between consecutive keys (all but a wrap or a clamp at the end) slerp reads what it needs of
  // the two keys from the clip's spans (see Clip.rotationSpans).
  const spans = slerp && alpha !== 0 && f1 === f0 + 1 ? clip.rotationSpans() : null;
  const renormalize = !clip.unitRotationKeys;
  // A pose in a sampling kernel's memory (an InstanceBatch's) is sampled by the kernel where it
  // takes the same path: on a key, or between consecutive keys of a slerp clip.
  const kernel = out.kernel;
  if (kernel !== null && slerp && (alpha === 0 || spans !== null)) {
    const numbers = kernel.numbers;
    numbers[KERNEL_ALPHA] = alpha;
    numbers[KERNEL_WEIGHT_A] = blend === null ? 1 : blend[0];
    numbers[KERNEL_WEIGHT_B] = blend === null ? 0 : blend[1];
    if (kernel.sample(out, binding, base0, base1, blend !== null, renormalize)) return out;
  }
  const ot = out.translations, or = out.rotations, os = out.scales;
  const ct = clip.translations, cr = clip.rotations, cs = clip.scales;
  const rt3 = ref.translations, rr = ref.rotations, rs = ref.scales;
  // Blending: the weights of out and of the sample; a rotation is sampled into blendRotation first.
  const wa = blend === null ? 1 : blend[0], w = blend === null ? 0 : blend[1];
  const q = blend === null ? or : blendRotation;
  const n = out.boneCount;
  for (let bone = 0; bone < n; bone++) {
    const b3 = bone * 3, b4 = bone * 4;
    const qo = blend === null ? b4 : 0;
    let x: number, y: number, z: number;
    const tt = binding.translationTrack[bone];
    if (tt >= 0) {
      const a = (base0 + tt) * 3, b = (base1 + tt) * 3;
      x = ct[a] + (ct[b] - ct[a]) * alpha;
      y = ct[a + 1] + (ct[b + 1] - ct[a + 1]) * alpha;
      z = ct[a + 2] + (ct[b + 2] - ct[a + 2]) * alpha;
    } else {
      x = rt3[b3]; y = rt3[b3 + 1]; z = rt3[b3 + 2];
    }
    if (blend === null) {
      ot[b3] = x; ot[b3 + 1] = y; ot[b3 + 2] = z;
    } else {
      ot[b3] = ot[b3] * wa + x * w; ot[b3 + 1] = ot[b3 + 1] * wa + y * w; ot[b3 + 2] = ot[b3 + 2] * wa + z * w;
    }
    const rt = binding.rotationTrack[bone];
    if (rt >= 0) {
      const a = (base0 + rt) * 4, b = (base1 + rt) * 4;
      if (alpha === 0) {
        q[qo] = cr[a]; q[qo + 1] = cr[a + 1]; q[qo + 2] = cr[a + 2]; q[qo + 3] = cr[a + 3];
      } else if (spans !== null) {
        // quatSlerp with the angle and 1 / sin(angle) from the spans: the same operations on the same
        // values (negating the weight of the second key, rather than the key, is exact), but with
        // the sines of a span up to SLERP_SERIES_MAX_ANGLE from their series (within 1.3e-13 rad of
        // quatSlerp's), and renormalised only where the result is not unit already (see
        // Clip.unitRotationKeys).
        const p = (base0 + rt) * 2;
        const angle = spans[p], k = spans[p + 1];
        let s0: number, s1: number;
        if (angle === 0) {
          s0 = 1 - alpha;
          s1 = alpha;
        } else {
          const inv = k < 0 ? -k : k;
          const x0 = (1 - alpha) * angle, x1 = alpha * angle;
          // SLERP_SERIES_MAX_ANGLE and the series' coefficients as literals, which the compiler folds.
          if (angle <= 0.35) {
            // sin(x) by its Taylor series to x^9 (see SLERP_SERIES_MAX_ANGLE for the bound).
            const y0 = x0 * x0, y1 = x1 * x1;
            s0 = (x0 + x0 * y0 * (-1 / 6 + y0 * (1 / 120 + y0 * (-1 / 5040 + y0 * (1 / 362880))))) * inv;
            s1 = (x1 + x1 * y1 * (-1 / 6 + y1 * (1 / 120 + y1 * (-1 / 5040 + y1 * (1 / 362880))))) * inv;
          } else {
            s0 = Math.sin(x0) * inv;
            s1 = Math.sin(x1) * inv;
          }
        }
        if (k < 0) s1 = -s1;
        q[qo] = cr[a] * s0 + cr[b] * s1;
        q[qo + 1] = cr[a + 1] * s0 + cr[b + 1] * s1;
        q[qo + 2] = cr[a + 2] * s0 + cr[b + 2] * s1;
        q[qo + 3] = cr[a + 3] * s0 + cr[b + 3] * s1;
        if (angle === 0 || renormalize) quatNormalize(q, qo);
      } else if (slerp) quatSlerp(q, qo, cr, a, cr, b, alpha);
      else quatNlerp(q, qo, cr, a, cr, b, alpha);
    } else {
      q[qo] = rr[b4]; q[qo + 1] = rr[b4 + 1]; q[qo + 2] = rr[b4 + 2]; q[qo + 3] = rr[b4 + 3];
    }
    if (blend !== null) {
      // poseBlendTwo's arithmetic, with the sample as its second pose.
      const ax = or[b4] * wa, ay = or[b4 + 1] * wa, az = or[b4 + 2] * wa, aw = or[b4 + 3] * wa;
      const bx = q[0], by = q[1], bz = q[2], bw = q[3];
      const wb = ax * bx + ay * by + az * bz + aw * bw < 0 ? -w : w;
      or[b4] = ax + bx * wb;
      or[b4 + 1] = ay + by * wb;
      or[b4 + 2] = az + bz * wb;
      or[b4 + 3] = aw + bw * wb;
      quatNormalize(or, b4);
    }
    const st = binding.scaleTrack[bone];
    if (st >= 0) {
      const a = (base0 + st) * 3, b = (base1 + st) * 3;
      x = cs[a] + (cs[b] - cs[a]) * alpha;
      y = cs[a + 1] + (cs[b + 1] - cs[a + 1]) * alpha;
      z = cs[a + 2] + (cs[b + 2] - cs[a + 2]) * alpha;
    } else {
      x = rs[b3]; y = rs[b3 + 1]; z = rs[b3 + 2];
    }
    if (blend === null) {
      os[b3] = x; os[b3 + 1] = y; os[b3 + 2] = z;
    } else {
      os[b3] = os[b3] * wa + x * w; os[b3 + 1] = os[b3 + 1] * wa + y * w; os[b3 + 2] = os[b3 + 2] * wa + z * w;
    }
  }
  return out;
}
