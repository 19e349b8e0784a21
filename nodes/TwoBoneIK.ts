import type { ComponentPose } from '../runtime/core/component-pose.ts';
import { quatRotateVec3 } from '../runtime/core/math.ts';
import {
  readFlag, readScalar, readVec3,
  type CacheBonesContext, type ComponentPoseLink, type DebugNode, type NodeCheckContext, type NodeType,
  type ScalarProperty, type Vec3Property,
} from '../runtime/node/node.ts';
import { SkeletalControlNode, type BoneTransforms } from '../runtime/node/skeletal-control.ts';
import {
  IK_ALLOW_STRETCH, IK_HINT, IK_KEEP_END_ROTATION, IK_MAX_STRETCH_SCALE, IK_START_STRETCH_RATIO, TWO_BONE_IK_OPTIONS,
  solveTwoBoneIK,
} from '../runtime/jobs/two-bone-ik.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

const HINT_NONE = 0, HINT_POSITION = 1, HINT_DIRECTION = 2;

/** A TwoBoneIK node's resolved properties. */
export interface TwoBoneIKNodeSettings {
  endBone: string;
  /** '' unless targetMode is 'bone'. */
  targetBone: string;
  hintMode: number;
  target: Vec3Property;
  hint: Vec3Property;
  keepEndRotation: ScalarProperty;
  allowStretch: ScalarProperty;
  startStretchRatio: ScalarProperty;
  maxStretchScale: ScalarProperty;
}

/**
 * Unreal's Two Bone IK: the end bone (a foot), its parent (the calf) and grandparent (the thigh)
 * reach for a target in component space, taken from a vector (usually a vec3 parameter) or a bone,
 * bending in the plane a hint chooses. The solver is runtime/jobs/two-bone-ik.ts; this node gathers the
 * chain from the pose, feeds it and writes the three bones back (the children of each follow).
 */
export class TwoBoneIK extends SkeletalControlNode {
  private upper = -1;
  private middle = -1;
  private end = -1;
  private targetBoneIndex = -1;
  private chainNames = '';
  private readonly positions = new Float64Array(9);
  private readonly rotations = new Float64Array(12);
  private readonly solvedPositions = new Float64Array(9);
  private readonly solvedRotations = new Float64Array(12);
  private readonly targetPosition = new Float64Array(3);
  private readonly options = new Float64Array(TWO_BONE_IK_OPTIONS);
  /** The update counter of the last solve, for the debug values. */
  private solvedAt = -1;

  constructor(id: string, input: ComponentPoseLink, alpha: ScalarProperty, private readonly settings: TwoBoneIKNodeSettings) {
    super(id, 'TwoBoneIK', input, alpha);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    const parents = ctx.skeleton.parents;
    this.end = ctx.boneIndex(this.id, this.settings.endBone);
    this.middle = this.end >= 0 ? parents[this.end] : -1;
    this.upper = this.middle >= 0 ? parents[this.middle] : -1;
    this.targetBoneIndex = this.settings.targetBone !== '' ? ctx.boneIndex(this.id, this.settings.targetBone) : -1;
    const names = ctx.skeleton.boneNames;
    this.chainNames = this.upper >= 0 ? `${names[this.upper]} > ${names[this.middle]} > ${names[this.end]}` : this.settings.endBone;
  }

  protected override isValidToEvaluate(): boolean {
    return this.upper >= 0 && (this.settings.targetBone === '' || this.targetBoneIndex >= 0);
  }

  protected evaluateBoneTransforms(pose: ComponentPose, out: BoneTransforms): void {
    const values = this.graph.parameterValues;
    const { upper, middle, end, positions, rotations, options, settings } = this;
    pose.ensureComponent(end); // and so its ancestors
    for (let i = 0; i < 3; i++) {
      positions[i] = pose.translations[upper * 3 + i];
      positions[3 + i] = pose.translations[middle * 3 + i];
      positions[6 + i] = pose.translations[end * 3 + i];
    }
    for (let i = 0; i < 4; i++) {
      rotations[i] = pose.rotations[upper * 4 + i];
      rotations[4 + i] = pose.rotations[middle * 4 + i];
      rotations[8 + i] = pose.rotations[end * 4 + i];
    }
    const target = this.targetPosition;
    readVec3(target, 0, values, settings.target);
    limitReach(target, 0);
    const tb = this.targetBoneIndex;
    if (tb >= 0) {
      // Bone mode: `target` is an offset in the target bone's space (zero: the bone's position).
      pose.ensureComponent(tb);
      for (let i = 0; i < 3; i++) target[i] *= pose.scales[tb * 3 + i];
      quatRotateVec3(target, 0, pose.rotations, tb * 4, target, 0);
      for (let i = 0; i < 3; i++) target[i] += pose.translations[tb * 3 + i];
      limitReach(target, 0);
    }
    if (settings.hintMode === HINT_NONE) {
      options[IK_HINT] = 0; options[IK_HINT + 1] = 0; options[IK_HINT + 2] = 0;
    } else {
      readVec3(options, IK_HINT, values, settings.hint);
      limitReach(options, IK_HINT);
      if (settings.hintMode === HINT_POSITION) for (let i = 0; i < 3; i++) options[IK_HINT + i] -= positions[i];
    }
    options[IK_KEEP_END_ROTATION] = readFlag(values, settings.keepEndRotation) ? 1 : 0;
    options[IK_ALLOW_STRETCH] = readFlag(values, settings.allowStretch) ? 1 : 0;
    // Bound values are held to the properties' ranges, [0, 1e6] and [1, 1e6]: a stretch of 1e154
    // squares to Infinity in the solver. (Literals, not module constants: see CONTRIBUTING.md, "Numbers in the frame loop".)
    const startStretch = readScalar(values, settings.startStretchRatio), maxStretch = readScalar(values, settings.maxStretchScale);
    options[IK_START_STRETCH_RATIO] = startStretch > 0 ? (startStretch < 1e6 ? startStretch : 1e6) : 0;
    options[IK_MAX_STRETCH_SCALE] = maxStretch > 1 ? (maxStretch < 1e6 ? maxStretch : 1e6) : 1;
    const solvedT = this.solvedPositions, solvedR = this.solvedRotations;
    solveTwoBoneIK(solvedT, solvedR, positions, rotations, target, 0, options);
    this.solvedAt = this.graph.updateCounter;
    for (let j = 0; j < 3; j++) {
      const k = out.add(j === 0 ? upper : j === 1 ? middle : end, pose);
      for (let i = 0; i < 3; i++) out.translations[k * 3 + i] = solvedT[j * 3 + i];
      for (let i = 0; i < 4; i++) out.rotations[k * 4 + i] = solvedR[j * 4 + i];
    }
  }

  protected override debugDescription(): string {
    return `${this.chainNames} -> ${this.settings.targetBone !== '' ? this.settings.targetBone : 'target'}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    super.onGatherDebug(node);
    if (this.solvedAt !== this.graph.updateCounter || !this.relevant) return;
    const p = this.positions, q = this.solvedPositions, t = this.targetPosition;
    const l1 = Math.hypot(p[3] - p[0], p[4] - p[1], p[5] - p[2]);
    node.values = {
      target: Array.from(t),
      /** Distance from the solved end bone to the target (0 when reached). */
      reachError: Math.hypot(q[6] - t[0], q[7] - t[1], q[8] - t[2]),
      /** Length scale applied by stretching (1: none). */
      stretch: l1 > 0 ? Math.hypot(q[3] - q[0], q[4] - q[1], q[5] - q[2]) / l1 : 1,
    };
  }
}

/** Load-time checks the property schema cannot express. */
function checkTwoBoneIK(ctx: NodeCheckContext): void {
  const { properties: p, skeleton } = ctx;
  const endBone = p.endBone;
  if (skeleton && typeof endBone === 'string') {
    const end = skeleton.indexOf(endBone);
    const parent = end >= 0 ? skeleton.parents[end] : -1;
    // An unknown bone is reported by the generic check.
    if (end >= 0 && (parent < 0 || skeleton.parents[parent] < 0)) {
      ctx.report(['endBone'], 'unknown-bone',
        `bone '${endBone}' has no ${parent < 0 ? 'parent' : 'grandparent'}: the chain is endBone's grandparent (upper), parent (middle) and endBone itself`);
    }
  }
  if (p.targetMode === 'bone' && p.targetBone === undefined) {
    ctx.report(['targetBone'], 'schema', "targetMode 'bone' needs a targetBone");
  }
}

/** The farthest a target or hint reaches along any axis (the helper bones' bound, 1e9 units). */
const MAX_REACH = 1e9;

/**
 * Scales v[o..o+2] toward the origin, keeping its direction, when an axis lies beyond MAX_REACH:
 * a vec3 parameter may hold any finite numbers, and the distance to a target at 1.8e308 overflows.
 * A target that far is out of reach whatever its exact distance, so the pose does not change.
 */
function limitReach(v: Float64Array, o: number): void {
  const m = Math.max(Math.abs(v[o]), Math.abs(v[o + 1]), Math.abs(v[o + 2]));
  if (m > MAX_REACH) {
    const k = MAX_REACH / m;
    v[o] *= k; v[o + 1] *= k; v[o + 2] *= k;
  }
}

export const TwoBoneIKType: NodeType = defineBuiltInNodeType({
  type: 'TwoBoneIK',
  space: 'component',
  properties: {
    endBone: { kind: 'bone' },
    targetMode: { kind: 'enum', options: ['vector', 'bone'], default: 'vector' },
    target: { kind: 'vec3', default: [0, 0, 0] },
    targetBone: { kind: 'bone', optional: true },
    hintMode: { kind: 'enum', options: ['none', 'position', 'direction'], default: 'none' },
    hint: { kind: 'vec3', default: [0, 0, 0] },
    keepEndRotation: { kind: 'bool', default: true },
    allowStretch: { kind: 'bool', default: false },
    startStretchRatio: { kind: 'float', default: 1, min: 0, max: 1e6 },
    maxStretchScale: { kind: 'float', default: 1.2, min: 1, max: 1e6 },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  check: checkTwoBoneIK,
  create: ({ id, properties: p, inputs }) => {
    const { hintMode } = p;
    return new TwoBoneIK(id, inputs.pose, p.alpha, {
      endBone: p.endBone,
      targetBone: p.targetMode === 'bone' ? p.targetBone : '',
      hintMode: hintMode === 'position' ? HINT_POSITION : hintMode === 'direction' ? HINT_DIRECTION : HINT_NONE,
      target: p.target,
      hint: p.hint,
      keepEndRotation: p.keepEndRotation,
      allowStretch: p.allowStretch,
      startStretchRatio: p.startStretchRatio,
      maxStretchScale: p.maxStretchScale,
    });
  },
});
