/**
 * What an instance below full update rate shows between evaluations (see
 * AnimGraphInstance.setUpdateRate and update-rate.ts): the graph's last two evaluations, their
 * curves, and the root motion the graph reported ahead of the display.
 */
import { Pose, poseBlendTwo, poseCopy, type PoseStorage } from '../core/pose.ts';
import type { UpdateRateClock } from './update-rate.ts';

/**
 * An instance's interpolation state, made by its first update rate above 1 (a character at full
 * rate, most of a crowd's, carries none of it). Numbers cross in arrays (the clock's weights, the
 * root motion): see CONTRIBUTING.md, "Numbers in the frame loop".
 */
export class Interpolation {
  /** The graph's evaluation before the last one, and the last (the interval's start and end). */
  previous: Pose;
  target: Pose;
  /** Whether the graph has been updated since `target` was evaluated. */
  targetStale = true;
  /** Whether the output holds `target` as it is (so a held frame has nothing to write). */
  showsTarget = false;
  /** The curve values of `previous` and `target`. */
  private curvesPrevious: Float64Array;
  private curvesTarget: Float64Array;
  /** Root motion the graph reported that no frame has reported yet (the look-ahead's share). */
  private readonly pendingMotion = new Float64Array(4);

  /** `storage`: the arrays of `previous` and `target` (InstanceOutput.interpolationStorage), default arrays of their own. */
  constructor(boneCount: number, curveCount: number, storage?: readonly [PoseStorage, PoseStorage]) {
    this.previous = new Pose(boneCount, storage?.[0]);
    this.target = new Pose(boneCount, storage?.[1]);
    this.curvesPrevious = new Float64Array(curveCount);
    this.curvesTarget = new Float64Array(curveCount);
  }

  /**
   * Starts an interval at the graph's current state: its pose (`output` when `current`, else
   * evaluated when next shown) and `curves` become the target, shown as they are; nothing is pending.
   */
  start(output: Pose, current: boolean, curves: Float64Array): void {
    if (current) {
      poseCopy(this.target, output);
      this.targetStale = false;
    } else {
      this.targetStale = true;
    }
    this.curvesTarget.set(curves);
    this.pendingMotion.fill(0);
    this.showsTarget = false;
  }

  /** The target becomes the previous pose and curves; the old previous ones take the next target. */
  shift(): void {
    const pose = this.previous;
    this.previous = this.target;
    this.target = pose;
    const curves = this.curvesPrevious;
    this.curvesPrevious = this.curvesTarget;
    this.curvesTarget = curves;
  }

  /** After a graph update: its curves are the target's (its pose to be evaluated), its root motion pending. */
  keepUpdate(curves: Float64Array, motion: Float64Array): void {
    this.targetStale = true;
    this.curvesTarget.set(curves);
    const pending = this.pendingMotion;
    for (let i = 0; i < 4; i++) pending[i] += motion[i];
  }

  /** Reports all the pending root motion into `out` (the display caught up with the graph). */
  flushMotion(out: Float64Array): void {
    out.set(this.pendingMotion);
    this.pendingMotion.fill(0);
  }

  /**
   * This frame's root motion into `out` (the clock's share of what is pending), and its curve
   * values into `values`, weighted by the clock's weights ([previous, target]).
   */
  showFrame(clock: UpdateRateClock, out: Float64Array, values: Float64Array): void {
    const pending = this.pendingMotion, share = clock.share, weights = clock.weights;
    for (let i = 0; i < 4; i++) {
      out[i] = pending[i] * share;
      pending[i] -= out[i];
    }
    const from = this.curvesPrevious, to = this.curvesTarget;
    for (let i = 0; i < values.length; i++) values[i] = from[i] * weights[0] + to[i] * weights[1];
  }

  /**
   * Shows the pose at `weights` ([previous, target]) in `output`, the target evaluated: whether
   * `output` changed (a held frame showing the same target again writes nothing).
   */
  show(output: Pose, weights: Float64Array): boolean {
    if (weights[1] !== 1) {
      poseBlendTwo(output, this.previous, this.target, weights);
      this.showsTarget = false;
      return true;
    }
    if (this.showsTarget) return false;
    poseCopy(output, this.target);
    this.showsTarget = true;
    return true;
  }
}
