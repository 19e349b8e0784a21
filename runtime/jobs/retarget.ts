import { autoBoneMap, boneRoles } from '../core/bone-names.ts';
import { clipFramePose } from '../core/additive.ts';
import { Clip, ClipBinding } from '../core/clip.ts';
import { ComponentPose } from '../core/component-pose.ts';
import { AnimGraphError } from '../core/errors.ts';
import { quatConjugateMultiply, quatInverseRotateVec3, quatMultiply, quatNormalize, quatRotateVec3 } from '../core/math.ts';
import { Pose } from '../core/pose.ts';
import type { Skeleton } from '../core/skeleton.ts';
import { quoted } from '../core/names.ts';
import { solveTwoBoneIK, twoBoneIKOptions } from './two-bone-ik.ts';

/*
 * Retargeting: a clip authored on one skeleton (the source) made into a clip of another (the
 * target), once at load, so that playing it costs what any clip costs. Per frame:
 *
 * - Each mapped target bone turns, in component space, as its source bone turns from the source's
 *   reference pose:  C_t = A · (C_s · C_s,ref⁻¹) · A⁻¹ · C_t,ref.  So a T-pose capture drives an
 *   A-pose character: what moves is the change from each skeleton's own reference, not the rotation.
 *   A is the rotation taking the source reference's body axes to the target's (up: pelvis to neck,
 *   snapped to the nearest axis; left: right thigh to left thigh, made level): a capture facing +x
 *   with z up drives a character facing +z with y up.
 * - Bone lengths are the target's: every bone keeps its reference local translation, but the
 *   pelvis (the retarget root) and the mapped bones above it, whose component positions move by the
 *   source's displacement from its reference, scaled by the ratio of the hip heights (the pelvis
 *   above the lowest bone of each reference pose) and turned by A. Root motion extracted from the
 *   retargeted clip is so scaled too.
 * - A mapped bone whose parent is not where its source bone's parent is (the robot's feet hang from
 *   the root, the capture's from the calves) follows its nearest mapped ancestor in the source's
 *   hierarchy rigidly, as its reference pose places it relative to that bone.
 * - Bones nothing maps keep the target's reference local transforms: they follow their parents.
 * - With the foot pass (RetargetOptions.feet), each leg's thigh and calf are then turned by
 *   two-bone IK so that its foot reaches where the scaled source puts the source's foot; with the
 *   hand pass (RetargetOptions.hands), each arm's upper arm and forearm so that its hand reaches
 *   where the scaled source puts the source's hand.
 */

/** What retargetClip is told beyond the clip and the two skeletons. */
export interface RetargetOptions {
  /**
   * Target bone → source bone index, -1 for none (target bone order). Default: autoBoneMap, the
   * bones matched by role across naming conventions.
   */
  map?: Int32Array;
  /** The source's reference pose: what its rotations are changes from. Default: the source skeleton's reference pose. */
  sourceReference?: Pose;
  /** The retargeted clip's name (default the clip's). */
  name?: string;
  /**
   * True to reach each foot, by two-bone IK on its thigh and calf, to where the scaled source puts
   * the source's foot (the legs then bend as they must; the feet slide as the scaled source's do).
   */
  feet?: boolean;
  /**
   * True to reach each hand, by two-bone IK on its upper arm and forearm, to where the scaled
   * source puts the source's hand (contacts with the body or a prop stay where the source has them).
   */
  hands?: boolean;
}

/** What retargeting found, for messages and the command's report. */
export interface RetargetInfo {
  /** Target bone → source bone index, or -1 (target bone order). */
  readonly map: Int32Array;
  /** The target's retarget root (its pelvis), whose translation follows the source's. */
  readonly root: number;
  /** Target hip height over source hip height: the scale of the root's translation. */
  readonly scale: number;
  /** The up axis of each reference (0 x, 1 y, 2 z) and sign. */
  readonly sourceUp: readonly [number, number];
  readonly targetUp: readonly [number, number];
  /** The rotation A (x, y, z, w) from the source's body axes to the target's. */
  readonly alignment: Float64Array;
  /**
   * Per target bone, the bone it follows rigidly (its nearest mapped ancestor in the source's
   * hierarchy, where that is not an ancestor in the target's), or -1 for a bone placed by its
   * reference offset from its parent.
   */
  readonly anchors: Int32Array;
  /** The legs the foot pass reached with (RetargetOptions.feet), as [thigh, calf, foot] target bones. */
  readonly legs: readonly (readonly [number, number, number])[];
  /** The arms the hand pass reached with (RetargetOptions.hands), as [upper arm, forearm, hand] target bones. */
  readonly arms: readonly (readonly [number, number, number])[];
}

/** The plan for one (source, target, map): built once, used for every frame. */
export class RetargetPlan {
  readonly info: RetargetInfo;
  private readonly source: Skeleton;
  private readonly target: Skeleton;
  private readonly map: Int32Array;
  /** Component-space transforms of the two reference poses. */
  private readonly sourceRef: ComponentPose;
  private readonly targetRef: ComponentPose;
  /** How each target bone is placed: 0 reference local translation, 1 root (moves with the source), 2 follows `anchor`. */
  private readonly placement: Uint8Array;
  private readonly anchor: Int32Array;
  /** For a bone that follows an anchor: its reference position in the anchor's reference frame (3 per bone). */
  private readonly offsets: Float64Array;
  /** The target bones in the order they are placed: each after its parent and its anchor. */
  private readonly order: Int32Array;
  /**
   * The limbs the IK passes reach with (none unless asked for): the legs' thigh, calf and foot
   * bones, then the arms' upper arm, forearm and hand.
   */
  private readonly limbs: { upper: number; lower: number; end: number; armScale: number }[] = [];

  constructor(source: Skeleton, target: Skeleton, options: { map?: Int32Array; sourceReference?: Pose; feet?: boolean; hands?: boolean } = {}) {
    this.source = source;
    this.target = target;
    const map = options.map ?? autoBoneMap(source, target);
    if (map.length !== target.boneCount) throw new AnimGraphError('invalid-data', `a bone map has one entry per target bone (${target.boneCount}), not ${map.length}`);
    for (let b = 0; b < map.length; b++) {
      if (map[b] < -1 || map[b] >= source.boneCount) throw new AnimGraphError('out-of-range', `bone map: target bone ${quoted(target.boneNames[b])} maps to ${map[b]}, not a source bone`);
    }
    this.map = map;
    const reference = options.sourceReference ?? source.referencePose;
    this.sourceRef = new ComponentPose(source);
    this.sourceRef.setFromLocal(reference);
    this.sourceRef.ensureAllComponent();
    this.targetRef = new ComponentPose(target);
    this.targetRef.setFromLocal(target.referencePose);
    this.targetRef.ensureAllComponent();

    const n = target.boneCount, parents = target.parents;
    // The root: the target's pelvis when it is mapped, else the shallowest mapped bone.
    const targetRoles = boneRoles(target), sourceRoles = boneRoles(source);
    let root = targetRoles.get('pelvis')?.[0] ?? -1;
    if (root < 0 || map[root] < 0) {
      root = -1;
      for (let b = 0; b < n; b++) if (map[b] >= 0 && (root < 0 || target.depths[b] < target.depths[root])) root = b;
    }
    if (root < 0) throw new AnimGraphError('invalid-data', 'the bone map matches no bone of the target to the source: nothing to retarget (give a boneMap)');
    // Bones whose position moves with the source's: the root and its mapped ancestors.
    this.placement = new Uint8Array(n);
    for (let b = root; b >= 0; b = parents[b]) if (map[b] >= 0) this.placement[b] = 1;
    this.anchor = new Int32Array(n).fill(-1);
    this.offsets = new Float64Array(n * 3);
    // The target bones of each mapped source bone.
    const targetsOf = new Map<number, number[]>();
    for (let b = 0; b < n; b++) if (map[b] >= 0) targetsOf.set(map[b], [...(targetsOf.get(map[b]) ?? []), b]);
    const isAncestor = (a: number, b: number) => {
      for (let x = parents[b]; x >= 0; x = parents[x]) if (x === a) return true;
      return false;
    };
    const tr = this.targetRef;
    for (let b = 0; b < n; b++) {
      if (map[b] < 0 || this.placement[b] === 1) continue;
      // The nearest source ancestor of the bone's source that a target bone maps to.
      let candidates: number[] | undefined;
      for (let s = source.parents[map[b]]; s >= 0 && candidates === undefined; s = source.parents[s]) candidates = targetsOf.get(s);
      // Where one of them is the bone's ancestor in the target too, the hierarchy places the bone (the
      // robot's index finger under Palm1, which maps to the hand as Palm2 does).
      if (candidates === undefined || candidates.some((c) => c === b || isAncestor(c, b) || isAncestor(b, c))) continue;
      const a = candidates[0];
      this.placement[b] = 2;
      this.anchor[b] = a;
      const v = new Float64Array(3);
      for (let k = 0; k < 3; k++) v[k] = tr.translations[b * 3 + k] - tr.translations[a * 3 + k];
      quatInverseRotateVec3(this.offsets, b * 3, tr.rotations, a * 4, v, 0);
    }
    this.order = placementOrder(parents, this.placement, this.anchor);

    // Up axes and the alignment A.
    const mapRole = (role: string, roles: Map<string, number[]>, fromTarget: boolean): number => {
      const own = roles.get(role)?.[0];
      if (own !== undefined) return own;
      // A role named on one side only: found through the map.
      if (fromTarget) {
        const s = sourceRoles.get(role)?.[0];
        if (s === undefined) return -1;
        for (let b = 0; b < n; b++) if (map[b] === s) return b;
        return -1;
      }
      const t = targetRoles.get(role)?.[0];
      return t !== undefined ? map[t] : -1;
    };
    const ends = (roles: Map<string, number[]>, fromTarget: boolean, pelvis: number) => ({
      pelvis,
      top: [mapRole('neck', roles, fromTarget), mapRole('head', roles, fromTarget)].find((b) => b >= 0) ?? -1,
      left: mapRole('thigh.L', roles, fromTarget),
      right: mapRole('thigh.R', roles, fromTarget),
    });
    const t = ends(targetRoles, true, root), s = ends(sourceRoles, false, map[root]);
    const tFrame = bodyFrame(this.targetRef, t), sFrame = bodyFrame(this.sourceRef, s);
    const alignment = new Float64Array([0, 0, 0, 1]);
    if (tFrame && sFrame) {
      // A = F_t · F_s⁻¹ (frames as rotations from the canonical axes).
      quatMultiply(alignment, 0, tFrame.rotation, 0, conjugate(sFrame.rotation), 0);
      quatNormalize(alignment, 0);
    }
    // A limb whose middle bone hangs from its upper bone, and whose end bone from the middle one or
    // follows it (the robot's feet), all three mapped.
    const findLimbs = (roles: readonly [string, string, string]) => {
      const found: [number, number, number][] = [];
      for (const side of ['L', 'R']) {
        const [upper, lower, end] = roles.map((role) => mapRole(`${role}.${side}`, targetRoles, true));
        if (upper < 0 || lower < 0 || end < 0 || map[upper] < 0 || map[lower] < 0 || map[end] < 0) continue;
        if (parents[lower] !== upper || (parents[end] !== lower && this.anchor[end] !== lower)) continue;
        found.push([upper, lower, end]);
      }
      return found;
    };
    const legs = options.feet === true ? findLimbs(['thigh', 'calf', 'foot']) : [];
    const arms = options.hands === true ? findLimbs(['upperarm', 'forearm', 'hand']) : [];
    for (const [upper, lower, end] of legs) this.limbs.push({ upper, lower, end, armScale: 0 });
    const chain = (ref: ComponentPose, upper: number, lower: number, end: number) =>
      norm3(ref.translations, lower, upper) + norm3(ref.translations, end, lower);
    for (const [upper, lower, end] of arms) {
      const sourceLength = chain(this.sourceRef, map[upper], map[lower], map[end]);
      this.limbs.push({ upper, lower, end, armScale: sourceLength > 0 ? chain(this.targetRef, upper, lower, end) / sourceLength : 1 });
    }
    const tUp = tFrame?.up ?? [1, 1] as [number, number], sUp = sFrame?.up ?? [1, 1] as [number, number];
    const height = (ref: ComponentPose, bone: number, up: readonly [number, number], count: number) => {
      let lowest = Infinity;
      for (let b = 0; b < count; b++) lowest = Math.min(lowest, ref.translations[b * 3 + up[0]] * up[1]);
      return ref.translations[bone * 3 + up[0]] * up[1] - lowest;
    };
    const ht = height(this.targetRef, root, tUp, n), hs = height(this.sourceRef, map[root], sUp, source.boneCount);
    const scale = hs > 0 && ht > 0 ? ht / hs : 1;
    this.info = { map, root, scale, sourceUp: sUp, targetUp: tUp, alignment, anchors: this.anchor, legs, arms };
  }

  /**
   * Writes the target's local pose for one source pose (`sourceCs` composed from it) into `out`.
   * Load time: allocating is fine, but it allocates nothing per call but what ComponentPose does.
   */
  retargetPose(out: Pose, sourceCs: ComponentPose, scratch: { t: Float64Array; r: Float64Array }): Pose {
    const target = this.target, n = target.boneCount, parents = target.parents;
    const ref = target.referencePose, tr = this.targetRef, ct = scratch.t, cr = scratch.r, cs = tr.scales;
    this.place(sourceCs, ct, cr, null);
    if (this.limbs.length > 0) this.reachLimbs(sourceCs, ct, cr);
    const v = new Float64Array(6);
    for (let b = 0; b < n; b++) {
      const p = parents[b], b3 = b * 3, b4 = b * 4;
      // Back to local space: a bone placed by its reference translation keeps it exactly.
      out.scales.set(ref.scales.subarray(b3, b3 + 3), b3);
      if (p < 0) {
        out.rotations.set(cr.subarray(b4, b4 + 4), b4);
        out.translations.set(ct.subarray(b3, b3 + 3), b3);
        continue;
      }
      quatConjugateMultiply(out.rotations, b4, cr, p * 4, cr, b4);
      quatNormalize(out.rotations, b4);
      if (this.placement[b] === 0) out.translations.set(ref.translations.subarray(b3, b3 + 3), b3);
      else {
        for (let k = 0; k < 3; k++) v[k] = ct[b3 + k] - ct[p * 3 + k];
        quatInverseRotateVec3(v, 3, cr, p * 4, v, 0);
        for (let k = 0; k < 3; k++) out.translations[b3 + k] = Math.abs(cs[p * 3 + k]) > 1e-12 ? v[3 + k] / cs[p * 3 + k] : 0;
      }
    }
    return out;
  }

  /**
   * The target's component transforms (ct, cr) for one source pose. Bones flagged in `fixed` keep
   * the rotation cr holds (the IK pass's thighs and calves).
   */
  private place(sourceCs: ComponentPose, ct: Float64Array, cr: Float64Array, fixed: Uint8Array | null): void {
    const target = this.target, n = target.boneCount, parents = target.parents, map = this.map;
    const ref = target.referencePose, tr = this.targetRef, sr = this.sourceRef, A = this.info.alignment, scale = this.info.scale;
    const cs = tr.scales;
    const q = new Float64Array(8), v = new Float64Array(6);
    const order = this.order;
    for (let i = 0; i < n; i++) {
      const b = order[i], p = parents[b], s = map[b], b3 = b * 3, b4 = b * 4;
      // Rotation in component space.
      if (fixed !== null && fixed[b] === 1) {
        // Kept.
      } else if (s >= 0) {
        sourceCs.ensureComponent(s);
        // Δ = C_s · C_s,ref⁻¹, then A · Δ · A⁻¹ · C_t,ref.
        quatMultiply(q, 0, sourceCs.rotations, s * 4, conjugate(sr.rotations.subarray(s * 4, s * 4 + 4)), 0);
        quatMultiply(q, 4, A, 0, q, 0);
        quatMultiply(q, 0, q, 4, conjugate(A), 0);
        quatMultiply(cr, b4, q, 0, tr.rotations, b4);
        quatNormalize(cr, b4);
      } else if (p < 0) cr.set(ref.rotations.subarray(b4, b4 + 4), b4);
      else {
        quatMultiply(cr, b4, cr, p * 4, ref.rotations, b4);
        quatNormalize(cr, b4);
      }
      // Position in component space.
      const placement = this.placement[b];
      if (placement === 1) {
        sourceCs.ensureComponent(s);
        for (let k = 0; k < 3; k++) v[k] = (sourceCs.translations[s * 3 + k] - sr.translations[s * 3 + k]) * scale;
        quatRotateVec3(v, 0, A, 0, v, 0);
        for (let k = 0; k < 3; k++) ct[b3 + k] = tr.translations[b3 + k] + v[k];
      } else if (placement === 2) {
        const a = this.anchor[b];
        quatRotateVec3(v, 0, cr, a * 4, this.offsets, b3);
        for (let k = 0; k < 3; k++) ct[b3 + k] = ct[a * 3 + k] + v[k];
      } else if (p < 0) ct.set(ref.translations.subarray(b3, b3 + 3), b3);
      else {
        for (let k = 0; k < 3; k++) v[k] = ref.translations[b3 + k] * cs[p * 3 + k];
        quatRotateVec3(v, 0, cr, p * 4, v, 0);
        for (let k = 0; k < 3; k++) ct[b3 + k] = ct[p * 3 + k] + v[k];
      }
    }
  }

  /**
   * The foot and hand passes: each limb's upper and middle bones (thigh and calf, upper arm and
   * forearm) turned by two-bone IK (runtime/jobs/two-bone-ik.ts, the input's bend kept, no
   * stretch) so that its end bone reaches where the scaled source puts the source's. Then every
   * bone is placed again.
   *
   * A foot's goal is its reference position plus the source foot's displacement from the source
   * reference, turned by A and scaled as the pelvis's is: legs stand alike in both references. A
   * hand's is its shoulder (the upper arm's current position) plus the source hand's offset from the
   * source's shoulder, turned by A and scaled by the ratio of the arms' lengths (upper arm plus
   * forearm, in the references): arms do not stand alike (a T-pose capture, an A-pose character),
   * and a hand the source can reach the target can too.
   */
  private reachLimbs(sourceCs: ComponentPose, ct: Float64Array, cr: Float64Array): void {
    const tr = this.targetRef, sr = this.sourceRef, A = this.info.alignment, scale = this.info.scale;
    const fixed = new Uint8Array(this.target.boneCount);
    const positions = new Float64Array(9), rotations = new Float64Array(12), goal = new Float64Array(3);
    const options = twoBoneIKOptions({ keepEndRotation: true });
    for (const limb of this.limbs) {
      const s = this.map[limb.end];
      sourceCs.ensureComponent(s);
      if (limb.armScale === 0) {
        for (let k = 0; k < 3; k++) goal[k] = (sourceCs.translations[s * 3 + k] - sr.translations[s * 3 + k]) * scale;
        quatRotateVec3(goal, 0, A, 0, goal, 0);
        for (let k = 0; k < 3; k++) goal[k] += tr.translations[limb.end * 3 + k];
      } else {
        const u = this.map[limb.upper];
        sourceCs.ensureComponent(u);
        for (let k = 0; k < 3; k++) goal[k] = (sourceCs.translations[s * 3 + k] - sourceCs.translations[u * 3 + k]) * limb.armScale;
        quatRotateVec3(goal, 0, A, 0, goal, 0);
        for (let k = 0; k < 3; k++) goal[k] += ct[limb.upper * 3 + k];
      }
      const bones = [limb.upper, limb.lower, limb.end];
      bones.forEach((b, i) => {
        positions.set(ct.subarray(b * 3, b * 3 + 3), i * 3);
        rotations.set(cr.subarray(b * 4, b * 4 + 4), i * 4);
      });
      solveTwoBoneIK(positions, rotations, positions, rotations, goal, 0, options);
      cr.set(rotations.subarray(0, 4), limb.upper * 4);
      cr.set(rotations.subarray(4, 8), limb.lower * 4);
      fixed[limb.upper] = 1;
      fixed[limb.lower] = 1;
    }
    this.place(sourceCs, ct, cr, fixed);
  }
}

/**
 * The bones in an order where each comes after its parent and, for a bone placed by an anchor,
 * after the anchor (the robot's feet, early among its bones, follow its calves, late ones). A bone
 * whose anchor would wait on itself falls back to its reference translation.
 */
function placementOrder(parents: Int32Array, placement: Uint8Array, anchor: Int32Array): Int32Array {
  const n = parents.length, done = new Uint8Array(n), order = new Int32Array(n);
  let count = 0;
  for (let progress = true; progress && count < n;) {
    progress = false;
    for (let b = 0; b < n; b++) {
      if (done[b] === 1 || (parents[b] >= 0 && done[parents[b]] === 0) || (placement[b] === 2 && done[anchor[b]] === 0)) continue;
      done[b] = 1;
      order[count++] = b;
      progress = true;
    }
  }
  for (let b = 0; b < n && count < n; b++) {
    if (done[b] === 1) continue;
    placement[b] = 0;
    // Parents first among what is left: a second pass places them.
  }
  if (count < n) return placementOrder(parents, placement, anchor);
  return order;
}

/** The distance between bones a and b of packed positions. */
function norm3(t: Float64Array, a: number, b: number): number {
  return Math.hypot(t[a * 3] - t[b * 3], t[a * 3 + 1] - t[b * 3 + 1], t[a * 3 + 2] - t[b * 3 + 2]);
}

function conjugate(q: ArrayLike<number>): Float64Array {
  return Float64Array.of(-q[0], -q[1], -q[2], q[3]);
}

/**
 * The body's axes in a reference pose, as a rotation from the canonical frame (x left, y up, z
 * forward), with the up axis snapped to the nearest axis of component space: null when the pelvis,
 * the top of the spine or a thigh is missing.
 */
function bodyFrame(ref: ComponentPose, ends: { pelvis: number; top: number; left: number; right: number }): { rotation: Float64Array; up: [number, number] } | null {
  const { pelvis, top, left, right } = ends;
  if (pelvis < 0 || top < 0 || left < 0 || right < 0) return null;
  const t = ref.translations;
  const upDir = [0, 1, 2].map((k) => t[top * 3 + k] - t[pelvis * 3 + k]);
  let axis = 0;
  for (let k = 1; k < 3; k++) if (Math.abs(upDir[k]) > Math.abs(upDir[axis])) axis = k;
  const sign = upDir[axis] >= 0 ? 1 : -1;
  const up = [0, 0, 0];
  up[axis] = sign;
  const lateral = [0, 1, 2].map((k) => t[left * 3 + k] - t[right * 3 + k]);
  lateral[axis] = 0;
  const len = Math.hypot(lateral[0], lateral[1], lateral[2]);
  if (!(len > 0)) return null;
  const x = lateral.map((c) => c / len);
  // z = x × y (forward for a character whose left is +x and up +y).
  const z = [x[1] * up[2] - x[2] * up[1], x[2] * up[0] - x[0] * up[2], x[0] * up[1] - x[1] * up[0]];
  return { rotation: quatFromBasis(x, up, z), up: [axis, sign] };
}

/** The rotation whose matrix has columns x, y, z (orthonormal). */
function quatFromBasis(x: number[], y: number[], z: number[]): Float64Array {
  const m00 = x[0], m10 = x[1], m20 = x[2], m01 = y[0], m11 = y[1], m21 = y[2], m02 = z[0], m12 = z[1], m22 = z[2];
  const out = new Float64Array(4);
  const trace = m00 + m11 + m22;
  if (trace > 0) {
    const s = 0.5 / Math.sqrt(trace + 1);
    out[3] = 0.25 / s; out[0] = (m21 - m12) * s; out[1] = (m02 - m20) * s; out[2] = (m10 - m01) * s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    out[3] = (m21 - m12) / s; out[0] = 0.25 * s; out[1] = (m01 + m10) / s; out[2] = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    out[3] = (m02 - m20) / s; out[0] = (m01 + m10) / s; out[1] = 0.25 * s; out[2] = (m12 + m21) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    out[3] = (m10 - m01) / s; out[0] = (m02 + m20) / s; out[1] = (m12 + m21) / s; out[2] = 0.25 * s;
  }
  return quatNormalize(out, 0);
}

/**
 * The clip retargeted onto `target` (see the top of this file): a clip keying every target bone's
 * translation and rotation (scales stay the reference's), at the source clip's frames.
 */
export function retargetClip(clip: Clip, source: Skeleton, target: Skeleton, options: RetargetOptions = {}): { clip: Clip; info: RetargetInfo } {
  const plan = new RetargetPlan(source, target, options);
  const n = target.boneCount;
  const out = new Clip({
    name: options.name ?? clip.name, interpolation: clip.interpolation, frameRate: clip.frameRate, frameCount: clip.frameCount,
    tracks: target.boneNames.map((bone) => ({ bone, translation: true, rotation: true, scale: false })),
  });
  const binding = new ClipBinding(clip, source);
  const sourcePose = new Pose(source.boneCount), sourceCs = new ComponentPose(source), pose = new Pose(n);
  const scratch = { t: new Float64Array(n * 3), r: new Float64Array(n * 4) };
  for (let f = 0; f < clip.frameCount; f++) {
    sourceCs.setFromLocal(clipFramePose(sourcePose, binding, f));
    plan.retargetPose(pose, sourceCs, scratch);
    out.translations.set(pose.translations, f * n * 3);
    out.rotations.set(pose.rotations, f * n * 4);
  }
  out.retarget = {
    sourceBones: source.boneNames, map: plan.info.map, root: plan.info.root, scale: plan.info.scale,
    alignment: plan.info.alignment, up: plan.info.targetUp[0], source: { clip, skeleton: source },
  };
  return { clip: out, info: plan.info };
}

/** One foot's planted slide in a retargeted clip and its source (retargetFootSlide). */
export interface FootSlide {
  /** The source's foot bone and the target's bone that plays it. */
  readonly sourceBone: string;
  readonly targetBone: string;
  /** The frames counted: the source foot planted on it and the frame before. */
  readonly frames: number;
  /** Mean horizontal travel per planted frame: the source's in source units, the target's divided by the scale (so in source units too). */
  readonly source: number;
  readonly target: number;
}

/**
 * Planted-foot slide of a retargeted clip next to its source's: for each of the source's feet (its
 * `foot.L` and `foot.R` roles), over the frames where it is planted (within 3% of the source's hip
 * height of its lowest over the clip, on that frame and the one before), the mean horizontal travel
 * per frame of the source foot and of the target bone that plays it (its mirror partner in a
 * mirrored clip). `clip` keeps its motion in its keys (no root motion taken out), as its source
 * does. Load time: allocates freely.
 */
export function retargetFootSlide(clip: Clip, target: Skeleton, partner?: Int32Array): FootSlide[] {
  const r = clip.retarget;
  if (r === null) return [];
  const source = r.source.skeleton, roles = boneRoles(source);
  const up = r.up, A = r.alignment;
  // The target's hip height (its pelvis above the lowest bone of its reference) over the scale: the source's.
  const ref = new ComponentPose(target);
  ref.setFromLocal(target.referencePose);
  ref.ensureAllComponent();
  let lowest = Infinity;
  for (let b = 0; b < target.boneCount; b++) lowest = Math.min(lowest, ref.translations[b * 3 + up]);
  const threshold = 0.03 * (ref.translations[r.root * 3 + up] - lowest) / r.scale;
  const frames = Math.min(clip.frameCount, r.source.clip.frameCount);
  const sourceBinding = new ClipBinding(r.source.clip, source), targetBinding = new ClipBinding(clip, target);
  const sourceCs = new ComponentPose(source), targetCs = new ComponentPose(target);
  const sourcePose = new Pose(source.boneCount), targetPose = new Pose(target.boneCount);
  const feet: { s: number; t: number }[] = [];
  for (const role of ['foot.L', 'foot.R']) {
    const s = roles.get(role)?.[0];
    if (s === undefined) continue;
    let t = -1;
    for (let b = 0; b < target.boneCount && t < 0; b++) if (r.map[b] === s) t = b;
    if (t < 0) continue;
    feet.push({ s, t: clip.mirrored && partner ? partner[t] : t });
  }
  // Per frame, each foot's position: the source's turned into the target's axes (A), both in their own units.
  const at = feet.map(() => ({ s: new Float64Array(frames * 3), t: new Float64Array(frames * 3) }));
  for (let f = 0; f < frames; f++) {
    sourceCs.setFromLocal(clipFramePose(sourcePose, sourceBinding, f));
    targetCs.setFromLocal(clipFramePose(targetPose, targetBinding, f));
    feet.forEach((foot, i) => {
      sourceCs.ensureComponent(foot.s);
      targetCs.ensureComponent(foot.t);
      quatRotateVec3(at[i].s, f * 3, A, 0, sourceCs.translations, foot.s * 3);
      at[i].t.set(targetCs.translations.subarray(foot.t * 3, foot.t * 3 + 3), f * 3);
    });
  }
  return feet.map((foot, i) => {
    const { s, t } = at[i];
    let low = Infinity;
    for (let f = 0; f < frames; f++) low = Math.min(low, s[f * 3 + up]);
    const travel = (p: Float64Array, f: number) => {
      let sum = 0;
      for (let k = 0; k < 3; k++) if (k !== up) sum += (p[f * 3 + k] - p[(f - 1) * 3 + k]) ** 2;
      return Math.sqrt(sum);
    };
    let count = 0, sourceTravel = 0, targetTravel = 0;
    for (let f = 1; f < frames; f++) {
      if (s[f * 3 + up] - low > threshold || s[(f - 1) * 3 + up] - low > threshold) continue;
      count++;
      sourceTravel += travel(s, f);
      targetTravel += travel(t, f) / r.scale;
    }
    return {
      sourceBone: source.boneNames[foot.s], targetBone: target.boneNames[foot.t], frames: count,
      source: count > 0 ? sourceTravel / count : 0, target: count > 0 ? targetTravel / count : 0,
    };
  });
}
