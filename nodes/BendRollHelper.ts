import type { ComponentPose } from '../runtime/component-pose.ts';
import { quatMultiply, quatScaleAngle, quatSwingTwist } from '../runtime/math.ts';
import {
  type CacheBonesContext, type ComponentPoseLink, type DebugNode, type NodeCheckContext, type NodeType, type ResolvedProperties, type ScalarProperty,
} from '../runtime/node.ts';
import { SkeletalControlNode, type BoneTransforms } from '../runtime/skeletal-control.ts';

/**
 * The order the weighted parts apply in. `rollBend`: the roll first, then the bend (bend × roll, the
 * source's own split, so weights (1, 1) reproduce it and the target's axis always lies along the
 * source's rotated axis scaled by the bend weight). `bendRoll`: the bend first, then the roll about
 * the parent's axis (roll × bend).
 */
export type BendRollOrder = 'bendRoll' | 'rollBend';

/** One helper, resolved for an instance. */
export interface BendRollHelperSpec {
  source: string;
  target: string;
  /** The joint axis in the source's local space, unit length. */
  axis: readonly [number, number, number];
  bendWeight: ScalarProperty;
  rollWeight: ScalarProperty;
  order: BendRollOrder;
}

// Scratch quaternions: the weighted bend, the weighted roll and their product.
const scratch = new Float64Array(12);
const WB = 0, WR = 4, R = 8;
const DEGREES = 180 / Math.PI;

/**
 * Helper bones that follow a joint's bend and roll with separate weights (the bend-and-roll helper
 * of the seed; Unity Animation Rigging's twist correction, Maya's corrective joints). Per helper,
 * the source bone's local rotation q is split about `axis` into bend (the shortest rotation taking
 * the axis to q·axis) and roll (inverse(bend) × q, a rotation about the axis); each is scaled by its
 * weight through its axis-angle form (on the shorter arc), the two are composed in the helper's
 * order, and the product becomes the target's local rotation (its translation and scale are kept;
 * its reference rotation is replaced). Alpha blends the target's input rotation toward it.
 *
 * Every helper reads the node's input pose, so one helper does not see another's result (chain two
 * nodes for that). Targets are written deepest first: each write keeps its descendants' local
 * transforms, so a helper whose target lies below another helper's target still gets exactly its
 * local rotation. When q turns the axis exactly onto its opposite, the split is the one of
 * quatSwingTwist: no roll, and the bend is q itself (a half turn about q's own axis).
 */
export class BendRollHelper extends SkeletalControlNode {
  private readonly count: number;
  /** Unit axes, three numbers per helper. */
  private readonly axes: Float64Array;
  /** [bend weight, roll weight] per helper as last evaluated, clamped to [-1, 1]. */
  private readonly weights: Float64Array;
  /**
   * Where each weight comes from, in the layout of `weights`: a parameter slot, or -1 for the
   * literal in `literals`. Typed arrays, so reading them never boxes a double.
   */
  private readonly weightSlots: Int32Array;
  private readonly weightLiterals: Float64Array;
  /** 1 where the order is rollBend (bend × roll). */
  private readonly rollFirst: Uint8Array;
  /** [source, target] bone indices per helper; -1 until cacheBones. */
  private readonly bones: Int32Array;
  /** Helper indices in writing order: deepest target first. */
  private readonly sequence: Int32Array;
  /** The last evaluation's split per helper: bend quaternion, then roll quaternion. */
  private readonly split: Float64Array;

  constructor(id: string, input: ComponentPoseLink, alpha: ScalarProperty, private readonly helpers: readonly BendRollHelperSpec[]) {
    super(id, 'BendRollHelper', input, alpha);
    const n = helpers.length;
    this.count = n;
    this.axes = Float64Array.from(helpers.flatMap((h) => h.axis));
    this.weights = new Float64Array(n * 2);
    const weightProperties = helpers.flatMap((h) => [h.bendWeight, h.rollWeight]);
    this.weightSlots = Int32Array.from(weightProperties, (p) => p.slot);
    this.weightLiterals = Float64Array.from(weightProperties, (p) => p.constant);
    this.rollFirst = Uint8Array.from(helpers, (h) => (h.order === 'rollBend' ? 1 : 0));
    this.bones = new Int32Array(n * 2).fill(-1);
    this.sequence = Int32Array.from(helpers.keys());
    this.split = new Float64Array(n * 8);
  }

  protected override onInitialize(): void {
    super.onInitialize();
    this.split.fill(0);
    for (let i = 0; i < this.count; i++) {
      this.split[i * 8 + 3] = 1;
      this.split[i * 8 + 7] = 1;
    }
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    this.helpers.forEach((h, i) => {
      this.bones[i * 2] = ctx.boneIndex(this.id, h.source);
      this.bones[i * 2 + 1] = ctx.boneIndex(this.id, h.target);
    });
    // Bones are numbered parents first, so a higher target index is never an ancestor of a lower one.
    this.sequence.sort((a, b) => this.bones[b * 2 + 1] - this.bones[a * 2 + 1] || a - b);
  }

  protected override isValidToEvaluate(): boolean {
    for (let i = 0; i < this.bones.length; i++) if (this.bones[i] < 0) return false;
    return true;
  }

  protected evaluateBoneTransforms(pose: ComponentPose, out: BoneTransforms): void {
    const values = this.graph.parameterValues, w = this.weights, slots = this.weightSlots, literals = this.weightLiterals;
    for (let k = 0; k < w.length; k++) {
      // Clamped inline to [-1, 1], NaN to 0 (a call would box the double).
      const v = slots[k] >= 0 ? values[slots[k]] : literals[k];
      w[k] = v >= -1 ? (v <= 1 ? v : 1) : v < -1 ? -1 : 0;
    }
    const local = pose.ensureAllLocal().rotations;
    const parents = this.graph.skeleton.parents;
    const split = this.split, s = scratch;
    for (let j = 0; j < this.count; j++) {
      const i = this.sequence[j];
      const source = this.bones[i * 2], target = this.bones[i * 2 + 1];
      quatSwingTwist(split, i * 8, split, i * 8 + 4, local, source * 4, this.axes, i * 3);
      quatScaleAngle(s, WB, split, i * 8, this.weights, i * 2);
      quatScaleAngle(s, WR, split, i * 8 + 4, this.weights, i * 2 + 1);
      if (this.rollFirst[i] === 1) quatMultiply(s, R, s, WB, s, WR);
      else quatMultiply(s, R, s, WR, s, WB);
      // The target's component transform with the new local rotation: its translation and scale do
      // not depend on its own rotation, so only the rotation changes (parent rotation × local).
      const k = out.add(target, pose);
      const parent = parents[target];
      if (parent >= 0) {
        pose.ensureComponent(parent);
        quatMultiply(out.rotations, k * 4, pose.rotations, parent * 4, s, R);
      } else {
        for (let c = 0; c < 4; c++) out.rotations[k * 4 + c] = s[R + c];
      }
    }
  }

  /** Bend angle (0..180) and signed roll angle (-180..180) about the axis of helper i, in degrees. */
  private angles(i: number): [number, number] {
    const q = this.split, b = i * 8, r = i * 8 + 4, a = i * 3;
    const bend = 2 * Math.atan2(Math.sqrt(q[b] * q[b] + q[b + 1] * q[b + 1] + q[b + 2] * q[b + 2]), q[b + 3]) * DEGREES;
    const along = q[r] * this.axes[a] + q[r + 1] * this.axes[a + 1] + q[r + 2] * this.axes[a + 2];
    return [bend, 2 * Math.atan2(along, q[r + 3]) * DEGREES];
  }

  protected override debugDescription(): string {
    return this.helpers.map((h, i) => {
      const [bend, roll] = this.angles(i);
      return `${h.source} -> ${h.target} (Bend: ${bend.toFixed(1)}° Roll: ${roll.toFixed(1)}°)`;
    }).join(', ');
  }

  protected override onGatherDebug(node: DebugNode): void {
    super.onGatherDebug(node);
    const angles = this.helpers.map((_, i) => this.angles(i));
    node.values = {
      bend: angles.map((a) => a[0]),
      roll: angles.map((a) => a[1]),
      bendWeight: Array.from(this.weights.filter((_, k) => k % 2 === 0)),
      rollWeight: Array.from(this.weights.filter((_, k) => k % 2 === 1)),
    };
  }
}

/** The axis scaled to unit length (the loader rejects zero axes). */
function unitAxis(v: Float64Array): [number, number, number] {
  const m = Math.max(Math.abs(v[0]), Math.abs(v[1]), Math.abs(v[2]));
  const x = v[0] / m, y = v[1] / m, z = v[2] / m;
  const len = Math.sqrt(x * x + y * y + z * z);
  return [x / len, y / len, z / len];
}

function resolveHelper(h: ResolvedProperties): BendRollHelperSpec {
  return {
    source: h.bone('source'),
    target: h.bone('target'),
    axis: unitAxis(h.vec3('axis').constant),
    bendWeight: h.scalar('bendWeight'),
    rollWeight: h.scalar('rollWeight'),
    order: h.enumValue('order') === 'bendRoll' ? 'bendRoll' : 'rollBend',
  };
}

/** Two helpers of one node may not drive the same bone. */
function checkTargets(ctx: NodeCheckContext): void {
  const helpers = ctx.properties.helpers;
  if (!Array.isArray(helpers)) return;
  const first = new Map<string, number>();
  helpers.forEach((h: unknown, i) => {
    const target = typeof h === 'object' && h !== null ? (h as { target?: unknown }).target : undefined;
    if (typeof target !== 'string') return;
    const earlier = first.get(target);
    if (earlier === undefined) first.set(target, i);
    else {
      ctx.report(['helpers', i, 'target'], 'schema',
        `bone '${target}' is already the target of helpers[${earlier}]; a bone takes one helper per node (chain another BendRollHelper node to drive it again)`);
    }
  });
}

export const BendRollHelperType: NodeType = {
  type: 'BendRollHelper',
  space: 'component',
  properties: {
    helpers: {
      kind: 'list',
      minCount: 1,
      item: {
        source: { kind: 'bone' },
        target: { kind: 'bone' },
        axis: { kind: 'direction', default: [1, 0, 0] },
        bendWeight: { kind: 'float', default: 1, min: -1, max: 1 },
        rollWeight: { kind: 'float', default: 0, min: -1, max: 1 },
        order: { kind: 'enum', options: ['bendRoll', 'rollBend'], default: 'rollBend' },
      },
    },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  check: checkTargets,
  create: ({ id, properties: p, inputs }) =>
    new BendRollHelper(id, inputs.pose as ComponentPoseLink, p.scalar('alpha'), p.list('helpers').map(resolveHelper)),
};
