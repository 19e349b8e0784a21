import type { Clip } from './clip.ts';

/** Which component-space axis points up (the floor is the plane normal to it). */
export type UpAxis = 'y' | 'z';

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

/**
 * Takes the root bone's horizontal translation and heading out of a clip's keys, so the clip
 * plays in place (the root keeps its height and its tilt), and returns them as a track from
 * which root-motion deltas are read. The clip's key arrays are modified: call on a clip the
 * caller owns (the loader extracts on its own slice of the source clip).
 */
export function extractRootMotion(clip: Clip, rootBone: string, up: UpAxis = 'y'): RootMotionTrack {
  const track = clip.tracks.findIndex((t) => t.bone === rootBone);
  if (track < 0) throw new RangeError(`clip '${clip.name}' has no track for root bone '${rootBone}'`);
  const layout = clip.tracks[track];
  const n = clip.tracks.length;
  const u = up === 'y' ? 1 : 2; // index of the up component
  const translations = new Float64Array(clip.frameCount * 3);
  const headings = new Float64Array(clip.frameCount);
  let previous = 0;
  for (let f = 0; f < clip.frameCount; f++) {
    const t = (f * n + track) * 3, r = (f * n + track) * 4;
    if (layout.translation) {
      for (let k = 0; k < 3; k++) {
        if (k === u) continue;
        translations[f * 3 + k] = clip.translations[t + k];
        clip.translations[t + k] = 0;
      }
    }
    if (layout.rotation) {
      // Heading = the twist of the root rotation about the up axis; the pose keeps the rest (swing).
      const x = clip.rotations[r], y = clip.rotations[r + 1], z = clip.rotations[r + 2], w = clip.rotations[r + 3];
      const along = up === 'y' ? y : z;
      let heading = 2 * Math.atan2(along, w);
      // Unwrap against the previous key so deltas never jump by a full turn.
      while (heading - previous > Math.PI) heading -= 2 * Math.PI;
      while (heading - previous < -Math.PI) heading += 2 * Math.PI;
      headings[f] = heading;
      previous = heading;
      // rotation = inverse(twist) * rotation
      const h = -heading * 0.5, s = Math.sin(h), c = Math.cos(h);
      const tx = 0, ty = up === 'y' ? s : 0, tz = up === 'z' ? s : 0;
      clip.rotations[r] = c * x + tx * w + ty * z - tz * y;
      clip.rotations[r + 1] = c * y - tx * z + ty * w + tz * x;
      clip.rotations[r + 2] = c * z + tx * y - ty * x + tz * w;
      clip.rotations[r + 3] = c * w - tx * x - ty * y - tz * z;
    }
  }
  return { up, track, translations, headings };
}

const segment = new Float64Array(4);

/**
 * The root's position and heading at clip time times[k] into out[o..o+3], interpolated between keys
 * (clamped to the clip). Times come in an array: V8 boxes a double passed to a call it does not
 * inline, and this runs for every root-motion clip every frame.
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
 * The root-motion delta of playing from clip time span[0] to span[1] (a loop wrap is taken when
 * `span[2]` is 1 and the times cross the clip's end or start), written to out as
 * [dx, dy, dz, dHeading]: the displacement in the character's frame at the start and the heading
 * change in radians. Times come in an array so the per-frame call boxes no numbers.
 */
export function rootMotionDelta(out: Float64Array, clip: Clip, motion: RootMotionTrack, span: Float64Array): Float64Array {
  out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 0;
  const a = span[0], b = span[1], looping = span[2] !== 0, duration = clip.duration;
  if (!(duration > 0)) return out;
  const forward = span[3] >= 0;
  const ends = segmentEnds;
  ends[0] = a;
  if (!looping || (forward ? b >= a : b <= a)) {
    ends[1] = b;
    addSegment(out, clip, motion, ends);
    return out;
  }
  // Wrapped once: to the end (or start), then on from the other end.
  ends[1] = forward ? duration : 0;
  addSegment(out, clip, motion, ends);
  ends[0] = forward ? 0 : duration;
  ends[1] = b;
  addSegment(out, clip, motion, ends);
  return out;
}

/**
 * Adds the root motion of span[0..3] (as rootMotionDelta takes them) times span[4], the weight of
 * the branch that played it, to `out` (its branch's UpdateContext.rootMotion), leaving the unweighted delta in
 * `delta`: every node that plays a clip contributes its share this way. The weight travels in the
 * span because V8 boxes a double passed to a call it does not inline.
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
 * which is also added to out[3]. In an array for the reason given at addRootMotion.
 */
export function addRootVelocity(out: Float64Array, clip: Clip, motion: RootMotionTrack, args: Float64Array): void {
  // The field through arithmetic, so that joining it with the window below joins two unboxed doubles.
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
  const c = Math.cos(-rootAt[11]), sn = Math.sin(-rootAt[11]), k = (args[1] * weight) / length;
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
