import { easeAt, LINEAR_BLEND, type BlendCurve } from '../core/blend-curve.ts';
import type { BlendProfile } from '../core/blend-profile.ts';
import type { PoseLink } from '../node/link.ts';
import type { UpdateContext } from '../node/node.ts';
import { poseAccumulate, poseNormalizeRotations, poseScaleInto, type Pose, type PosePool } from '../core/pose.ts';
import { poseAccumulateBones, poseScaleBones } from '../core/pose-bones.ts';

/** What a crossfade without per-bone weights holds for them: one shared empty array. */
const NO_BONE_WEIGHTS = new Float64Array(0);

/** Progress eased within one call (see easeAt): every crossfade's, on the one thread. */
const EASE = new Float64Array(1);

/**
 * The weights of N inputs crossfading to one of them (Cocos Creator's reusable crossfade state),
 * shared by BlendList, BlendByBool and PoseSearchBlend's crossfaded switches; a state machine or a
 * blend space would use the same. Inputs: `count` (the inputs taking part, at most the capacity)
 * and `duration` (set before fadeTo). Output: `weights`, normalised to a sum of 1 over the first
 * `count` inputs (those beyond are left as they were).
 *
 * A fade moves from the weights the inputs had when it started along its `curve` (linear unless
 * set), so a fade that interrupts another does not pop: the current weights become the new fade's
 * start.
 *
 * Built with a bone count, a fade may follow a blend profile (runtime/core/blend-profile.ts; set
 * `profile` with duration before fadeTo): each bone then moves at its own pace and `boneWeights`
 * holds, per input, per bone, the weights (normalised per bone), which evaluatePerBoneInputs blends
 * by. A fade that interrupts a profiled one starts from each bone's own weights, so nothing pops
 * whatever the two fades' profiles. While bones differ (`perBone`), `weights` are each input's
 * largest bone weight, normalised: an input keeps weight, so it stays relevant and updated, as long
 * as any bone still uses it.
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
   * The curve the fade follows over its time (runtime/core/blend-curve.ts); read by advance, so set
   * it with duration before fadeTo.
   */
  curve: BlendCurve = LINEAR_BLEND;
  /**
   * The blend profile the next fade follows (a timeFactor or weightFactor one), or null for every
   * bone together; read by fadeTo and advance, so set it with duration before fadeTo. Needs a
   * crossfade built with a bone count.
   */
  profile: BlendProfile | null = null;
  /** True while bones have weights of their own (boneWeights is what to blend by). */
  perBone = false;
  /** Bones per input in boneWeights (0: built without per-bone weights). */
  readonly boneCount: number;
  /** Per input i, per bone b, at i × boneCount + b: the weights while perBone, summing to 1 per bone. */
  readonly boneWeights: Float64Array;
  /** boneWeights restricted to the inputs evaluated (see restrictBones): what evaluatePerBoneInputs reads. */
  readonly evaluateBoneWeights: Float64Array;
  private readonly boneStart: Float64Array;
  /** The profile of the fade running (profile is the next one's). */
  private running: BlendProfile | null = null;

  constructor(capacity: number, boneCount = 0) {
    this.weights = new Float64Array(capacity);
    this.startWeights = new Float64Array(capacity);
    this.count = capacity;
    this.boneCount = boneCount;
    // Without per-bone weights the three are one shared empty array: nothing is written to them.
    const perBone = capacity * boneCount;
    this.boneWeights = perBone > 0 ? new Float64Array(perBone) : NO_BONE_WEIGHTS;
    this.evaluateBoneWeights = perBone > 0 ? new Float64Array(perBone) : NO_BONE_WEIGHTS;
    this.boneStart = perBone > 0 ? new Float64Array(perBone) : NO_BONE_WEIGHTS;
  }

  /** Forgets every fade and choice (the next choice is a jumpTo). */
  reset(): void {
    this.target = -1;
    this.weights.fill(0);
    this.elapsed = 0;
    this.duration = 0;
    this.perBone = false;
    this.running = null;
  }

  /** Puts all the weight on input `index` at once. */
  jumpTo(index: number): void {
    this.target = index;
    this.weights.fill(0);
    this.weights[index] = 1;
    this.duration = 0;
    this.perBone = false;
    this.running = null;
  }

  /**
   * Starts fading to input `index` over `duration` seconds (set it first, 0 or more: 0 switches at
   * once) from the current weights. Reads no number, since it runs only at a switch (see
   * CONTRIBUTING.md, "Numbers in the frame loop").
   */
  fadeTo(index: number): void {
    this.target = index;
    this.startWeights.set(this.weights);
    this.elapsed = 0;
    const bones = this.boneCount;
    this.running = bones > 0 ? this.profile : null;
    if (bones === 0 || (this.running === null && !this.perBone)) return;
    // Each bone starts from where it is: its own weights if bones already differ, else the inputs'.
    const start = this.boneStart;
    if (this.perBone) start.set(this.boneWeights);
    else {
      // A loop, not fill(): a double passed to a builtin is boxed.
      const weights = this.weights;
      for (let i = 0, k = 0; i < this.count; i++) for (let b = 0; b < bones; b++, k++) start[k] = weights[i];
      // Until the next advance (a state machine evaluates the frame it starts a transition in).
      this.boneWeights.set(start);
    }
    this.perBone = true;
  }

  /** The blend profile of the fade under way (null when none runs or it has none). */
  get runningProfile(): BlendProfile | null {
    return this.fading ? this.running : null;
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
    if (this.perBone) return this.advanceBones();
    const n = this.count, index = this.target, weights = this.weights, start = this.startWeights;
    const linear = this.duration > 0 ? Math.min(this.elapsed / this.duration, 1) : 1;
    EASE[0] = linear;
    easeAt(this.curve, EASE, 0);
    // Complete by time, whatever a custom curve ends at.
    const progress = linear >= 1 ? 1 : EASE[0];
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

  /** advance() while bones have weights of their own. */
  private advanceBones(): boolean {
    const n = this.count, index = this.target, bones = this.boneCount, weights = this.weights;
    const start = this.boneStart, out = this.boneWeights, profile = this.running;
    const linear = this.duration > 0 ? Math.min(this.elapsed / this.duration, 1) : 1;
    if (linear >= 1) {
      // Every bone has arrived (a timeFactor scale is at most 1; a weightFactor bone arrives with the fade).
      this.perBone = false;
      this.running = null;
      weights.fill(0, 0, n);
      weights[index] = 1;
      return true;
    }
    const curve = this.curve;
    EASE[0] = linear;
    easeAt(curve, EASE, 0);
    const eased = EASE[0];
    const scales = profile !== null ? profile.scales : null;
    const timeFactor = profile !== null && profile.mode === 'timeFactor';
    for (let b = 0; b < bones; b++) {
      // The bone's own progress (see runtime/core/blend-profile.ts); never NaN, a scale of 0 included.
      let q = eased;
      if (scales !== null) {
        const s = scales[b];
        if (timeFactor) {
          EASE[0] = !(s > 0) || linear >= s ? 1 : linear / s;
          easeAt(curve, EASE, 0);
          q = EASE[0];
        } else {
          const lead = eased * s, sum = lead + 1 - eased;
          q = sum > 0 ? lead / sum : 1;
        }
      }
      let sum = 0;
      for (let i = 0, k = b; i < n; i++, k += bones) {
        const target = i === index ? 1 : 0;
        const w = start[k] + (target - start[k]) * q;
        out[k] = w;
        sum += w;
      }
      for (let i = 0, k = b; i < n; i++, k += bones) out[k] = sum > 0 ? out[k] / sum : i === index ? 1 : 0;
    }
    // An input weighs what its most-used bone does, so it stays updated while any bone uses it.
    let total = 0;
    for (let i = 0; i < n; i++) {
      let most = 0;
      for (let k = i * bones, end = k + bones; k < end; k++) if (out[k] > most) most = out[k];
      weights[i] = most;
      total += most;
    }
    for (let i = 0; i < n; i++) weights[i] = total > 0 ? weights[i] / total : i === index ? 1 : 0;
    return false;
  }

  /**
   * Writes evaluateBoneWeights: boneWeights of the inputs `include` gives weight (those updated this
   * frame), renormalised per bone; a bone only excluded inputs used goes to the first included one.
   */
  restrictBones(include: Float64Array): void {
    restrictBoneWeights(include, this.boneWeights, this.evaluateBoneWeights, this.count, this.boneCount);
  }
}

/**
 * Writes into `out` the per-bone weights `from` (per input i, per bone b, at i × bones + b) of the
 * first `n` inputs `include` gives weight, renormalised per bone; a bone only excluded inputs used
 * goes to the first included one. For Crossfade and a state machine's TransitionStack.
 */
export function restrictBoneWeights(include: Float64Array, from: Float64Array, out: Float64Array, n: number, bones: number): void {
  let first = -1;
  for (let i = 0; i < n; i++) if (include[i] > 0) { first = i; break; }
  for (let b = 0; b < bones; b++) {
    let sum = 0;
    for (let i = 0, k = b; i < n; i++, k += bones) {
      const w = include[i] > 0 ? from[k] : 0;
      out[k] = w;
      sum += w;
    }
    if (sum > 0) for (let i = 0, k = b; i < n; i++, k += bones) out[k] /= sum;
    else if (first >= 0) out[first * bones + b] = 1;
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

/**
 * Writes the per-bone weighted sum of `inputs` into `out`: input i's bone b weighs
 * weights[i × bones + b] (a Crossfade's or TransitionStack's evaluateBoneWeights, see
 * restrictBoneWeights); inputs `include` gives no weight are not evaluated. Rotations are
 * renormalised. The pose of a crossfade following a blend profile, for BlendList and StateMachine.
 */
export function evaluatePerBoneInputs(out: Pose, inputs: readonly PoseLink[], include: Float64Array, weights: Float64Array, bones: number, pool: PosePool): void {
  let first = true;
  let scratch: Pose | null = null;
  for (let i = 0; i < inputs.length; i++) {
    if (!(include[i] > 0)) continue;
    if (first) {
      inputs[i].evaluate(out);
      first = false;
      poseScaleBones(out, weights, i * bones);
      continue;
    }
    scratch ??= pool.acquire();
    inputs[i].evaluate(scratch);
    poseAccumulateBones(out, scratch, weights, i * bones);
  }
  if (scratch !== null) pool.release(scratch);
  poseNormalizeRotations(out);
}
