import { quatMultiply, quatNormalize, quatScaleAngle, quatSwingTwist } from '../runtime/core/math.ts';
import {
  LocalPoseNode, ZERO_WEIGHT,
  type CacheBonesContext, type DebugNode, type Link, type NodeCheckContext, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext,
} from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType, sameNumbers, sharedWhenSame } from '../runtime/node/node-type.ts';

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

/**
 * What every instance of one BendRollHelper node in a graph shares (the type's `prepare` builds it):
 * the helpers' axes, where their weights and alpha come from, their orders, and their bones once
 * the first instance resolved them. A crowd's characters then read one copy of them.
 */
export class BendRollTable {
  /** Unit axes, three numbers per helper. */
  readonly axes: Float64Array;
  /**
   * Where each weight comes from, [bend, roll] per helper: a parameter slot, or -1 for the literal
   * in `weightLiterals`, which holds the clamped literal alpha after them.
   */
  readonly weightSlots: Int32Array;
  readonly weightLiterals: Float64Array;
  /** The parameter slot alpha is bound to, or -1 for its literal. */
  readonly alphaSlot: number;
  /** 1 where the order is rollBend (bend × roll). */
  readonly rollFirst: Uint8Array;
  /** [source, target] bone indices per helper, as the first instance resolved them. */
  bones: Int32Array | null = null;

  constructor(helpers: readonly BendRollHelperSpec[], alpha: ScalarProperty) {
    this.axes = Float64Array.from(helpers.flatMap((h) => h.axis));
    const weightProperties = helpers.flatMap((h) => [h.bendWeight, h.rollWeight]);
    this.weightSlots = Int32Array.from(weightProperties, (p) => p.slot);
    const literal = alpha.constant;
    this.weightLiterals = Float64Array.from([...weightProperties.map((p) => p.constant), literal > 0 ? (literal < 1 ? literal : 1) : 0]);
    this.alphaSlot = alpha.slot;
    this.rollFirst = Uint8Array.from(helpers, (h) => (h.order === 'rollBend' ? 1 : 0));
  }
}

// Scratch quaternions: the weighted bend and the weighted roll.
const scratch = new Float64Array(8);
const WB = 0, WR = 4;
const DEGREES = 180 / Math.PI;

/**
 * Helper bones that follow a joint's bend and roll with separate weights (riggers' bend-and-roll
 * helper bones; Unity Animation Rigging's twist correction, Maya's corrective joints). Per helper,
 * the source bone's local rotation q is split about `axis` into bend (the shortest rotation taking
 * the axis to q·axis) and roll (inverse(bend) × q, a rotation about the axis); each is scaled by its
 * weight through its axis-angle form (on the shorter arc), the two are composed in the helper's
 * order, and the product becomes the target's local rotation (its translation and scale are kept;
 * its reference rotation is replaced). Alpha blends the target's input rotation toward it.
 *
 * Every helper reads the node's input pose, so one helper does not see another's result (chain two
 * nodes for that). When q turns the axis exactly onto its opposite, the split is the one of
 * quatSwingTwist: no roll, and the bend is q itself (a half turn about q's own axis).
 *
 * It reads and writes local rotations only, so it is a local-space node: a skeletal control would
 * convert the whole pose to component space and back for four rotations (twice the cost of
 * sampling the clip, in the crowd bench). Alpha is the normalised lerp of the local rotations,
 * which equals the component-space blend of a skeletal control: the parent's rotation multiplies
 * both ends alike.
 */
export class BendRollHelper extends LocalPoseNode {
  private readonly inputLinks: readonly Link[];
  private readonly count: number;
  /** What every instance of this node in one graph shares: axes, weights' sources, orders (BendRollTable). */
  private readonly table: BendRollTable;
  /** [source, target] bone indices per helper (the graph's, once resolved alike); -1 until cacheBones. */
  private bones: Int32Array;
  /**
   * [bend weight, roll weight] per helper as last evaluated, clamped to [-1, 1], then alpha in use
   * this frame, clamped to [0, 1] (at ALPHA: an array rather than a field; see CONTRIBUTING.md,
   * "Numbers in the frame loop").
   */
  private readonly weights: Float64Array;
  /** The last evaluation's split per helper: bend quaternion, then roll quaternion. */
  private readonly split: Float64Array;
  /** Each helper's weighted result, computed from the input before any target is written. */
  private readonly results: Float64Array;

  constructor(id: string, private readonly input: PoseLink, alpha: ScalarProperty, private readonly helpers: readonly BendRollHelperSpec[], table?: BendRollTable) {
    super(id, 'BendRollHelper');
    this.inputLinks = [input];
    const n = helpers.length;
    this.count = n;
    this.table = table ?? new BendRollTable(helpers, alpha);
    this.weights = new Float64Array(n * 2 + 1);
    this.bones = new Int32Array(n * 2).fill(-1);
    this.split = new Float64Array(n * 8);
    this.results = new Float64Array(n * 4);
  }

  /** Alpha in use this frame. */
  private get alpha(): number {
    return this.weights[this.count * 2];
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  protected override onInitialize(): void {
    this.weights[this.count * 2] = 0;
    this.split.fill(0);
    for (let i = 0; i < this.count; i++) {
      this.split[i * 8 + 3] = 1;
      this.split[i * 8 + 7] = 1;
    }
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    // Resolved by every instance (each reports its unknown bones); the first one's kept for all alike (sharedWhenSame).
    const bones = new Int32Array(this.count * 2);
    this.helpers.forEach((h, i) => {
      bones[i * 2] = ctx.boneIndex(this.id, h.source);
      bones[i * 2 + 1] = ctx.boneIndex(this.id, h.target);
    });
    this.bones = sharedWhenSame(this.table, 'bones', bones, sameNumbers);
  }

  private isValidToEvaluate(): boolean {
    for (let i = 0; i < this.bones.length; i++) if (this.bones[i] < 0) return false;
    return true;
  }

  protected onUpdate(ctx: UpdateContext): void {
    this.input.update(ctx);
    const table = this.table, slot = table.alphaSlot, at = this.count * 2;
    // Two stores rather than one conditional: see CONTRIBUTING.md, "Numbers in the frame loop".
    if (slot >= 0) {
      const alpha = this.graph.parameterValues[slot];
      this.weights[at] = alpha > 0 ? (alpha < 1 ? alpha : 1) : 0;
    } else this.weights[at] = table.weightLiterals[at];
  }

  protected onEvaluate(out: Pose): void {
    this.input.evaluate(out);
    const alpha = this.alpha;
    if (alpha <= ZERO_WEIGHT || !this.isValidToEvaluate()) return;
    const table = this.table, values = this.graph.parameterValues, w = this.weights, slots = table.weightSlots, literals = table.weightLiterals;
    for (let k = 0; k < this.count * 2; k++) {
      // Clamped inline to [-1, 1], NaN to 0: see CONTRIBUTING.md, "Numbers in the frame loop"
      const v = slots[k] >= 0 ? values[slots[k]] : literals[k];
      w[k] = v >= -1 ? (v <= 1 ? v : 1) : v < -1 ? -1 : 0;
    }
    const local = out.rotations;
    const split = this.split, s = scratch, results = this.results;
    for (let i = 0; i < this.count; i++) {
      quatSwingTwist(split, i * 8, split, i * 8 + 4, local, this.bones[i * 2] * 4, table.axes, i * 3);
      quatScaleAngle(s, WB, split, i * 8, this.weights, i * 2);
      quatScaleAngle(s, WR, split, i * 8 + 4, this.weights, i * 2 + 1);
      if (table.rollFirst[i] === 1) quatMultiply(results, i * 4, s, WB, s, WR);
      else quatMultiply(results, i * 4, s, WR, s, WB);
    }
    // Written once every helper has read the input (a source may be another helper's target).
    const keep = 1 - alpha;
    for (let i = 0; i < this.count; i++) {
      const t = this.bones[i * 2 + 1] * 4, r = i * 4;
      // From the input rotation toward the result on the shorter arc, as FTransform::Blend.
      const dot = local[t] * results[r] + local[t + 1] * results[r + 1] + local[t + 2] * results[r + 2] + local[t + 3] * results[r + 3];
      const w = dot < 0 ? -alpha : alpha;
      for (let c = 0; c < 4; c++) local[t + c] = local[t + c] * keep + results[r + c] * w;
      quatNormalize(local, t);
    }
  }

  /** Bend angle (0..180) and signed roll angle (-180..180) about the axis of helper i, in degrees. */
  private angles(i: number): [number, number] {
    const q = this.split, b = i * 8, r = i * 8 + 4, a = i * 3;
    const bend = 2 * Math.atan2(Math.sqrt(q[b] * q[b] + q[b + 1] * q[b + 1] + q[b + 2] * q[b + 2]), q[b + 3]) * DEGREES;
    const axes = this.table.axes;
    const along = q[r] * axes[a] + q[r + 1] * axes[a + 1] + q[r + 2] * axes[a + 2];
    return [bend, 2 * Math.atan2(along, q[r + 3]) * DEGREES];
  }

  protected override debugDescription(): string {
    return `Alpha: ${(this.alpha * 100).toFixed(1)}% ` + this.helpers.map((h, i) => {
      const [bend, roll] = this.angles(i);
      return `${h.source} -> ${h.target} (Bend: ${bend.toFixed(1)}° Roll: ${roll.toFixed(1)}°)`;
    }).join(', ');
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.alpha = this.alpha;
    const angles = this.helpers.map((_, i) => this.angles(i));
    // [bend, roll] per helper: alpha, after them in the same array, is not a weight.
    const weights = Array.from(this.weights.subarray(0, this.count * 2));
    node.values = {
      bend: angles.map((a) => a[0]),
      roll: angles.map((a) => a[1]),
      bendWeight: weights.filter((_, k) => k % 2 === 0),
      rollWeight: weights.filter((_, k) => k % 2 === 1),
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

/** The helpers as written, each axis scaled to unit length. */
function helperSpecs(helpers: readonly (Omit<BendRollHelperSpec, 'axis'> & { axis: Float64Array })[]): BendRollHelperSpec[] {
  return helpers.map((h): BendRollHelperSpec => ({ ...h, axis: unitAxis(h.axis) }));
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

export const BendRollHelperType: NodeType = defineBuiltInNodeType({
  type: 'BendRollHelper',
  space: 'local',
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
  inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  check: checkTargets,
  prepare: ({ properties: p }) => new BendRollTable(helperSpecs(p.helpers), p.alpha),
  create: ({ id, properties: p, inputs, shared }) => {
    const helpers = helperSpecs(p.helpers);
    return new BendRollHelper(id, inputs.pose, p.alpha, helpers, shared ?? new BendRollTable(helpers, p.alpha));
  },
});
