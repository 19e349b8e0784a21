import type { ClipCurve, ClipNotifyTrack } from './clip-events.ts';
import { firstBeyond, MAX_KEY_MAGNITUDE, MAX_KEY_MAGNITUDE_TEXT, quatNlerp, quatNormalize, quatSlerp, type UpAxis } from './math.ts';
import { quoted } from './names.ts';
import { KERNEL_ALPHA, KERNEL_WEIGHT_A, KERNEL_WEIGHT_B, type Pose } from './pose.ts';
import type { Skeleton } from './skeleton.ts';

/** The space of an additive clip's rotation deltas (see runtime/core/additive.ts): its parent's axes, or the character's. */
export type AdditiveSpace = 'local' | 'mesh';

export type RotationInterpolation = 'slerp' | 'nlerp';

/** What a clip stores for one bone: which attributes it animates. Missing ones keep the reference pose. */
export interface TrackLayout {
  bone: string;
  translation: boolean;
  rotation: boolean;
  scale: boolean;
}

/**
 * Root motion extracted from a clip: per key, the root bone's horizontal translation and its
 * heading (rotation about the up axis, unwrapped so that it is continuous across keys).
 */
export interface RootMotionTrack {
  up: UpAxis;
  /** Track index (in clip.tracks) of the root bone the motion was taken from. */
  track: number;
  /** [x, y, z] per key; the up component is 0. */
  translations: Float64Array;
  /** Heading in radians per key, unwrapped. */
  headings: Float64Array;
}

/** A named point of a clip's cycle (a foot plant) that players in a sync group line up by. */
export interface SyncMarker {
  readonly name: string;
  /** Seconds from the clip's first key, within [0, duration]. */
  readonly time: number;
}

/**
 * An animation clip: uniformly sampled keys for a set of bone tracks, laid out frame-major by
 * attribute (translations [frame][track][xyz], rotations [frame][track][xyzw], scales likewise).
 * Immutable once built, and shared by every graph instance that plays it.
 *
 * Time runs from 0 at the first key to `duration` at the last one.
 */
/**
 * The most frames × tracks an importer makes of one clip (the glTF import, clipFromThree): 4 million,
 * 320 MB of keys at most; a longer one is refused before it is allocated.
 */
export const MAX_CLIP_FRAME_TRACKS = 4_000_000;

/** The shortest time between a clip's frames, in seconds: a million frames a second. */
export const MIN_FRAME_TIME = 1e-6;

/**
 * The longest a clip may last, and so its longest frame time, in seconds (11.6 days). A longer
 * one keeps no precision in a play time stepped by a frame's dt, and (frames - 1) x frame time
 * overflowed to Infinity for a BVH frame time near 1e308, giving a blend space a NaN play time.
 */
export const MAX_CLIP_DURATION = 1e6;

/**
 * Why a clip of `frameCount` frames `frameTime` seconds apart cannot be played, or null: a frame
 * time outside [MIN_FRAME_TIME, MAX_CLIP_DURATION] (NaN included), or a duration past MAX_CLIP_DURATION.
 */
export function clipTimingProblem(frameTime: number, frameCount: number): string | null {
  if (!(frameTime >= MIN_FRAME_TIME && frameTime <= MAX_CLIP_DURATION)) return `frame time must be from 1e-6 to 1e6 seconds, got ${frameTime}`;
  const duration = (frameCount - 1) * frameTime;
  if (!(duration <= MAX_CLIP_DURATION)) return `${frameCount} frames ${frameTime} s apart last ${duration} s; a clip lasts at most 1e6 s`;
  return null;
}

/** A key attribute of a clip, as firstKeyBeyond names it. */
export type KeyAttribute = 'translation' | 'rotation' | 'scale';

/**
 * The first key of `clip` holding a value beyond `limit` in magnitude (see firstBeyond in math.ts), among
 * `attributes`: the bone, attribute, frame and value, for an importer's or loader's error; or null.
 */
export function firstKeyBeyond(
  clip: Clip, limit: number, attributes: readonly KeyAttribute[] = ['translation', 'rotation', 'scale'],
): { bone: string; attribute: KeyAttribute; frame: number; value: number } | null {
  const tracks = clip.tracks.length;
  for (const attribute of attributes) {
    const values = attribute === 'translation' ? clip.translations : attribute === 'rotation' ? clip.rotations : clip.scales;
    const i = firstBeyond(values, limit);
    if (i < 0) continue;
    const key = Math.floor(i / (attribute === 'rotation' ? 4 : 3));
    return { bone: clip.tracks[key % tracks].bone, attribute, frame: Math.floor(key / tracks), value: values[i] };
  }
  return null;
}

/**
 * The first key of `clip` that the frame loop could not sample to a finite pose, or null: a
 * translation or scale beyond ±MAX_KEY_MAGNITUDE (NaN included), or a rotation that is not finite.
 * (A finite rotation of any length is renormalised when sampled; one of length 0, or whose squared
 * length overflows, samples as the identity.)
 */
export function firstBadKey(clip: Clip): { bone: string; attribute: KeyAttribute; frame: number; value: number } | null {
  return firstKeyBeyond(clip, MAX_KEY_MAGNITUDE, ['translation', 'scale']) ?? firstKeyBeyond(clip, Number.MAX_VALUE, ['rotation']);
}

/** Why a bad key (firstBadKey) cannot be sampled: 'not finite', or 'beyond ±1e15'. */
export function badKeyReason(value: number): string {
  return Number.isFinite(value) ? `beyond ±${MAX_KEY_MAGNITUDE_TEXT}` : 'not finite';
}

/**
 * firstBadKey described ("the translation of bone 'hips' at frame 3 is 1e+300, beyond ±1e15"), or
 * else the first curve key value beyond ±MAX_KEY_MAGNITUDE (a curve is interpolated and blended as
 * translations are: keys of ±1.7e308 read as Infinity between them), or null.
 */
export function clipKeyProblem(clip: Clip): string | null {
  const bad = firstBadKey(clip);
  if (bad !== null) return `the ${bad.attribute} of bone ${quoted(bad.bone)} at frame ${bad.frame} is ${bad.value}, ${badKeyReason(bad.value)}`;
  for (const curve of clip.curves) {
    const k = firstBeyond(curve.values, MAX_KEY_MAGNITUDE);
    if (k >= 0) return `curve ${quoted(curve.name)}: key ${k} value ${curve.values[k]} is ${badKeyReason(curve.values[k])}`;
  }
  return null;
}

export class Clip {
  readonly name: string;
  readonly frameRate: number;
  readonly frameCount: number;
  readonly tracks: readonly TrackLayout[];
  readonly translations: Float64Array;
  readonly rotations: Float64Array;
  readonly scales: Float64Array;
  /** How rotations are interpolated between keys when this clip is sampled. */
  readonly interpolation: RotationInterpolation;
  /** Root motion taken out of the keys (see extractRootMotion), or null when the clip keeps it. */
  rootMotion: RootMotionTrack | null = null;
  /**
   * For an additive clip (marked so in its asset; see runtime/core/additive.ts): the space of its deltas
   * and the clip as authored, before its keys became deltas. Null for an ordinary clip.
   */
  additive: { readonly space: AdditiveSpace; readonly source: Clip } | null = null;
  /** Named sync markers (footL, footR...) by increasing time, for sync groups (see runtime/jobs/sync-group.ts). */
  syncMarkers: readonly SyncMarker[] = [];
  /** Notifies authored on the clip (set once when loaded), or null when it has none. */
  notifies: ClipNotifyTrack | null = null;
  /** Float curves authored on the clip (set once when loaded). */
  curves: readonly ClipCurve[] = [];

  constructor(init: {
    name: string;
    interpolation?: RotationInterpolation;
    frameRate: number;
    frameCount: number;
    tracks: readonly TrackLayout[];
    translations?: Float64Array;
    rotations?: Float64Array;
    scales?: Float64Array;
  }) {
    const trackCount = init.tracks.length;
    this.name = init.name;
    this.frameRate = init.frameRate;
    this.frameCount = init.frameCount;
    this.tracks = init.tracks;
    this.interpolation = init.interpolation ?? 'slerp';
    this.duration = (init.frameCount - 1) / init.frameRate;
    this.translations = init.translations ?? new Float64Array(init.frameCount * trackCount * 3);
    this.rotations = init.rotations ?? identityRotations(init.frameCount * trackCount);
    this.scales = init.scales ?? new Float64Array(init.frameCount * trackCount * 3).fill(1);
    const expected = [init.frameCount * trackCount * 3, init.frameCount * trackCount * 4, init.frameCount * trackCount * 3];
    const actual = [this.translations.length, this.rotations.length, this.scales.length];
    if (!(init.frameRate > 0) || init.frameCount < 1 || expected.some((e, i) => e !== actual[i])) {
      throw new RangeError(`clip '${init.name}': key arrays do not match ${init.frameCount} frames of ${trackCount} tracks at ${init.frameRate} fps`);
    }
  }

  /** Length in seconds from the first key to the last. A one-frame clip has duration 0. */
  readonly duration: number;

  private spans: Float64Array | null = null;
  private unitKeys = false;

  /**
   * Whether every rotation key is a unit quaternion to rounding (|q|² within 1e-14 of 1; known once
   * rotationSpans has run). Then a slerp between two keys is unit to rounding too (to 7.2e-13 where
   * its sines come from their series: see SLERP_SERIES_MAX_ANGLE), and sampling skips renormalising
   * it, as three.js's slerpFlat does: a square root and a division per bone.
   * Keys stored in single precision (glTF) are further off, and their samples are renormalised.
   */
  get unitRotationKeys(): boolean {
    return this.unitKeys;
  }

  /**
   * What quatSlerp works out from the two keys alone, per pair of consecutive keys (f, f + 1) and
   * track, so that sampling a slerp clip costs two sines (or, for keys up to SLERP_SERIES_MAX_ANGLE
   * apart, their series) instead of an arccosine and three sines:
   * [angle, sign / sin(angle)], where sign is -1 when the second key is flipped into the first's
   * hemisphere; [0, sign] for keys close enough for quatSlerp's linear fallback. Built on the first
   * call (the first sample of the clip, after load-time edits of the keys such as root-motion
   * extraction) and kept: the keys must not change after that.
   */
  rotationSpans(): Float64Array {
    if (this.spans !== null) return this.spans;
    const n = this.tracks.length, r = this.rotations;
    const spans = new Float64Array(Math.max(0, this.frameCount - 1) * n * 2);
    for (let f = 0; f + 1 < this.frameCount; f++) {
      for (let t = 0; t < n; t++) {
        const a = (f * n + t) * 4, b = a + n * 4, p = (f * n + t) * 2;
        // quatSlerp's arithmetic, in its order, so that samples stay bit-identical.
        let cos = r[a] * r[b] + r[a + 1] * r[b + 1] + r[a + 2] * r[b + 2] + r[a + 3] * r[b + 3];
        let sign = 1;
        if (cos < 0) { cos = -cos; sign = -1; }
        if (cos > 0.9995) {
          spans[p] = 0;
          spans[p + 1] = sign;
        } else {
          const angle = Math.acos(cos);
          const inv = 1 / Math.sin(angle);
          spans[p] = angle;
          spans[p + 1] = sign < 0 ? -inv : inv;
        }
      }
    }
    let unit = true;
    for (let i = 0; i < r.length && unit; i += 4) {
      const len2 = r[i] * r[i] + r[i + 1] * r[i + 1] + r[i + 2] * r[i + 2] + r[i + 3] * r[i + 3];
      unit = Math.abs(len2 - 1) <= 1e-14;
    }
    this.unitKeys = unit;
    this.spans = spans;
    return spans;
  }

  /**
   * A new clip holding frames first..last (inclusive) of this one, so that, for example, the T-pose
   * frame 0 of the CMU captures can be skipped. Negative `last` counts from the end (-1 = last frame).
   */
  sliceFrames(first: number, last = -1, name = this.name, interpolation = this.interpolation): Clip {
    const end = last < 0 ? this.frameCount + last : last;
    if (!Number.isInteger(first) || !Number.isInteger(end) || first < 0 || end >= this.frameCount || end < first) {
      throw new RangeError(`clip '${this.name}' has frames 0..${this.frameCount - 1}; cannot take ${first}..${last}`);
    }
    const n = this.tracks.length;
    return new Clip({
      name,
      interpolation,
      frameRate: this.frameRate,
      frameCount: end - first + 1,
      tracks: this.tracks,
      translations: this.translations.slice(first * n * 3, (end + 1) * n * 3),
      rotations: this.rotations.slice(first * n * 4, (end + 1) * n * 4),
      scales: this.scales.slice(first * n * 3, (end + 1) * n * 3),
    });
  }
}

function identityRotations(count: number): Float64Array {
  const r = new Float64Array(count * 4);
  for (let i = 0; i < count; i++) r[i * 4 + 3] = 1;
  return r;
}

/**
 * A clip resolved against a skeleton: for each skeleton bone, the track that drives each attribute
 * (or -1 to keep the reference pose). Built once per (clip, skeleton) pair, when a graph is bound.
 */
export class ClipBinding {
  readonly clip: Clip;
  readonly skeleton: Skeleton;
  readonly translationTrack: Int32Array;
  readonly rotationTrack: Int32Array;
  readonly scaleTrack: Int32Array;
  /** Track bone names the skeleton does not have (ignored when sampling). */
  readonly unmatchedTracks: readonly string[];
  /**
   * The graph instance's curve slot of each of the clip's curves (see AnimGraph.curveNames): a
   * graph's clips share one slot per curve name. By default the clip's own curve order.
   */
  readonly curveSlots: Int32Array;
  /**
   * Its place among its graph's clip bindings (AnimGraph.clipBindings, in order); -1 for a binding
   * made outside a graph. A sampling kernel finds its copy of the clip by it.
   */
  readonly index: number;

  constructor(clip: Clip, skeleton: Skeleton, curveSlots?: ReadonlyMap<string, number>, index = -1) {
    this.index = index;
    this.curveSlots = Int32Array.from(clip.curves, (c, i) => curveSlots ? curveSlots.get(c.name) ?? -1 : i);
    const n = skeleton.boneCount;
    this.clip = clip;
    this.skeleton = skeleton;
    this.translationTrack = new Int32Array(n).fill(-1);
    this.rotationTrack = new Int32Array(n).fill(-1);
    this.scaleTrack = new Int32Array(n).fill(-1);
    const unmatched: string[] = [];
    clip.tracks.forEach((track, t) => {
      const bone = skeleton.indexOf(track.bone);
      if (bone < 0) {
        unmatched.push(track.bone);
        return;
      }
      if (track.translation) this.translationTrack[bone] = t;
      if (track.rotation) this.rotationTrack[bone] = t;
      if (track.scale) this.scaleTrack[bone] = t;
    });
    this.unmatchedTracks = unmatched;
  }
}

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
