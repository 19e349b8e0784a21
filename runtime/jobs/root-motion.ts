import type { Clip, RootMotionTrack } from '../core/clip.ts';
import type { Skeleton } from '../core/skeleton.ts';
import { AnimGraphError } from '../core/errors.ts';
import {
  quatConjugateMultiply, quatFromAxisAngle, quatFromTo, quatInverseRotateVec3, quatMultiply, quatNormalize, quatRotateVec3, type UpAxis,
} from '../core/math.ts';
import { quoted } from '../core/names.ts';

// Declared where they belong (the track is part of a Clip, the axis a convention of the math), so
// clip.ts imports nothing from here; re-exported for the code that reaches them through root motion.
export type { RootMotionTrack } from '../core/clip.ts';
export type { UpAxis } from '../core/math.ts';

/** Options of extractRootMotion beyond the bone and the up axis. */
export interface RootMotionExtraction {
  /**
   * The bone's reference local rotation: its orientation when the character stands upright
   * (a skeleton's bind pose). Heading is the twist about the up axis of the bone's rotation with
   * this removed. Default: estimated from the clip (see extractRootMotion).
   */
  reference?: ArrayLike<number> | null;
  /**
   * Bones hung beside the root-motion bone from the same static parent that move with the
   * character (a rig's IK feet and pole targets under its root, next to the pelvis): the root
   * motion is taken out of their keys too, so they stay with the pelvis. Default: none.
   */
  companions?: readonly string[];
  /**
   * The component-space transform [tx, ty, tz, qx, qy, qz, qw] of the bone's parent, and optionally
   * its scale [sx, sy, sz] after them, constant over the clip (when the root-motion bone sits below
   * static bones, such as hips under a root at the origin, or under a glTF armature scaled by 100).
   * Motion is extracted in component space, where the floor is. Default: the identity.
   */
  parent?: ArrayLike<number> | null;
}

/**
 * Takes the root bone's horizontal translation and heading out of a clip's keys, so the clip
 * plays in place, and returns them as a track from which root-motion deltas are read. The clip's
 * key arrays are modified: call on a clip the caller owns (the loader extracts on its own slice of
 * the source clip).
 *
 * Heading is where the body faces, not the bone's own yaw: a pelvis bone often carries a rig
 * rotation (a Z-up rig's -90° about X) and tilts as the character walks, and the twist of such a
 * rotation about the up axis mixes pitch and roll into the heading. So the bone's reference
 * orientation R is removed first, and the heading H is the twist about the up axis of
 * rotation · R⁻¹ (swing-twist: what is left is a tilt about a horizontal axis, which has no heading
 * whatever the Euler channel order that built it). R is `options.reference`, or else the smallest
 * rotation that takes the bone's mean up direction over the clip's keys (in the bone's frame) to the
 * up axis: the body's average orientation counts as upright, which removes any rig rotation and a
 * constant lean, and leaves the symmetric pitch and roll of a gait out of the heading exactly.
 * The pose keeps H⁻¹ · rotation (tilt, reference and any constant heading offset), so heading and
 * pose recompose to the original rotation; the root keeps its height.
 */
export function extractRootMotion(clip: Clip, rootBone: string, up: UpAxis = 'y', options: RootMotionExtraction = {}): RootMotionTrack {
  const track = clip.tracks.findIndex((t) => t.bone === rootBone);
  if (track < 0) throw new AnimGraphError('unknown-name', `clip '${clip.name}' has no track for root bone '${rootBone}'`);
  const layout = clip.tracks[track];
  const n = clip.tracks.length;
  const u = up === 'y' ? 1 : 2; // index of the up component
  const translations = new Float64Array(clip.frameCount * 3);
  const headings = new Float64Array(clip.frameCount);
  // s: [0..3] parent rotation, [4..6] parent translation, [7..10] the key's component rotation,
  // [11..14] the reference in component space; v: scratch vectors. Load time: allocating is fine.
  const s = new Float64Array(15);
  const v = new Float64Array(6);
  const parent = options.parent;
  s.set(parent ? [parent[3], parent[4], parent[5], parent[6], parent[0], parent[1], parent[2]] : [0, 0, 0, 1, 0, 0, 0], 0);
  quatNormalize(s, 0);
  const companions = (options.companions ?? []).map((bone) => clip.tracks.findIndex((t) => t.bone === bone)).filter((t) => t >= 0 && t !== track);
  // The parent's scale: a key is scaled by it before the parent's rotation turns it.
  const scale = Float64Array.of(1, 1, 1);
  if (parent && parent.length >= 10) for (let k = 0; k < 3; k++) scale[k] = parent[7 + k];
  const upAxis = Float64Array.of(0, 0, 0);
  upAxis[u] = 1;
  if (layout.rotation) {
    if (options.reference) {
      s.set([options.reference[0], options.reference[1], options.reference[2], options.reference[3]], 7);
      quatNormalize(s, 7);
      quatMultiply(s, 11, s, 0, s, 7);
    } else {
      // The mean of the up axis seen from the bone's component-space frame over the keys.
      v[3] = 0; v[4] = 0; v[5] = 0;
      for (let f = 0; f < clip.frameCount; f++) {
        quatMultiply(s, 7, s, 0, clip.rotations, (f * n + track) * 4);
        quatInverseRotateVec3(v, 0, s, 7, upAxis, 0);
        v[3] += v[0]; v[4] += v[1]; v[5] += v[2];
      }
      quatFromTo(s, 11, v, 3, upAxis, 0, upAxis, 0);
    }
  }
  let previous = 0;
  for (let f = 0; f < clip.frameCount; f++) {
    const t = (f * n + track) * 3, r = (f * n + track) * 4;
    if (layout.translation) {
      // Component-space position: parent translation + parent rotation applied to the scaled key.
      for (let k = 0; k < 3; k++) v[k] = clip.translations[t + k] * scale[k];
      quatRotateVec3(v, 0, s, 0, v, 0);
      for (let k = 0; k < 3; k++) {
        const c = v[k] + s[4 + k];
        translations[f * 3 + k] = k === u ? 0 : c;
        v[3 + k] = k === u ? c - s[4 + k] : -s[4 + k];
      }
      // Back into the parent's frame with the floor position taken out.
      quatInverseRotateVec3(clip.translations, t, s, 0, v, 3);
      for (let k = 0; k < 3; k++) clip.translations[t + k] = Math.abs(scale[k]) > 1e-12 ? clip.translations[t + k] / scale[k] : 0;
    }
    if (layout.rotation) {
      quatMultiply(s, 7, s, 0, clip.rotations, r);
      // The heading is the twist about up of component rotation * reference⁻¹; its twist part is
      // (rotation · up, w) of that product, whose angle needs no normalisation.
      const cx = s[7], cy = s[8], cz = s[9], cw = s[10];
      const rx = -s[11], ry = -s[12], rz = -s[13], rw = s[14];
      const along = u === 1
        ? cw * ry - cx * rz + cy * rw + cz * rx
        : cw * rz + cx * ry - cy * rx + cz * rw;
      const w = cw * rw - cx * rx - cy * ry - cz * rz;
      let heading = 2 * Math.atan2(along, w);
      // Unwrap against the previous key so deltas never jump by a full turn.
      while (heading - previous > Math.PI) heading -= 2 * Math.PI;
      while (heading - previous < -Math.PI) heading += 2 * Math.PI;
      headings[f] = heading;
      previous = heading;
      // Key = parent⁻¹ · H⁻¹ · component rotation.
      quatFromAxisAngle(v, 0, upAxis[0], upAxis[1], upAxis[2], -heading);
      quatMultiply(s, 7, v, 0, s, 7);
      quatConjugateMultiply(clip.rotations, r, s, 0, s, 7);
    }
    for (const other of companions) moveWithRoot(clip, other, f, s, scale, translations, headings[f], upAxis);
  }
  return { up, track, translations, headings };
}

const companionScratch = new Float64Array(12);

/**
 * Takes frame f's root motion (the floor position `floor[f]`, the heading) out of a companion
 * track's key as it is taken out of the root's: its component transform C becomes M⁻¹ · C, M the
 * heading about up at the floor position. `s` holds the shared parent's rotation [0..3] and
 * translation [4..6]; `scale` its scale.
 */
function moveWithRoot(clip: Clip, track: number, f: number, s: Float64Array, scale: Float64Array, floor: Float64Array, heading: number, upAxis: Float64Array): void {
  const n = clip.tracks.length, layout = clip.tracks[track], v = companionScratch;
  const t = (f * n + track) * 3, r = (f * n + track) * 4;
  quatFromAxisAngle(v, 8, upAxis[0], upAxis[1], upAxis[2], -heading);
  if (layout.translation) {
    for (let k = 0; k < 3; k++) v[k] = clip.translations[t + k] * scale[k];
    quatRotateVec3(v, 0, s, 0, v, 0);
    for (let k = 0; k < 3; k++) v[k] += s[4 + k] - floor[f * 3 + k];
    quatRotateVec3(v, 0, v, 8, v, 0);
    for (let k = 0; k < 3; k++) v[3 + k] = v[k] - s[4 + k];
    quatInverseRotateVec3(clip.translations, t, s, 0, v, 3);
    for (let k = 0; k < 3; k++) clip.translations[t + k] = Math.abs(scale[k]) > 1e-12 ? clip.translations[t + k] / scale[k] : 0;
  }
  if (layout.rotation) {
    // Key = parent⁻¹ · H⁻¹ · parent · key.
    quatMultiply(v, 4, s, 0, clip.rotations, r);
    quatMultiply(v, 4, v, 8, v, 4);
    quatConjugateMultiply(clip.rotations, r, s, 0, v, 4);
  }
}

/** Where a clip's root motion is taken from: the bone and what extractRootMotion needs to know about it. */
export interface RootMotionSource extends RootMotionExtraction {
  bone: string;
}

/** A key that moves less than this from the first (in length units or quaternion components) is still. */
const STILL = 1e-6;

/** Whether the clip's track for `bone` changes its translation or rotation over the keys. */
export function boneMoves(clip: Clip, bone: string): boolean {
  const track = clip.tracks.findIndex((t) => t.bone === bone);
  if (track < 0) return false;
  const n = clip.tracks.length, layout = clip.tracks[track];
  for (let f = 1; f < clip.frameCount; f++) {
    for (let k = 0; layout.translation && k < 3; k++) {
      if (!(Math.abs(clip.translations[(f * n + track) * 3 + k] - clip.translations[track * 3 + k]) <= STILL)) return true;
    }
    for (let k = 0; layout.rotation && k < 4; k++) {
      if (!(Math.abs(clip.rotations[(f * n + track) * 4 + k] - clip.rotations[track * 4 + k]) <= STILL)) return true;
    }
  }
  return false;
}

/**
 * The bone a clip's root motion comes from, for the loader: `bone` when given, else the first bone
 * of the skeleton, in hierarchy order, that the clip moves. A skeleton's first bone is often a
 * static root at the origin with the hips below it carrying the motion; extracting from the still
 * root would give none. Returns the source, with the bone's static parent chain (from the clip's
 * first key where it has one, else the reference pose) and its reference rotation
 * when the skeleton has one other than the identity (a BVH skeleton has none: the extraction then
 * estimates it), or a message saying why there is no root motion to extract.
 */
export function rootMotionSource(clip: Clip, skeleton: Skeleton, bone?: string): RootMotionSource | string {
  let index = -1;
  if (bone !== undefined) {
    index = skeleton.indexOf(bone);
    if (index < 0) return `${quoted(bone)} is not a bone of the skeleton`;
    if (!boneMoves(clip, bone)) return `clip ${quoted(clip.name)} does not move bone ${quoted(bone)}, so it has no root motion to extract`;
  } else {
    index = skeleton.boneNames.findIndex((name) => boneMoves(clip, name));
    if (index < 0) return `clip ${quoted(clip.name)} moves none of the skeleton's bones, so it has no root motion to extract`;
  }
  const chain: number[] = [];
  for (let a = skeleton.parents[index]; a >= 0; a = skeleton.parents[a]) chain.unshift(a);
  const ref = skeleton.referencePose;
  // [tx, ty, tz, qx, qy, qz, qw, sx, sy, sz] of the parent in component space, built from the top of
  // the chain as a ComponentPose composes it (a glTF armature's scale of 100 included).
  const parent = new Float64Array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
  const local = new Float64Array(10);
  for (const a of chain) {
    const track = clip.tracks.findIndex((t) => t.bone === skeleton.boneNames[a]);
    const layout = track >= 0 ? clip.tracks[track] : null;
    local.set(layout?.translation ? clip.translations.subarray(track * 3, track * 3 + 3) : ref.translations.subarray(a * 3, a * 3 + 3), 0);
    local.set(layout?.rotation ? clip.rotations.subarray(track * 4, track * 4 + 4) : ref.rotations.subarray(a * 4, a * 4 + 4), 3);
    local.set(layout?.scale ? clip.scales.subarray(track * 3, track * 3 + 3) : ref.scales.subarray(a * 3, a * 3 + 3), 7);
    for (let k = 0; k < 3; k++) local[k] *= parent[7 + k];
    quatRotateVec3(local, 0, parent, 3, local, 0);
    for (let k = 0; k < 3; k++) {
      parent[k] += local[k];
      parent[7 + k] *= local[7 + k];
    }
    quatMultiply(parent, 3, parent, 3, local, 3);
  }
  const r = ref.rotations.subarray(index * 4, index * 4 + 4);
  const identity = Math.abs(r[3]) >= 1 - 1e-12;
  // Moving bones beside it under the same parent travel with the character.
  const parentBone = skeleton.parents[index];
  const companions = parentBone < 0 ? [] : skeleton.boneNames.filter((name, b) => b !== index && skeleton.parents[b] === parentBone && boneMoves(clip, name));
  return { bone: skeleton.boneNames[index], parent: chain.length > 0 ? parent : null, reference: identity ? null : Float64Array.from(r), companions };
}

const segment = new Float64Array(4);

/**
 * The root's position and heading at clip time times[k] into out[o..o+3], interpolated between keys
 * (clamped to the clip).
 */
export function sampleRootMotion(out: Float64Array, o: number, clip: Clip, motion: RootMotionTrack, times: Float64Array, k: number): void {
  const position = Math.min(Math.max(times[k] * clip.frameRate, 0), clip.frameCount - 1);
  const f0 = Math.min(Math.floor(position), clip.frameCount - 1);
  const f1 = Math.min(f0 + 1, clip.frameCount - 1);
  const a = position - f0, t = motion.translations, h = motion.headings;
  for (let c = 0; c < 3; c++) out[o + c] = t[f0 * 3 + c] + (t[f1 * 3 + c] - t[f0 * 3 + c]) * a;
  out[o + 3] = h[f0] + (h[f1] - h[f0]) * a;
}

const from = new Float64Array(4);
const to = new Float64Array(4);
const segmentEnds = new Float64Array(2);

/** Adds the motion from clip time ends[0] to ends[1] (both inside the clip) to `out`, composed after what it holds. */
function addSegment(out: Float64Array, clip: Clip, motion: RootMotionTrack, ends: Float64Array): void {
  sampleRootMotion(from, 0, clip, motion, ends, 0);
  sampleRootMotion(to, 0, clip, motion, ends, 1);
  // Displacement in the frame of the character at time a (heading removed), then rotated into the
  // frame `out` is expressed in (its accumulated heading change).
  const dx = to[0] - from[0], dy = to[1] - from[1], dz = to[2] - from[2];
  const up = motion.up;
  const c = Math.cos(-from[3]), s = Math.sin(-from[3]);
  let lx: number, ly: number, lz: number;
  if (up === 'y') { lx = c * dx + s * dz; ly = dy; lz = -s * dx + c * dz; } else { lx = c * dx - s * dy; ly = s * dx + c * dy; lz = dz; }
  const c2 = Math.cos(out[3]), s2 = Math.sin(out[3]);
  if (up === 'y') { out[0] += c2 * lx + s2 * lz; out[1] += ly; out[2] += -s2 * lx + c2 * lz; } else { out[0] += c2 * lx - s2 * ly; out[1] += s2 * lx + c2 * ly; out[2] += lz; }
  out[3] += to[3] - from[3];
}

/**
 * The root-motion delta of playing from clip time span[0] to span[1] in direction span[3] (its
 * sign), written to out as [dx, dy, dz, dHeading]: the displacement in the character's frame at the
 * start and the heading change in radians. `span[2]`: 0, no wrap; 1, a loop wrap where the times
 * cross the clip's end or start; 2, the move wrapped (to the clip's end, or start, then on from the
 * other end), whatever the two times, with span[5] whole loops between the two ends when the span
 * has a sixth number (a move of exactly one loop ends where it started).
 */
export function rootMotionDelta(out: Float64Array, clip: Clip, motion: RootMotionTrack, span: Float64Array): Float64Array {
  out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 0;
  const a = span[0], b = span[1], wrap = span[2], duration = clip.duration;
  if (!(duration > 0)) return out;
  const forward = span[3] >= 0;
  const ends = segmentEnds;
  ends[0] = a;
  if (wrap === 0 || (wrap === 1 && (forward ? b >= a : b <= a))) {
    ends[1] = b;
    addSegment(out, clip, motion, ends);
    return out;
  }
  // Wrapped: to the end (or start), the whole loops between, then on from the other end.
  ends[1] = forward ? duration : 0;
  addSegment(out, clip, motion, ends);
  const loops = span.length > 5 ? span[5] : 0;
  if (loops > 0) addWholeLoops(out, clip, motion, loops, forward);
  ends[0] = forward ? 0 : duration;
  ends[1] = b;
  addSegment(out, clip, motion, ends);
  return out;
}

const loopDelta = new Float64Array(4);

/**
 * Adds `loops` whole loops of the clip (forwards or backwards) to `out`, as that many segments over
 * the whole clip would, in constant time: a loop moves the character by the same displacement d in
 * its frame and turns it by θ, so k loops move it by Σ R(h + iθ) d (i < k) for the heading h it
 * starts them at, which is R(h + (k - 1)θ / 2) d · sin(kθ / 2) / sin(θ / 2), and up by k times d's
 * height.
 */
function addWholeLoops(out: Float64Array, clip: Clip, motion: RootMotionTrack, loops: number, forward: boolean): void {
  const d = loopDelta;
  d[0] = 0; d[1] = 0; d[2] = 0; d[3] = 0;
  const ends = segmentEnds;
  ends[0] = forward ? 0 : clip.duration;
  ends[1] = forward ? clip.duration : 0;
  addSegment(d, clip, motion, ends);
  const theta = d[3], half = Math.sin(theta * 0.5);
  // Turning less than rounding can tell apart from not turning: k steps straight on.
  const factor = Math.abs(half) > 1e-12 ? Math.sin(loops * theta * 0.5) / half : loops;
  const angle = out[3] + (Math.abs(half) > 1e-12 ? (loops - 1) * theta * 0.5 : 0);
  const c = Math.cos(angle) * factor, s = Math.sin(angle) * factor;
  if (motion.up === 'y') {
    out[0] += c * d[0] + s * d[2]; out[1] += loops * d[1]; out[2] += -s * d[0] + c * d[2];
  } else {
    out[0] += c * d[0] - s * d[1]; out[1] += s * d[0] + c * d[1]; out[2] += loops * d[2];
  }
  out[3] += loops * theta;
}

/**
 * Adds the root motion of span[0..3] (as rootMotionDelta takes them) times span[4], the weight of
 * the branch that played it, to `out` (its branch's UpdateContext.rootMotion), leaving the unweighted delta in
 * `delta`: every node that plays a clip contributes its share this way (runtime/jobs/clip-playback.ts).
 */
export function addRootMotion(out: Float64Array, delta: Float64Array, clip: Clip, motion: RootMotionTrack, span: Float64Array): void {
  rootMotionDelta(delta, clip, motion, span);
  const w = span[4];
  out[0] += delta[0] * w;
  out[1] += delta[1] * w;
  out[2] += delta[2] * w;
  out[3] += delta[3] * w;
}

const windowTimes = new Float64Array(3);
const rootAt = new Float64Array(12);

/**
 * Adds one source's report to `out`, a branch's root-motion velocity (UpdateContext.rootVelocity):
 * the clip's mean root velocity over `args[2]` seconds of clip time around clip time `args[0]`
 * (the whole clip when 0 or longer than it; kept inside the clip, shifted at its ends rather than
 * wrapped, so no looping flag is needed), turned into the character's frame at `args[0]`, times
 * `args[1]` (clip seconds the source advances per second) and `args[3]` (its absolute weight),
 * which is also added to out[3].
 */
export function addRootVelocity(out: Float64Array, clip: Clip, motion: RootMotionTrack, args: Float64Array): void {
  // The field through arithmetic, joined below with the window: see CONTRIBUTING.md, "Numbers in the frame loop"
  const duration = clip.duration * 1, time = args[0], window = args[2], weight = args[3];
  if (!(duration > 0)) return;
  const length = window > 0 && window < duration ? window : duration;
  let start = time - length * 0.5;
  start = start < 0 ? 0 : start > duration - length ? duration - length : start;
  windowTimes[0] = start; windowTimes[1] = start + length; windowTimes[2] = time;
  sampleRootMotion(rootAt, 0, clip, motion, windowTimes, 0);
  sampleRootMotion(rootAt, 4, clip, motion, windowTimes, 1);
  sampleRootMotion(rootAt, 8, clip, motion, windowTimes, 2);
  // The window's displacement seen from the character's heading at the play time.
  const dx = rootAt[4] - rootAt[0], dy = rootAt[5] - rootAt[1], dz = rootAt[6] - rootAt[2];
  const c = Math.cos(-rootAt[11]), sn = Math.sin(-rootAt[11]);
  let k = (args[1] * weight) / length;
  // A pace near the largest double (a play rate, or an explicit time's jump over a frame of 5e-324 s)
  // over a window under a second overflows, and a still root's 0 × Infinity was NaN. Held at the
  // largest double, a still root reports 0 at any pace (a moving one may report ±Infinity, which
  // StrideWarping, reading it, takes as no measurement).
  if (k - k !== 0) k = args[1] > 0 ? 1.7976931348623157e308 : -1.7976931348623157e308;
  if (motion.up === 'y') {
    out[0] += (c * dx + sn * dz) * k; out[1] += dy * k; out[2] += (c * dz - sn * dx) * k;
  } else {
    out[0] += (c * dx - sn * dy) * k; out[1] += (sn * dx + c * dy) * k; out[2] += dz * k;
  }
  out[3] += weight;
}

/**
 * Applies a root-motion delta to a world transform of the character kept as
 * [tx, ty, tz, qx, qy, qz, qw]: translation moves in the character's current facing, the heading
 * turns about the up axis.
 */
export function integrateRootMotion(world: Float64Array, delta: Float64Array, up: UpAxis = 'y'): Float64Array {
  const qx = world[3], qy = world[4], qz = world[5], qw = world[6];
  const vx = delta[0], vy = delta[1], vz = delta[2];
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  world[0] += vx + qw * tx + (qy * tz - qz * ty);
  world[1] += vy + qw * ty + (qz * tx - qx * tz);
  world[2] += vz + qw * tz + (qx * ty - qy * tx);
  const h = delta[3] * 0.5, s = Math.sin(h), c = Math.cos(h);
  const ax = 0, ay = up === 'y' ? s : 0, az = up === 'z' ? s : 0;
  // q = q * turn (the turn is about the character's own up axis)
  world[3] = qw * ax + qx * c + qy * az - qz * ay;
  world[4] = qw * ay - qx * az + qy * c + qz * ax;
  world[5] = qw * az + qx * ay - qy * ax + qz * c;
  world[6] = qw * c - qx * ax - qy * ay - qz * az;
  const len = Math.sqrt(world[3] * world[3] + world[4] * world[4] + world[5] * world[5] + world[6] * world[6]) || 1;
  for (let i = 3; i < 7; i++) world[i] /= len;
  return world;
}
