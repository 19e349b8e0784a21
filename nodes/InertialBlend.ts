import { PoseHistory, PoseInertializer } from '../runtime/inertialization.ts';
import { LocalPoseNode, readScalar, type DebugNode, type Link, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext } from '../runtime/node.ts';
import type { Pose } from '../runtime/pose.ts';
import { defineNodeType } from '../runtime/node-type.ts';

/**
 * Switches between two poses by a bool and hides the switch with inertialization (the seed's
 * node; Bollo, GDC 2018): only the active input is updated and evaluated, and at a switch the
 * difference between the last output pose and the new input's pose decays to zero over
 * `blendTime` along a quintic that starts with the old pose's velocity (see
 * runtime/inertialization.ts). A switch during a transition starts a new one from the pose
 * actually output, so nothing pops. The first frame has no history: it starts on the chosen input
 * without a blend; so does a blend time of 0 or less.
 */
export class InertialBlend extends LocalPoseNode {
  private readonly inputLinks: readonly Link[];
  private readonly inertializer: PoseInertializer;
  private readonly history: PoseHistory;
  /** [delta time of this frame, blend time of the pending transition]. */
  private readonly frame = new Float64Array(2);
  private useA = true;
  private pending = false;
  private started = false;
  private lastDuration = 0;

  constructor(
    id: string,
    private readonly a: PoseLink,
    private readonly b: PoseLink,
    private readonly useAProperty: ScalarProperty,
    private readonly blendTime: ScalarProperty,
    boneCount: number,
  ) {
    super(id, 'InertialBlend');
    this.inputLinks = [a, b];
    this.inertializer = new PoseInertializer(boneCount);
    this.history = new PoseHistory(boneCount);
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  protected override onInitialize(): void {
    this.inertializer.stop();
    this.history.clear();
    this.pending = false;
    this.started = false;
  }

  protected onUpdate(ctx: UpdateContext): void {
    this.frame[0] = ctx.deltaTime;
    const useA = readScalar(this.graph.parameterValues, this.useAProperty) !== 0;
    if (this.started && useA !== this.useA) {
      this.pending = true;
      // Read inline, not by readScalar: where V8 does not inline that call (it did not here, with
      // this node inlined into its parent's update), a fractional blend time comes back boxed,
      // 16 bytes a switch.
      const bt = this.blendTime;
      this.frame[1] = bt.slot >= 0 ? this.graph.parameterValues[bt.slot] : bt.constant;
    } else if (this.inertializer.active) {
      this.inertializer.advance(this.frame);
      if (!this.inertializer.active) this.ended(false);
    }
    this.useA = useA;
    this.started = true;
    (useA ? this.a : this.b).update(ctx);
  }

  protected onEvaluate(out: Pose): void {
    (this.useA ? this.a : this.b).evaluate(out);
    if (this.pending) {
      this.pending = false;
      if (this.inertializer.active) this.ended(true);
      // As in Unreal, the switch frame is time 0 of the transition: it outputs the last pose,
      // and the difference decays from the next frame on.
      if (this.history.startTransition(this.inertializer, out, this.frame, 1)) {
        if (this.inertializer.active) {
          this.lastDuration = this.inertializer.duration;
          if (this.graph.events.has('inertializationStarted')) this.graph.events.emit('inertializationStarted', this.id, this.lastDuration);
        } else this.inertializer.stop();
      }
    }
    this.inertializer.apply(out);
    this.history.push(out, this.frame);
  }

  private ended(interrupted: boolean): void {
    if (this.graph.events.has('inertializationEnded')) this.graph.events.emit('inertializationEnded', this.id, this.lastDuration, interrupted);
  }

  protected override debugDescription(): string {
    const i = this.inertializer;
    const state = i.active ? 'Active' : 'Inactive';
    const time = i.active ? ` Time: ${i.elapsed.toFixed(3)} / ${i.duration.toFixed(3)} (${((i.elapsed / i.duration) * 100).toFixed(0)}%)` : '';
    return `'${state}'${time} Input: ${this.useA ? 'A' : 'B'}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    const i = this.inertializer;
    node.values = { active: i.active, elapsed: i.active ? i.elapsed : 0, duration: i.active ? i.duration : 0, input: this.useA ? 'A' : 'B' };
  }
}

export const InertialBlendType: NodeType = defineNodeType({
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
  create: ({ id, properties: p, inputs, boneCount }) =>
    new InertialBlend(id, inputs.A, inputs.B, p.useA, p.blendTime, boneCount),
});
