import { blendCurveSchema, LINEAR_BLEND, type BlendCurve } from '../runtime/core/blend-curve.ts';
import { TRANSITION_PROFILE_MODES, type BlendProfile } from '../runtime/core/blend-profile.ts';
import { checkBlendCurve, prepareBlendCurve } from '../runtime/jobs/blend-curve-property.ts';
import { Crossfade, evaluatePerBoneInputs, evaluateWeightedInputs } from '../runtime/jobs/crossfade.ts';
import { InertialRequest } from '../runtime/jobs/inertial-transition.ts';
import { LocalPoseNode, readScalar, type DebugNode, type Link, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext } from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

/**
 * Chooses one of several poses and crossfades to it when the choice changes (Unreal's Blend Poses
 * by int). Switching to pose i blends over blendTimes[i] seconds along `blendCurve` (linear unless
 * set: runtime/core/blend-curve.ts) from the weights the inputs had at the switch, so a switch in
 * the middle of a blend does not pop. Each input is
 * updated with its share of the weight; an input whose absolute weight (this node's weight times
 * its share) is at or below the relevance threshold is neither updated nor evaluated. The first update
 * starts on the chosen pose without a blend. BlendByBool is this node with two inputs.
 *
 * With a `blendProfile` (timeFactor or weightFactor, declared in the asset's `blendProfiles`)
 * each bone crossfades at its own pace (runtime/core/blend-profile.ts, Crossfade): a switch in the
 * middle of such a blend continues every bone from where it was.
 *
 * In `inertial` blend mode a switch is instant and the node asks the nearest Inertialization node
 * below it for a transition of the blend time instead: only one input is ever updated and
 * evaluated.
 */
export class BlendList extends LocalPoseNode {
  /** Normalised blend weight of each input this frame. */
  readonly weights: Float64Array;
  /**
   * The weights evaluation blends by: `weights` restricted to the inputs updated this frame and
   * renormalised, so a branch left stale by the relevance test adds nothing and the pose keeps a
   * total weight of 1.
   */
  private readonly evaluateWeights: Float64Array;
  private readonly fade: Crossfade;
  private readonly inertial: boolean;
  /**
   * Seconds to blend when switching to each input, read at a switch by onUpdate itself, not by a
   * function called only then (see CONTRIBUTING.md, "Numbers in the frame loop"). A subclass whose
   * times are bound to parameters writes them here in chooseIndex, every frame.
   */
  protected readonly blendTimes: Float64Array;
  private readonly request = new InertialRequest();

  constructor(
    id: string,
    type: string,
    protected readonly poses: readonly PoseLink[],
    blendTimes: readonly number[],
    blendMode = 'crossfade',
    /** The blend profile switches follow (null: every bone alike). */
    readonly blendProfile: BlendProfile | null = null,
    boneCount = 0,
    /** The curve a crossfade follows. */
    blendCurve: BlendCurve = LINEAR_BLEND,
  ) {
    super(id, type);
    this.blendTimes = Float64Array.from(blendTimes);
    this.inertial = blendMode === 'inertial';
    this.fade = new Crossfade(poses.length, blendProfile !== null ? boneCount : 0);
    this.fade.profile = blendProfile;
    this.fade.curve = blendCurve;
    this.weights = this.fade.weights;
    this.evaluateWeights = new Float64Array(poses.length);
  }

  protected get links(): readonly Link[] {
    return this.poses;
  }

  /** Index of the pose being blended to (-1 before the first update). */
  get activeIndex(): number {
    return this.fade.target;
  }

  /** The input to blend to this frame. Out-of-range choices are clamped to the nearest input. */
  protected chooseIndex(): number {
    return 0;
  }

  protected override onInitialize(): void {
    this.fade.reset();
    this.evaluateWeights.fill(0);
  }

  protected onUpdate(ctx: UpdateContext): void {
    const n = this.poses.length;
    const fade = this.fade;
    let index = this.chooseIndex();
    index = index === index ? Math.min(Math.max(Math.trunc(index), 0), n - 1) : 0;
    if (fade.target < 0) fade.jumpTo(index);
    else if (index !== fade.target) {
      // Not above 0 (NaN included): at once.
      const time = this.blendTimes[index];
      fade.duration = time > 0 ? time : 0;
      fade.fadeTo(index);
      if (this.inertial) {
        this.request.duration = fade.duration;
        this.request.profile = this.blendProfile;
        fade.duration = 0;
        ctx.inertializer?.requestInertialization(this.request, this);
      }
    }
    fade.advance(ctx);
    let updatedSum = 0;
    let dropped = false;
    for (let i = 0; i < n; i++) {
      // The link decides relevance on the absolute weight (see Link.update).
      const child = ctx.child();
      child.weight *= this.weights[i];
      const updated = this.poses[i].update(child);
      this.evaluateWeights[i] = updated ? this.weights[i] : 0;
      if (updated) updatedSum += this.weights[i];
      else if (this.weights[i] > 0) dropped = true;
    }
    if (dropped) {
      if (updatedSum > 0) {
        for (let i = 0; i < n; i++) this.evaluateWeights[i] /= updatedSum;
      } else {
        // Only when this node's own weight is barely above the threshold, shared among several
        // inputs: its output then hardly matters, so take the chosen input.
        this.evaluateWeights[index] = 1;
      }
    }
    if (fade.perBone) fade.restrictBones(this.evaluateWeights);
  }

  protected onEvaluate(out: Pose): void {
    if (this.fade.perBone) evaluatePerBoneInputs(out, this.poses, this.evaluateWeights, this.fade.evaluateBoneWeights, this.fade.boneCount, this.graph.posePool);
    else evaluateWeightedInputs(out, this.poses, this.evaluateWeights, this.graph.posePool);
  }

  /** True while a switch is still blending. */
  get blending(): boolean {
    return this.fade.fading;
  }

  protected override debugDescription(): string {
    const f = this.fade;
    const blend = this.blending ? ` Blend: ${Math.min(f.elapsed, f.duration).toFixed(3)} / ${f.duration.toFixed(3)}` : '';
    const profile = this.blendProfile !== null ? ` Profile: ${this.blendProfile.name}` : '';
    return `Active: ${this.activeIndex}${blend}${profile}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.values = { activeIndex: this.activeIndex, weights: Array.from(this.weights), blendElapsed: this.fade.elapsed, blendDuration: this.fade.duration };
    if (this.blendProfile !== null) node.values.blendProfile = this.blendProfile.name;
  }
}

/** BlendList whose choice is an int property (literal or bound). */
export class BlendListByInt extends BlendList {
  constructor(
    id: string, poses: readonly PoseLink[], blendTimes: readonly number[], private readonly index: ScalarProperty, blendMode: string,
    blendProfile: BlendProfile | null = null, boneCount = 0, blendCurve: BlendCurve = LINEAR_BLEND,
  ) {
    super(id, 'BlendList', poses, blendTimes, blendMode, blendProfile, boneCount, blendCurve);
  }

  protected override chooseIndex(): number {
    return readScalar(this.graph.parameterValues, this.index);
  }
}

export const BlendListType: NodeType = defineBuiltInNodeType({
  type: 'BlendList',
  space: 'local',
  properties: {
    activeIndex: { kind: 'int', default: 0, min: 0 },
    blendTimes: { kind: 'floatList', default: 0.2, min: 0, max: 1e6, perInput: 'poses' },
    blendMode: { kind: 'enum', options: ['crossfade', 'inertial'], default: 'crossfade' },
    blendProfile: { kind: 'blendProfile', modes: TRANSITION_PROFILE_MODES },
    blendCurve: { kind: 'object', schema: blendCurveSchema },
  },
  inputs: [{ name: 'poses', kind: 'poseList', space: 'local', minCount: 1 }],
  requestsInertialization: (p) => p.blendMode === 'inertial',
  check: (ctx) => checkBlendCurve(ctx.rawProperties.blendCurve, ['blendCurve'], ctx),
  prepare: (ctx) => prepareBlendCurve(ctx.properties.blendCurve, ['blendCurve'], ctx),
  create: ({ id, boneCount, properties: p, inputs, shared }) =>
    new BlendListByInt(id, inputs.poses, p.blendTimes, p.activeIndex, p.blendMode, p.blendProfile, boneCount, shared),
});
