import type { ClipBinding } from '../core/clip.ts';
import { registerPoseKernel, type BatchPoseArrays, type Pose, type PoseKernel, type PoseStorage } from '../core/pose.ts';
import type { Skeleton } from '../core/skeleton.ts';
import { SAMPLING_SHARED_WASM_HEX, SAMPLING_WASM_HEX } from './wasm/sampling-bytes.ts';

/**
 * Clip sampling, pose blending and the component pass in WebAssembly SIMD
 * (runtime/kernel/wasm/sampling.wat), for poses that live in the kernel's memory: an InstanceBatch (or a
 * Crowd, in a shared memory) puts its characters' poses, a few temporaries and their update-rate
 * interpolation poses there, with a copy of its graph's clips. sampleClipAt / sampleClipBlendInto,
 * poseBlendTwo and ComponentPose.recomposeAll then run the kernel for them instead of their
 * JavaScript loops: the same IEEE operations in the same order, two lanes at a time, so the poses
 * are bit-identical, in about half the time (docs/performance.md).
 *
 * The kernel samples a slerp clip on a key or between consecutive keys (every sample but the
 * wrap of a looping clip from its last key to its first, which a clip's own timing makes all but
 * unreachable); nlerp clips, poses outside the memory and clips the kernel has no copy of take the
 * JavaScript path. Engines without WebAssembly SIMD (or without WebAssembly) take it always: see
 * samplingKernelAvailable.
 *
 * The memory is sized once, when the kernel is made, and never grows: growing would detach every
 * typed array viewing it.
 *
 * With precision 'single' (KernelPrecision), the kernel samples in single precision instead: the
 * clips' keys copied as float32, four bones to a vector (sampleSingle in sampling.wat), each sample
 * rounded to float32 and written to the poses' Float64Arrays as it is (docs/performance.md,
 * "Single precision"), and composeCharacters (a batch's or a Crowd's component pass) composes in
 * float32, four characters to a vector (composeSingle). The rest (blends of N poses, layers,
 * inertialization, ComponentPose.recomposeAll for a node, every node in JavaScript) stays in double
 * precision.
 */
export class SamplingKernel implements PoseKernel {
  /** The memory's bytes (what the poses' arrays view). */
  readonly buffer: ArrayBufferLike;
  /** The WebAssembly.Memory (for createShared's, what a worker thread attaches to). */
  readonly memory: object;
  /** Bytes of memory in all: the clips' copies, the reference pose and the poses reserved. */
  readonly byteLength: number;
  /** The skeleton it was made for: its reference pose and parents are in the memory. */
  readonly skeleton: Skeleton;
  /** Whether it samples in double precision (bit-identical to JavaScript) or single (see KernelPrecision). */
  readonly precision: KernelPrecision;
  private readonly single: boolean;
  private readonly sampleSingleFn: SampleSingleFunction;
  private readonly sampleSingleBlendFn: SampleSingleFunction;
  /** Per binding (by ClipBinding.index): the address of its float32 keys (single precision), of its spans, and its track count. */
  private readonly singleKeys: Int32Array;
  private readonly singleSpans: Int32Array;
  private readonly trackCounts: Int32Array;
  /** Bytes of one key, and of one key's spans, in the float32 copies: a group of four bones is 160 and 32. */
  private readonly singleKeyBytes: number;
  private readonly singleSpanBytes: number;
  private readonly sampleFn: SampleFunction;
  /**
   * `sample` built with its blend argument as 1, and each for alpha not 0 (scripts/build-wasm.mjs):
   * loops that test no flag.
   */
  private readonly sampleBlendFn: SampleFunction;
  private readonly sampleBetweenFn: SampleFunction;
  private readonly sampleBlendBetweenFn: SampleFunction;
  private readonly composeFn: ComposeFunction;
  private readonly composeSingleFn: ComposeSingleFunction;
  /** This thread's scratch for composeSingle (precision 'single'): n bones of two groups of four characters, 160 bytes each. */
  private readonly composeScratch: number;
  private readonly blendFn: BlendFunction;
  private readonly unitScalesFn: (s: number, n: number) => number;
  private readonly copyFn: CopyFunction;
  private readonly skinFn: SkinFunction;
  /** This thread's skinning block (see skin): the root matrix, then the output matrices. */
  private readonly skinRootAt: number;
  private readonly skinOutAt: number;
  /** This thread's skinning shapes: the arrays each holds (null: free), by identity, and their addresses and slot counts. */
  private readonly skinShapes: (SkinShapeArrays | null)[];
  private readonly skinShapeAt: Int32Array;
  private readonly skinInverseAt: Int32Array;
  private readonly skinCounts: Int32Array;
  /** The output matrices of each shape's slot count, as float32: what skin copies out. */
  private readonly skinOutputs: Float32Array[];
  private readonly skinLocalFn: SkinLocalFunction;
  /** Whether this kernel's block holds skinLocal's part (a kernel made by forSkinning). */
  private readonly skinsLocal: boolean;
  /** skinLocal's world transforms (128 bytes a bone, after the root's) and its copy of the local pose, in this thread's block. */
  private readonly skinWorldsAt: number;
  private readonly skinLocalAt: Int32Array;
  private readonly skinLocalRows: readonly [Float64Array, Float64Array, Float64Array];
  /** This thread's skinLocal shapes, as skinShapes: the arrays each holds, its schedule's and inverse bind matrices' addresses, its pairs and slots. */
  private readonly localShapes: (SkinShapeArrays | null)[];
  private readonly localShapeAt: Int32Array;
  private readonly localInverseAt: Int32Array;
  private readonly localPairs: Int32Array;
  private readonly localOutputs: Float32Array[];
  private readonly skinLocalSingleFn: SkinLocalSingleFunction;
  /** This thread's skinLocalSingle shapes, as localShapes: the arrays each holds, its schedule's and inverse bind matrices' addresses, its output's. */
  private readonly singleShapes: (SkinShapeArrays | null)[];
  private readonly singleShapeAt: Int32Array;
  private readonly singleInverseAt: Int32Array;
  private readonly singleOutputs: Float32Array[];
  /** skinLocalSingle's local rotation matrices (144 bytes a group of four bones), in this thread's block. */
  private readonly singleRotationsAt: number;
  /**
   * The root matrix skin reads (16 numbers, column-major, affine), in this thread's scratch: the
   * caller writes it first.
   */
  readonly skinRoot: Float64Array;
  private readonly inertializeFn: InertializeFunction;
  private readonly scaleFn: WeightedFunction;
  private readonly accumulateFn: WeightedFunction;
  private readonly normalizeFn: NormalizeFunction;
  private readonly layerFn: WeightedFunction;
  private readonly scaleBonesFn: ScaleBonesFunction;
  private readonly accumulateBonesFn: WeightedFunction;
  private readonly lerpBonesFn: WeightedFunction;
  /** This thread's per-bone weights in the memory, one per bone: what `layer`, `scaleBones`, `accumulateBones` and `lerpBones` read, written first. */
  readonly boneWeights: Float64Array;
  /**
   * sample's numbers, in the kernel's memory: [alpha, wa, w] (the sample's place between its keys,
   * then the blend weights of the pose and of the sample; 1 and 0 when not blending). The caller
   * writes them before calling sample, which takes no number that is not an integer (see
   * CONTRIBUTING.md, "Numbers in the frame loop").
   */
  readonly numbers: Float64Array;
  /** The bindings the kernel has copies of, by ClipBinding.index. */
  private readonly bindings: (ClipBinding | null)[];
  /** Address of each binding's descriptor (seven i32 addresses: see sampling.wat), by ClipBinding.index. */
  private readonly descriptors: Int32Array;
  /** The pose arrays asked for (create's `poseArrays`), zeroed, in the memory. */
  readonly poseArrays: readonly Float64Array[];
  /** The whole memory as doubles: copyPose moves a pose's rows within it, reading no pose's arrays. */
  private readonly doubles: Float64Array;

  private constructor(module: WasmModule, memory: WasmMemory, layout: KernelLayout, skeleton: Skeleton, bindings: readonly ClipBinding[], fill: boolean, scratchSlot: number) {
    const buffer = memory.buffer;
    const f64 = (at: number, values: ArrayLike<number>): void => new Float64Array(buffer, at, values.length).set(values);
    const i32 = (at: number, values: ArrayLike<number>): void => new Int32Array(buffer, at, values.length).set(values);
    if (fill) {
      const ref = skeleton.referencePose;
      f64(layout.refT, ref.translations); f64(layout.refR, ref.rotations); f64(layout.refS, ref.scales);
      i32(layout.parents, skeleton.parents);
      for (const { binding, spans, descriptor, addresses, single } of layout.slots) {
        const [tt, rt, st, ct, cr, cs, sp] = addresses;
        i32(descriptor, addresses);
        i32(tt, binding.translationTrack); i32(rt, binding.rotationTrack); i32(st, binding.scaleTrack);
        f64(ct, binding.clip.translations); f64(cr, binding.clip.rotations); f64(cs, binding.clip.scales); f64(sp, spans);
        if (single !== null) {
          const copies = singleCopies(binding, skeleton);
          new Float32Array(buffer, single.keys, copies.keys.length).set(copies.keys);
          new Float32Array(buffer, single.spans, copies.spans.length).set(copies.spans);
        }
      }
    }
    const size = bindings.reduce((max, b) => Math.max(max, b.index + 1), 0);
    this.bindings = new Array<ClipBinding | null>(size).fill(null);
    this.descriptors = new Int32Array(size);
    this.singleKeys = new Int32Array(size);
    this.singleSpans = new Int32Array(size);
    this.trackCounts = new Int32Array(size);
    for (const { binding, descriptor, single } of layout.slots) {
      this.bindings[binding.index] = binding;
      this.descriptors[binding.index] = descriptor;
      this.trackCounts[binding.index] = binding.clip.tracks.length;
      if (single !== null) {
        this.singleKeys[binding.index] = single.keys;
        this.singleSpans[binding.index] = single.spans;
      }
    }
    this.precision = layout.precision;
    this.single = layout.precision === 'single';
    const groups = (skeleton.boneCount + 3) >> 2;
    this.singleKeyBytes = groups * SINGLE_GROUP_KEY_BYTES;
    this.singleSpanBytes = groups * SINGLE_GROUP_SPAN_BYTES;
    const scratch = scratchSlot * SCRATCH_BYTES;
    const instance = new (webAssembly()!).Instance(module, { m: { sin: Math.sin, cos: Math.cos, memory } });
    const boneWeights = layout.boneWeights + scratchSlot * skeleton.boneCount * 8;
    (instance.exports.setup as (t: number, r: number, s: number, scratch: number, parents: number, weights: number) => void)(
      layout.refT, layout.refR, layout.refS, scratch, layout.parents, boneWeights,
    );
    this.boneWeights = new Float64Array(buffer, boneWeights, skeleton.boneCount);
    this.sampleFn = instance.exports.sample as SampleFunction;
    this.sampleBlendFn = instance.exports.sampleBlend as SampleFunction;
    this.sampleBetweenFn = instance.exports.sampleBetween as SampleFunction;
    this.sampleBlendBetweenFn = instance.exports.sampleBlendBetween as SampleFunction;
    this.composeFn = instance.exports.compose as ComposeFunction;
    this.composeSingleFn = instance.exports.composeSingle as ComposeSingleFunction;
    this.composeScratch = layout.composeScratch + scratchSlot * skeleton.boneCount * COMPOSE_SCRATCH_BYTES_PER_BONE;
    this.blendFn = instance.exports.blend as BlendFunction;
    this.unitScalesFn = instance.exports.unitScales as (s: number, n: number) => number;
    this.copyFn = instance.exports.copy as CopyFunction;
    this.skinFn = instance.exports.skin as SkinFunction;
    this.skinLocalFn = instance.exports.skinLocal as SkinLocalFunction;
    this.skinsLocal = layout.skinLocal;
    const n = skeleton.boneCount, block = skinBlock(n, layout.skinLocal), skinAt = layout.skin + scratchSlot * block.bytes;
    this.skinRootAt = skinAt;
    this.skinOutAt = skinAt + block.out;
    this.skinWorldsAt = skinAt + block.worlds;
    this.skinLocalAt = Int32Array.from([0, 1, 2], (k) => skinAt + block.local + k * n * 24 + (k === 2 ? n * 8 : 0));
    const m = layout.skinLocal ? n : 0;
    this.skinLocalRows = [new Float64Array(buffer, this.skinLocalAt[0], m * 3), new Float64Array(buffer, this.skinLocalAt[1], m * 4), new Float64Array(buffer, this.skinLocalAt[2], m * 3)];
    this.skinRoot = new Float64Array(buffer, skinAt, 16);
    // The output matrices' last rows, 0 0 0 1, which skin and skinLocal leave as they are.
    const rows = new Float32Array(buffer, this.skinOutAt, (n + 1) * 16);
    for (let i = 0; i <= n; i++) {
      rows[i * 16 + 3] = 0; rows[i * 16 + 7] = 0; rows[i * 16 + 11] = 0; rows[i * 16 + 15] = 1;
      rows[i * 16 + 12] = 0; rows[i * 16 + 13] = 0; rows[i * 16 + 14] = 0;
    }
    this.skinShapes = new Array<SkinShapeArrays | null>(SKIN_SHAPES).fill(null);
    this.skinShapeAt = Int32Array.from({ length: SKIN_SHAPES }, (_, k) => skinAt + block.shapes + k * block.shapeBytes);
    this.skinInverseAt = this.skinShapeAt.map((at) => at + block.slotBytes);
    this.skinCounts = new Int32Array(SKIN_SHAPES);
    this.skinOutputs = new Array<Float32Array>(SKIN_SHAPES).fill(new Float32Array(0));
    this.localShapes = new Array<SkinShapeArrays | null>(SKIN_SHAPES).fill(null);
    this.localShapeAt = Int32Array.from({ length: SKIN_SHAPES }, (_, k) => skinAt + block.localShapes + k * block.localShapeBytes);
    this.localInverseAt = this.localShapeAt.map((at) => at + block.scheduleBytes);
    this.localPairs = new Int32Array(SKIN_SHAPES);
    this.localOutputs = new Array<Float32Array>(SKIN_SHAPES).fill(new Float32Array(0));
    this.skinLocalSingleFn = instance.exports.skinLocalSingle as SkinLocalSingleFunction;
    this.singleShapes = new Array<SkinShapeArrays | null>(SKIN_SHAPES).fill(null);
    this.singleShapeAt = Int32Array.from({ length: SKIN_SHAPES }, (_, k) => skinAt + block.singleShapes + k * block.singleShapeBytes);
    this.singleInverseAt = this.singleShapeAt.map((at) => at + block.singleScheduleBytes);
    this.singleOutputs = new Array<Float32Array>(SKIN_SHAPES).fill(new Float32Array(0));
    this.singleRotationsAt = skinAt + block.singleRotations;
    this.inertializeFn = instance.exports.inertialize as InertializeFunction;
    this.scaleFn = instance.exports.scale as WeightedFunction;
    this.accumulateFn = instance.exports.accumulate as WeightedFunction;
    this.normalizeFn = instance.exports.normalize as NormalizeFunction;
    this.layerFn = instance.exports.layer as WeightedFunction;
    this.scaleBonesFn = instance.exports.scaleBones as ScaleBonesFunction;
    this.accumulateBonesFn = instance.exports.accumulateBones as WeightedFunction;
    this.lerpBonesFn = instance.exports.lerpBones as WeightedFunction;
    this.sampleSingleFn = instance.exports.sampleSingle as SampleSingleFunction;
    this.sampleSingleBlendFn = instance.exports.sampleSingleBlend as SampleSingleFunction;
    this.numbers = new Float64Array(buffer, scratch + 32, 3);
    this.skeleton = skeleton;
    this.memory = memory;
    this.buffer = buffer;
    this.byteLength = layout.pages * 65536;
    this.poseArrays = layout.poses.map((at, i) => new Float64Array(buffer, at, layout.poseLengths[i]));
    this.doubles = new Float64Array(buffer, 0, buffer.byteLength >> 3);
    registerPoseKernel(buffer, this);
  }

  /**
   * A kernel with copies of `bindings` (those with an index: ClipBinding.index, in order, as long
   * as their copies stay within MAX_CLIP_BYTES: a larger clip set, a pose-search database say, is
   * not doubled per batch; the clips left out sample in JavaScript) and one Float64Array of each
   * length in `poseArrays` in its memory (poseArrays), or null where WebAssembly SIMD is not
   * available, the memory would exceed `maxBytes` (default 1 GiB) or the engine cannot reserve it.
   * `precision` 'single' samples in single precision (see KernelPrecision).
   */
  static create(
    skeleton: Skeleton, bindings: readonly ClipBinding[], poseArrays: readonly number[], maxBytes = 1 << 30, maxClipBytes = MAX_CLIP_BYTES,
    precision: KernelPrecision = 'double',
  ): SamplingKernel | null {
    return SamplingKernel.make(false, 1, skeleton, bindings, poseArrays, maxBytes, maxClipBytes, precision);
  }

  /**
   * create, in a shared memory that `threads` threads' kernels use together (a Crowd's: this one
   * is thread 0's; each worker thread attaches its own with attachShared): each has its own scratch,
   * the clips' copies and the poses are shared. Null where shared WebAssembly memory or SIMD is not
   * available (a page that is not cross-origin isolated), or past `maxBytes`.
   */
  static createShared(
    skeleton: Skeleton, bindings: readonly ClipBinding[], poseArrays: readonly number[], threads: number, maxBytes = 1 << 30, precision: KernelPrecision = 'double',
  ): SamplingKernel | null {
    if (typeof SharedArrayBuffer === 'undefined') return null;
    return SamplingKernel.make(true, threads, skeleton, bindings, poseArrays, maxBytes, MAX_CLIP_BYTES, precision);
  }

  /**
   * A kernel for skinLocal alone (no clips, no poses): the three.js binding's for the local poses of
   * `skeleton`'s characters made on their own. Null where WebAssembly SIMD is not available.
   */
  static forSkinning(skeleton: Skeleton): SamplingKernel | null {
    return SamplingKernel.make(false, 1, skeleton, [], [], 1 << 30, MAX_CLIP_BYTES, 'double', true);
  }

  private static make(
    shared: boolean, threads: number, skeleton: Skeleton, bindings: readonly ClipBinding[], poseArrays: readonly number[], maxBytes: number, maxClipBytes: number,
    precision: KernelPrecision, skinLocal = false,
  ): SamplingKernel | null {
    const module = samplingModule(shared);
    if (module === null) return null;
    const own = withinBudget(bindings, maxClipBytes, precision, skeleton.boneCount);
    const layout = layOut(skeleton, own, poseArrays, threads, precision, skinLocal);
    if (layout.pages * 65536 > maxBytes) return null;
    let memory: WasmMemory;
    try {
      memory = new (webAssembly()!).Memory({ initial: layout.pages, maximum: layout.pages, shared });
    } catch {
      return null; // the engine could not reserve the memory, or refuses shared memory here
    }
    return new SamplingKernel(module, memory, layout, skeleton, own, true, 0);
  }

  /**
   * Thread `thread`'s kernel on a memory made by createShared on another thread (its `memory`,
   * passed in a message), for its own copy of the same graph: the same skeleton, bindings and
   * pose arrays and precision, or null (sample in JavaScript) when they do not match what the memory holds.
   */
  static attachShared(
    memory: object, skeleton: Skeleton, bindings: readonly ClipBinding[], poseArrays: readonly number[], threads: number, thread: number,
    precision: KernelPrecision = 'double',
  ): SamplingKernel | null {
    const module = samplingModule(true);
    if (module === null) return null;
    const shared = memory as WasmMemory;
    const own = withinBudget(bindings, MAX_CLIP_BYTES, precision, skeleton.boneCount);
    const layout = layOut(skeleton, own, poseArrays, threads, precision);
    if (!(thread > 0 && thread < threads) || shared.buffer.byteLength !== layout.pages * 65536 || !holds(shared.buffer, layout, skeleton)) return null;
    return new SamplingKernel(module, shared, layout, skeleton, own, false, thread);
  }

  /**
   * Runs the kernel for pose arrays in this memory, with `numbers` written first (see sampleInto
   * in runtime/core/sampling.ts for the arguments); false, having done nothing, when it has no copy of
   * `binding`'s clip.
   */
  sample(out: Pose, binding: ClipBinding, base0: number, base1: number, blend: boolean, renormalize: boolean): boolean {
    const index = binding.index;
    if (index < 0 || index >= this.bindings.length || this.bindings[index] !== binding) return false;
    // One call site per function, each always calling the same one (which V8 can inline the call
    // into). Between keys (alpha, numbers[0], not 0: nearly every sample) the loop skips its test.
    const renorm = renormalize ? 1 : 0;
    const t = out.translationsAddress, r = out.rotationsAddress, s = out.scalesAddress, n = out.boneCount;
    if (this.single) {
      // The keys' numbers from their first track's index (base / track count), in the float32 copy.
      const tracks = this.trackCounts[index], keys = this.singleKeys[index], keyBytes = this.singleKeyBytes;
      const f0 = tracks === 0 ? 0 : (base0 / tracks) | 0, f1 = tracks === 0 ? 0 : (base1 / tracks) | 0;
      const spans = this.singleSpans[index] + f0 * this.singleSpanBytes;
      if (blend) this.sampleSingleBlendFn(t, r, s, n, keys + f0 * keyBytes, keys + f1 * keyBytes, spans, 1, renorm);
      else this.sampleSingleFn(t, r, s, n, keys + f0 * keyBytes, keys + f1 * keyBytes, spans, 0, renorm);
      return true;
    }
    const descriptor = this.descriptors[index], between = this.numbers[0] !== 0;
    if (blend) {
      if (between) this.sampleBlendBetweenFn(t, r, s, n, descriptor, base0, base1, 1, renorm);
      else this.sampleBlendFn(t, r, s, n, descriptor, base0, base1, 1, renorm);
    } else if (between) this.sampleBetweenFn(t, r, s, n, descriptor, base0, base1, 0, renorm);
    else this.sampleFn(t, r, s, n, descriptor, base0, base1, 0, renorm);
    return true;
  }

  /**
   * The component-space pose of the local pose `local` into `component` (both in this memory, of
   * this kernel's skeleton): ComponentPose.ensureAllComponent with every bone stale, bit-identical.
   */
  compose(local: PoseStorage, component: PoseStorage): void {
    this.composeFn(
      local.translations.byteOffset, local.rotations.byteOffset, local.scales.byteOffset,
      component.translations.byteOffset, component.rotations.byteOffset, component.scales.byteOffset, this.skeleton.boneCount, 1,
    );
  }

  /**
   * poseBlendTwo for poses in this memory, with numbers[1] and numbers[2] (the weights of `a` and
   * `b`) written first: the same numbers.
   */
  blend(out: Pose, a: Pose, b: Pose): void {
    this.blendFn(
      out.translationsAddress, out.rotationsAddress, out.scalesAddress, a.translationsAddress, a.rotationsAddress, a.scalesAddress,
      b.translationsAddress, b.rotationsAddress, b.scalesAddress, out.boneCount, 1,
    );
  }

  /**
   * blend for poses given by their arrays' byte addresses in this memory (Pose.translationsAddress
   * and the others), `n` bones each: for a caller that keeps the addresses of poses it blends every
   * frame (an update-rate interpolation) rather than reading three Pose objects per call. `scales`
   * 0 leaves out's scales as they are: only for a caller that knows the three poses' scales are all
   * exactly 1 and the weights are 1 - w (rounded) and w in [0, 1], which blend every scale to 1
   * exactly (see unitScales); 1 blends them.
   */
  blendAt(ot: number, or: number, os: number, at: number, ar: number, as: number, bt: number, br: number, bs: number, n: number, scales: number): void {
    this.blendFn(ot, or, os, at, ar, as, bt, br, bs, n, scales);
  }

  /**
   * poseScaleInto, poseAccumulate and poseNormalizeRotations (a crossfade of N poses: BlendList,
   * StateMachine transitions, blend spaces) for poses in this memory, with numbers[1] (the weight)
   * written first: the same numbers.
   */
  scale(out: Pose, source: Pose): void {
    this.scaleFn(out.translationsAddress, out.rotationsAddress, out.scalesAddress, source.translationsAddress, source.rotationsAddress, source.scalesAddress, out.boneCount);
  }

  accumulate(out: Pose, source: Pose): void {
    this.accumulateFn(out.translationsAddress, out.rotationsAddress, out.scalesAddress, source.translationsAddress, source.rotationsAddress, source.scalesAddress, out.boneCount);
  }

  normalize(pose: Pose): void {
    this.normalizeFn(pose.rotationsAddress, pose.boneCount);
  }

  /**
   * LayeredBlendPerBone's local blend of `layer` over `out` (poses of this kernel's skeleton in this
   * memory), each bone by its weight in boneWeights, written first (0: left as it is): the same numbers.
   */
  layer(out: Pose, layer: Pose): void {
    this.layerFn(out.translationsAddress, out.rotationsAddress, out.scalesAddress, layer.translationsAddress, layer.rotationsAddress, layer.scalesAddress, out.boneCount);
  }

  /**
   * evaluatePerBoneInputs (runtime/jobs/crossfade.ts: a crossfade following a blend profile) for poses of
   * this kernel's skeleton in this memory, each bone by its weight in boneWeights, written first:
   * scaleBones for the first input, accumulateBones for each further one; the same numbers.
   */
  scaleBones(out: Pose): void {
    this.scaleBonesFn(out.translationsAddress, out.rotationsAddress, out.scalesAddress, out.boneCount);
  }

  accumulateBones(out: Pose, source: Pose): void {
    this.accumulateBonesFn(out.translationsAddress, out.rotationsAddress, out.scalesAddress, source.translationsAddress, source.rotationsAddress, source.scalesAddress, out.boneCount);
  }

  /**
   * Slot's filtered blend of `pose` into `out` (poses of this kernel's skeleton in this memory), each
   * bone by its weight in boneWeights, written first (a negative weight: left as it is): the same numbers.
   */
  lerpBones(out: Pose, pose: Pose): void {
    this.lerpBonesFn(out.translationsAddress, out.rotationsAddress, out.scalesAddress, pose.translationsAddress, pose.rotationsAddress, pose.scalesAddress, out.boneCount);
  }

  /**
   * PoseInertializer.apply for a pose in this memory, with the inertializer's numbers at byte
   * address `block` of this memory (its powers of the elapsed time written first): the same numbers.
   */
  inertialize(pose: Pose, block: number): void {
    this.inertializeFn(pose.translationsAddress, pose.rotationsAddress, pose.scalesAddress, pose.boneCount, block);
  }

  /**
   * out = source, both poses in this memory and of the same bones (the caller checks): poseCopy by
   * the poses' addresses, so that a crowd's history copy reads no typed-array object per pose.
   */
  copyPose(out: Pose, source: Pose): void {
    const d = this.doubles, n = source.boneCount;
    const t = source.translationsAddress >> 3, r = source.rotationsAddress >> 3, s = source.scalesAddress >> 3;
    d.copyWithin(out.translationsAddress >> 3, t, t + n * 3);
    d.copyWithin(out.rotationsAddress >> 3, r, r + n * 4);
    d.copyWithin(out.scalesAddress >> 3, s, s + n * 3);
  }

  /**
   * copyPose by the arrays' byte addresses (out's, then the source's), `n` bones, the scales left
   * as they are unless `scales` is 1 (for a caller that knows both poses' are the same: all 1).
   */
  copyAt(ot: number, or: number, os: number, st: number, sr: number, ss: number, n: number, scales: number): void {
    this.copyFn(ot, or, os, st, sr, ss, n, scales);
  }

  /**
   * Whether the `n` bones' scales at byte address `s` of this memory are all exactly 1 (unitScales
   * in runtime/graph/interpolation.ts, two values at a time): 1 or 0.
   */
  unitScalesAt(s: number, n: number): number {
    return this.unitScalesFn(s, n);
  }

  /**
   * A shape for skin: `slots` (per slot, its graph bone, each of this kernel's skeleton's bones in
   * one slot at most) and `inverses` (per slot, its inverse bind matrix: 16 numbers, column-major,
   * affine), copied into this thread's memory once; the same arrays (by identity) give the same
   * shape. -1 when there are more slots than the skeleton has bones, or SKIN_SHAPES other shapes
   * are held already (the caller then skins in JavaScript).
   */
  skinShape(slots: Int32Array, inverses: Float64Array): number {
    const shapes = this.skinShapes, n = this.skeleton.boneCount, count = slots.length;
    const held = shapeHeld(shapes, slots, inverses);
    if (held >= 0) return held;
    const free = shapes.indexOf(null);
    if (free < 0 || count === 0 || count > n || inverses.length !== count * 16) return -1;
    for (let i = 0; i < count; i++) if (!(slots[i] >= 0 && slots[i] < n)) return -1;
    const buffer = this.buffer, at = this.skinShapeAt[free], pairs = (count + 1) >> 1;
    // An odd count's last lane repeats its last slot (see skin in sampling.wat).
    const table = new Int32Array(buffer, at, pairs * 2), inv = new Float64Array(buffer, this.skinInverseAt[free], pairs * 24);
    for (let i = 0; i < pairs * 2; i++) {
      const from = Math.min(i, count - 1);
      table[i] = slots[from];
      for (let e = 0; e < 12; e++) inv[(i >> 1) * 24 + e * 2 + (i & 1)] = inverses[from * 16 + SKIN_ENTRIES[e]];
    }
    shapes[free] = { bones: slots, inverses };
    this.skinCounts[free] = count;
    this.skinOutputs[free] = new Float32Array(buffer, this.skinOutAt, count * 16);
    return free;
  }

  /**
   * out[slot] = skinRoot × the component transform of shape's graph bone in slot (the component
   * pose whose arrays are at byte addresses t, r, s of this memory) × its inverse bind matrix,
   * rounded to float32: for a renderer's skinning matrices (three.js's Skeleton.boneMatrices),
   * with the operations of its JavaScript twin (skinAffine in three/binding.ts), so the same
   * numbers. Two slots to a vector, into this thread's scratch, then copied into `out` (from its start).
   */
  skin(shape: number, t: number, r: number, s: number, out: Float32Array): void {
    this.skinFn(t, r, s, this.skinShapeAt[shape], this.skinInverseAt[shape], this.skinRootAt, this.skinOutAt, this.skinCounts[shape]);
    out.set(this.skinOutputs[shape]);
  }

  /**
   * A shape for skinLocal: `slotOf` (per bone of this kernel's skeleton, its slot or -1; each slot
   * one bone's) and `inverses` (per slot, its inverse bind matrix: 16 numbers, column-major, affine),
   * copied into this thread's memory once with a schedule of the bones two by two, parents in earlier
   * pairs; the same arrays (by identity) give the same shape. -1 when `slotOf` is not one slot per
   * bone or SKIN_SHAPES other shapes are held already (the caller then skins in JavaScript).
   */
  skinLocalShape(slotOf: Int32Array, inverses: Float64Array): number {
    return this.holdLocalShape(this.localShapes, slotOf, inverses, (free) => {
      const n = this.skeleton.boneCount, count = inverses.length >> 4, parents = this.skeleton.parents;
      // The bones two by two, in the order they become ready (their parent in an earlier pair), a lone
      // one paired with itself: 12 pairs for the 22-bone biped, where pairs within a depth would be 14.
      const queue: number[] = [], pairs: [number, number][] = [];
      for (let b = 0; b < n; b++) if (parents[b] < 0) queue.push(b);
      for (let next = 0; next < queue.length;) {
        const a = queue[next++], b = next < queue.length ? queue[next++] : a;
        pairs.push([a, b]);
        for (let c = 0; c < n; c++) if (parents[c] === a || (b !== a && parents[c] === b)) queue.push(c);
      }
      const buffer = this.buffer, schedule = new Int32Array(buffer, this.localShapeAt[free], pairs.length * 6);
      const inv = new Float64Array(buffer, this.localInverseAt[free], pairs.length * 24);
      pairs.forEach((pair, j) => {
        for (let lane = 0; lane < 2; lane++) {
          const b = pair[lane], slot = slotOf[b];
          schedule[j * 6 + lane] = (b + 1) * 128;
          schedule[j * 6 + 2 + lane] = (parents[b] + 1) * 128;
          schedule[j * 6 + 4 + lane] = (slot >= 0 ? slot : n) * 64; // a bone with no slot: the spare matrix past them
          for (let e = 0; e < 12; e++) inv[j * 24 + e * 2 + lane] = slot >= 0 ? inverses[slot * 16 + SKIN_ENTRIES[e]] : 0;
        }
      });
      this.localPairs[free] = pairs.length;
      this.localOutputs[free] = new Float32Array(buffer, this.skinOutAt, count * 16);
    });
  }

  /**
   * The shape of `slotOf` and `inverses` among `shapes` (skinLocal's or skinLocalSingle's): the one
   * held for the same arrays, else a free one that `build` fills, else -1 (no local skinning in this
   * kernel, every shape taken, or slots that are not one per bone: slotsValid).
   */
  private holdLocalShape(shapes: (SkinShapeArrays | null)[], slotOf: Int32Array, inverses: Float64Array, build: (free: number) => void): number {
    const held = shapeHeld(shapes, slotOf, inverses);
    if (held >= 0) return held;
    const free = shapes.indexOf(null);
    if (!this.skinsLocal || free < 0 || !slotsValid(slotOf, this.skeleton.boneCount, inverses)) return -1;
    build(free);
    shapes[free] = { bones: slotOf, inverses };
    return free;
  }

  /**
   * out[slot] = skinRoot × the world transform of shape's bone in slot, composed down the hierarchy
   * from the local pose `local` (of this kernel's skeleton, anywhere: copied into this thread's
   * block first) × its inverse bind matrix, rounded to float32, with the operations of its
   * JavaScript twin (skinFromLocal in three/binding.ts), so the same numbers: two bones
   * to a vector, into this thread's scratch, then copied into `out` (from its start).
   */
  skinLocal(shape: number, local: PoseStorage, out: Float32Array): void {
    const at = this.skinLocalAt;
    this.copyLocal(local);
    this.skinLocalFn(at[0], at[1], at[2], this.localShapeAt[shape], this.localInverseAt[shape], this.skinRootAt, this.skinWorldsAt, this.skinOutAt, this.localPairs[shape]);
    out.set(this.localOutputs[shape]);
  }

  /** The local pose into this thread's block, where skinLocal and skinLocalSingle read it. */
  private copyLocal(local: PoseStorage): void {
    const rows = this.skinLocalRows;
    rows[0].set(local.translations);
    rows[1].set(local.rotations);
    rows[2].set(local.scales);
  }

  /**
   * A shape for skinLocalSingle: as skinLocalShape (the same arguments and refusals), its inverse
   * bind matrices rounded to float32 once, here, each number splatted across a vector, in the
   * skeleton's bone order.
   */
  skinLocalSingleShape(slotOf: Int32Array, inverses: Float64Array): number {
    return this.holdLocalShape(this.singleShapes, slotOf, inverses, (free) => {
      const n = this.skeleton.boneCount, count = inverses.length >> 4, parents = this.skeleton.parents;
      const buffer = this.buffer, schedule = new Int32Array(buffer, this.singleShapeAt[free], n * 2);
      const inv = new Float32Array(buffer, this.singleInverseAt[free], n * 48);
      for (let b = 0; b < n; b++) {
        const slot = slotOf[b];
        schedule[b * 2] = (parents[b] + 1) * 80;
        schedule[b * 2 + 1] = (slot >= 0 ? slot : n) * 64; // a bone with no slot: the spare matrix past them
        for (let e = 0; e < 12; e++) inv.fill(slot >= 0 ? inverses[slot * 16 + SKIN_ENTRIES[e]] : 0, b * 48 + e * 4, b * 48 + e * 4 + 4);
      }
      this.singleOutputs[free] = new Float32Array(buffer, this.skinOutAt, count * 16);
    });
  }

  /**
   * skinLocal in single precision (the three.js binding's precision 'single'): the same composition
   * in float32, one bone at a time, a matrix's columns as vectors (skinLocalSingle in sampling.wat),
   * from the local pose rounded to float32, with the inverse bind matrices of `shape`
   * (skinLocalSingleShape). Within a float32's rounding of skinLocal, the same numbers on every run.
   */
  skinLocalSingle(shape: number, local: PoseStorage, out: Float32Array): void {
    const at = this.skinLocalAt;
    this.copyLocal(local);
    this.skinLocalSingleFn(at[0], at[1], at[2], this.singleShapeAt[shape], this.singleInverseAt[shape], this.skinRootAt, this.skinWorldsAt, this.skinOutAt, this.skeleton.boneCount, this.singleRotationsAt);
    out.set(this.singleOutputs[shape]);
  }

  /**
   * compose for characters first .. first + count - 1 of `arrays` (an InstanceBatch's or a Crowd's,
   * in this memory), two to a vector and eight at a time so that their chains of parent-to-child
   * latencies overlap: the same numbers as composing each alone. With precision 'single',
   * composeSingle: the same steps in float32, four characters to a vector, each number of the
   * component poses a float32.
   */
  composeCharacters(arrays: BatchPoseArrays, first: number, count: number): void {
    const n = this.skeleton.boneCount, o3 = first * n * 24, o4 = first * n * 32;
    if (this.single) {
      this.composeSingleFn(
        arrays.translations.byteOffset + o3, arrays.rotations.byteOffset + o4, arrays.scales.byteOffset + o3,
        arrays.componentTranslations.byteOffset + o3, arrays.componentRotations.byteOffset + o4, arrays.componentScales.byteOffset + o3, n, count,
        this.composeScratch,
      );
      return;
    }
    this.composeFn(
      arrays.translations.byteOffset + o3, arrays.rotations.byteOffset + o4, arrays.scales.byteOffset + o3,
      arrays.componentTranslations.byteOffset + o3, arrays.componentRotations.byteOffset + o4, arrays.componentScales.byteOffset + o3, n, count,
    );
  }
}

/** Whether this engine runs the sampling kernel (WebAssembly with SIMD); otherwise sampling stays in JavaScript. */
export function samplingKernelAvailable(): boolean {
  return samplingModule(false) !== null;
}

/** A module's bytes from its hex in runtime/kernel/wasm/sampling-bytes.ts (no atob or Buffer: browser- and Node-safe). */
function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

type BlendFunction = (ot: number, or: number, os: number, at: number, ar: number, as: number, bt: number, br: number, bs: number, n: number, scales: number) => void;
type NormalizeFunction = (or: number, n: number) => void;
type CopyFunction = (ot: number, or: number, os: number, st: number, sr: number, ss: number, n: number, scales: number) => void;
type ScaleBonesFunction = (ot: number, or: number, os: number, n: number) => void;
type WeightedFunction = (ot: number, or: number, os: number, st: number, sr: number, ss: number, n: number) => void;
type InertializeFunction = (pt: number, pr: number, ps: number, n: number, block: number) => void;
type SkinFunction = (ct: number, cr: number, cs: number, slots: number, inv: number, root: number, out: number, count: number) => void;
type SkinLocalSingleFunction = (lt: number, lr: number, ls: number, sched: number, inv: number, root: number, worlds: number, out: number, n: number, rot: number) => void;
type SkinLocalFunction = (lt: number, lr: number, ls: number, sched: number, inv: number, root: number, worlds: number, out: number, pairs: number) => void;
type ComposeFunction = (lt: number, lr: number, ls: number, ct: number, cr: number, cs: number, n: number, count: number) => void;
type ComposeSingleFunction = (lt: number, lr: number, ls: number, ct: number, cr: number, cs: number, n: number, count: number, scratch: number) => void;
type SampleFunction = (ot: number, or: number, os: number, n: number, clip: number, base0: number, base1: number, blend: number, renorm: number) => void;
type SampleSingleFunction = (ot: number, or: number, os: number, n: number, ka: number, kb: number, spans: number, blend: number, renorm: number) => void;

/**
 * What a sampling kernel samples in: 'double' (the default) repeats JavaScript's arithmetic bit for
 * bit; 'single' works in float32, four bones to a SIMD vector, on float32 copies of the keys, for
 * batches and crowds that trade exactness for time (docs/performance.md, "Single precision"). Both
 * give the same numbers on every run and thread.
 */
export type KernelPrecision = 'double' | 'single';

/** Bytes per key of a group of four bones in the float32 copies: ten float32 vectors (translation x, y, z, rotation x, y, z, w, scale x, y, z). */
const SINGLE_GROUP_KEY_BYTES = 160;
/** Bytes per key of a group's spans in the float32 copies: the angles, then the signed 1 / sin(angle). */
const SINGLE_GROUP_SPAN_BYTES = 32;

/**
 * A binding's keys as sampleSingle reads them: per key, per group of four bones, its ten vectors
 * (a bone without a track, and the lanes past the last bone, hold the reference transform or the
 * identity), and per key its spans (Clip.rotationSpans per bone; angle 0 and k = 1 for a bone
 * without a rotation track and for the last key, which only a sample on that key reads, with
 * alpha 0, where the linear fallback's weights are (1, 0)).
 */
function singleCopies(binding: ClipBinding, skeleton: Skeleton): { keys: Float32Array; spans: Float32Array } {
  const clip = binding.clip, n = skeleton.boneCount, groups = (n + 3) >> 2, frames = clip.frameCount, tracks = clip.tracks.length;
  const keyFloats = groups * (SINGLE_GROUP_KEY_BYTES / 4), spanFloats = groups * (SINGLE_GROUP_SPAN_BYTES / 4);
  const keys = new Float32Array(frames * keyFloats), spans = new Float32Array(frames * spanFloats);
  const ref = skeleton.referencePose;
  const slerpSpans = clip.interpolation === 'slerp' ? clip.rotationSpans() : null;
  for (let f = 0; f < frames; f++) {
    for (let bone = 0; bone < groups * 4; bone++) {
      const at = f * keyFloats + (bone >> 2) * 40 + (bone & 3), sp = f * spanFloats + (bone >> 2) * 8 + (bone & 3);
      const tt = bone < n ? binding.translationTrack[bone] : -1, rt = bone < n ? binding.rotationTrack[bone] : -1, st = bone < n ? binding.scaleTrack[bone] : -1;
      for (let c = 0; c < 3; c++) {
        keys[at + c * 4] = tt >= 0 ? clip.translations[(f * tracks + tt) * 3 + c] : bone < n ? ref.translations[bone * 3 + c] : 0;
        keys[at + (7 + c) * 4] = st >= 0 ? clip.scales[(f * tracks + st) * 3 + c] : bone < n ? ref.scales[bone * 3 + c] : 1;
      }
      for (let c = 0; c < 4; c++) keys[at + (3 + c) * 4] = rt >= 0 ? clip.rotations[(f * tracks + rt) * 4 + c] : bone < n ? ref.rotations[bone * 4 + c] : c === 3 ? 1 : 0;
      const p = (f * tracks + rt) * 2;
      const last = f + 1 >= frames;
      spans[sp] = rt >= 0 && !last && slerpSpans !== null ? slerpSpans[p] : 0;
      spans[sp + 4] = rt >= 0 && !last && slerpSpans !== null ? slerpSpans[p + 1] : 1;
    }
  }
  return { keys, spans };
}

/** The part of the WebAssembly JS API used here, declared locally so that no DOM or Node types are needed. */
interface WasmModule { readonly __module?: never }
interface WasmMemory { readonly buffer: ArrayBufferLike }
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { readonly exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number; shared?: boolean }) => WasmMemory;
}

function webAssembly(): WasmApi | undefined {
  return (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
}

/** The compiled modules (ordinary and shared memory); undefined until first asked for, null where they cannot run. */
const compiled: [WasmModule | null | undefined, WasmModule | null | undefined] = [undefined, undefined];

function samplingModule(shared: boolean): WasmModule | null {
  const which = shared ? 1 : 0;
  const known = compiled[which];
  if (known !== undefined) return known;
  compiled[which] = null;
  const wasm = webAssembly();
  if (wasm === undefined) return null;
  try {
    const bytes = hexBytes(shared ? SAMPLING_SHARED_WASM_HEX : SAMPLING_WASM_HEX);
    // validate() is false where SIMD (or, shared, threads) is not supported: the module is then unusable.
    if (wasm.validate(bytes)) compiled[which] = new wasm.Module(bytes);
  } catch {
    compiled[which] = null;
  }
  return compiled[which];
}

/** The most bytes of clip copies a kernel's memory holds (256 MiB). */
const MAX_CLIP_BYTES = 1 << 28;

/**
 * The bindings with an index, in order, whose copies (keys, track maps, spans, and with precision
 * 'single' the float32 copies) fit in `budget` bytes together.
 */
function withinBudget(bindings: readonly ClipBinding[], budget: number, precision: KernelPrecision, boneCount: number): ClipBinding[] {
  const chosen: ClipBinding[] = [];
  let bytes = 0;
  const singleBytes = precision === 'single' ? ((boneCount + 3) >> 2) * (SINGLE_GROUP_KEY_BYTES + SINGLE_GROUP_SPAN_BYTES) : 0;
  for (const b of bindings) {
    if (b.index < 0) continue;
    const clip = b.clip;
    const size = (clip.translations.length + clip.rotations.length * 1.5 + clip.scales.length) * 8 + b.translationTrack.length * 12 + clip.frameCount * singleBytes;
    if (bytes + size > budget) continue;
    bytes += size;
    chosen.push(b);
  }
  return chosen;
}

/** Bytes a bone of composeSingle's scratch: two groups of four characters' component transforms (ten float32 vectors each). */
const COMPOSE_SCRATCH_BYTES_PER_BONE = 320;

/**
 * Bytes per thread of scratch at the memory's start: a quaternion, then sample's numbers, then from
 * byte 64 sampleSingle's last group of bones (four bones' translations, rotations and scales).
 */
const SCRATCH_BYTES = 384;

/** How many skinning shapes (models whose inverse bind matrices differ) each thread's skin keeps. */
const SKIN_SHAPES = 4;

/** The arrays a skin shape was made from (a binding's slots or slotOf, and its inverse bind matrices), by identity. */
interface SkinShapeArrays { readonly bones: Int32Array; readonly inverses: Float64Array }

/** The index of the shape made from these very arrays, or -1. */
function shapeHeld(shapes: readonly (SkinShapeArrays | null)[], bones: Int32Array, inverses: Float64Array): number {
  for (let k = 0; k < shapes.length; k++) {
    const shape = shapes[k];
    if (shape !== null && shape.bones === bones && shape.inverses === inverses) return k;
  }
  return -1;
}
/**
 * Whether `slotOf` gives each of n bones a slot of `inverses` (16 numbers a slot) or -1, no slot to
 * two bones, with no more slots than bones: what skinLocalShape and skinLocalSingleShape take.
 */
function slotsValid(slotOf: Int32Array, n: number, inverses: Float64Array): boolean {
  const count = inverses.length >> 4;
  if (slotOf.length !== n || count > n || inverses.length !== count * 16) return false;
  const seen = new Uint8Array(count);
  for (let b = 0; b < n; b++) {
    const slot = slotOf[b];
    if (slot < -1 || slot >= count || (slot >= 0 && seen[slot]++ > 0)) return false;
  }
  return true;
}

/** Bytes of skin's root matrix (16 f64). */
const SKIN_ROOT_BYTES = 128;
/** Which of an affine matrix's 16 numbers (column-major) skin reads: the upper three rows. */
const SKIN_ENTRIES = [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14];
/** Pairs of slots skin's blocks hold for n bones: the most slots a shape has is n. */
function skinPairs(n: number): number {
  return (n + 1) >> 1;
}
/**
 * A thread's block for skin and skinLocal, for n bones (byte offsets in it, all 16-byte aligned): the
 * root matrix, the output (64 bytes a slot: n slots, a spare, whose last rows stay 0 0 0 1),
 * skinLocal's world transforms (128 bytes a bone and the root's) and copy of the local pose, then
 * SKIN_SHAPES shapes of each kind; without `local` (every kernel but forSkinning's), nothing of skinLocal's.
 */
function skinBlock(n: number, local: boolean): {
  out: number; worlds: number; local: number; shapes: number; slotBytes: number; shapeBytes: number;
  localShapes: number; scheduleBytes: number; localShapeBytes: number;
  singleShapes: number; singleScheduleBytes: number; singleShapeBytes: number; singleRotations: number; bytes: number;
} {
  const align = (bytes: number): number => Math.ceil(bytes / 16) * 16;
  const m = local ? n : 0;
  const out = SKIN_ROOT_BYTES, worlds = out + (n + 1) * 64, rows = worlds + (m + 1) * 128, shapes = rows + align(m * 80);
  const slotBytes = align(skinPairs(n) * 8), shapeBytes = slotBytes + skinPairs(n) * 192;
  const localShapes = shapes + SKIN_SHAPES * shapeBytes, scheduleBytes = align(m * 24), localShapeBytes = scheduleBytes + m * 192;
  const singleShapes = localShapes + SKIN_SHAPES * localShapeBytes, singleScheduleBytes = align(m * 8), singleShapeBytes = singleScheduleBytes + m * 192;
  const singleRotations = singleShapes + SKIN_SHAPES * singleShapeBytes;
  return {
    out, worlds, local: rows, shapes, slotBytes, shapeBytes, localShapes, scheduleBytes, localShapeBytes,
    singleShapes, singleScheduleBytes, singleShapeBytes, singleRotations, bytes: singleRotations + ((m + 3) >> 2) * 144,
  };
}

/** Where a kernel's memory keeps what (byte addresses), worked out the same way on every thread. */
interface KernelLayout {
  refT: number; refR: number; refS: number; parents: number;
  /** Each thread's per-bone weights (n f64 a thread, thread order). */
  boneWeights: number;
  /** Each thread's composeSingle scratch (COMPOSE_SCRATCH_BYTES_PER_BONE a bone, thread order), with precision 'single'; else 0. */
  composeScratch: number;
  /** Each thread's skin block (skinBlock(n, skinLocal).bytes a thread, thread order). */
  skin: number;
  /** Whether the skin blocks hold skinLocal's part (forSkinning). */
  skinLocal: boolean;
  slots: { binding: ClipBinding; spans: Float64Array; descriptor: number; addresses: number[]; single: { keys: number; spans: number } | null }[];
  poses: number[];
  precision: KernelPrecision;
  poseLengths: readonly number[];
  pages: number;
}

function layOut(
  skeleton: Skeleton, bindings: readonly ClipBinding[], poseLengths: readonly number[], threads: number, precision: KernelPrecision, skinLocal = false,
): KernelLayout {
  const n = skeleton.boneCount;
  // Scratch first (so no address is 0), 16-byte aligned blocks after it.
  let top = Math.max(1, threads) * SCRATCH_BYTES;
  const take = (bytes: number): number => {
    const at = top;
    top += Math.ceil(bytes / 16) * 16;
    return at;
  };
  const refT = take(n * 24), refR = take(n * 32), refS = take(n * 24), parents = take(n * 4), boneWeights = take(Math.max(1, threads) * n * 8);
  const composeScratch = precision === 'single' ? take(Math.max(1, threads) * n * COMPOSE_SCRATCH_BYTES_PER_BONE) : 0;
  const skin = take(Math.max(1, threads) * skinBlock(n, skinLocal).bytes);
  const slots = bindings.map((binding) => {
    const clip = binding.clip;
    const spans = clip.rotationSpans();
    const groups = (n + 3) >> 2;
    return {
      binding, spans, descriptor: take(28),
      addresses: [take(n * 4), take(n * 4), take(n * 4), take(clip.translations.length * 8), take(clip.rotations.length * 8), take(clip.scales.length * 8), take(spans.length * 8)],
      single: precision === 'single' ? { keys: take(clip.frameCount * groups * SINGLE_GROUP_KEY_BYTES), spans: take(clip.frameCount * groups * SINGLE_GROUP_SPAN_BYTES) } : null,
    };
  });
  const poses = poseLengths.map((length) => take(length * 8));
  return { refT, refR, refS, parents, boneWeights, composeScratch, skin, skinLocal, slots, poses, poseLengths, precision, pages: Math.ceil(top / 65536) };
}

/** Whether `buffer` holds what `layout` puts there for this skeleton and these bindings (another thread's copy of the graph). */
function holds(buffer: ArrayBufferLike, layout: KernelLayout, skeleton: Skeleton): boolean {
  const same = (at: number, values: ArrayLike<number>, f64: boolean, f32 = false): boolean => {
    const stored = f32 ? new Float32Array(buffer, at, values.length) : f64 ? new Float64Array(buffer, at, values.length) : new Int32Array(buffer, at, values.length);
    for (let i = 0; i < values.length; i++) if (!Object.is(stored[i], values[i])) return false;
    return true;
  };
  const ref = skeleton.referencePose;
  if (!same(layout.refT, ref.translations, true) || !same(layout.refR, ref.rotations, true) || !same(layout.refS, ref.scales, true) || !same(layout.parents, skeleton.parents, false)) return false;
  return layout.slots.every(({ binding, spans, descriptor, addresses, single }) => {
    const [tt, rt, st, ct, cr, cs, sp] = addresses;
    if (single !== null) {
      const copies = singleCopies(binding, skeleton);
      if (!same(single.keys, copies.keys, true, true) || !same(single.spans, copies.spans, true, true)) return false;
    }
    return same(descriptor, addresses, false) && same(tt, binding.translationTrack, false) && same(rt, binding.rotationTrack, false)
      && same(st, binding.scaleTrack, false) && same(ct, binding.clip.translations, true) && same(cr, binding.clip.rotations, true)
      && same(cs, binding.clip.scales, true) && same(sp, spans, true);
  });
}
