import { quatNormalize } from './math.ts';
import { AnimGraphError } from './errors.ts';
import { FreeList } from './free-list.ts';

/**
 * What the pose operations need of a kernel that runs them on poses in its own memory (the
 * WebAssembly kernel in runtime/kernel/ implements it for a batch's or a crowd's poses). Declared
 * here, below the kernel, so that the pose layer dispatches and no caller branches on JavaScript
 * or WebAssembly: a Pose knows its kernel (Pose.kernel), and each operation in this file and in
 * pose-bones.ts runs in it when every pose it touches is in its memory, bit-identically.
 *
 * Numbers go in through `numbers` at the KERNEL_* indices, written before the call: a double
 * passed to a call V8 does not inline is boxed (CONTRIBUTING.md, "Numbers in the frame loop").
 */
export interface PoseKernel {
  /** The memory the kernel's poses view. */
  readonly buffer: ArrayBufferLike;
  /** The skeleton whose reference pose and parents it holds (compared by identity). */
  readonly skeleton: unknown;
  /** The call's numbers, at KERNEL_ALPHA, KERNEL_WEIGHT_A and KERNEL_WEIGHT_B. */
  readonly numbers: Float64Array;
  /** One weight per bone of its skeleton, written before layer, scaleBones, accumulateBones and lerpBones. */
  readonly boneWeights: Float64Array;
  /** Samples clip binding `binding` into `out` (see sampleClipAt); false, having done nothing, when it holds no copy of the clip. */
  sample(out: Pose, binding: { readonly index: number }, base0: number, base1: number, blend: boolean, renormalize: boolean): boolean;
  /** The component-space pose of `local` into `component`, every bone composed. */
  compose(local: PoseStorage, component: PoseStorage): void;
  /** poseBlendTwo with the weights at KERNEL_WEIGHT_A and KERNEL_WEIGHT_B. */
  blend(out: Pose, a: Pose, b: Pose): void;
  /** poseScaleInto with the weight at KERNEL_WEIGHT_A. */
  scale(out: Pose, source: Pose): void;
  /** poseAccumulate with the weight at KERNEL_WEIGHT_A. */
  accumulate(out: Pose, source: Pose): void;
  normalize(pose: Pose): void;
  /** poseLayerBones by boneWeights (0: left as it is). */
  layer(out: Pose, layer: Pose): void;
  /** poseScaleBones by boneWeights. */
  scaleBones(out: Pose): void;
  /** poseAccumulateBones by boneWeights. */
  accumulateBones(out: Pose, source: Pose): void;
  /** poseLerpBones by boneWeights (negative: left as it is). */
  lerpBones(out: Pose, pose: Pose): void;
  /** Adds an inertializer's offsets to `pose`, reading its numbers at byte address `block` of this memory. */
  inertialize(pose: Pose, block: number): void;
  /** out = source, both in this memory and of the same bones. */
  copyPose(out: Pose, source: Pose): void;
}

/** Where a kernel call reads its numbers in PoseKernel.numbers: a sample's place between its keys, and the two blend weights. */
export const KERNEL_ALPHA = 0, KERNEL_WEIGHT_A = 1, KERNEL_WEIGHT_B = 2;

const kernels = new WeakMap<ArrayBufferLike, PoseKernel>();

/** Makes `kernel` the one that runs the pose operations on poses whose arrays all view `buffer`. */
export function registerPoseKernel(buffer: ArrayBufferLike, kernel: PoseKernel): void {
  kernels.set(buffer, kernel);
}

/**
 * The kernel whose memory `translations`, `rotations` and `scales` all view, or null: how a Pose
 * built on a kernel's arrays (an InstanceBatch's) finds it.
 */
export function kernelOf(translations: Float64Array, rotations: Float64Array, scales: Float64Array): PoseKernel | null {
  const buffer = translations.buffer;
  if (rotations.buffer !== buffer || scales.buffer !== buffer) return null;
  return kernels.get(buffer) ?? null;
}

/**
 * A local-space pose laid out by attribute: translations [x,y,z]*n, rotations [x,y,z,w]*n (unit
 * quaternions), scales [x,y,z]*n, indexed by skeleton bone index. Sized once when a graph is bound.
 */
export class Pose {
  readonly boneCount: number;
  readonly translations: Float64Array;
  readonly rotations: Float64Array;
  readonly scales: Float64Array;
  /**
   * The sampling kernel whose memory holds this pose's arrays (an InstanceBatch's output poses),
   * which then samples clips into it; null for a pose of its own arrays (see runtime/kernel/sampling-kernel.ts).
   */
  readonly kernel: PoseKernel | null;
  /**
   * The arrays' byte offsets in the kernel's memory (0 without a kernel): what the kernel is called
   * with, read from the pose rather than from its three arrays (three fewer objects per call for a
   * crowd's frame to go through).
   */
  readonly translationsAddress: number;
  readonly rotationsAddress: number;
  readonly scalesAddress: number;

  /**
   * An identity pose (zero translations, identity rotations, unit scales) of `boneCount` bones, in
   * new arrays or in `storage`: arrays the caller owns, such as views into one array holding a
   * whole crowd's poses, which evaluation then writes in place of a copy per frame.
   */
  constructor(boneCount: number, storage?: PoseStorage) {
    this.boneCount = boneCount;
    if (storage !== undefined) checkStorage(storage, boneCount, 'pose');
    this.translations = storage?.translations ?? new Float64Array(boneCount * 3);
    this.rotations = storage?.rotations ?? new Float64Array(boneCount * 4);
    this.scales = storage?.scales ?? new Float64Array(boneCount * 3);
    this.kernel = storage === undefined ? null : kernelOf(this.translations, this.rotations, this.scales);
    this.translationsAddress = this.kernel === null ? 0 : this.translations.byteOffset;
    this.rotationsAddress = this.kernel === null ? 0 : this.rotations.byteOffset;
    this.scalesAddress = this.kernel === null ? 0 : this.scales.byteOffset;
    if (storage !== undefined) {
      this.translations.fill(0);
      this.rotations.fill(0);
    }
    for (let i = 0; i < boneCount; i++) {
      this.rotations[i * 4 + 3] = 1;
      this.scales[i * 3] = 1;
      this.scales[i * 3 + 1] = 1;
      this.scales[i * 3 + 2] = 1;
    }
  }
}

/** Arrays for a pose's attributes: [x,y,z] per bone, [x,y,z,w] per bone, [x,y,z] per bone. */
export interface PoseStorage {
  readonly translations: Float64Array;
  readonly rotations: Float64Array;
  readonly scales: Float64Array;
}

/**
 * The pose arrays of a group of characters, laid out like one pose per character
 * ([character][bone][xyz] for translations and scales, [character][bone][xyzw] for rotations).
 * The component-space ones are empty when the group publishes no component pose.
 */
export interface BatchPoseArrays {
  readonly translations: Float64Array;
  readonly rotations: Float64Array;
  readonly scales: Float64Array;
  readonly componentTranslations: Float64Array;
  readonly componentRotations: Float64Array;
  readonly componentScales: Float64Array;
}

/** Throws an AnimGraphError (`invalid-argument`) unless `storage` holds exactly `boneCount` bones per attribute. */
export function checkStorage(storage: PoseStorage, boneCount: number, what: string): void {
  const wrong = (['translations', 'rotations', 'scales'] as const).filter((k, i) => storage[k].length !== boneCount * (i === 1 ? 4 : 3));
  if (wrong.length > 0) {
    throw new AnimGraphError('invalid-argument', `${what} storage for ${boneCount} bones needs ${boneCount * 3}, ${boneCount * 4} and ${boneCount * 3} values; ${wrong.map((k) => `${k} has ${storage[k].length}`).join(', ')}`);
  }
}

export function poseCopy(out: Pose, source: Pose): Pose {
  const kernel = kernelHolding(out, source);
  if (kernel !== null) {
    // By address: no typed-array object of either pose read (a crowd copies a history pose per character).
    kernel.copyPose(out, source);
    return out;
  }
  out.translations.set(source.translations);
  out.rotations.set(source.rotations);
  out.scales.set(source.scales);
  return out;
}

const blendWeights = new Float64Array(2);

/**
 * out = a * (1 - weight) + b * weight, per bone: linear translation and scale, normalised-linear
 * rotation along the shorter arc. `out` may alias `a` or `b`. For user code: nodes call
 * poseBlendTwo, which takes its weights by array.
 */
export function poseBlend(out: Pose, a: Pose, b: Pose, weight: number): Pose {
  blendWeights[0] = 1 - weight;
  blendWeights[1] = weight;
  return poseBlendTwo(out, a, b, blendWeights);
}

/**
 * The sampling kernel holding both `out` and `source` in its memory with the same bone count (a
 * batch's output, temporaries, interpolation poses), where a pose operation runs in it; else null.
 */
export function kernelHolding(out: Pose, source: Pose): PoseKernel | null {
  const kernel = out.kernel;
  return kernel !== null && source.kernel === kernel && out.boneCount === source.boneCount ? kernel : null;
}

/**
 * out = a * weights[0] + b * weights[1] in one pass (the same arithmetic as poseScaleInto,
 * poseAccumulate and poseNormalizeRotations, which cost three passes over the poses), each
 * rotation of b taken in a's hemisphere, then normalised. `out` may alias `a` or `b`.
 */
export function poseBlendTwo(out: Pose, a: Pose, b: Pose, weights: Float64Array): Pose {
  const wa = weights[0], w = weights[1];
  const kernel = kernelHolding(out, a);
  if (kernel !== null && kernelHolding(out, b) === kernel) {
    // All three in a sampling kernel's memory (a batch's output, temporaries, interpolation poses).
    const numbers = kernel.numbers;
    numbers[KERNEL_WEIGHT_A] = wa;
    numbers[KERNEL_WEIGHT_B] = w;
    kernel.blend(out, a, b);
    return out;
  }
  const at = a.translations, bt = b.translations, ot = out.translations;
  const as = a.scales, bs = b.scales, os = out.scales;
  for (let i = 0; i < ot.length; i++) {
    ot[i] = at[i] * wa + bt[i] * w;
    os[i] = as[i] * wa + bs[i] * w;
  }
  const ar = a.rotations, br = b.rotations, or = out.rotations;
  for (let o = 0; o < or.length; o += 4) {
    const ax = ar[o] * wa, ay = ar[o + 1] * wa, az = ar[o + 2] * wa, aw = ar[o + 3] * wa;
    const bx = br[o], by = br[o + 1], bz = br[o + 2], bw = br[o + 3];
    // The sign test on the scaled a, as poseAccumulate makes it: a weight of 0 keeps b as it is.
    const wb = ax * bx + ay * by + az * bz + aw * bw < 0 ? -w : w;
    or[o] = ax + bx * wb;
    or[o + 1] = ay + by * wb;
    or[o + 2] = az + bz * wb;
    or[o + 3] = aw + bw * wb;
    quatNormalize(or, o);
  }
  return out;
}

// The weighted-sum operations read their weight from weights[index] rather than taking a number:
// see CONTRIBUTING.md, "Numbers in the frame loop".

/** out = source * weights[index]: the first term of a weighted sum of poses (see poseAccumulate). */
export function poseScaleInto(out: Pose, source: Pose, weights: Float64Array, index: number): Pose {
  const weight = weights[index];
  const kernel = kernelHolding(out, source);
  if (kernel !== null) {
    kernel.numbers[KERNEL_WEIGHT_A] = weight;
    kernel.scale(out, source);
    return out;
  }
  const st = source.translations, ot = out.translations, ss = source.scales, os = out.scales;
  for (let i = 0; i < ot.length; i++) {
    ot[i] = st[i] * weight;
    os[i] = ss[i] * weight;
  }
  const sr = source.rotations, or = out.rotations;
  for (let i = 0; i < or.length; i++) or[i] = sr[i] * weight;
  return out;
}

/**
 * out += source * weights[index], flipping each rotation into the hemisphere of the running sum so
 * that q and -q add up instead of cancelling. Call poseNormalizeRotations after the last term.
 */
export function poseAccumulate(out: Pose, source: Pose, weights: Float64Array, index: number): Pose {
  const weight = weights[index];
  const kernel = kernelHolding(out, source);
  if (kernel !== null) {
    kernel.numbers[KERNEL_WEIGHT_A] = weight;
    kernel.accumulate(out, source);
    return out;
  }
  const st = source.translations, ot = out.translations, ss = source.scales, os = out.scales;
  for (let i = 0; i < ot.length; i++) {
    ot[i] += st[i] * weight;
    os[i] += ss[i] * weight;
  }
  const sr = source.rotations, or = out.rotations;
  for (let o = 0; o < or.length; o += 4) {
    const dot = or[o] * sr[o] + or[o + 1] * sr[o + 1] + or[o + 2] * sr[o + 2] + or[o + 3] * sr[o + 3];
    const w = dot < 0 ? -weight : weight;
    or[o] += sr[o] * w;
    or[o + 1] += sr[o + 1] * w;
    or[o + 2] += sr[o + 2] * w;
    or[o + 3] += sr[o + 3] * w;
  }
  return out;
}

export function poseNormalizeRotations(pose: Pose): Pose {
  const kernel = pose.kernel;
  if (kernel !== null) {
    kernel.normalize(pose);
    return pose;
  }
  const r = pose.rotations;
  for (let o = 0; o < r.length; o += 4) quatNormalize(r, o);
  return pose;
}

/**
 * A stack of poses for the temporaries of evaluation (a blend evaluates each input into one).
 * It grows only while the graph warms up; after the first frame of the deepest branch, acquire and
 * release never allocate.
 */
export class PosePool {
  private readonly free = new FreeList<Pose>();
  /** Free poses in a sampling kernel's memory, handed out before any other (see InstanceBatch). */
  private readonly freeInKernel = new FreeList<Pose>();
  /** Every pose the pool holds, in the order it got them (the kernel's first), for reclaim. */
  private readonly owned: Pose[];
  /** How many of `owned` it was given (in the kernel) rather than made. */
  private readonly given: number;

  /**
   * @param inKernel poses the pool starts with, in a sampling kernel's memory: acquire hands them
   *   out first, so that the temporaries of a graph's first `inKernel.length` levels are sampled in
   *   the kernel, and makes ordinary poses only past them.
   */
  constructor(readonly boneCount: number, inKernel: readonly Pose[] = []) {
    this.owned = [...inKernel];
    this.given = inKernel.length;
    for (let i = inKernel.length - 1; i >= 0; i--) this.freeInKernel.put(inKernel[i]);
  }

  acquire(): Pose {
    const pose = this.freeInKernel.take() ?? this.free.take();
    if (pose !== undefined) return pose;
    const made = new Pose(this.boneCount);
    this.owned.push(made);
    return made;
  }

  release(pose: Pose): void {
    if (pose.kernel !== null) this.freeInKernel.put(pose);
    else this.free.put(pose);
  }

  /** How many ordinary poses this pool has ever made (for tests and the bench's allocation report). */
  get size(): number {
    return this.owned.length - this.given;
  }

  /** How many of its poses are acquired and not yet released. */
  get lent(): number {
    return this.owned.length - this.free.size - this.freeInKernel.size;
  }

  /**
   * Takes back every pose lent, as if each had been released, and hands them out again in the order
   * of a new pool (the kernel's first). For an evaluation that threw part way, which released none
   * of what it held: called by the outermost evaluation on the pool, when every pose lent is its own.
   */
  reclaim(): void {
    this.free.clear();
    this.freeInKernel.clear();
    for (let i = this.owned.length - 1; i >= 0; i--) this.release(this.owned[i]);
  }
}
