import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Hand-made BVH captures of a straight gait with known answers, for root-motion tests: the hips
 * face a constant heading while they pitch and roll (a tilt about a horizontal axis, so no heading
 * of its own) and travel straight along that heading.
 */
export interface GaitOptions {
  /** Rotation channel order of every joint, e.g. 'ZXY' writes `Zrotation Xrotation Yrotation` (Rz·Rx·Ry). */
  order: string;
  up: 'y' | 'z';
  /** Length units per metre: 1 for metres, 100 for centimetres. */
  unit: number;
  headingDeg: number;
  /** Pitch amplitude (twice per stride, one per step) and roll amplitude (once per stride), degrees. */
  pitchDeg: number;
  rollDeg: number;
  /** Phase of the pitch relative to the roll, radians (0: the two are symmetric over a stride). */
  pitchPhase?: number;
  /** Constant forward lean of the hips, degrees (added to the pitch: the tilt stays about one horizontal axis). */
  leanDeg?: number;
  strides: number;
  framesPerStride: number;
  fps: number;
  /** Metres per second along the heading. */
  speed: number;
  /** The hips' rig rotation (their orientation when the body is upright, facing the heading 0). */
  reference: readonly number[];
  /** When given, a static joint `Root` above the hips with this constant rotation and position channels. */
  staticRoot?: readonly number[];
}

type V3 = [number, number, number];
type Q = [number, number, number, number];

export function qmul(a: readonly number[], b: readonly number[]): Q {
  const [ax, ay, az, aw] = a, [bx, by, bz, bw] = b;
  return [aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz];
}
export const qinv = (q: readonly number[]): Q => [-q[0], -q[1], -q[2], q[3]];
export function axisAngle(axis: readonly number[], angle: number): Q {
  const l = Math.hypot(axis[0], axis[1], axis[2]), s = Math.sin(angle / 2) / l;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}
export function rotate(q: readonly number[], v: readonly number[]): V3 {
  const p = qmul(qmul(q, [v[0], v[1], v[2], 0]), qinv(q));
  return [p[0], p[1], p[2]];
}

/** Euler angles in degrees, in `order`, of the intrinsic rotation R_order[0] · R_order[1] · R_order[2] equal to q. */
export function eulerDegrees(q: readonly number[], order: string): V3 {
  const [x, y, z, w] = q;
  const m = [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
  const [a, b, c] = [...order].map((ch) => ch.charCodeAt(0) - 88);
  const e = (b - a + 3) % 3 === 1 ? 1 : -1; // +1 for the cyclic orders XYZ, YZX, ZXY
  const beta = Math.asin(Math.max(-1, Math.min(1, e * m[a][c])));
  const alpha = Math.atan2(-e * m[b][c], m[c][c]);
  const gamma = Math.atan2(-e * m[a][b], m[a][a]);
  const deg = 180 / Math.PI;
  return [alpha * deg, beta * deg, gamma * deg];
}

export interface Gait {
  text: string;
  /** The hips' component-space (world) rotation and position per frame. */
  hipsRotation(f: number): Q;
  hipsPosition(f: number): V3;
  frameCount: number;
  /** Up, forward (at heading 0) and left axes. */
  axes: { up: V3; forward: V3; left: V3 };
}

export function gaitBvh(o: GaitOptions): Gait {
  const up: V3 = o.up === 'y' ? [0, 1, 0] : [0, 0, 1];
  const forward: V3 = o.up === 'y' ? [0, 0, 1] : [0, 1, 0];
  const left: V3 = o.up === 'y' ? [1, 0, 0] : [-1, 0, 0];
  const at = (lat: number, height: number, ahead: number): V3 =>
    [0, 1, 2].map((k) => (lat * left[k] + height * up[k] + ahead * forward[k]) * o.unit) as V3;
  const deg = Math.PI / 180;
  const heading = axisAngle(up, o.headingDeg * deg);
  const frameCount = o.strides * o.framesPerStride + 1;
  const phase = (f: number) => (2 * Math.PI * f) / o.framesPerStride;
  const hipsRotation = (f: number): Q => {
    const pitch = (o.leanDeg ?? 0) * deg + o.pitchDeg * deg * Math.sin(2 * phase(f) + (o.pitchPhase ?? 0));
    const roll = o.rollDeg * deg * Math.sin(phase(f));
    // A tilt about a horizontal axis: pitch about the left axis, roll about the forward axis.
    const axis = [0, 1, 2].map((k) => pitch * left[k] + roll * forward[k]);
    const angle = Math.hypot(pitch, roll);
    const tilt: Q = angle > 0 ? axisAngle(axis, angle) : [0, 0, 0, 1];
    return qmul(qmul(heading, tilt), o.reference);
  };
  const hipsPosition = (f: number): V3 => {
    const d = (o.speed * f) / o.fps;
    const along = rotate(heading, forward);
    return [0, 1, 2].map((k) => (up[k] * (0.95 + 0.03 * Math.cos(2 * phase(f))) + along[k] * d) * o.unit) as V3;
  };
  const toHips = qinv(o.reference);
  // Joints below the hips: offsets in the hips' frame (their rig rotation removed).
  const limbs: { name: string; parent: string; offset: V3; swing?: number }[] = [
    { name: 'Spine', parent: 'Hips', offset: rotate(toHips, at(0, 0.2, 0)) },
    { name: 'Head', parent: 'Spine', offset: rotate(toHips, at(0, 0.45, 0)) },
    { name: 'LeftUpLeg', parent: 'Hips', offset: rotate(toHips, at(0.1, -0.05, 0)), swing: 1 },
    { name: 'LeftLeg', parent: 'LeftUpLeg', offset: rotate(toHips, at(0, -0.45, 0)) },
    { name: 'LeftFoot', parent: 'LeftLeg', offset: rotate(toHips, at(0, -0.43, 0)) },
    { name: 'RightUpLeg', parent: 'Hips', offset: rotate(toHips, at(-0.1, -0.05, 0)), swing: -1 },
    { name: 'RightLeg', parent: 'RightUpLeg', offset: rotate(toHips, at(0, -0.45, 0)) },
    { name: 'RightFoot', parent: 'RightLeg', offset: rotate(toHips, at(0, -0.43, 0)) },
  ];
  const channels = `CHANNELS 6 Xposition Yposition Zposition ${[...o.order].map((c) => `${c}rotation`).join(' ')}`;
  const fmt = (v: readonly number[]) => v.map((x) => String(x)).join(' ');
  const lines = ['HIERARCHY'];
  const open: string[] = [];
  const joint = (kind: string, name: string, offset: readonly number[]) => {
    lines.push(`${kind} ${name}`, '{', `OFFSET ${fmt(offset)}`, channels);
  };
  const hipsOffset = at(0, 0.95, 0);
  if (o.staticRoot) joint('ROOT', 'Root', [0, 0, 0]);
  const rootRotation = o.staticRoot ?? [0, 0, 0, 1];
  joint(o.staticRoot ? 'JOINT' : 'ROOT', 'Hips', rotate(qinv(rootRotation), hipsOffset));
  const closeTo = (parent: string) => {
    while (open.length > 0 && open[open.length - 1] !== parent) { lines.push('}'); open.pop(); }
  };
  open.push('Hips');
  for (const limb of limbs) {
    closeTo(limb.parent);
    joint('JOINT', limb.name, limb.offset);
    open.push(limb.name);
  }
  closeTo('');
  if (o.staticRoot) lines.push('}');
  lines.push('MOTION', `Frames: ${frameCount}`, `Frame Time: ${1 / o.fps}`);
  const leftInHips = rotate(toHips, left);
  for (let f = 0; f < frameCount; f++) {
    const row: number[] = [];
    if (o.staticRoot) row.push(0, 0, 0, ...eulerDegrees(o.staticRoot, o.order));
    const local = qmul(qinv(rootRotation), hipsRotation(f));
    row.push(...rotate(qinv(rootRotation), hipsPosition(f)), ...eulerDegrees(local, o.order));
    for (const limb of limbs) {
      const r = limb.swing ? axisAngle(leftInHips, limb.swing * 30 * deg * Math.sin(phase(f))) : [0, 0, 0, 1];
      row.push(...limb.offset, ...eulerDegrees(r, o.order));
    }
    lines.push(fmt(row));
  }
  return { text: `${lines.join('\n')}\n`, hipsRotation, hipsPosition, frameCount, axes: { up, forward, left } };
}

/** Writes the gait to a fresh temporary folder and returns the file's path. */
export function writeGait(gait: Gait, name = 'gait.bvh'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'animgraph-gait-')), name);
  writeFileSync(file, gait.text);
  return file;
}
