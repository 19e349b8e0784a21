import type { PoseLink } from './link.ts';
import type { UpdateContext } from './node.ts';
import { poseAccumulate, poseNormalizeRotations, poseScaleInto, type Pose, type PosePool } from './pose.ts';

/**
 * The weights of N inputs crossfading to one of them (Cocos Creator's reusable crossfade state),
 * shared by BlendList, BlendByBool and PoseSearchBlend's crossfaded switches; a state machine or a
 * blend space would use the same. Inputs: `count` (the inputs taking part, at most the capacity)
 * and `duration` (set before fadeTo). Output: `weights`, normalised to a sum of 1 over the first
 * `count` inputs (those beyond are left as they were).
 *
 * A fade is linear in time from the weights the inputs had when it started, so a fade that
 * interrupts another does not pop: the current weights become the new fade's start.
 */
export class Crossfade {
  /** Normalised weight of each input this frame. */
  readonly weights: Float64Array;
  private readonly startWeights: Float64Array;
  /** Inputs taking part (the first `count`). */
  count: number;
  /** The input faded to; -1 before the first choice. */
  target = -1;
  /** Seconds since the fade started. */
  elapsed = 0;
  /** Seconds the fade lasts; 0 for an instant switch. */
  duration = 0;
  /**
   * Ease the fade in and out (smoothstep, 3p² − 2p³, of the linear progress p) instead of moving
   * linearly; read by advance, so set it with duration before fadeTo.
   */
  cubic = false;

  constructor(capacity: number) {
    this.weights = new Float64Array(capacity);
    this.startWeights = new Float64Array(capacity);
    this.count = capacity;
  }

  /** Forgets every fade and choice (the next choice is a jumpTo). */
  reset(): void {
    this.target = -1;
    this.weights.fill(0);
    this.elapsed = 0;
    this.duration = 0;
  }

  /** Puts all the weight on input `index` at once. */
  jumpTo(index: number): void {
    this.target = index;
    this.weights.fill(0);
    this.weights[index] = 1;
    this.duration = 0;
  }

  /**
   * Starts fading to input `index` over `duration` seconds from the current weights. A duration
   * that is not above 0 (NaN included) switches at once.
   */
  fadeTo(index: number): void {
    this.target = index;
    this.startWeights.set(this.weights);
    this.elapsed = 0;
    if (!(this.duration > 0)) this.duration = 0;
  }

  /** Progress of the fade in [0, 1] (1 when none runs). */
  get progress(): number {
    return this.duration > 0 ? Math.min(this.elapsed / this.duration, 1) : 1;
  }

  /** True while a fade is under way. */
  get fading(): boolean {
    return this.duration > 0 && this.elapsed < this.duration;
  }

  /**
   * Moves the fade on by ctx.deltaTime and writes this frame's weights. Returns true once the fade
   * is complete (all the weight on the target).
   */
  advance(ctx: UpdateContext): boolean {
    this.elapsed += ctx.deltaTime;
    const n = this.count, index = this.target, weights = this.weights, start = this.startWeights;
    const linear = this.duration > 0 ? Math.min(this.elapsed / this.duration, 1) : 1;
    const progress = this.cubic ? linear * linear * (3 - 2 * linear) : linear;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const target = i === index ? 1 : 0;
      const w = progress >= 1 ? target : start[i] + (target - start[i]) * progress;
      weights[i] = w;
      sum += w;
    }
    for (let i = 0; i < n; i++) weights[i] = sum > 0 ? weights[i] / sum : i === index ? 1 : 0;
    return progress >= 1;
  }
}

/**
 * Writes the sum of `inputs` weighted by `weights` (inputs at weight 0 are not evaluated) into
 * `out`, rotations renormalised when more than one contributed: the pose of a crossfade of N
 * inputs, for BlendList, BlendByBool and StateMachine. Temporaries come from `pool`.
 */
export function evaluateWeightedInputs(out: Pose, inputs: readonly PoseLink[], weights: Float64Array, pool: PosePool): void {
  let first = true;
  let scratch: Pose | null = null;
  for (let i = 0; i < inputs.length; i++) {
    const w = weights[i];
    if (w <= 0) continue;
    if (first) {
      inputs[i].evaluate(out);
      if (w < 1) poseScaleInto(out, out, weights, i);
      first = false;
      continue;
    }
    scratch ??= pool.acquire();
    inputs[i].evaluate(scratch);
    poseAccumulate(out, scratch, weights, i);
  }
  if (scratch !== null) {
    poseNormalizeRotations(out);
    pool.release(scratch);
  }
}
