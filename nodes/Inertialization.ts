import type { BlendProfile } from '../runtime/core/blend-profile.ts';
import { InertialTransition } from '../runtime/jobs/inertial-transition.ts';
import { LocalPoseNode, type AnimNode, type DebugNode, type InertializationRequests, type Link, type NodeType, type PoseLink, type UpdateContext } from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

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
 *
 * A request may carry a blend profile (a BlendList's or a state machine transition's
 * `blendProfile`): each bone's offset then decays over its own share of the duration (timeFactor:
 * duration × scale; weightFactor: duration / scale, as Unreal's per-bone blend durations), and the
 * transition lasts until the slowest bone has settled. Merged requests keep the profile of the
 * shortest one.
 */
export class Inertialization extends LocalPoseNode implements InertializationRequests {
  private readonly inputLinks: readonly Link[];
  private readonly transition: InertialTransition;
  /**
   * The requests taken since the last evaluate (each object once), and who made them: read at
   * evaluate, not at the switch that makes them (see CONTRIBUTING.md, "Numbers in the frame loop").
   * The arrays grow, once, to the most distinct request objects made between two evaluates:
   * the built-in nodes each ask with one object of their own (a state machine with its
   * transitions'), so a graph's number of requesters (or transitions).
   */
  private readonly requests: { readonly duration: number; readonly profile?: BlendProfile | null }[] = [];
  private readonly requesters: AnimNode[] = [];
  private requestCount = 0;
  /** The profile of the transition running. */
  private runningProfile: BlendProfile | null = null;
  /** Seconds an interrupted transition still owed (see the class comment). */
  private deficit = 0;
  /** The duration of the last transition started, as requested. */
  private startedDuration = 0;
  private lastRequester: AnimNode | null = null;

  /** transitionNumbers: where the transition's numbers go in the instance's per-frame numbers (NodeBuild.numbers), -1: its own. */
  constructor(id: string, private readonly pose: PoseLink, boneCount: number, transitionNumbers = -1) {
    super(id, 'Inertialization');
    this.inputLinks = [pose];
    this.transition = new InertialTransition(boneCount, transitionNumbers);
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  protected override onInitialize(): void {
    this.transition.useNumbers(this.graph.frameNumbers);
    this.transition.reset();
    this.requestCount = 0;
    this.runningProfile = null;
    this.deficit = 0;
    this.startedDuration = 0;
  }

  requestInertialization(request: { readonly duration: number; readonly profile?: BlendProfile | null }, requester: AnimNode): void {
    for (let i = 0; i < this.requestCount; i++) if (this.requests[i] === request) return;
    if (this.requestCount === this.requests.length) {
      this.requests.push(request);
      this.requesters.push(requester);
    } else {
      this.requests[this.requestCount] = request;
      this.requesters[this.requestCount] = requester;
    }
    this.requestCount++;
  }

  protected onUpdate(ctx: UpdateContext): void {
    const t = this.transition;
    const wasActive = t.active;
    if (t.update(ctx)) {
      this.deficit = 0;
      this.ended(false);
    } else if (wasActive) this.deficit -= Math.min(this.deficit, ctx.deltaTime);
    const child = ctx.child();
    child.inertializer = this;
    this.pose.update(child);
  }

  protected onEvaluate(out: Pose): void {
    this.pose.evaluate(out);
    const t = this.transition;
    // The requests merge by the shortest duration (-1: none); on a tie the first keeps it.
    let requested = -1, profile: BlendProfile | null = null;
    for (let i = 0; i < this.requestCount; i++) {
      const request = this.requests[i], d = request.duration > 0 ? request.duration : 0;
      if (requested < 0 || d < requested) {
        requested = d;
        profile = request.profile ?? null;
        this.lastRequester = this.requesters[i];
      }
    }
    this.requestCount = 0;
    if (requested >= 0) {
      let applied = 0;
      if (t.active) {
        const outstanding = this.deficit > 0;
        this.deficit = t.inertializer.duration - t.inertializer.elapsed;
        applied = outstanding ? this.deficit : 0;
        this.ended(true);
      }
      requested -= applied;
      // The request's frame is time 0 of the transition (it outputs the last pose), as in Unreal.
      t.duration = requested;
      t.inertializer.profile = profile;
      this.runningProfile = profile;
      if (requested > 0 && t.start(out)) {
        this.startedDuration = requested;
        if (t.active && this.graph.events.has('inertializationStarted')) this.graph.events.emit('inertializationStarted', this.id, this.startedDuration);
      } else {
        // Nothing to blend (the deficit swallowed the request, or nothing was output before it):
        // an instant switch, with nothing left owed.
        t.inertializer.stop();
        this.deficit = 0;
      }
    }
    t.apply(out);
    t.record(out);
  }

  private ended(interrupted: boolean): void {
    if (this.graph.events.has('inertializationEnded')) this.graph.events.emit('inertializationEnded', this.id, this.startedDuration, interrupted);
  }

  protected override debugDescription(): string {
    const i = this.transition.inertializer;
    const state = i.active ? 'Active' : 'Inactive';
    const time = i.active ? ` Time: ${i.elapsed.toFixed(3)} / ${i.duration.toFixed(3)} (${((i.elapsed / i.duration) * 100).toFixed(0)}%)` : '';
    const profile = i.active && this.runningProfile !== null ? ` Profile: ${this.runningProfile.name}` : '';
    return `'${state}'${time} [${this.deficit.toFixed(3)}]${profile}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    const i = this.transition.inertializer;
    node.values = {
      active: i.active, elapsed: i.active ? i.elapsed : 0, duration: i.active ? i.duration : 0, deficit: this.deficit,
      lastRequester: this.lastRequester?.id ?? '',
    };
    if (i.active && this.runningProfile !== null) node.values.blendProfile = this.runningProfile.name;
    const offset = i.offsetMagnitudes();
    node.values.offsetTranslation = offset.translation;
    node.values.offsetRotation = offset.rotation;
  }
}

export const InertializationType: NodeType = defineBuiltInNodeType({
  type: 'Inertialization',
  space: 'local',
  properties: {},
  inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  providesInertialization: true,
  create: ({ id, inputs, boneCount, numbers }) => new Inertialization(id, inputs.pose, boneCount, numbers(InertialTransition.numberCount(boneCount))),
});
