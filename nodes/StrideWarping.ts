import type { ComponentPose } from '../runtime/component-pose.ts';
import { quatFromTo, quatMultiply } from '../runtime/math.ts';
import { readScalar, readVec3, type CacheBonesContext, type ComponentPoseLink, type DebugNode, type NodeType, type ScalarProperty, type UpdateContext, type Vec3Property } from '../runtime/node.ts';
import { SkeletalControlNode, type BoneTransforms } from '../runtime/skeletal-control.ts';
import { solveTwoBoneIK, twoBoneIKOptions } from '../runtime/two-bone-ik.ts';

/** Per-frame scratch, module-wide: nodes never run concurrently. */
const v = new Float64Array(64);
// Offsets into v for named 3-vectors.
const N = 0, G = 3, D = 6, F = 9, H = 12, O = 15, W = 18, P0 = 21, P = 24, TMP = 27, TMP2 = 30, Q = 36;

/** A bone's component transform being edited: read with loadBone, write back with setComponent(bone, xf.t, xf.r, xf.s, 0). */
const xf = { t: new Float64Array(3), r: new Float64Array(4), s: new Float64Array(3) };

function loadBone(pose: ComponentPose, bone: number): void {
  pose.ensureComponent(bone);
  for (let k = 0; k < 3; k++) {
    xf.t[k] = pose.translations[bone * 3 + k];
    xf.s[k] = pose.scales[bone * 3 + k];
  }
  for (let k = 0; k < 4; k++) xf.r[k] = pose.rotations[bone * 4 + k];
}

/*
 * Lengths are written out as Math.sqrt of sums: Math.hypot allocates its arguments in V8.
 * Helpers here return booleans or nothing, never numbers: the big functions below exhaust V8's
 * inlining budget, and a number returned from a call that is not inlined is boxed (allocated).
 */

/** Normalises a[o..o+2] in place; false (and unchanged) when its length is 1e-9 or less. */
function normalize3(a: Float64Array, o: number): boolean {
  const len = Math.sqrt(a[o] * a[o] + a[o + 1] * a[o + 1] + a[o + 2] * a[o + 2]);
  if (!(len > 1e-9)) return false;
  a[o] /= len; a[o + 1] /= len; a[o + 2] /= len;
  return true;
}

interface Leg {
  foot: string;
  calf: string;
  thigh: string;
}

/**
 * Stride warping (Unreal 5's AnimationWarping, with the seed's fix): lengthens or shortens each
 * step instead of changing the play rate. In component space, per frame:
 * 1. the stride direction is made tangent to the floor;
 * 2. each FK foot is scaled about its scale origin (the thigh's gravity line meeting the floor
 *    plane through the foot, projected onto the plane normal to the stride direction): only the
 *    foot's offset along the stride direction is scaled, so heights are kept;
 * 3. the pelvis is moved toward the warped feet so each leg keeps its FK length (1 to 10
 *    iterations, averaged over the feet), then lowered along gravity until every warped foot is
 *    within reach, never upward, optionally smoothed by a critically damped spring, and blended in
 *    by `pelvisAlpha`;
 * 4. each thigh is turned by the rotation between its FK leg direction and its warped one;
 * 5. the foot target is clamped to the FK leg length from the moved thigh and the leg is solved
 *    with the two-bone IK solver, the foot keeping its FK component-space rotation.
 * Each step can be switched off. In `fromRootMotion` mode the scale is the locomotion speed over
 * the root-motion speed of the branch below, averaged over `rootMotionSmoothingTime` (scale 1
 * below `minRootMotionSpeed`), the direction is the averaged root motion's, and the graph's
 * root-motion delta is scaled by the same factor, so the character moves at the locomotion speed. Warping starts from the FK foot, not an IK bone (the seed shows why: warping an
 * IK bone that already follows the foot makes the feet tread in place).
 */
export class StrideWarping extends SkeletalControlNode {
  private pelvis = -1;
  private readonly legBones: Int32Array;
  /** [scale in use, smoothed scale, target scale, has smoothed value, dt]. */
  private readonly scale = new Float64Array(5);
  /** Stride direction in use (component space). */
  private readonly direction = new Float64Array(3);
  /** Averaged root-motion velocity [x, y, z, has value] (fromRootMotion mode). */
  private readonly average = new Float64Array(4);
  /** Pelvis adjustment spring [position xyz, velocity xyz]. */
  private readonly spring = new Float64Array(6);
  /** Debug: per leg scale origin (3) then adjusted pelvis (3) and offset (3). */
  readonly debugPoints: Float64Array;

  constructor(
    id: string,
    input: ComponentPoseLink,
    alpha: ScalarProperty,
    private readonly props: {
      fromRootMotion: boolean;
      strideScale: ScalarProperty;
      strideDirection: Vec3Property;
      locomotionSpeed: ScalarProperty;
      minRootMotionSpeed: number;
      rootMotionSmoothingTime: number;
      minScale: number;
      maxScale: number;
      scaleSmoothingTime: number;
      floorNormal: Vec3Property;
      gravityDirection: Vec3Property;
      pelvisBone: string;
      legs: readonly Leg[];
      adjustPelvis: boolean;
      pelvisIterations: number;
      pelvisSmoothingTime: number;
      pelvisAlpha: ScalarProperty;
      correctThighs: boolean;
      clampLegLength: boolean;
      solveIk: boolean;
    },
  ) {
    super(id, 'StrideWarping', input, alpha);
    this.legBones = new Int32Array(props.legs.length * 3).fill(-1);
    this.debugPoints = new Float64Array(props.legs.length * 3 + 6);
  }

  protected override onInitialize(): void {
    super.onInitialize();
    this.scale.fill(0);
    this.scale[0] = 1;
    this.spring.fill(0);
    this.average.fill(0);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    this.pelvis = ctx.boneIndex(this.id, this.props.pelvisBone);
    this.props.legs.forEach((leg, i) => {
      this.legBones[i * 3] = ctx.boneIndex(this.id, leg.thigh);
      this.legBones[i * 3 + 1] = ctx.boneIndex(this.id, leg.calf);
      this.legBones[i * 3 + 2] = ctx.boneIndex(this.id, leg.foot);
    });
  }

  protected override isValidToEvaluate(): boolean {
    if (this.pelvis < 0) return false;
    for (let i = 0; i < this.legBones.length; i++) if (this.legBones[i] < 0) return false;
    return true;
  }

  protected override updateControl(ctx: UpdateContext): void {
    const p = this.props, values = this.graph.parameterValues, s = this.scale;
    s[4] = ctx.deltaTime;
    let target = 1;
    if (p.fromRootMotion) {
      // The root's velocity within a gait cycle rises and falls; a stride scale following it frame
      // by frame would move the feet (d scale/dt times their offset). So speed and direction are
      // averaged (exponentially, half-life rootMotionSmoothingTime), the scale is the locomotion
      // speed over that average, and the root motion is scaled by the same factor: planted feet
      // then stay planted, and the character moves at the locomotion speed on average.
      const rm = this.graph.rootMotion, dt = ctx.deltaTime, avg = this.average;
      if (dt > 0) {
        const k = avg[3] === 0 || !(p.rootMotionSmoothingTime > 0) ? 1 : 1 - Math.pow(0.5, dt / p.rootMotionSmoothingTime);
        for (let i = 0; i < 3; i++) avg[i] += (rm[i] / dt - avg[i]) * k;
        avg[3] = 1;
      }
      const speed = Math.sqrt(avg[0] * avg[0] + avg[1] * avg[1] + avg[2] * avg[2]);
      const wanted = readScalar(values, p.locomotionSpeed);
      if (speed >= p.minRootMotionSpeed && speed > 0 && wanted === wanted) {
        target = wanted / speed;
        this.direction[0] = avg[0] / speed; this.direction[1] = avg[1] / speed; this.direction[2] = avg[2] / speed;
      } else readVec3(this.direction, 0, values, p.strideDirection);
    } else {
      target = readScalar(values, p.strideScale);
      readVec3(this.direction, 0, values, p.strideDirection);
    }
    if (!(target === target)) target = 1;
    target = target < p.minScale ? p.minScale : target > p.maxScale ? p.maxScale : target;
    s[2] = target;
    if (p.scaleSmoothingTime > 0 && s[3] === 1) {
      // Exponential approach with the given half-life.
      const k = 1 - Math.pow(0.5, ctx.deltaTime / p.scaleSmoothingTime);
      s[1] += (target - s[1]) * k;
    } else {
      s[1] = target;
      s[3] = 1;
    }
    s[0] = s[1];
    if (p.fromRootMotion) {
      const rm = this.graph.rootMotion;
      rm[0] *= s[0]; rm[1] *= s[0]; rm[2] *= s[0];
    }
  }

  protected evaluateBoneTransforms(input: ComponentPose, out: BoneTransforms): void {
    // Work on a copy, so that the base class can blend the result into the input by alpha.
    const pool = this.graph.componentPosePool;
    const pose = pool.acquire();
    pose.setFromLocal(input.ensureAllLocal());
    this.warpPose(pose);
    const legs = this.props.legs.length;
    out.add(this.pelvis, pose);
    for (let i = 0; i < legs * 3; i++) out.add(this.legBones[i], pose);
    pool.release(pose);
  }

  /** Steps 1 to 5 on `pose`, in place. */
  private warpPose(pose: ComponentPose): void {
    const p = this.props, values = this.graph.parameterValues, scale = this.scale[0];
    readVec3(v, N, values, p.floorNormal);
    readVec3(v, G, values, p.gravityDirection);
    if (!normalize3(v, N)) { v[N] = 0; v[N + 1] = 1; v[N + 2] = 0; }
    if (!normalize3(v, G)) { v[G] = -v[N]; v[G + 1] = -v[N + 1]; v[G + 2] = -v[N + 2]; }
    // 1. Stride direction tangent to the floor.
    v[D] = this.direction[0]; v[D + 1] = this.direction[1]; v[D + 2] = this.direction[2];
    const along = v[D] * v[N] + v[D + 1] * v[N + 1] + v[D + 2] * v[N + 2];
    v[D] -= along * v[N]; v[D + 1] -= along * v[N + 1]; v[D + 2] -= along * v[N + 2];
    const warp = normalize3(v, D);
    const legs = p.legs.length;
    const pelvis = this.pelvis;
    pose.ensureComponent(pelvis);
    for (let k = 0; k < 3; k++) v[P0 + k] = pose.translations[pelvis * 3 + k];
    const warped = this.warpedFeet;
    const fkLength = this.fkLengths;
    // 2. Warp each FK foot about its scale origin.
    for (let i = 0; i < legs; i++) {
      const thigh = this.legBones[i * 3], foot = this.legBones[i * 3 + 2];
      pose.ensureComponent(foot);
      pose.ensureComponent(thigh);
      for (let k = 0; k < 3; k++) {
        v[F + k] = pose.translations[foot * 3 + k];
        v[H + k] = pose.translations[thigh * 3 + k];
      }
      fkLength[i] = Math.sqrt((v[F] - v[H]) * (v[F] - v[H]) + (v[F + 1] - v[H + 1]) * (v[F + 1] - v[H + 1]) + (v[F + 2] - v[H + 2]) * (v[F + 2] - v[H + 2]));
      this.fkPelvisDistances[i] = Math.sqrt((v[F] - v[P0]) * (v[F] - v[P0]) + (v[F + 1] - v[P0 + 1]) * (v[F + 1] - v[P0 + 1]) + (v[F + 2] - v[P0 + 2]) * (v[F + 2] - v[P0 + 2]));
      // Plane origin: the thigh's gravity line meeting the floor plane through the foot.
      const gn = v[G] * v[N] + v[G + 1] * v[N + 1] + v[G + 2] * v[N + 2];
      if (Math.abs(gn) > 1e-6) {
        const t = ((v[F] - v[H]) * v[N] + (v[F + 1] - v[H + 1]) * v[N + 1] + (v[F + 2] - v[H + 2]) * v[N + 2]) / gn;
        for (let k = 0; k < 3; k++) v[O + k] = v[H + k] + v[G + k] * t;
      } else for (let k = 0; k < 3; k++) v[O + k] = v[F + k];
      // Scale origin: the foot projected on the plane through O normal to the stride direction.
      const offset = warp ? (v[F] - v[O]) * v[D] + (v[F + 1] - v[O + 1]) * v[D + 1] + (v[F + 2] - v[O + 2]) * v[D + 2] : 0;
      for (let k = 0; k < 3; k++) {
        const origin = v[F + k] - offset * v[D + k];
        this.debugPoints[i * 3 + k] = origin;
        warped[i * 3 + k] = origin + (v[F + k] - origin) * scale;
      }
    }
    // 3. Pelvis adjustment: toward each warped foot to its FK distance, averaged.
    for (let k = 0; k < 3; k++) v[P + k] = v[P0 + k];
    if (p.adjustPelvis && legs > 0) {
      const iterations = Math.min(Math.max(Math.round(p.pelvisIterations), 1), 10);
      for (let it = 0; it < iterations; it++) {
        for (let k = 0; k < 3; k++) v[TMP + k] = 0;
        for (let i = 0; i < legs; i++) {
          const fx = warped[i * 3], fy = warped[i * 3 + 1], fz = warped[i * 3 + 2];
          const dist = this.fkPelvisDistances[i];
          let dx = v[P] - fx, dy = v[P + 1] - fy, dz = v[P + 2] - fz;
          const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
          if (len > 1e-9) { dx /= len; dy /= len; dz /= len; } else { dx = -v[G]; dy = -v[G + 1]; dz = -v[G + 2]; }
          v[TMP] += (fx + dx * dist) / legs;
          v[TMP + 1] += (fy + dy * dist) / legs;
          v[TMP + 2] += (fz + dz * dist) / legs;
        }
        for (let k = 0; k < 3; k++) v[P + k] = v[TMP + k];
      }
      // The average can leave one foot out of reach: lower the pelvis (along gravity) until every
      // warped foot is within its FK distance.
      let drop = 0;
      for (let i = 0; i < legs; i++) {
        const ex = v[P] - warped[i * 3], ey = v[P + 1] - warped[i * 3 + 1], ez = v[P + 2] - warped[i * 3 + 2];
        const eg = ex * v[G] + ey * v[G + 1] + ez * v[G + 2];
        const excess = ex * ex + ey * ey + ez * ez - this.fkPelvisDistances[i] * this.fkPelvisDistances[i];
        if (excess <= 0) continue;
        const disc = eg * eg - excess;
        // The first point on the way down at which the foot is in reach (or the closest one).
        const t = disc >= 0 ? -eg - Math.sqrt(disc) : -eg;
        if (t > drop) drop = t;
      }
      for (let k = 0; k < 3; k++) v[P + k] += drop * v[G + k];
      // Never raise the pelvis: shorter strides are reached by bending the legs, and a raised
      // pelvis would leave the averaged-out foot unable to reach the floor.
      const rise = -((v[P] - v[P0]) * v[G] + (v[P + 1] - v[P0 + 1]) * v[G + 1] + (v[P + 2] - v[P0 + 2]) * v[G + 2]);
      if (rise > 0) for (let k = 0; k < 3; k++) v[P + k] += rise * v[G + k];
      // Smooth the adjustment (critically damped spring with the given half-life), then blend by alpha.
      const dt = this.scale[4], sp = this.spring;
      for (let k = 0; k < 3; k++) {
        const targetOffset = v[P + k] - v[P0 + k];
        if (p.pelvisSmoothingTime > 0 && dt > 0) {
          const y = (4 * Math.LN2) / p.pelvisSmoothingTime / 2;
          const j0 = sp[k] - targetOffset, j1 = sp[3 + k] + j0 * y, e = Math.exp(-y * dt);
          sp[k] = e * (j0 + j1 * dt) + targetOffset;
          sp[3 + k] = e * (sp[3 + k] - j1 * y * dt);
        } else {
          sp[k] = targetOffset;
          sp[3 + k] = 0;
        }
      }
      const alpha = Math.min(Math.max(readScalar(values, p.pelvisAlpha), 0), 1);
      for (let k = 0; k < 3; k++) v[P + k] = v[P0 + k] + sp[k] * alpha;
    }
    for (let k = 0; k < 3; k++) {
      this.debugPoints[legs * 3 + k] = v[P + k];
      this.debugPoints[legs * 3 + 3 + k] = v[P + k] - v[P0 + k];
    }
    loadBone(pose, pelvis);
    for (let k = 0; k < 3; k++) xf.t[k] = v[P + k];
    pose.setComponent(pelvis, xf.t, xf.r, xf.s, 0);
    // 4 and 5, per leg: thigh correction, then IK to the warped foot.
    for (let i = 0; i < legs; i++) {
      const thigh = this.legBones[i * 3], calf = this.legBones[i * 3 + 1], foot = this.legBones[i * 3 + 2];
      pose.ensureComponent(thigh);
      pose.ensureComponent(foot);
      for (let k = 0; k < 3; k++) {
        v[H + k] = pose.translations[thigh * 3 + k];
        v[W + k] = warped[i * 3 + k];
      }
      if (p.correctThighs) {
        // FK leg direction (from the moved thigh to the current foot) to the warped leg direction.
        for (let k = 0; k < 3; k++) {
          v[TMP + k] = pose.translations[foot * 3 + k] - v[H + k];
          v[TMP2 + k] = v[W + k] - v[H + k];
        }
        if (normalize3(v, TMP) && normalize3(v, TMP2)) {
          // A half turn (never for a leg within one frame) would turn about the floor normal.
          quatFromTo(v, Q, v, TMP, v, TMP2, v, N);
          loadBone(pose, thigh);
          quatMultiply(xf.r, 0, v, Q, xf.r, 0);
          pose.setComponent(thigh, xf.t, xf.r, xf.s, 0);
        }
      }
      if (p.clampLegLength) {
        const dx = v[W] - v[H], dy = v[W + 1] - v[H + 1], dz = v[W + 2] - v[H + 2];
        const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
        if (len > fkLength[i] && len > 1e-9) {
          const k = fkLength[i] / len;
          v[W] = v[H] + dx * k; v[W + 1] = v[H + 1] + dy * k; v[W + 2] = v[H + 2] + dz * k;
        }
      }
      if (p.solveIk) solveLeg(pose, thigh, calf, foot, v, W);
    }
  }

  private readonly warpedFeet = new Float64Array(8 * 3);
  private readonly fkLengths = new Float64Array(8);
  private readonly fkPelvisDistances = new Float64Array(8);

  protected override debugDescription(): string {
    const legs = this.props.legs.length, d = this.debugPoints;
    const origins = this.props.legs.map((leg, i) => `${leg.foot} origin (${fmt(d, i * 3)})`).join(' ');
    return `Scale: ${this.scale[0].toFixed(3)} ${origins} Pelvis (${fmt(d, legs * 3)}) offset (${fmt(d, legs * 3 + 3)})`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    super.onGatherDebug(node);
    const legs = this.props.legs.length, d = this.debugPoints;
    const values: Record<string, number | number[]> = {
      strideScale: this.scale[0],
      strideDirection: Array.from(this.direction),
      pelvis: Array.from(d.subarray(legs * 3, legs * 3 + 3)),
      pelvisOffset: Array.from(d.subarray(legs * 3 + 3, legs * 3 + 6)),
    };
    this.props.legs.forEach((leg, i) => { values[`scaleOrigin.${leg.foot}`] = Array.from(d.subarray(i * 3, i * 3 + 3)); });
    node.values = values;
  }
}

// The leg chain [thigh, calf, foot] for the shared two-bone solver, and its options (keep the
// foot's FK rotation; no hint: keep the leg's own bend plane).
const chainPositions = new Float64Array(9);
const chainRotations = new Float64Array(12);
const ikOptions = twoBoneIKOptions({ keepEndRotation: true });

/** Solves a leg with the two-bone IK solver and writes the three bones back (children follow). */
function solveLeg(pose: ComponentPose, upper: number, middle: number, end: number, target: Float64Array, to: number): void {
  pose.ensureComponent(upper);
  pose.ensureComponent(middle);
  pose.ensureComponent(end);
  for (let k = 0; k < 3; k++) {
    chainPositions[k] = pose.translations[upper * 3 + k];
    chainPositions[3 + k] = pose.translations[middle * 3 + k];
    chainPositions[6 + k] = pose.translations[end * 3 + k];
  }
  for (let k = 0; k < 4; k++) {
    chainRotations[k] = pose.rotations[upper * 4 + k];
    chainRotations[4 + k] = pose.rotations[middle * 4 + k];
    chainRotations[8 + k] = pose.rotations[end * 4 + k];
  }
  solveTwoBoneIK(chainPositions, chainRotations, chainPositions, chainRotations, target, to, ikOptions);
  writeBone(pose, upper, 0);
  writeBone(pose, middle, 1);
  writeBone(pose, end, 2);
}

function writeBone(pose: ComponentPose, bone: number, index: number): void {
  loadBone(pose, bone);
  for (let k = 0; k < 3; k++) xf.t[k] = chainPositions[index * 3 + k];
  for (let k = 0; k < 4; k++) xf.r[k] = chainRotations[index * 4 + k];
  pose.setComponent(bone, xf.t, xf.r, xf.s, 0);
}

function fmt(a: Float64Array, o: number): string {
  return `${a[o].toFixed(1)}, ${a[o + 1].toFixed(1)}, ${a[o + 2].toFixed(1)}`;
}

const LEG_SIDES = ['left', 'right'] as const;

export const StrideWarpingType: NodeType = {
  type: 'StrideWarping',
  space: 'component',
  properties: {
    mode: { kind: 'enum', options: ['manual', 'fromRootMotion'], default: 'manual' },
    strideScale: { kind: 'float', default: 1 },
    strideDirection: { kind: 'vec3', default: [0, 0, 1] },
    locomotionSpeed: { kind: 'float', default: 0 },
    minRootMotionSpeed: { kind: 'float', default: 1, min: 0 },
    rootMotionSmoothingTime: { kind: 'float', default: 0.5, min: 0 },
    minScale: { kind: 'float', default: 0.5, min: 0 },
    maxScale: { kind: 'float', default: 2, min: 0 },
    scaleSmoothingTime: { kind: 'float', default: 0, min: 0 },
    floorNormal: { kind: 'vec3', default: [0, 1, 0] },
    gravityDirection: { kind: 'vec3', default: [0, -1, 0] },
    pelvisBone: { kind: 'bone' },
    leftThigh: { kind: 'bone' },
    leftCalf: { kind: 'bone' },
    leftFoot: { kind: 'bone' },
    rightThigh: { kind: 'bone' },
    rightCalf: { kind: 'bone' },
    rightFoot: { kind: 'bone' },
    adjustPelvis: { kind: 'bool', default: true },
    pelvisIterations: { kind: 'int', default: 3, min: 1, max: 10 },
    pelvisSmoothingTime: { kind: 'float', default: 0, min: 0 },
    pelvisAlpha: { kind: 'float', default: 1, min: 0, max: 1 },
    correctThighs: { kind: 'bool', default: true },
    clampLegLength: { kind: 'bool', default: true },
    solveIk: { kind: 'bool', default: true },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  create: ({ id, properties: p, inputs }) =>
    new StrideWarping(id, inputs.pose as ComponentPoseLink, p.scalar('alpha'), {
      fromRootMotion: p.enumValue('mode') === 'fromRootMotion',
      strideScale: p.scalar('strideScale'),
      strideDirection: p.vec3('strideDirection'),
      locomotionSpeed: p.scalar('locomotionSpeed'),
      minRootMotionSpeed: p.scalar('minRootMotionSpeed').constant,
      rootMotionSmoothingTime: p.scalar('rootMotionSmoothingTime').constant,
      minScale: p.scalar('minScale').constant,
      maxScale: p.scalar('maxScale').constant,
      scaleSmoothingTime: p.scalar('scaleSmoothingTime').constant,
      floorNormal: p.vec3('floorNormal'),
      gravityDirection: p.vec3('gravityDirection'),
      pelvisBone: p.bone('pelvisBone'),
      legs: LEG_SIDES.map((side) => ({ thigh: p.bone(`${side}Thigh`), calf: p.bone(`${side}Calf`), foot: p.bone(`${side}Foot`) })),
      adjustPelvis: p.scalar('adjustPelvis').constant !== 0,
      pelvisIterations: p.scalar('pelvisIterations').constant,
      pelvisSmoothingTime: p.scalar('pelvisSmoothingTime').constant,
      pelvisAlpha: p.scalar('pelvisAlpha'),
      correctThighs: p.scalar('correctThighs').constant !== 0,
      clampLegLength: p.scalar('clampLegLength').constant !== 0,
      solveIk: p.scalar('solveIk').constant !== 0,
    }),
};
