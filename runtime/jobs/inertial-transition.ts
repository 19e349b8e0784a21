import type { BlendProfile } from '../core/blend-profile.ts';
import { PoseInertializer } from './inertialization.ts';
import { PoseHistory } from './pose-history.ts';
import type { UpdateContext } from '../node/node.ts';
import type { Pose } from '../core/pose.ts';

/** evaluate() flag: a transition started this frame. */
export const TRANSITION_STARTED = 1;
/** evaluate() flag: a running transition was cut short by the new one. */
export const TRANSITION_INTERRUPTED = 2;

/**
 * A request for an inertial transition, as a blend node in inertial mode sends it to the nearest
 * Inertialization node below (UpdateContext.inertializer): the requester keeps one and writes the
 * duration in place.
 */
export class InertialRequest {
  /** Seconds the transition should last. */
  duration = 0;
  /** The blend profile giving each bone its share of the duration, or null for every bone alike. */
  profile: BlendProfile | null = null;
}

/**
 * What a node owns to hide its switches with inertialization (InertialBlend, PoseSearchBlend in
 * inertial mode, the Inertialization node): the decaying offset, the last two poses it output, and
 * a transition asked for in update that starts in evaluate, from the pose actually output, so a
 * switch during a transition does not pop.
 *
 * Per frame: update(ctx, switching), which on a switch requests a transition and otherwise
 * advances a running one; in evaluate, evaluate(out) on the new input's pose starts what was
 * requested and applies the offset, then records `out`. Nodes with their own request logic
 * (Inertialization) use start/apply/record. As in Unreal, the frame that starts a transition is
 * its time 0 and outputs the last pose.
 *
 * Nothing here that runs at a switch reads a number itself (see CONTRIBUTING.md, "Numbers in the
 * frame loop"). The request is a branch of update(), which runs every frame, and start() hands its
 * arrays to the inertializer's fit, which reads them.
 */
export class InertialTransition {
  readonly inertializer: PoseInertializer;
  /** The poses output, for the velocity at a transition (PoseSearchBlend also searches from them). */
  readonly history: PoseHistory;
  /** The duration of the last transition started (clamped as the inertializer holds it). */
  startedDuration = 0;
  /** The duration of the transition the last TRANSITION_INTERRUPTED cut short. */
  interruptedDuration = 0;
  /** Whether a request waits for evaluate. */
  pending = false;
  /**
   * [this update's delta time, duration, seconds updated since the last pose recorded], as
   * PoseInertializer and PoseHistory take them.
   */
  private readonly frame = new Float64Array(3);

  /** Seconds the next transition lasts (input to update(ctx, true) and start()). */
  get duration(): number {
    return this.frame[1];
  }

  set duration(seconds: number) {
    this.frame[1] = seconds;
  }

  /**
   * `numbers`: where the inertializer's numbers go in the instance's per-frame numbers (what the
   * node reserved: NodeBuild.numbers(InertialTransition.numberCount(boneCount))), -1 for its own.
   */
  constructor(boneCount: number, private readonly numbers = -1) {
    this.inertializer = new PoseInertializer(boneCount);
    this.history = new PoseHistory(boneCount);
  }

  /** How many per-frame numbers a transition of `boneCount` bones keeps (its inertializer's, then its history's two poses). */
  static numberCount(boneCount: number): number {
    return PoseInertializer.numberCount(boneCount) + PoseHistory.numberCount(boneCount);
  }

  /**
   * Moves the inertializer's numbers, then the history's two poses, into the instance's per-frame
   * numbers (GraphRuntime.frameNumbers) at the reservation given to the constructor, where a batch's
   * sampling kernel applies the offsets and copies the pose output into the history: the owning
   * node calls it when initialized.
   */
  useNumbers(frameNumbers: Float64Array): void {
    if (this.numbers < 0) return;
    this.inertializer.useNumbers(frameNumbers, this.numbers);
    this.history.useNumbers(frameNumbers, this.numbers + PoseInertializer.numberCount(this.inertializer.boneCount));
  }

  /** True while a transition is running. */
  get active(): boolean {
    return this.inertializer.active;
  }

  /** Stops any transition, drops any request and forgets the poses output. */
  reset(): void {
    this.inertializer.stop();
    this.history.clear();
    this.frame[2] = 0;
    this.pending = false;
  }

  /**
   * A frame: records its delta time. `switching`: asks for a transition of `duration` seconds,
   * started at this frame's evaluate (a running one is not advanced); otherwise advances a running
   * transition. True when a running transition ended this frame.
   */
  update(ctx: UpdateContext, switching = false): boolean {
    this.frame[0] = ctx.deltaTime;
    this.frame[2] += ctx.deltaTime;
    if (switching) {
      this.pending = true;
      return false;
    }
    if (!this.inertializer.active) return false;
    // The clock moved here rather than by a call made only during a transition, code that stays
    // cold: see CONTRIBUTING.md, "Numbers in the frame loop".
    this.inertializer.clock[0] += this.frame[0];
    return !this.inertializer.active;
  }

  /**
   * Starts a requested transition toward `out` (this frame's new pose), applies the offset to it
   * and records it. Returns TRANSITION_STARTED and TRANSITION_INTERRUPTED flags (0 without a request).
   */
  evaluate(out: Pose): number {
    let flags = 0;
    if (this.pending) {
      this.pending = false;
      if (this.inertializer.active) {
        this.interruptedDuration = this.startedDuration;
        flags |= TRANSITION_INTERRUPTED;
      }
      if (this.start(out) && this.inertializer.active) {
        this.startedDuration = this.inertializer.duration;
        flags |= TRANSITION_STARTED;
      } else this.inertializer.stop();
    }
    this.apply(out);
    this.record(out);
    return flags;
  }

  /** Starts a transition of `duration` seconds toward `target` from the poses recorded; false when there are none. */
  start(target: Pose): boolean {
    return this.history.startTransition(this.inertializer, target, this.frame, 1);
  }

  /** Adds the running transition's offset to `pose`. */
  apply(pose: Pose): void {
    this.inertializer.apply(pose);
  }

  /**
   * Records `pose` as output, the time updated since the last one apart from it (updates without an
   * evaluate add up). Evaluated again before the next update, the node's pose replaces the one
   * recorded (0 s apart) rather than pushing the last one out as if a frame had passed, so
   * evaluating twice changes nothing that follows.
   */
  record(pose: Pose): void {
    this.history.push(pose, this.frame, 2);
    this.frame[2] = 0;
  }
}
