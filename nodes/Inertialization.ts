import { PoseHistory, PoseInertializer } from '../runtime/inertialization.ts';
import { LocalPoseNode, type AnimNode, type DebugNode, type InertializationRequests, type Link, type NodeType, type PoseLink, type UpdateContext } from '../runtime/node.ts';
import type { Pose } from '../runtime/pose.ts';
import { defineNodeType } from '../runtime/node-type.ts';

/**
 * Inertializes transitions that nodes above it request (Unreal's Inertialization node): a
 * BlendByBool or BlendList in `inertial` blend mode switches at once and asks the nearest
 * Inertialization node below it for a transition of its blend time. This node records the poses
 * it outputs; when a request arrives, the difference between its last output and the new input
 * pose decays to zero along the inertialization quintic.
 *
 * Requests within one frame merge by the shortest duration. A request that interrupts a running
 * transition records the time that transition still owed (the deficit); when interruptions keep
 * coming (a deficit is still outstanding), the deficit is subtracted from the new duration, so that
 * thrashing requests do not leave the pose "melting" toward an unstable target, as in Unreal. The
 * deficit is paid down by delta time every frame and cleared when a transition completes. The
 * frame that takes a request is time 0 of the transition and outputs the last pose.
 */
export class Inertialization extends LocalPoseNode implements InertializationRequests {
  private readonly inputLinks: readonly Link[];
  private readonly inertializer: PoseInertializer;
  private readonly history: PoseHistory;
  /** [delta time, requested duration this frame (-1: none), deficit, duration started]. */
  private readonly state = new Float64Array(4);
  private lastRequester: AnimNode | null = null;

  constructor(id: string, private readonly pose: PoseLink, boneCount: number) {
    super(id, 'Inertialization');
    this.inputLinks = [pose];
    this.inertializer = new PoseInertializer(boneCount);
    this.history = new PoseHistory(boneCount);
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  protected override onInitialize(): void {
    this.inertializer.stop();
    this.history.clear();
    this.state.fill(0);
    this.state[1] = -1;
  }

  requestInertialization(duration: Float64Array, requester: AnimNode): void {
    const d = duration[0] > 0 ? duration[0] : 0;
    if (this.state[1] < 0 || d < this.state[1]) {
      this.state[1] = d;
      this.lastRequester = requester;
    }
  }

  protected onUpdate(ctx: UpdateContext): void {
    const s = this.state;
    s[0] = ctx.deltaTime;
    if (this.inertializer.active) {
      this.inertializer.advance(s);
      if (!this.inertializer.active) {
        s[2] = 0;
        this.ended(false);
      } else s[2] -= Math.min(s[2], s[0]);
    }
    const child = ctx.child();
    child.inertializer = this;
    this.pose.update(child);
  }

  protected onEvaluate(out: Pose): void {
    this.pose.evaluate(out);
    const s = this.state;
    if (s[1] >= 0) {
      let applied = 0;
      if (this.inertializer.active) {
        const outstanding = s[2] > 0;
        s[2] = this.inertializer.duration - this.inertializer.elapsed;
        applied = outstanding ? s[2] : 0;
        this.ended(true);
      }
      s[1] -= applied;
      // The request's frame is time 0 of the transition (it outputs the last pose), as in Unreal.
      if (s[1] > 0 && this.history.startTransition(this.inertializer, out, s, 1)) {
        s[3] = s[1];
        if (this.inertializer.active && this.graph.events.has('inertializationStarted')) this.graph.events.emit('inertializationStarted', this.id, s[3]);
      } else {
        // Nothing to blend (the deficit swallowed the request, or nothing was output before it):
        // an instant switch, with nothing left owed.
        this.inertializer.stop();
        s[2] = 0;
      }
      s[1] = -1;
    }
    this.inertializer.apply(out);
    this.history.push(out, s);
  }

  private ended(interrupted: boolean): void {
    if (this.graph.events.has('inertializationEnded')) this.graph.events.emit('inertializationEnded', this.id, this.state[3], interrupted);
  }

  protected override debugDescription(): string {
    const i = this.inertializer;
    const state = i.active ? 'Active' : 'Inactive';
    const time = i.active ? ` Time: ${i.elapsed.toFixed(3)} / ${i.duration.toFixed(3)} (${((i.elapsed / i.duration) * 100).toFixed(0)}%)` : '';
    return `'${state}'${time} [${this.state[2].toFixed(3)}]`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    const i = this.inertializer;
    node.values = {
      active: i.active, elapsed: i.active ? i.elapsed : 0, duration: i.active ? i.duration : 0, deficit: this.state[2],
      lastRequester: this.lastRequester?.id ?? '',
    };
  }
}

export const InertializationType: NodeType = defineNodeType({
  type: 'Inertialization',
  space: 'local',
  properties: {},
  inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  providesInertialization: true,
  create: ({ id, inputs, boneCount }) => new Inertialization(id, inputs.pose, boneCount),
});
