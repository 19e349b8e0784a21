import { Pose, poseCopy } from '../core/pose.ts';
import type { PoseInertializer } from './inertialization.ts';

/**
 * The last two poses a node output and the delta times that led to them, for measuring the
 * velocity of the pose being left at a transition.
 */
export class PoseHistory {
  previous: Pose;
  older: Pose;
  /** [delta time that led to previous, delta time that led to older]. */
  readonly deltaTimes = new Float64Array(2);
  /** How many poses are recorded (0, 1 or 2). */
  count = 0;
  /** Where useNumbers put the poses (null: in arrays of their own). */
  private block: Float64Array | null = null;
  private blockBase = -1;

  constructor(boneCount: number) {
    this.previous = new Pose(boneCount);
    this.older = new Pose(boneCount);
  }

  /** How many numbers the two poses of `boneCount` bones take (for useNumbers). */
  static numberCount(boneCount: number): number {
    return 2 * 10 * boneCount;
  }

  /**
   * Keeps the two poses in `numbers` from `base` on (numberCount of them), carrying them over. In
   * a batch's per-frame numbers they are in its sampling kernel's memory with the poses output,
   * and push()'s poseCopy copies there by address.
   */
  useNumbers(numbers: Float64Array, base: number): void {
    // Asked at every initialize, which a state machine runs in the frame loop: once placed, nothing to do.
    if (numbers === this.block && base === this.blockBase) return;
    this.block = numbers;
    this.blockBase = base;
    const n = this.previous.boneCount;
    const view = (at: number): Pose => new Pose(n, {
      translations: numbers.subarray(at, at + n * 3),
      rotations: numbers.subarray(at + n * 3, at + n * 7),
      scales: numbers.subarray(at + n * 7, at + n * 10),
    });
    const previous = view(base), older = view(base + n * 10);
    poseCopy(previous, this.previous);
    poseCopy(older, this.older);
    this.previous = previous;
    this.older = older;
  }

  /** Records `pose` as output `dt[index]` seconds after the last. A frame of zero delta time replaces the last pose. */
  push(pose: Pose, dt: Float64Array, index = 0): void {
    if (this.count === 0) {
      this.count = 1;
      this.deltaTimes[0] = 0;
    } else if (dt[index] > 0) {
      const t = this.older;
      this.older = this.previous;
      this.previous = t;
      this.deltaTimes[1] = this.deltaTimes[0];
      this.deltaTimes[0] = dt[index];
      this.count = 2;
    }
    poseCopy(this.previous, pose);
  }

  clear(): void {
    this.count = 0;
  }

  /**
   * Starts `inertializer` toward `target` from the recorded poses over durations[index] seconds
   * (by array, and reading no number itself, for the reason given in startFrom); false when there
   * is no history.
   */
  startTransition(inertializer: PoseInertializer, target: Pose, durations: Float64Array, index: number): boolean {
    if (this.count === 0) return false;
    inertializer.startFrom(target, this.previous, this.count > 1 ? this.older : null, this.deltaTimes, durations, index);
    return true;
  }
}
