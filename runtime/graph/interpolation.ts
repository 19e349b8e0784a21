/**
 * What an instance below full update rate shows between evaluations (see
 * AnimGraphInstance.setUpdateRate and update-rate.ts): the graph's last two evaluations, their
 * curves, and the root motion the graph reported ahead of the display.
 */
import { KERNEL_WEIGHT_A, KERNEL_WEIGHT_B, Pose, poseBlendTwo, poseCopy, type PoseStorage } from '../core/pose.ts';
import { SamplingKernel } from '../kernel/sampling-kernel.ts';
import { PENDING_MOTION, SHARE, WEIGHTS, type UpdateRateClock } from './update-rate.ts';

/** The two weights show hands poseBlendTwo, copied from the clock's numbers: one array for every instance. */
const showWeights = new Float64Array(2);

/**
 * An instance's interpolation state, made by its first update rate above 1 (a character at full
 * rate, most of a crowd's, carries none of it). Numbers cross in arrays (the clock's weights, the
 * root motion): see CONTRIBUTING.md, "Numbers in the frame loop".
 */
export class Interpolation {
  /**
   * The sampling kernel holding the output, `previous` and `target` (a batch character's), or null.
   * With one, show blends by the poses' addresses kept below: a crowd's interpolated frame then
   * reads this object, not the three Pose objects as well (each one more cache miss per character).
   */
  private readonly kernel: SamplingKernel | null;
  /** Byte addresses in the kernel's memory of the output's, previous's and target's arrays (0 without a kernel). */
  private readonly outputT: number;
  private readonly outputR: number;
  private readonly outputS: number;
  private previousT: number;
  private previousR: number;
  private previousS: number;
  private targetT: number;
  private targetR: number;
  private targetS: number;
  private readonly boneCount: number;
  /** The pose show writes: the instance's output. */
  private readonly output: Pose;
  /** The graph's evaluation before the last one, and the last (the interval's start and end). */
  previous: Pose;
  target: Pose;
  /** Whether the graph has been updated since `target` was evaluated. */
  targetStale = true;
  /** Whether the output holds `target` as it is (so a held frame has nothing to write). */
  showsTarget = false;
  /**
   * Whether the output holds `previous` as it is, to the bit (it showed the target, which shift then
   * made the previous pose): the first blend of the interval, on the evaluation frame, reads the
   * output as its previous pose, a pose in the cache, rather than `previous`'s arrays, the same numbers.
   */
  private outputShowsPrevious = false;
  /**
   * Whether the target was evaluated straight into the output (a held frame: see evaluated)
   * rather than into `target`, whose arrays then hold nothing of it: shift copies it out only when
   * an interpolated interval follows, the one case that reads it as a pose again.
   */
  targetInOutput = false;
  /**
   * Whether the scales of `previous`, of `target` and of the output are all exactly 1 (known only
   * with a kernel; false when not known). Clips without scale tracks (every BVH capture, most glTF
   * clips) give such poses, whose blend at show's weights is 1 again to the bit (see unitScales):
   * show then blends and copies the translations and rotations only, a third fewer bytes through
   * memory per interpolated frame, with the same numbers.
   */
  private previousUnitScales = false;
  private targetUnitScales = false;
  private outputUnitScales = false;
  /** The curve values of `previous` and `target`. */
  private curvesPrevious: Float64Array;
  private curvesTarget: Float64Array;
  /** Whether there are curves to interpolate (most graphs have none: no builtin call per frame for them). */
  private readonly hasCurves: boolean;
  /**
   * The clock's numbers (UpdateRateClock.numbers from `at`), where the root motion the graph
   * reported that no frame has reported yet (the look-ahead's share) is kept, at PENDING_MOTION.
   */
  private readonly numbers: Float64Array;
  private readonly at: number;

  /**
   * `output`: the pose show writes (the instance's); `storage`: the arrays of `previous` and
   * `target` (InstanceOutput.interpolationStorage), default arrays of their own; `clock`: the
   * instance's, whose numbers hold the pending root motion too.
   */
  constructor(output: Pose, curveCount: number, clock: UpdateRateClock, storage?: readonly [PoseStorage, PoseStorage]) {
    const boneCount = output.boneCount;
    const previous = this.previous = new Pose(boneCount, storage?.[0]);
    const target = this.target = new Pose(boneCount, storage?.[1]);
    // poseBlendTwo's test for running the kernel, made once: the poses' arrays never move.
    const kernel = output.kernel;
    this.kernel = kernel instanceof SamplingKernel && previous.kernel === kernel && target.kernel === kernel ? kernel : null;
    this.outputT = output.translationsAddress; this.outputR = output.rotationsAddress; this.outputS = output.scalesAddress;
    this.previousT = previous.translationsAddress; this.previousR = previous.rotationsAddress; this.previousS = previous.scalesAddress;
    this.targetT = target.translationsAddress; this.targetR = target.rotationsAddress; this.targetS = target.scalesAddress;
    this.boneCount = boneCount;
    this.output = output;
    this.curvesPrevious = new Float64Array(curveCount);
    this.curvesTarget = new Float64Array(curveCount);
    this.hasCurves = curveCount > 0;
    this.numbers = clock.numbers;
    this.at = clock.at;
  }

  /**
   * Starts an interval at the graph's current state: its pose (`output` when `current`, else
   * evaluated when next shown) and `curves` become the target, shown as they are; nothing is pending.
   */
  start(output: Pose, current: boolean, curves: Float64Array): void {
    // The output is the target as it is: copied out by shift if an interpolated interval follows.
    this.targetStale = !current;
    this.targetInOutput = current;
    this.showsTarget = current;
    this.outputShowsPrevious = false;
    // Written by the graph (or by whoever wrote the output before the interval): not known.
    this.previousUnitScales = false;
    this.targetUnitScales = false;
    this.outputUnitScales = false;
    if (this.hasCurves) this.curvesTarget.set(curves);
    this.numbers.fill(0, this.at + PENDING_MOTION, this.at + PENDING_MOTION + 4);
  }

  /**
   * The target has been evaluated: into the output when `intoOutput` (a held frame, evaluated
   * straight into what it shows), else into `target`.
   */
  evaluated(intoOutput: boolean): void {
    this.targetStale = false;
    this.targetInOutput = intoOutput;
    this.showsTarget = intoOutput;
    if (intoOutput) {
      this.outputShowsPrevious = false;
      this.outputUnitScales = false;
      this.targetUnitScales = false;
    } else {
      // Read now, while the pose just evaluated is in the cache; only the kernel's show uses it, and
      // the kernel reads it (unitScales two values at a time), by the address kept here.
      const kernel = this.kernel;
      this.targetUnitScales = kernel !== null && kernel.unitScalesAt(this.targetS, this.boneCount) === 1;
    }
  }

  /**
   * The target becomes the previous pose and curves; the old previous ones take the next target.
   * `interpolated`: whether the interval that follows interpolates (the clock's `interpolate`: a
   * held interval shows its targets only, and the next shift comes before any blend), which then
   * needs a target kept in the output as its previous pose.
   */
  shift(interpolated: boolean): void {
    // A target evaluated into the output is in `target`'s arrays only once copied there (interpolated).
    this.outputShowsPrevious = this.showsTarget && (interpolated || !this.targetInOutput);
    if (this.targetInOutput) {
      if (interpolated) poseCopy(this.target, this.output);
      this.targetInOutput = false;
      this.targetUnitScales = false;
    }
    const pose = this.previous;
    this.previous = this.target;
    this.target = pose;
    const t = this.previousT, r = this.previousR, s = this.previousS;
    this.previousT = this.targetT; this.previousR = this.targetR; this.previousS = this.targetS;
    this.targetT = t; this.targetR = r; this.targetS = s;
    const unit = this.previousUnitScales;
    this.previousUnitScales = this.targetUnitScales;
    this.targetUnitScales = unit;
    const curves = this.curvesPrevious;
    this.curvesPrevious = this.curvesTarget;
    this.curvesTarget = curves;
  }

  /** After a graph update: its curves are the target's (its pose to be evaluated), its root motion pending. */
  keepUpdate(curves: Float64Array, motion: Float64Array): void {
    this.targetStale = true;
    if (this.hasCurves) this.curvesTarget.set(curves);
    const n = this.numbers, pending = this.at + PENDING_MOTION;
    for (let i = 0; i < 4; i++) n[pending + i] += motion[i];
  }

  /** Reports all the pending root motion into out[at, at + 4) (the display caught up with the graph). */
  flushMotion(out: Float64Array, at: number): void {
    const n = this.numbers, pending = this.at + PENDING_MOTION;
    for (let i = 0; i < 4; i++) {
      out[at + i] = n[pending + i];
      n[pending + i] = 0;
    }
  }

  /**
   * This frame's root motion into out[at, at + 4) (the clock's share of what is pending), and its
   * curve values into `values`, weighted by the clock's weights ([previous, target]).
   */
  showFrame(out: Float64Array, at: number, values: Float64Array): void {
    const n = this.numbers, pending = this.at + PENDING_MOTION, share = n[this.at + SHARE];
    for (let i = 0; i < 4; i++) {
      out[at + i] = n[pending + i] * share;
      n[pending + i] -= out[at + i];
    }
    if (!this.hasCurves) return;
    const from = this.curvesPrevious, to = this.curvesTarget, w = this.at + WEIGHTS;
    for (let i = 0; i < values.length; i++) values[i] = from[i] * n[w] + to[i] * n[w + 1];
  }

  /**
   * Shows the pose at the clock's weights ([previous, target]) in the output, the target evaluated:
   * whether `output` changed (a held frame showing the same target again writes nothing).
   */
  show(): boolean {
    const output = this.output;
    const n = this.numbers, w = this.at + WEIGHTS;
    if (n[w + 1] !== 1) {
      const kernel = this.kernel;
      if (kernel !== null) {
        // poseBlendTwo's kernel path, by the addresses kept here.
        // Scales all 1 on both sides blend to 1 (the weights are the clock's 1 - alpha and alpha):
        // left out where the output's are 1 already.
        const k = kernel.numbers, unit = this.previousUnitScales && this.targetUnitScales;
        k[KERNEL_WEIGHT_A] = n[w];
        k[KERNEL_WEIGHT_B] = n[w + 1];
        const scales = unit && this.outputUnitScales ? 0 : 1;
        // The kernel's blend may write its first input: the output in place where it holds `previous`.
        if (this.outputShowsPrevious) {
          kernel.blendAt(this.outputT, this.outputR, this.outputS, this.outputT, this.outputR, this.outputS, this.targetT, this.targetR, this.targetS, this.boneCount, scales);
          this.outputShowsPrevious = false;
        } else {
          kernel.blendAt(this.outputT, this.outputR, this.outputS, this.previousT, this.previousR, this.previousS, this.targetT, this.targetR, this.targetS, this.boneCount, scales);
        }
        this.outputUnitScales = unit;
      } else {
        showWeights[0] = n[w];
        showWeights[1] = n[w + 1];
        poseBlendTwo(output, this.previous, this.target, showWeights);
        this.outputShowsPrevious = false;
      }
      this.showsTarget = false;
      return true;
    }
    if (this.showsTarget) return false;
    const kernel = this.kernel;
    if (kernel !== null) {
      const unit = this.targetUnitScales;
      kernel.copyAt(this.outputT, this.outputR, this.outputS, this.targetT, this.targetR, this.targetS, this.boneCount, unit && this.outputUnitScales ? 0 : 1);
      this.outputUnitScales = unit;
    } else {
      poseCopy(output, this.target);
    }
    this.showsTarget = true;
    this.outputShowsPrevious = false;
    return true;
  }
}

/**
 * Whether every value of `scales` is exactly 1. Blending two such poses with weights 1 - w (as
 * rounded) and w, w in [0, 1], gives 1 exactly: 1 - w is exact for w from 0.5, and below it rounds
 * by at most half the spacing of the doubles below 1, so the sum (1 - w) + w is 1 or within a tie
 * of it, which rounds to 1 (tests/runtime/graph/update-rate-frame.test.ts checks it over many weights).
 * The kernel's unitScalesAt answers the same for a pose in its memory, two values at a time.
 */
export function unitScales(scales: Float64Array): boolean {
  for (let i = 0; i < scales.length; i++) if (scales[i] !== 1) return false;
  return true;
}
