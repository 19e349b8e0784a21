import type { ClipBinding } from './clip.ts';
import type { PoseStorage } from './pose.ts';
import type { Skeleton } from './skeleton.ts';
import { SAMPLING_WASM_HEX } from './wasm/sampling-bytes.ts';

/**
 * Clip sampling in WebAssembly SIMD (runtime/wasm/sampling.wat), for poses that live in the
 * kernel's memory: an InstanceBatch puts its characters' output poses there, with a copy of its
 * graph's clips, and sampleClipAt / sampleClipBlendInto then run the kernel for them instead of
 * the JavaScript loop: the same IEEE operations in the same order, two lanes at a time, so the
 * poses are bit-identical, in about half the time (docs/performance.md).
 *
 * The kernel samples a slerp clip on a key or between consecutive keys (every sample but the
 * wrap of a looping clip from its last key to its first); nlerp clips, that wrap, poses outside
 * the memory and clips the kernel has no copy of take the JavaScript path. Engines without
 * WebAssembly SIMD (or without WebAssembly) take it always: see samplingKernelAvailable.
 *
 * The memory is sized once, when the kernel is made, and never grows: growing would detach every
 * typed array viewing it.
 */
export class SamplingKernel {
  /** The memory's bytes (what the poses' arrays view). */
  readonly buffer: ArrayBuffer;
  /** Bytes of memory in all: the clips' copies, the reference pose and the poses reserved. */
  readonly byteLength: number;
  /** The skeleton it was made for: its reference pose and parents are in the memory. */
  readonly skeleton: Skeleton;
  private readonly sampleFn: SampleFunction;
  private readonly composeFn: ComposeFunction;
  /**
   * sample's numbers, in the kernel's memory: [alpha, wa, w] (the sample's place between its keys,
   * then the blend weights of the pose and of the sample; 1 and 0 when not blending). The caller
   * writes them before calling sample, which takes no number that is not an integer: a double
   * passed to a call V8 does not inline is boxed (see CONTRIBUTING.md, "Numbers in the frame loop").
   */
  readonly numbers: Float64Array;
  /** The bindings the kernel has copies of, by ClipBinding.index. */
  private readonly bindings: (ClipBinding | null)[];
  /** Address of each binding's descriptor (seven i32 addresses: see sampling.wat), by ClipBinding.index. */
  private readonly descriptors: Int32Array;
  /** The pose arrays asked for (create's `poseArrays`), zeroed, in the memory. */
  readonly poseArrays: readonly Float64Array[];

  private constructor(module: WasmModule, skeleton: Skeleton, bindings: readonly ClipBinding[], poseArrays: readonly number[]) {
    const n = skeleton.boneCount;
    // Addresses are laid out first, then the memory made at its final size and filled.
    let top = 64; // 0..63: scratch (a quaternion, then sample's numbers), so no address is 0
    const take = (bytes: number): number => {
      const at = top;
      top += Math.ceil(bytes / 16) * 16;
      return at;
    };
    const ref = skeleton.referencePose;
    const refT = take(n * 24), refR = take(n * 32), refS = take(n * 24), parents = take(n * 4);
    const slots = bindings.map((binding) => {
      const clip = binding.clip;
      const spans = clip.rotationSpans();
      return {
        binding, spans, descriptor: take(28),
        addresses: [take(n * 4), take(n * 4), take(n * 4), take(clip.translations.length * 8), take(clip.rotations.length * 8), take(clip.scales.length * 8), take(spans.length * 8)],
      };
    });
    const poses = poseArrays.map((length) => take(length * 8));
    const pages = Math.ceil(top / 65536);
    const wasm = webAssembly()!;
    const memory = new wasm.Memory({ initial: pages, maximum: pages });
    const buffer = memory.buffer;
    const f64 = (at: number, values: ArrayLike<number>): void => new Float64Array(buffer, at, values.length).set(values);
    const i32 = (at: number, values: ArrayLike<number>): void => new Int32Array(buffer, at, values.length).set(values);
    f64(refT, ref.translations); f64(refR, ref.rotations); f64(refS, ref.scales);
    i32(parents, skeleton.parents);
    const size = bindings.reduce((max, b) => Math.max(max, b.index + 1), 0);
    this.bindings = new Array<ClipBinding | null>(size).fill(null);
    this.descriptors = new Int32Array(size);
    for (const { binding, spans, descriptor, addresses } of slots) {
      const [tt, rt, st, ct, cr, cs, sp] = addresses;
      i32(descriptor, addresses);
      i32(tt, binding.translationTrack); i32(rt, binding.rotationTrack); i32(st, binding.scaleTrack);
      f64(ct, binding.clip.translations); f64(cr, binding.clip.rotations); f64(cs, binding.clip.scales); f64(sp, spans);
      this.bindings[binding.index] = binding;
      this.descriptors[binding.index] = descriptor;
    }
    const instance = new wasm.Instance(module, { m: { sin: Math.sin, memory } });
    (instance.exports.setup as (t: number, r: number, s: number, scratch: number, parents: number) => void)(refT, refR, refS, 0, parents);
    this.composeFn = (instance.exports.compose ?? (() => {})) as ComposeFunction;
    this.skeleton = skeleton;
    this.sampleFn = instance.exports.sample as SampleFunction;
    this.numbers = new Float64Array(buffer, 32, 3);
    this.buffer = buffer;
    this.byteLength = pages * 65536;
    this.poseArrays = poses.map((at, i) => new Float64Array(buffer, at, poseArrays[i]));
    kernels.set(buffer, this);
  }

  /**
   * A kernel with copies of `bindings` (those with an index: ClipBinding.index) and one
   * Float64Array of each length in `poseArrays` in its memory (poseArrays), or null where
   * WebAssembly SIMD is not available or the memory would exceed `maxBytes` (default 1 GiB).
   */
  static create(skeleton: Skeleton, bindings: readonly ClipBinding[], poseArrays: readonly number[], maxBytes = 1 << 30): SamplingKernel | null {
    const module = samplingModule();
    if (module === null) return null;
    const clipValues = bindings.reduce((sum, b) => sum + b.clip.translations.length + b.clip.rotations.length * 1.5 + b.clip.scales.length, 0);
    if ((clipValues + poseArrays.reduce((sum, length) => sum + length + 2, 0)) * 8 > maxBytes) return null;
    return new SamplingKernel(module, skeleton, bindings.filter((b) => b.index >= 0), poseArrays);
  }

  /**
   * Runs the kernel for pose arrays in this memory, with `numbers` written first (see sampleInto
   * in runtime/clip.ts for the arguments); false, having done nothing, when it has no copy of
   * `binding`'s clip.
   */
  sample(
    translations: Float64Array, rotations: Float64Array, scales: Float64Array, boneCount: number, binding: ClipBinding,
    base0: number, base1: number, blend: boolean, renormalize: boolean,
  ): boolean {
    const index = binding.index;
    if (index < 0 || index >= this.bindings.length || this.bindings[index] !== binding) return false;
    this.sampleFn(
      translations.byteOffset, rotations.byteOffset, scales.byteOffset, boneCount, this.descriptors[index], base0, base1,
      blend ? 1 : 0, renormalize ? 1 : 0,
    );
    return true;
  }

  /**
   * The component-space pose of the local pose `local` into `component` (both in this memory, of
   * this kernel's skeleton): ComponentPose.ensureAllComponent with every bone stale, bit-identical.
   */
  compose(local: PoseStorage, component: PoseStorage): void {
    this.composeCharacters(local, component, 1);
  }

  /**
   * compose for `count` characters whose poses follow one another in `local` and `component`
   * (an InstanceBatch's arrays, from their first character), eight at a time so that their chains
   * of parent-to-child latencies overlap: the same numbers as composing each alone.
   */
  composeCharacters(local: PoseStorage, component: PoseStorage, count: number): void {
    this.composeFn(
      local.translations.byteOffset, local.rotations.byteOffset, local.scales.byteOffset,
      component.translations.byteOffset, component.rotations.byteOffset, component.scales.byteOffset, this.skeleton.boneCount, count,
    );
  }
}

/**
 * The kernel whose memory `translations`, `rotations` and `scales` all view, or null: how a Pose
 * built on a kernel's arrays (an InstanceBatch's) finds it.
 */
export function kernelOf(translations: Float64Array, rotations: Float64Array, scales: Float64Array): SamplingKernel | null {
  const buffer = translations.buffer;
  if (rotations.buffer !== buffer || scales.buffer !== buffer) return null;
  return kernels.get(buffer) ?? null;
}

/** Whether this engine runs the sampling kernel (WebAssembly with SIMD); otherwise sampling stays in JavaScript. */
export function samplingKernelAvailable(): boolean {
  return samplingModule() !== null;
}

/** The module's bytes, from the hex of runtime/wasm/sampling-bytes.ts (no atob or Buffer: browser- and Node-safe). */
export function samplingWasmBytes(): Uint8Array {
  const hex = SAMPLING_WASM_HEX;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

type ComposeFunction = (lt: number, lr: number, ls: number, ct: number, cr: number, cs: number, n: number, count: number) => void;
type SampleFunction = (ot: number, or: number, os: number, n: number, clip: number, base0: number, base1: number, blend: number, renorm: number) => void;

/** The part of the WebAssembly JS API used here, declared locally so that no DOM or Node types are needed. */
interface WasmModule { readonly __module?: never }
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { readonly exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer };
}

function webAssembly(): WasmApi | undefined {
  return (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
}

const kernels = new WeakMap<ArrayBufferLike, SamplingKernel>();
/** The compiled module; undefined until first asked for, null where it cannot run. */
let compiled: WasmModule | null | undefined;

function samplingModule(): WasmModule | null {
  if (compiled !== undefined) return compiled;
  const wasm = webAssembly();
  compiled = null;
  if (wasm === undefined) return null;
  try {
    const bytes = samplingWasmBytes();
    // validate() is false where SIMD is not supported: the whole module is then unusable.
    if (wasm.validate(bytes)) compiled = new wasm.Module(bytes);
  } catch {
    compiled = null;
  }
  return compiled;
}
