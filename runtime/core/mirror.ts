import { mirrorPartners } from './bone-names.ts';
import { Clip, ClipBinding } from './clip.ts';
import { meshRotations, clipFramePose } from './additive.ts';
import { AnimGraphError } from './errors.ts';
import { Pose } from './pose.ts';
import type { MirrorSettings, Skeleton } from './skeleton.ts';

export type { MirrorSettings } from './skeleton.ts';

/*
 * Mirroring a pose across a plane of component space through the origin (x = 0 by default: a
 * character facing ±z, left at +x): each bone takes its partner's transform reflected. A
 * reflection S turns a component transform C into S·C·S, a proper rotation again, and since a
 * bone's partner hangs from its parent's partner, the same holds of local transforms:
 *   L_b ← S · L_partner(b) · S
 * which for the plane x = 0 negates the translation's x, and the rotation quaternion's y and z
 * (x, y, z, w) → (x, −y, −z, w). Sign flips and a swap: no arithmetic, so mirroring twice gives
 * back the very same numbers.
 *
 * Where the left and right bones' axes are not reflections of each other (a glTF rig whose left
 * bones roll one way and right bones the other), the reflected reference pose is not the
 * reference pose; a correction K_b per bone, read from the reference pose, puts it back:
 *   L_b ← K_parent⁻¹ · S · L_partner(b) · S · K_b,   K_b = (S · C_partner ref · S)⁻¹ · C_b ref
 * (C the component rotations). K is the identity for a rig whose bones' axes are symmetric (a BVH
 * with zero rest rotations, such as the CMU captures), and the formula is then the sign flips
 * above; a correction within 1e-6 of the identity counts as none. Otherwise mirroring twice returns
 * the pose to rounding (a product of quaternions), and exactly where K is a half turn about an axis.
 */

/** The plane's normal axis in component space: 0 = x, 1 = y, 2 = z. */
export type MirrorAxis = 0 | 1 | 2;
export type MirrorPlane = 'x' | 'y' | 'z';

/**
 * What mirroring a skeleton's poses needs, built once (mirrorTable) and shared: each bone's
 * partner, the plane, and the corrections. Read-only.
 */
export class MirrorTable {
  /** partner[b] is the bone b takes its transform from (b itself for a bone on the plane). */
  readonly partner: Int32Array;
  readonly axis: MirrorAxis;
  /** Each bone's correction K_b (x, y, z, w), used where `corrected[b]` is 1. */
  readonly corrections: Float64Array;
  readonly corrected: Uint8Array;
  readonly parents: Int32Array;

  constructor(skeleton: Skeleton, partner: Int32Array, axis: MirrorAxis) {
    const n = skeleton.boneCount;
    for (let b = 0; b < n; b++) {
      if (partner[b] < 0 || partner[b] >= n || partner[partner[b]] !== b) {
        throw new AnimGraphError('invalid-data', `mirror table: bone '${skeleton.boneNames[b]}' and its partner are not each other's partners`);
      }
    }
    this.partner = partner;
    this.axis = axis;
    this.parents = skeleton.parents;
    this.corrections = new Float64Array(n * 4);
    this.corrected = new Uint8Array(n);
    const mesh = meshRotations(new Float64Array(n * 4), skeleton.referencePose.rotations, skeleton.parents);
    const k = new Float64Array(4), s = new Float64Array(4);
    for (let b = 0; b < n; b++) {
      const p = partner[b];
      if (p < b) continue;
      // K_b = σ(C_p)⁻¹ · C_b; the partner's is σ(K_b)⁻¹, so that K and the reflection cancel exactly in pairs.
      reflectQuat(s, 0, mesh, p * 4, axis);
      conjugateMultiply(k, s, mesh, b * 4);
      this.setCorrection(b, k);
      if (p !== b) {
        reflectQuat(s, 0, k, 0, axis);
        s[0] = -s[0]; s[1] = -s[1]; s[2] = -s[2];
        this.setCorrection(p, s);
      }
    }
  }

  private setCorrection(bone: number, k: Float64Array): void {
    // Within 2.8e-5 rad (|w| within 1e-10 of 1) of the identity is none: the reflection alone then,
    // so that a glTF rig's single-precision rest rotations do not cost a rig exactness.
    if (Math.abs(k[3]) >= 1 - 1e-10) return;
    this.corrections.set(k, bone * 4);
    this.corrected[bone] = 1;
  }

  /** How many bones have a correction (0 for a rig whose left and right axes mirror each other). */
  get correctedCount(): number {
    let count = 0;
    for (let b = 0; b < this.corrected.length; b++) count += this.corrected[b];
    return count;
  }
}

/** out = σ(q): q reflected across the plane normal to `axis` (the quaternion of S·R·S). */
function reflectQuat(out: Float64Array, o: number, q: Float64Array, qo: number, axis: MirrorAxis): void {
  out[o] = axis === 0 ? q[qo] : -q[qo];
  out[o + 1] = axis === 1 ? q[qo + 1] : -q[qo + 1];
  out[o + 2] = axis === 2 ? q[qo + 2] : -q[qo + 2];
  out[o + 3] = q[qo + 3];
}

function conjugateMultiply(out: Float64Array, a: Float64Array, b: Float64Array, bo: number): void {
  const ax = -a[0], ay = -a[1], az = -a[2], aw = a[3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  out[0] = aw * bx + ax * bw + ay * bz - az * by;
  out[1] = aw * by - ax * bz + ay * bw + az * bx;
  out[2] = aw * bz + ax * by - ay * bx + az * bw;
  out[3] = aw * bw - ax * bx - ay * by - az * bz;
}

/**
 * The mirror table of a skeleton: partners from the bone names (mirroredName) and `settings.pairs`,
 * the plane `settings.plane`, or else the axis along which the paired bones of the reference pose
 * lie furthest apart (x when no bone has a partner).
 */
export function mirrorTable(skeleton: Skeleton, settings: MirrorSettings = skeleton.mirror ?? {}): MirrorTable {
  const partner = mirrorPartners(skeleton, settings.pairs ?? []);
  let axis: MirrorAxis = 0;
  if (settings.plane !== undefined) axis = settings.plane === 'x' ? 0 : settings.plane === 'y' ? 1 : 2;
  else {
    const positions = referencePositions(skeleton);
    const spread = [0, 0, 0];
    for (let b = 0; b < skeleton.boneCount; b++) {
      for (let k = 0; k < 3; k++) spread[k] += Math.abs(positions[b * 3 + k] - positions[partner[b] * 3 + k]);
    }
    axis = (spread[1] > spread[0] && spread[1] >= spread[2] ? 1 : spread[2] > spread[0] && spread[2] > spread[1] ? 2 : 0);
  }
  return new MirrorTable(skeleton, partner, axis);
}

const tables = new WeakMap<Skeleton, MirrorTable>();

/** The skeleton's mirror table by its own settings (Skeleton.mirror), built once and shared. */
export function skeletonMirrorTable(skeleton: Skeleton): MirrorTable {
  let table = tables.get(skeleton);
  if (table === undefined) {
    table = mirrorTable(skeleton);
    tables.set(skeleton, table);
  }
  return table;
}

/** Component-space positions of the reference pose (3 per bone). */
export function referencePositions(skeleton: Skeleton): Float64Array {
  const n = skeleton.boneCount, ref = skeleton.referencePose, parents = skeleton.parents;
  const t = new Float64Array(n * 3), r = meshRotations(new Float64Array(n * 4), ref.rotations, parents), s = new Float64Array(n * 3);
  for (let b = 0; b < n; b++) {
    const p = parents[b];
    for (let k = 0; k < 3; k++) s[b * 3 + k] = (p < 0 ? 1 : s[p * 3 + k]) * ref.scales[b * 3 + k];
    if (p < 0) {
      t.set(ref.translations.subarray(b * 3, b * 3 + 3), b * 3);
      continue;
    }
    const vx = ref.translations[b * 3] * s[p * 3], vy = ref.translations[b * 3 + 1] * s[p * 3 + 1], vz = ref.translations[b * 3 + 2] * s[p * 3 + 2];
    const qx = r[p * 4], qy = r[p * 4 + 1], qz = r[p * 4 + 2], qw = r[p * 4 + 3];
    const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
    t[b * 3] = t[p * 3] + vx + qw * tx + (qy * tz - qz * ty);
    t[b * 3 + 1] = t[p * 3 + 1] + vy + qw * ty + (qz * tx - qx * tz);
    t[b * 3 + 2] = t[p * 3 + 2] + vz + qw * tz + (qx * ty - qy * tx);
  }
  return t;
}

/** One bone's transform held while its partner's is written: translation 0..2, rotation 3..6, scale 7..9; two of them. */
const held = new Float64Array(20);

/**
 * Mirrors `pose` in place (see the top of this file): every bone takes its partner's transform
 * reflected and corrected. Allocates nothing; the pose must be of the table's skeleton.
 */
export function mirrorPose(pose: Pose, table: MirrorTable): Pose {
  const partner = table.partner, n = partner.length;
  const t = pose.translations, r = pose.rotations, s = pose.scales;
  for (let b = 0; b < n; b++) {
    const p = partner[b];
    if (p < b) continue;
    hold(t, r, s, p, 0);
    if (p !== b) hold(t, r, s, b, 10);
    writeMirrored(t, r, s, b, 0, table);
    if (p !== b) writeMirrored(t, r, s, p, 10, table);
  }
  return pose;
}

function hold(t: Float64Array, r: Float64Array, s: Float64Array, bone: number, at: number): void {
  const b3 = bone * 3, b4 = bone * 4;
  held[at] = t[b3]; held[at + 1] = t[b3 + 1]; held[at + 2] = t[b3 + 2];
  held[at + 3] = r[b4]; held[at + 4] = r[b4 + 1]; held[at + 5] = r[b4 + 2]; held[at + 6] = r[b4 + 3];
  held[at + 7] = s[b3]; held[at + 8] = s[b3 + 1]; held[at + 9] = s[b3 + 2];
}

/** Writes bone `bone` as the reflection of the transform held at `at` (its partner's), corrected. */
function writeMirrored(t: Float64Array, r: Float64Array, s: Float64Array, bone: number, at: number, table: MirrorTable): void {
  const axis = table.axis, b3 = bone * 3, b4 = bone * 4;
  // S · L · S: the translation's component along the normal and the rotation's two others negate.
  let tx = held[at], ty = held[at + 1], tz = held[at + 2];
  let qx = held[at + 3], qy = held[at + 4], qz = held[at + 5], qw = held[at + 6];
  if (axis === 0) { tx = -tx; qy = -qy; qz = -qz; } else if (axis === 1) { ty = -ty; qx = -qx; qz = -qz; } else { tz = -tz; qx = -qx; qy = -qy; }
  const parent = table.parents[bone], k = table.corrections;
  if (parent >= 0 && table.corrected[parent] === 1) {
    // K_parent⁻¹ applied on the left: to the translation and the rotation.
    const p4 = parent * 4;
    const ax = -k[p4], ay = -k[p4 + 1], az = -k[p4 + 2], aw = k[p4 + 3];
    const cx = 2 * (ay * tz - az * ty), cy = 2 * (az * tx - ax * tz), cz = 2 * (ax * ty - ay * tx);
    const nx = tx + aw * cx + (ay * cz - az * cy), ny = ty + aw * cy + (az * cx - ax * cz), nz = tz + aw * cz + (ax * cy - ay * cx);
    tx = nx; ty = ny; tz = nz;
    const rx = aw * qx + ax * qw + ay * qz - az * qy;
    const ry = aw * qy - ax * qz + ay * qw + az * qx;
    const rz = aw * qz + ax * qy - ay * qx + az * qw;
    const rw = aw * qw - ax * qx - ay * qy - az * qz;
    qx = rx; qy = ry; qz = rz; qw = rw;
  }
  if (table.corrected[bone] === 1) {
    const bx = k[b4], by = k[b4 + 1], bz = k[b4 + 2], bw = k[b4 + 3];
    const rx = qw * bx + qx * bw + qy * bz - qz * by;
    const ry = qw * by - qx * bz + qy * bw + qz * bx;
    const rz = qw * bz + qx * by - qy * bx + qz * bw;
    const rw = qw * bw - qx * bx - qy * by - qz * bz;
    qx = rx; qy = ry; qz = rz; qw = rw;
  }
  t[b3] = tx; t[b3 + 1] = ty; t[b3 + 2] = tz;
  r[b4] = qx; r[b4 + 1] = qy; r[b4 + 2] = qz; r[b4 + 3] = qw;
  s[b3] = held[at + 7]; s[b3 + 1] = held[at + 8]; s[b3 + 2] = held[at + 9];
}

/**
 * The clip mirrored, once at load: every frame's pose (bones without a track at the reference)
 * mirrored, as a clip keying each bone's attributes that it or its partner keys. Root motion is
 * then extracted from the mirrored keys, so it is mirrored too.
 */
export function mirrorClip(clip: Clip, skeleton: Skeleton, table: MirrorTable): Clip {
  const binding = new ClipBinding(clip, skeleton);
  const n = skeleton.boneCount, partner = table.partner;
  const bones: number[] = [];
  const tracks = [];
  for (let b = 0; b < n; b++) {
    const p = partner[b];
    const translation = binding.translationTrack[b] >= 0 || binding.translationTrack[p] >= 0;
    const rotation = binding.rotationTrack[b] >= 0 || binding.rotationTrack[p] >= 0;
    const scale = binding.scaleTrack[b] >= 0 || binding.scaleTrack[p] >= 0;
    if (!translation && !rotation && !scale) continue;
    bones.push(b);
    tracks.push({ bone: skeleton.boneNames[b], translation, rotation, scale });
  }
  const out = new Clip({ name: clip.name, interpolation: clip.interpolation, frameRate: clip.frameRate, frameCount: clip.frameCount, tracks });
  // Retargeted from the same bones: the root a retargeted clip's motion is taken from is a centre bone.
  out.retarget = clip.retarget;
  out.mirrored = !clip.mirrored;
  const pose = new Pose(n), m = bones.length;
  for (let f = 0; f < clip.frameCount; f++) {
    mirrorPose(clipFramePose(pose, binding, f), table);
    for (let i = 0; i < m; i++) {
      const b = bones[i];
      out.translations.set(pose.translations.subarray(b * 3, b * 3 + 3), (f * m + i) * 3);
      out.rotations.set(pose.rotations.subarray(b * 4, b * 4 + 4), (f * m + i) * 4);
      out.scales.set(pose.scales.subarray(b * 3, b * 3 + 3), (f * m + i) * 3);
    }
  }
  return out;
}
