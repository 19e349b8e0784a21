import { InertialTransition, TRANSITION_INTERRUPTED, TRANSITION_STARTED } from '../runtime/jobs/inertial-transition.ts';
import { LocalPoseNode, readFlag, readScalar, type DebugNode, type Link, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext } from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

/**
 * Switches between two poses by a bool and hides the switch with inertialization (Unreal's,
 * after Bollo, GDC 2018): only the active input is updated and evaluated, and at a switch the
 * difference between the last output pose and the new input's pose decays to zero over
 * `blendTime` along a quintic that starts with the old pose's velocity (see
 * runtime/jobs/inertialization.ts). A switch during a transition starts a new one from the pose
 * actually output, so nothing pops. The first frame has no history: it starts on the chosen input
 * without a blend; so does a blend time of 0 or less.
 */
export class InertialBlend extends LocalPoseNode {
  private readonly inputLinks: readonly Link[];
  private readonly transition: InertialTransition;
  private useA = true;
  private started = false;

  constructor(
    id: string,
    private readonly a: PoseLink,
    private readonly b: PoseLink,
    private readonly useAProperty: ScalarProperty,
    private readonly blendTime: ScalarProperty,
    boneCount: number,
    /** Where the transition's numbers go in the instance's per-frame numbers (NodeBuild.numbers), -1: its own. */
    transitionNumbers = -1,
  ) {
    super(id, 'InertialBlend');
    this.inputLinks = [a, b];
    this.transition = new InertialTransition(boneCount, transitionNumbers);
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  protected override onInitialize(): void {
    this.transition.useNumbers(this.graph.frameNumbers);
    this.transition.reset();
    this.started = false;
  }

  protected onUpdate(ctx: UpdateContext): void {
    const useA = readFlag(this.graph.parameterValues, this.useAProperty);
    const t = this.transition;
    const switching = this.started && useA !== this.useA;
    if (switching) {
      // Read inline rather than by readScalar: see CONTRIBUTING.md, "Numbers in the frame loop".
      const bt = this.blendTime;
      if (bt.slot >= 0) t.duration = this.graph.parameterValues[bt.slot];
      else t.duration = bt.constant;
    }
    if (t.update(ctx, switching)) this.ended(false);
    this.useA = useA;
    this.started = true;
    (useA ? this.a : this.b).update(ctx);
  }

  protected onEvaluate(out: Pose): void {
    (this.useA ? this.a : this.b).evaluate(out);
    const flags = this.transition.evaluate(out);
    if ((flags & TRANSITION_INTERRUPTED) !== 0) this.ended(true);
    if ((flags & TRANSITION_STARTED) !== 0 && this.graph.events.has('inertializationStarted')) {
      this.graph.events.emit('inertializationStarted', this.id, this.transition.startedDuration);
    }
  }

  private ended(interrupted: boolean): void {
    if (!this.graph.events.has('inertializationEnded')) return;
    const t = this.transition;
    this.graph.events.emit('inertializationEnded', this.id, interrupted ? t.interruptedDuration : t.startedDuration, interrupted);
  }

  protected override debugDescription(): string {
    const i = this.transition.inertializer;
    const state = i.active ? 'Active' : 'Inactive';
    const time = i.active ? ` Time: ${i.elapsed.toFixed(3)} / ${i.duration.toFixed(3)} (${((i.elapsed / i.duration) * 100).toFixed(0)}%)` : '';
    return `'${state}'${time} Input: ${this.useA ? 'A' : 'B'}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    const i = this.transition.inertializer;
    const offset = i.offsetMagnitudes();
    node.values = {
      active: i.active, elapsed: i.active ? i.elapsed : 0, duration: i.active ? i.duration : 0, input: this.useA ? 'A' : 'B',
      offsetTranslation: offset.translation, offsetRotation: offset.rotation,
    };
  }
}

export const InertialBlendType: NodeType = defineBuiltInNodeType({
  type: 'InertialBlend',
  space: 'local',
  properties: {
    useA: { kind: 'bool', default: true },
    blendTime: { kind: 'float', default: 0.2, min: 0, max: 1e6 },
  },
  inputs: [
    { name: 'A', kind: 'pose', space: 'local' },
    { name: 'B', kind: 'pose', space: 'local' },
  ],
  create: ({ id, properties: p, inputs, boneCount, numbers }) =>
    new InertialBlend(id, inputs.A, inputs.B, p.useA, p.blendTime, boneCount, numbers(InertialTransition.numberCount(boneCount))),
});
