import { easeAt, reentryShareAt, type BlendCurve } from '../core/blend-curve.ts';
import type { BlendProfile } from '../core/blend-profile.ts';
import type { UpdateContext } from '../node/node.ts';
import { restrictBoneWeights } from './crossfade.ts';

/*
 * A state machine's active transitions, as Unreal keeps them (FAnimNode_StateMachine's
 * ActiveTransitionArray of FAnimationActiveTransitionEntry): a stack, oldest first, each entry a
 * blend into one state with its own clock, curve and profile. Every entry keeps advancing while
 * newer ones run over it, so an interrupted crossfade goes on under the new one rather than
 * freezing. The state weights fold the stack from the bottom:
 *
 *   W = base;  for each entry k, oldest first:  W = W × (1 − αk) + αk × [state = next(k)]
 *
 * where base is the state the oldest entry left (all its weight on one state) and αk the entry's
 * curve at its linear progress (elapsed / duration). An entry into a state that already has weight
 * w lasts its duration × (1 − w) (for hermiteCubic, Unreal's cubic in 1 − w instead): the share the
 * state has left to gain. When an entry completes, it and every older one are dropped and the base
 * becomes its state. A stack of more than MAX_ACTIVE_TRANSITIONS entries folds its oldest into the
 * base, which holds it where it is.
 *
 * With a bone count, an entry may follow a blend profile: each bone then has its own α (as
 * Crossfade's per-bone fade) and the fold runs per bone into boneWeights; `weights` are then each
 * state's largest bone weight, normalised, so a state stays updated while any bone uses it.
 */

/** The most transitions a machine blends at once; a further one folds the oldest into the base. */
export const MAX_ACTIVE_TRANSITIONS = 8;

// An entry's numbers in `numbers`, after the weights: see TransitionStack.numbers.
const ELAPSED = 0, DURATION = 1, EXISTING = 2, ALPHA = 3, SHARE = 4, STRIDE = 5;

/** What a stack without per-bone weights holds for them: one shared empty array. */
const NO_BONES = new Float64Array(0);

export class TransitionStack {
  /**
   * The per-frame numbers, one array (see CONTRIBUTING.md, "Objects per character"):
   * [0, slots) the weights, [slots, 2 slots) the base, then per entry k at entryAt(k): seconds
   * elapsed, the nominal duration (copied from the transition), the weight its state had when it
   * started, its α, and scratch for its duration share.
   */
  readonly numbers: Float64Array;
  /** Normalised weight of each state slot this frame (a view of numbers). */
  readonly weights: Float64Array;
  /** Per entry k: at 2k the slot entered, at 2k + 1 the slot left (for the debug line). */
  private readonly ends: Int32Array;
  /** Per entry k: at 2k its curve, at 2k + 1 its profile (one array: fewer objects per character). */
  private readonly shapes: (BlendCurve | BlendProfile | null)[];
  /** Entries on the stack. */
  count = 0;
  readonly slots: number;
  /** Bones per state in boneWeights (0: built without per-bone weights). */
  readonly boneCount: number;
  /** True while bones have weights of their own (boneWeights is what to blend by). */
  perBone = false;
  /** Per slot s, per bone b, at s × boneCount + b: the weights while perBone. */
  readonly boneWeights: Float64Array;
  /** boneWeights restricted to the states evaluated (see restrictBones). */
  readonly evaluateBoneWeights: Float64Array;
  /** The base per bone, once a profiled entry was folded into it (basePerBone). */
  private readonly boneBase: Float64Array;
  private basePerBone = false;
  /** Per-bone α of the entry being folded. */
  private readonly boneAlpha: Float64Array;

  constructor(slots: number, boneCount: number, initialCurve: BlendCurve) {
    this.slots = slots;
    this.numbers = new Float64Array(slots * 2 + MAX_ACTIVE_TRANSITIONS * STRIDE);
    this.weights = this.numbers.subarray(0, slots);
    this.ends = new Int32Array(MAX_ACTIVE_TRANSITIONS * 2);
    this.shapes = new Array<BlendCurve | BlendProfile | null>(MAX_ACTIVE_TRANSITIONS * 2);
    for (let k = 0; k < MAX_ACTIVE_TRANSITIONS; k++) {
      this.shapes[k * 2] = initialCurve;
      this.shapes[k * 2 + 1] = null;
    }
    this.boneCount = boneCount;
    // Without per-bone weights the four are one shared empty array: nothing is written to them.
    const perBone = slots * boneCount;
    this.boneWeights = perBone > 0 ? new Float64Array(perBone) : NO_BONES;
    this.evaluateBoneWeights = perBone > 0 ? new Float64Array(perBone) : NO_BONES;
    this.boneBase = perBone > 0 ? new Float64Array(perBone) : NO_BONES;
    this.boneAlpha = perBone > 0 ? new Float64Array(boneCount) : NO_BONES;
  }

  /** Entry k's state entered, and state left. */
  private next(k: number): number {
    return this.ends[k * 2];
  }

  private from(k: number): number {
    return this.ends[k * 2 + 1];
  }

  private curve(k: number): BlendCurve {
    return this.shapes[k * 2] as BlendCurve;
  }

  private profile(k: number): BlendProfile | null {
    return this.shapes[k * 2 + 1] as BlendProfile | null;
  }

  /** Moves entries from..count-1 down to 0 (the older ones dropped). */
  private shiftDown(from: number): void {
    const count = this.count;
    this.numbers.copyWithin(this.entryAt(0), this.entryAt(from), this.entryAt(count));
    this.ends.copyWithin(0, from * 2, count * 2);
    for (let i = from * 2, j = 0; i < count * 2; i++, j++) this.shapes[j] = this.shapes[i];
  }

  /** Where entry k's numbers start in `numbers`. */
  entryAt(k: number): number {
    return this.slots * 2 + k * STRIDE;
  }

  /** Puts all the weight on `slot` at once, dropping every transition. */
  jumpTo(slot: number): void {
    this.count = 0;
    this.perBone = false;
    this.basePerBone = false;
    this.numbers.fill(0, 0, this.slots * 2);
    this.numbers[this.slots + slot] = 1;
    this.weights[slot] = 1;
  }

  /**
   * Pushes a transition from slot `from` into slot `to` of `duration[0]` seconds (copied, not read:
   * this runs only at a switch; see CONTRIBUTING.md, "Numbers in the frame loop") following `curve`
   * and `profile`. It starts at α 0, so the weights do not change until the next advance.
   */
  push(from: number, to: number, duration: Float64Array, curve: BlendCurve, profile: BlendProfile | null): void {
    if (this.count === MAX_ACTIVE_TRANSITIONS) this.foldOldest();
    const k = this.count++;
    const at = this.entryAt(k), numbers = this.numbers;
    numbers.fill(0, at, at + STRIDE);
    numbers.set(duration, at + DURATION);
    // The weight the state has now, copied: the entry's duration share is worked out where every frame goes.
    numbers.copyWithin(at + EXISTING, to, to + 1);
    this.ends[k * 2] = to;
    this.ends[k * 2 + 1] = from;
    this.shapes[k * 2] = curve;
    this.shapes[k * 2 + 1] = this.boneCount > 0 ? profile : null;
  }

  /** The base takes the oldest entry at its current α; the others move down one. */
  private foldOldest(): void {
    const n = this.slots, bones = this.boneCount, numbers = this.numbers;
    const at = this.entryAt(0), next = this.next(0);
    if (this.perBone) {
      // boneBase becomes the per-bone fold of the base and the oldest entry.
      this.alphaPerBone(0);
      this.startBoneBase();
      const b = this.boneBase, alpha = this.boneAlpha;
      for (let s = 0, k = 0; s < n; s++) for (let i = 0; i < bones; i++, k++) b[k] = b[k] * (1 - alpha[i]) + (s === next ? alpha[i] : 0);
      this.basePerBone = true;
    }
    const alpha = numbers[at + ALPHA];
    for (let s = 0; s < n; s++) numbers[n + s] = numbers[n + s] * (1 - alpha) + (s === next ? alpha : 0);
    this.shiftDown(1);
    this.count--;
  }

  /** boneBase holds the base per bone (spread from base unless it already differs per bone). */
  private startBoneBase(): void {
    if (this.basePerBone) return;
    const b = this.boneBase, numbers = this.numbers, n = this.slots, bones = this.boneCount;
    for (let s = 0, k = 0; s < n; s++) for (let i = 0; i < bones; i++, k++) b[k] = numbers[n + s];
  }

  /** The newest entry's slot left (-1 when none runs). */
  get newestFrom(): number {
    return this.count > 0 ? this.from(this.count - 1) : -1;
  }

  /** The newest entry's profile (null when none runs or it has none). */
  get newestProfile(): BlendProfile | null {
    return this.count > 0 ? this.profile(this.count - 1) : null;
  }

  /**
   * Moves every entry on by ctx.deltaTime, drops the completed ones (with every older one) and
   * writes this frame's weights (and, while perBone, boneWeights).
   */
  advance(ctx: UpdateContext): void {
    if (this.count === 0) return;
    const numbers = this.numbers, dt = ctx.deltaTime;
    let done = -1;
    for (let k = 0; k < this.count; k++) {
      const at = this.entryAt(k);
      numbers[at + ELAPSED] += dt;
      // The duration shortened by the share its state had left to gain (CalculateInverseAlpha).
      numbers[at + SHARE] = numbers[at + EXISTING];
      reentryShareAt(this.curve(k), numbers, at + SHARE);
      const duration = numbers[at + DURATION] * numbers[at + SHARE];
      const linear = duration > 0 ? numbers[at + ELAPSED] / duration : 1;
      numbers[at + ALPHA] = linear;
      easeAt(this.curve(k), numbers, at + ALPHA);
      if (!(linear < 1)) done = k;
    }
    if (done >= 0) this.drop(done);
    this.fold();
  }

  /** Drops entries 0..k (k completed): the base becomes entry k's state. */
  private drop(k: number): void {
    const next = this.next(k), remaining = this.count - k - 1, n = this.slots;
    this.numbers.fill(0, n, n * 2);
    this.numbers[n + next] = 1;
    this.basePerBone = false;
    if (remaining > 0) this.shiftDown(k + 1);
    this.count = remaining;
  }

  /** Writes the weights (and boneWeights) folded from the base and the entries. */
  private fold(): void {
    const n = this.slots, weights = this.weights, numbers = this.numbers;
    // The base, at [n, 2n) of numbers: copied without reading a number.
    numbers.copyWithin(0, n, n * 2);
    let profiled = this.basePerBone;
    for (let k = 0; k < this.count; k++) {
      const alpha = numbers[this.entryAt(k) + ALPHA], next = this.next(k);
      for (let s = 0; s < n; s++) weights[s] = weights[s] * (1 - alpha) + (s === next ? alpha : 0);
      if (this.profile(k) !== null) profiled = true;
    }
    let sum = 0;
    for (let s = 0; s < n; s++) sum += weights[s];
    if (sum > 0) for (let s = 0; s < n; s++) weights[s] /= sum;
    this.perBone = profiled && this.boneCount > 0;
    if (this.perBone) this.foldBones();
  }

  /** fold() per bone; the states' weights become their largest bone weights, normalised. */
  private foldBones(): void {
    const n = this.slots, bones = this.boneCount, out = this.boneWeights, weights = this.weights, alpha = this.boneAlpha;
    this.startBoneBase();
    out.set(this.boneBase);
    for (let k = 0; k < this.count; k++) {
      this.alphaPerBone(k);
      const next = this.next(k);
      for (let s = 0, j = 0; s < n; s++) for (let b = 0; b < bones; b++, j++) out[j] = out[j] * (1 - alpha[b]) + (s === next ? alpha[b] : 0);
    }
    for (let b = 0; b < bones; b++) {
      let sum = 0;
      for (let s = 0, j = b; s < n; s++, j += bones) sum += out[j];
      if (sum > 0) for (let s = 0, j = b; s < n; s++, j += bones) out[j] /= sum;
    }
    let total = 0;
    for (let s = 0; s < n; s++) {
      let most = 0;
      for (let j = s * bones, end = j + bones; j < end; j++) if (out[j] > most) most = out[j];
      weights[s] = most;
      total += most;
    }
    if (total > 0) for (let s = 0; s < n; s++) weights[s] /= total;
  }

  /**
   * Writes entry k's α per bone into boneAlpha: its profile's pace for each bone (see
   * runtime/core/blend-profile.ts), or the entry's α for every bone when it has none.
   */
  private alphaPerBone(k: number): void {
    const bones = this.boneCount, alpha = this.boneAlpha, numbers = this.numbers, at = this.entryAt(k);
    const profile = this.profile(k), eased = numbers[at + ALPHA];
    if (profile === null) {
      for (let b = 0; b < bones; b++) alpha[b] = eased;
      return;
    }
    const duration = numbers[at + DURATION] * numbers[at + SHARE];
    const linear = duration > 0 ? Math.min(numbers[at + ELAPSED] / duration, 1) : 1;
    const scales = profile.scales, curve = this.curve(k);
    if (profile.mode === 'timeFactor') {
      for (let b = 0; b < bones; b++) {
        const s = scales[b];
        alpha[b] = !(s > 0) || linear >= s ? 1 : linear / s;
        easeAt(curve, alpha, b);
      }
    } else {
      for (let b = 0; b < bones; b++) {
        const lead = eased * scales[b], sum = lead + 1 - eased;
        alpha[b] = sum > 0 ? lead / sum : 1;
      }
    }
  }

  /** Writes evaluateBoneWeights: boneWeights of the states `include` gives weight, renormalised per bone. */
  restrictBones(include: Float64Array): void {
    restrictBoneWeights(include, this.boneWeights, this.evaluateBoneWeights, this.slots, this.boneCount);
  }

  /** The newest entry's seconds elapsed and (shortened) duration, for the debug line: [elapsed, duration]. */
  newestTimes(out: Float64Array): void {
    out[0] = 0;
    out[1] = 0;
    if (this.count === 0) return;
    const at = this.entryAt(this.count - 1), numbers = this.numbers;
    out[1] = numbers[at + DURATION] * numbers[at + SHARE];
    out[0] = Math.min(numbers[at + ELAPSED], out[1]);
  }
}
