import type { ComponentPose } from '../runtime/core/component-pose.ts';
import { quatConjugateMultiply, quatFromEulerDegrees, quatMultiply, quatRotateVec3 } from '../runtime/core/math.ts';
import { ScratchNumbers } from '../runtime/core/scratch.ts';
import type { Skeleton } from '../runtime/core/skeleton.ts';
import {
  readScalarInto, readVec3,
  type CacheBonesContext, type ComponentPoseLink, type DebugNode, type NodeCheckContext, type NodeType,
  type ScalarProperty, type Vec3Property,
} from '../runtime/node/node.ts';
import { SkeletalControlNode, type BoneTransforms } from '../runtime/node/skeletal-control.ts';
import {
  CHAIN_IK_OPTIONS, CHAIN_ITERATIONS, CHAIN_MAX_ITERATIONS, CHAIN_PRECISION, CHAIN_REACH_ERROR, CHAIN_TARGET,
  chainIKWorkLength, solveFabrik,
} from '../runtime/jobs/chain-ik.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

/** How a chain's tip is turned (Unreal's EBoneRotationSource), by index. */
export const TIP_ROTATIONS = ['keepComponent', 'keepLocal', 'copyTarget'] as const;
const KEEP_COMPONENT = 0, KEEP_LOCAL = 1;

/** What FABRIK and CCDIK nodes resolve alike. */
export interface ChainIKNodeSettings {
  rootBone: string;
  tipBone: string;
  /** '' unless targetMode is 'bone'. */
  targetBone: string;
  target: Vec3Property;
  /** Euler angles in degrees [x, y, z] (Rx·Ry·Rz), component space: the tip's rotation with copyTarget in vector mode. */
  targetRotation: Vec3Property;
  /** An index of TIP_ROTATIONS. */
  tipRotation: number;
  precision: ScalarProperty;
  maxIterations: ScalarProperty;
}

/**
 * The work arrays of every chain on the thread (positions, rotations and the solver's numbers):
 * used within one evaluation only (see CONTRIBUTING.md, "Objects per character").
 */
const CHAIN_WORK = new ScratchNumbers();

// A chain node's own numbers, after the solver's options.
const OLD_TIP = CHAIN_IK_OPTIONS; // the tip's input rotation, 4
const OLD_PARENT = OLD_TIP + 4; // its parent's, 4
const TIP = OLD_PARENT + 4; // the tip's rotation written, 4
const NUMBERS = TIP + 4;

/** targetRotation as read, within one evaluation (quatFromEulerDegrees reads its angles from index 0). */
const EULER = new Float64Array(3);

/** The farthest a target reaches along any axis (TwoBoneIK's bound): beyond, it is moved toward the origin along its direction. */
const MAX_REACH = 1e9;

/**
 * A chain of bones from a root bone down to a tip bone that reaches for a target in component space
 * (Unreal's FABRIK and CCDIK nodes share this): gathers the chain from the pose into a work array,
 * lets the subclass's solver (runtime/jobs/chain-ik.ts) move it, turns the tip as asked, and writes
 * the chain back, parents first (the bones' other children follow them).
 */
export abstract class ChainIKNode extends SkeletalControlNode {
  /** The chain's bones from root to tip (empty until bound, or when the root is not above the tip). */
  protected chain: Int32Array = new Int32Array(0);
  protected work: Float64Array = new Float64Array(0);
  protected readonly n = new Float64Array(NUMBERS);
  private targetBoneIndex = -1;
  private solvedAt = -1;

  constructor(id: string, type: string, input: ComponentPoseLink, alpha: ScalarProperty, protected readonly settings: ChainIKNodeSettings) {
    super(id, type, input, alpha);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    const root = ctx.boneIndex(this.id, this.settings.rootBone), tip = ctx.boneIndex(this.id, this.settings.tipBone);
    this.chain = root >= 0 && tip >= 0 ? chainBetween(ctx.skeleton, root, tip) : new Int32Array(0);
    this.work = CHAIN_WORK.atLeast(chainIKWorkLength(this.chain.length));
    this.targetBoneIndex = this.settings.targetBone !== '' ? ctx.boneIndex(this.id, this.settings.targetBone) : -1;
  }

  protected override isValidToEvaluate(): boolean {
    return this.chain.length >= 2 && (this.settings.targetBone === '' || this.targetBoneIndex >= 0);
  }

  /** Moves the chain in `work` (count bones) toward options[CHAIN_TARGET..], as runtime/jobs/chain-ik.ts lays it out. */
  protected abstract solve(work: Float64Array, count: number, options: Float64Array): void;

  protected evaluateBoneTransforms(pose: ComponentPose, out: BoneTransforms): void {
    const { chain, work, n, settings } = this;
    const values = this.graph.parameterValues, count = chain.length, tip = chain[count - 1];
    pose.ensureComponent(tip); // and so the rest of the chain
    for (let j = 0; j < count; j++) {
      const b = chain[j];
      for (let i = 0; i < 3; i++) work[j * 3 + i] = pose.translations[b * 3 + i];
      for (let i = 0; i < 4; i++) work[count * 3 + j * 4 + i] = pose.rotations[b * 4 + i];
    }
    for (let i = 0; i < 4; i++) {
      n[OLD_TIP + i] = pose.rotations[tip * 4 + i];
      n[OLD_PARENT + i] = pose.rotations[chain[count - 2] * 4 + i];
    }
    readVec3(n, CHAIN_TARGET, values, settings.target);
    limitReach(n, CHAIN_TARGET);
    const tb = this.targetBoneIndex;
    if (tb >= 0) {
      // Bone mode: `target` is an offset in the target bone's space (zero: the bone's position).
      pose.ensureComponent(tb);
      for (let i = 0; i < 3; i++) n[CHAIN_TARGET + i] *= pose.scales[tb * 3 + i];
      quatRotateVec3(n, CHAIN_TARGET, pose.rotations, tb * 4, n, CHAIN_TARGET);
      for (let i = 0; i < 3; i++) n[CHAIN_TARGET + i] += pose.translations[tb * 3 + i];
      limitReach(n, CHAIN_TARGET);
    }
    readScalarInto(n, CHAIN_PRECISION, values, settings.precision);
    if (!(n[CHAIN_PRECISION] > 0)) n[CHAIN_PRECISION] = 0;
    readScalarInto(n, CHAIN_MAX_ITERATIONS, values, settings.maxIterations);
    // A whole number in [0, 1000] (NaN: 0).
    n[CHAIN_MAX_ITERATIONS] = n[CHAIN_MAX_ITERATIONS] > 0 ? Math.floor(n[CHAIN_MAX_ITERATIONS] < 1000 ? n[CHAIN_MAX_ITERATIONS] : 1000) : 0;
    this.solve(work, count, n);
    this.solvedAt = this.graph.updateCounter;
    this.turnTip(pose);
    for (let j = 0; j < count; j++) {
      const k = out.add(chain[j], pose);
      for (let i = 0; i < 3; i++) out.translations[k * 3 + i] = work[j * 3 + i];
      if (j < count - 1) for (let i = 0; i < 4; i++) out.rotations[k * 4 + i] = work[count * 3 + j * 4 + i];
      else for (let i = 0; i < 4; i++) out.rotations[k * 4 + i] = n[TIP + i];
    }
  }

  /** The tip's rotation into n[TIP..], as tipRotation asks. */
  private turnTip(pose: ComponentPose): void {
    const n = this.n, mode = this.settings.tipRotation, parent = this.chain.length * 3 + (this.chain.length - 2) * 4;
    if (mode === KEEP_COMPONENT) {
      for (let i = 0; i < 4; i++) n[TIP + i] = n[OLD_TIP + i];
    } else if (mode === KEEP_LOCAL) {
      // The parent's new rotation times the tip's input rotation relative to the parent's input one.
      quatConjugateMultiply(n, TIP, n, OLD_PARENT, n, OLD_TIP);
      quatMultiply(n, TIP, this.work, parent, n, TIP);
    } else if (this.targetBoneIndex >= 0) {
      for (let i = 0; i < 4; i++) n[TIP + i] = pose.rotations[this.targetBoneIndex * 4 + i];
    } else {
      readVec3(EULER, 0, this.graph.parameterValues, this.settings.targetRotation);
      quatFromEulerDegrees(n, TIP, 'XYZ', EULER);
    }
  }

  protected override debugDescription(): string {
    return `${this.settings.rootBone} .. ${this.settings.tipBone} -> ${this.settings.targetBone !== '' ? this.settings.targetBone : 'target'}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    super.onGatherDebug(node);
    if (this.solvedAt !== this.graph.updateCounter || !this.relevant) return;
    const n = this.n;
    node.values = {
      target: Array.from(n.subarray(CHAIN_TARGET, CHAIN_TARGET + 3)),
      /** Distance from the solved tip to the target. */
      reachError: n[CHAIN_REACH_ERROR],
      iterations: n[CHAIN_ITERATIONS],
    };
  }
}

/** The bones from `root` down to `tip`, root first; empty when `root` is not an ancestor of `tip`. */
export function chainBetween(skeleton: Skeleton, root: number, tip: number): Int32Array<ArrayBuffer> {
  const up: number[] = [];
  for (let b = tip; b >= 0; b = skeleton.parents[b]) {
    up.push(b);
    if (b === root) return Int32Array.from(up.reverse());
  }
  return new Int32Array(0);
}

/**
 * Scales v[o..o+2] toward the origin, keeping its direction, when an axis lies beyond MAX_REACH: a
 * vec3 parameter may hold any finite numbers, and distances to a target at 1.8e308 overflow.
 */
function limitReach(v: Float64Array, o: number): void {
  const m = Math.max(Math.abs(v[o]), Math.abs(v[o + 1]), Math.abs(v[o + 2]));
  if (m > MAX_REACH) {
    const k = MAX_REACH / m;
    v[o] *= k; v[o + 1] *= k; v[o + 2] *= k;
  }
}

/** Load-time checks FABRIK and CCDIK share: the root above the tip, a target bone in bone mode. */
export function checkChainIK(ctx: NodeCheckContext): void {
  const { properties: p, skeleton } = ctx;
  if (skeleton && typeof p.rootBone === 'string' && typeof p.tipBone === 'string') {
    const root = skeleton.indexOf(p.rootBone), tip = skeleton.indexOf(p.tipBone);
    // An unknown bone is reported by the generic check.
    if (root >= 0 && tip >= 0 && chainBetween(skeleton, root, tip).length < 2) {
      ctx.report(['tipBone'], 'unknown-bone', `bone '${p.tipBone}' is not below rootBone '${p.rootBone}': the chain runs from rootBone down to tipBone`);
    }
  }
  if (p.targetMode === 'bone' && p.targetBone === undefined) {
    ctx.report(['targetBone'], 'schema', "targetMode 'bone' needs a targetBone");
  }
}

/** The properties FABRIK and CCDIK share, with the tip's rotation by default as Unreal's node keeps it. */
export function chainIKProperties<D extends (typeof TIP_ROTATIONS)[number]>(tipDefault: D) {
  const origin: [number, number, number] = [0, 0, 0];
  return {
    rootBone: { kind: 'bone' as const },
    tipBone: { kind: 'bone' as const },
    targetMode: { kind: 'enum' as const, options: ['vector', 'bone'] as const, default: 'vector' as const },
    target: { kind: 'vec3' as const, default: origin },
    targetBone: { kind: 'bone' as const, optional: true },
    tipRotation: { kind: 'enum' as const, options: TIP_ROTATIONS, default: tipDefault },
    targetRotation: { kind: 'vec3' as const, default: [...origin] as [number, number, number] },
    precision: { kind: 'float' as const, default: 1, min: 0 },
    maxIterations: { kind: 'int' as const, default: 10, min: 0, max: 1000 },
  };
}

/** The settings chainIKProperties' properties give, as the nodes take them. */
export function chainIKSettings(p: {
  rootBone: string; tipBone: string; targetMode: string; targetBone: string; target: Vec3Property;
  targetRotation: Vec3Property; tipRotation: (typeof TIP_ROTATIONS)[number]; precision: ScalarProperty; maxIterations: ScalarProperty;
}): ChainIKNodeSettings {
  return {
    rootBone: p.rootBone,
    tipBone: p.tipBone,
    targetBone: p.targetMode === 'bone' ? p.targetBone : '',
    target: p.target,
    targetRotation: p.targetRotation,
    tipRotation: TIP_ROTATIONS.indexOf(p.tipRotation),
    precision: p.precision,
    maxIterations: p.maxIterations,
  };
}

/** Unreal's FABRIK node: the chain reaches by forward and backward reaching (solveFabrik). */
export class FABRIK extends ChainIKNode {
  constructor(id: string, input: ComponentPoseLink, alpha: ScalarProperty, settings: ChainIKNodeSettings) {
    super(id, 'FABRIK', input, alpha, settings);
  }

  protected solve(work: Float64Array, count: number, options: Float64Array): void {
    solveFabrik(work, count, options);
  }
}

export const FABRIKType: NodeType = defineBuiltInNodeType({
  type: 'FABRIK',
  space: 'component',
  properties: {
    ...chainIKProperties('keepComponent'),
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  check: checkChainIK,
  create: ({ id, properties: p, inputs }) => new FABRIK(id, inputs.pose, p.alpha, chainIKSettings(p)),
});
