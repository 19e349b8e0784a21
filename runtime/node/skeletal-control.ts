import type { ComponentPose } from '../core/component-pose.ts';
import { quatNormalize } from '../core/math.ts';
import { AnimGraphError } from '../core/errors.ts';
import {
  ComponentPoseNode, ZERO_WEIGHT,
  type ComponentPoseLink, type DebugNode, type InitializeContext, type Link, type ScalarProperty, type UpdateContext,
} from './node.ts';

/**
 * Component-space bone transforms a skeletal control wants to write, in the order given (usually
 * parents before children; see evaluateBoneTransforms). A control gets one slot per bone of its
 * skeleton (`limit`); nothing is allocated per frame.
 */
export class BoneTransforms {
  count = 0;
  /**
   * How many slots add may fill: the capacity it was made with, and, for the buffer controls share,
   * the evaluating control's bone count, so that what a control may write does not depend on the
   * larger skeletons of other graphs on the thread.
   */
  limit: number;
  readonly bones: Int32Array;
  readonly translations: Float64Array;
  readonly rotations: Float64Array;
  readonly scales: Float64Array;

  constructor(capacity: number) {
    this.limit = capacity;
    this.bones = new Int32Array(capacity);
    this.translations = new Float64Array(capacity * 3);
    this.rotations = new Float64Array(capacity * 4);
    this.scales = new Float64Array(capacity * 3);
  }

  /**
   * Appends a slot for `bone` initialised to its current component transform; returns the slot.
   * Throws an AnimGraphError (`out-of-range`) when all `limit` slots are taken (a bone added twice): a typed array drops
   * writes past its end, which left the transform out silently.
   */
  add(bone: number, from: ComponentPose): number {
    const k = this.count;
    if (k >= this.limit) throw slotsTakenError(this.limit);
    this.count = k + 1;
    from.ensureComponent(bone);
    this.bones[k] = bone;
    for (let i = 0; i < 3; i++) {
      this.translations[k * 3 + i] = from.translations[bone * 3 + i];
      this.scales[k * 3 + i] = from.scales[bone * 3 + i];
    }
    for (let i = 0; i < 4; i++) this.rotations[k * 4 + i] = from.rotations[bone * 4 + i];
    return k;
  }
}

function slotsTakenError(limit: number): AnimGraphError {
  const taken = limit === 1 ? 'its one slot is taken' : `all ${limit} slots are taken`;
  return new AnimGraphError('out-of-range', `BoneTransforms.add: ${taken} (a control has one per bone of its skeleton: add each bone at most once)`);
}

const blended = { t: new Float64Array(3), r: new Float64Array(4), s: new Float64Array(3) };

/**
 * The transforms a control asks for, shared by every control on the thread: each fills and
 * applies them within its own evaluation, after its input's. Grown when a control is initialized
 * on a larger skeleton (in SkeletalControlNode.initialize, which a subclass cannot skip), so that
 * entering a state (which re-initializes its nodes, in the frame loop) allocates nothing, and a
 * crowd's characters carry none of their own.
 */
let sharedTransforms = new BoneTransforms(0);

/**
 * blended = current transform of `bone` in `pose` moved toward slot k of `target` by weight[0]:
 * linear translation and scale, normalised-linear rotation on the shorter arc (as Unreal's
 * FTransform::Blend). The weight comes in an array (see CONTRIBUTING.md, "Numbers in the frame loop").
 */
function blendTowards(pose: ComponentPose, bone: number, target: BoneTransforms, k: number, weight: Float64Array): void {
  const w = weight[0], keep = 1 - w;
  const b3 = bone * 3, b4 = bone * 4, k3 = k * 3, k4 = k * 4;
  for (let i = 0; i < 3; i++) {
    blended.t[i] = pose.translations[b3 + i] * keep + target.translations[k3 + i] * w;
    blended.s[i] = pose.scales[b3 + i] * keep + target.scales[k3 + i] * w;
  }
  let dot = 0;
  for (let i = 0; i < 4; i++) dot += pose.rotations[b4 + i] * target.rotations[k4 + i];
  const wr = dot < 0 ? -w : w;
  for (let i = 0; i < 4; i++) blended.r[i] = pose.rotations[b4 + i] * keep + target.rotations[k4 + i] * wr;
  quatNormalize(blended.r, 0);
}

/**
 * Base of skeletal controls (Unreal's FAnimNode_SkeletalControlBase): reads the input in component
 * space, asks the subclass for the bone transforms it wants, and blends them into the pose by
 * alpha. Subclasses implement evaluateBoneTransforms and may override updateControl.
 */
export abstract class SkeletalControlNode extends ComponentPoseNode {
  protected readonly input: ComponentPoseLink;
  protected readonly alphaProperty: ScalarProperty;
  /** [alpha in use this frame, clamped to [0, 1]; alpha's literal value]. */
  private readonly alphaWeight = new Float64Array(2);
  /** The parameter slot alpha is bound to, or -1 for the literal. */
  private readonly alphaSlot: number;
  private readonly inputLinks: readonly Link[];

  constructor(id: string, type: string, input: ComponentPoseLink, alpha: ScalarProperty) {
    super(id, type);
    this.input = input;
    this.alphaProperty = alpha;
    this.alphaSlot = alpha.slot;
    this.alphaWeight[1] = alpha.constant;
    this.inputLinks = [input];
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  /**
   * The base's bookkeeping, then the control's: here rather than in onInitialize, which a subclass
   * overriding it without calling super skipped, leaving the shared buffer unsized on a thread
   * where no other control had sized it (every transform the control added was dropped).
   */
  override initialize(ctx: InitializeContext): void {
    const bones = ctx.graph.skeleton.boneCount;
    if (sharedTransforms.bones.length < bones) sharedTransforms = new BoneTransforms(bones);
    this.alphaWeight[0] = 0;
    super.initialize(ctx);
  }

  /** Nothing of the base's: its context optional, so that subclasses calling `super.onInitialize()`, as they once had to, still compile. */
  protected override onInitialize(_ctx?: InitializeContext): void {}

  protected onUpdate(ctx: UpdateContext): void {
    this.input.update(ctx);
    // Read and clamped inline (NaN from a bound parameter becomes 0), from typed arrays only:
    // see CONTRIBUTING.md, "Numbers in the frame loop"
    const slot = this.alphaSlot;
    const alpha = slot >= 0 ? this.graph.parameterValues[slot] : this.alphaWeight[1];
    this.alphaWeight[0] = alpha > 0 ? (alpha < 1 ? alpha : 1) : 0;
    this.updateControl(ctx);
  }

  protected onEvaluateComponentSpace(out: ComponentPose): void {
    this.input.evaluateComponentSpace(out);
    // The control in a function of its own, so that this short path is optimised early: see
    // CONTRIBUTING.md, "Numbers in the frame loop".
    if (this.alphaWeight[0] > ZERO_WEIGHT) this.evaluateControl(out);
  }

  /** Applies the control to `out` (alpha above 0). */
  private evaluateControl(out: ComponentPose): void {
    const transforms = sharedTransforms;
    if (!this.isValidToEvaluate()) return;
    const full = this.alpha >= 1 - ZERO_WEIGHT;
    if (full && this.evaluateInPlace(out)) return;
    transforms.count = 0;
    transforms.limit = out.skeleton.boneCount;
    this.evaluateBoneTransforms(out, transforms);
    for (let k = 0; k < transforms.count; k++) {
      const bone = transforms.bones[k];
      if (full) {
        out.setComponent(bone, transforms.translations, transforms.rotations, transforms.scales, k);
        continue;
      }
      out.ensureComponent(bone);
      blendTowards(out, bone, transforms, k, this.alphaWeight);
      out.setComponent(bone, blended.t, blended.r, blended.s, 0);
    }
  }

  /** Alpha in use this frame, clamped to [0, 1]. */
  protected get alpha(): number {
    return this.alphaWeight[0];
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.alpha = this.alpha;
    node.description = `Alpha: ${(this.alpha * 100).toFixed(1)}%${node.description ? ` ${node.description}` : ''}`;
  }

  /** Per-frame work beyond reading alpha (for example smoothing a target). */
  protected updateControl(_ctx: UpdateContext): void {}

  /**
   * At full alpha, a control may edit the pose itself instead of listing bone transforms (there is
   * nothing to blend by alpha, so no copy of the pose is needed to compute them on): it returns
   * true when it has. The pose must end as evaluateBoneTransforms' writes would leave it. The
   * default declines.
   */
  protected evaluateInPlace(_pose: ComponentPose): boolean {
    return false;
  }

  /** False when the control cannot run this frame (for example a bone was not found). */
  protected isValidToEvaluate(): boolean {
    return true;
  }

  /**
   * Appends the component-space transforms to write, in the order they are written: usually
   * parents before children, so that a child's transform lands where it was computed. Each write
   * keeps the local transforms of the bone's descendants, so a control that sets local rotations
   * (BendRollHelper) appends children first instead.
   */
  protected abstract evaluateBoneTransforms(pose: ComponentPose, out: BoneTransforms): void;
}
