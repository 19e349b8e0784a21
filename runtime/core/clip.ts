import type { ClipCurve, ClipNotifyTrack } from './clip-events.ts';
import { AnimGraphError } from './errors.ts';
import { firstBeyond, MAX_KEY_MAGNITUDE, MAX_KEY_MAGNITUDE_TEXT, quatNormalize, type UpAxis } from './math.ts';
import { quoted } from './names.ts';
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

/** Where a retargeted clip comes from (Clip.retarget): read-only, shared by every clip made from it. */
export interface ClipRetarget {
  /** The source skeleton's bone names. */
  readonly sourceBones: readonly string[];
  /** Each target bone's source bone index, -1 for none (target bone order). */
  readonly map: Int32Array;
  /** The target's retarget root (its pelvis). */
  readonly root: number;
  /** Target hip height over source hip height: the scale of the root's translation. */
  readonly scale: number;
  /** The rotation (x, y, z, w) from the source's component space to the target's (their body axes). */
  readonly alignment: Float64Array;
  /** The target's up axis in component space: 0 x, 1 y, 2 z. */
  readonly up: number;
  /**
   * The clip as authored, at the same frames (its `frames` applied, before root motion or mirroring),
   * and the skeleton it plays on: a source pose at a time is this clip sampled at that time.
   */
  readonly source: { readonly clip: Clip; readonly skeleton: Skeleton };
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
  /** True for a clip made by mirroring another (mirrorClip, runtime/core/mirror.ts) an odd number of times. */
  mirrored = false;
  /**
   * For an additive clip (marked so in its asset; see runtime/core/additive.ts): the space of its deltas
   * and the clip as authored, before its keys became deltas. Null for an ordinary clip.
   */
  additive: { readonly space: AdditiveSpace; readonly source: Clip } | null = null;
  /**
   * For a clip retargeted from another skeleton (see runtime/jobs/retarget.ts), what it was made
   * from, for messages and debug views; null for a clip authored on its skeleton.
   */
  retarget: ClipRetarget | null = null;
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
      throw new AnimGraphError('invalid-data', `clip '${init.name}': key arrays do not match ${init.frameCount} frames of ${trackCount} tracks at ${init.frameRate} fps`);
    }
  }

  /** Length in seconds from the first key to the last. A one-frame clip has duration 0. */
  readonly duration: number;

  private spans: Float64Array | null = null;
  private unitKeys = false;

  /**
   * Whether every rotation key is a unit quaternion to rounding (|q|² within 1e-14 of 1; known once
   * prepareKeys has run). Then a slerp between two keys is unit to rounding too (to 7.2e-13 where
   * its sines come from their series: see SLERP_SERIES_MAX_ANGLE in sampling.ts), and sampling skips renormalising
   * it, as three.js's slerpFlat does: a square root and a division per bone.
   * Keys within NEAR_UNIT_KEY of unit length (single precision, a glTF file's normalised
   * integers) are normalised in place by prepareKeys, so they count as unit.
   */
  get unitRotationKeys(): boolean {
    return this.unitKeys;
  }

  private keysPrepared = false;

  /**
   * Readies the rotation keys for sampling, once (a ClipBinding does it when it is made, so every
   * sample sees the same keys): keys stored in single precision or as normalised integers (glTF)
   * are unit only to their storage's rounding, and are normalised here, in double precision, so
   * that sampling them costs what sampling unit keys does. Keys further off keep their length and
   * every sample of them is renormalised. Load-time edits of the keys come before it.
   */
  prepareKeys(): void {
    if (this.keysPrepared) return;
    this.keysPrepared = true;
    const r = this.rotations;
    if (!unitKeys(r) && nearUnitKeys(r)) normalizeKeys(r);
    this.unitKeys = unitKeys(r);
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
    this.prepareKeys();
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
      throw new AnimGraphError('out-of-range', `clip '${this.name}' has frames 0..${this.frameCount - 1}; cannot take ${first}..${last}`);
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

/**
 * How far |q|² of a rotation key may be from 1 for the key to count as a unit quaternion stored with
 * rounding (a float's is 1e-7, a normalised 8-bit integer's 1e-2 at worst; 16-bit 1e-4), and be
 * normalised once before it is first sampled.
 */
export const NEAR_UNIT_KEY = 0.05;

function unitKeys(r: Float64Array): boolean {
  for (let i = 0; i < r.length; i += 4) {
    const len2 = r[i] * r[i] + r[i + 1] * r[i + 1] + r[i + 2] * r[i + 2] + r[i + 3] * r[i + 3];
    if (!(Math.abs(len2 - 1) <= 1e-14)) return false;
  }
  return true;
}

function nearUnitKeys(r: Float64Array): boolean {
  for (let i = 0; i < r.length; i += 4) {
    const len2 = r[i] * r[i] + r[i + 1] * r[i + 1] + r[i + 2] * r[i + 2] + r[i + 3] * r[i + 3];
    if (!(Math.abs(len2 - 1) <= NEAR_UNIT_KEY)) return false;
  }
  return true;
}

function normalizeKeys(r: Float64Array): void {
  for (let i = 0; i < r.length; i += 4) {
    const inv = 1 / Math.sqrt(r[i] * r[i] + r[i + 1] * r[i + 1] + r[i + 2] * r[i + 2] + r[i + 3] * r[i + 3]);
    r[i] *= inv; r[i + 1] *= inv; r[i + 2] *= inv; r[i + 3] *= inv;
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
    clip.prepareKeys();
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
