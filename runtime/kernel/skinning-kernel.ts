import { SKINNING_WASM_HEX } from './wasm/skinning-bytes.ts';

/**
 * animgraph/three's skinning pass in WebAssembly SIMD (runtime/kernel/wasm/skinning.wat): root world
 * matrix × component transform × inverse bind matrix, rounded once to single precision, for every
 * slot of a Skeleton, two f64 lanes at a time, with the operations of the binding's JavaScript loop
 * in the same order, so both write the same floats. One kernel per thread (skinningKernel()). Every
 * binding copies its pose and root matrix into one scratch block and skins into another, then copies
 * the output out: one block for all, which stays in the cache, where a block per character would add
 * its size to what a crowd's frame moves through memory. Each shares one copy of its slot table and
 * inverse bind matrices with every binding of the same model (share).
 *
 * The memory grows when a block does not fit; growing detaches every typed array that viewed it, so
 * `generation` counts the growths and a holder of views makes them anew when it has changed.
 */
export class SkinningKernel {
  /** The memory's bytes as doubles, floats and ints (made anew at each growth). */
  f64: Float64Array;
  f32: Float32Array;
  i32: Int32Array;
  /** How many times the memory has grown: views made before a growth are detached. */
  generation = 0;
  private readonly memory: WasmMemory;
  private readonly skinFn: SkinFunction;
  /** The scratch block (see reserveScratch): where a binding copies its pose and root matrix, and the output, with their sizes in bytes. */
  scratchAt = 0;
  outAt = 0;
  private scratchBytes = 0;
  private outBytes = 0;
  /** The first byte no block has used yet. */
  private top = 16;
  /** Freed blocks by size in bytes, for the next alloc of that size (a crowd's bindings are all one size). */
  private readonly freed = new Map<number, number[]>();
  /** Blocks holding a copy of an array (share), with how many holders each has. */
  private readonly copies = new Map<object, { at: number; bytes: number; holders: number }>();

  constructor(module: WasmModule) {
    const wasm = webAssembly()!;
    this.memory = new wasm.Memory({ initial: 1 });
    const instance = new wasm.Instance(module, { m: { memory: this.memory } });
    this.skinFn = instance.exports.skin as SkinFunction;
    const buffer = this.memory.buffer;
    this.f64 = new Float64Array(buffer);
    this.f32 = new Float32Array(buffer);
    this.i32 = new Int32Array(buffer);
  }

  /** A block of `bytes` (a multiple of 16 is used), 16-byte aligned; growing the memory if need be. */
  alloc(bytes: number): number {
    const size = Math.ceil(bytes / 16) * 16;
    const reuse = this.freed.get(size);
    if (reuse !== undefined && reuse.length > 0) return reuse.pop()!;
    const at = this.top;
    this.top += size;
    const have = this.memory.buffer.byteLength;
    if (this.top > have) {
      // At least double, so a crowd's bindings grow the memory (and remake their views) a few times, not once each.
      this.memory.grow(Math.max(Math.ceil((this.top - have) / 65536), have / 65536));
      const buffer = this.memory.buffer;
      this.f64 = new Float64Array(buffer);
      this.f32 = new Float32Array(buffer);
      this.i32 = new Int32Array(buffer);
      this.generation++;
    }
    return at;
  }

  /** Makes the scratch blocks at least `bytes` (input) and `outBytes` (output) long: at binding, never per frame. */
  reserveScratch(bytes: number, outBytes: number): void {
    if (bytes > this.scratchBytes) {
      if (this.scratchBytes > 0) this.free(this.scratchAt, this.scratchBytes);
      this.scratchBytes = Math.ceil(bytes / 16) * 16;
      this.scratchAt = this.alloc(this.scratchBytes);
    }
    if (outBytes > this.outBytes) {
      if (this.outBytes > 0) this.free(this.outAt, this.outBytes);
      this.outBytes = Math.ceil(outBytes / 16) * 16;
      this.outAt = this.alloc(this.outBytes);
      // Views of the output (a binding's) are made anew, as after a growth.
      this.generation++;
    }
  }

  /** Gives back a block alloc returned, of the same `bytes`. */
  free(at: number, bytes: number): void {
    const size = Math.ceil(bytes / 16) * 16;
    let list = this.freed.get(size);
    if (list === undefined) this.freed.set(size, (list = []));
    list.push(at);
  }

  /**
   * The address of a copy of `array` in the memory, one for every holder of the same array object
   * (the binding's tables, themselves shared between the bindings of one model); release it with unshare.
   */
  share(array: Float64Array | Int32Array): number {
    const known = this.copies.get(array);
    if (known !== undefined) {
      known.holders++;
      return known.at;
    }
    const at = this.alloc(array.byteLength);
    if (array instanceof Float64Array) this.f64.set(array, at >> 3);
    else this.i32.set(array, at >> 2);
    this.copies.set(array, { at, bytes: array.byteLength, holders: 1 });
    return at;
  }

  /** One holder of share(array)'s copy is done with it: freed when none is left. */
  unshare(array: Float64Array | Int32Array): void {
    const known = this.copies.get(array);
    if (known === undefined) return;
    if (--known.holders > 0) return;
    this.copies.delete(array);
    this.free(known.at, known.bytes);
  }

  /**
   * Writes the skinning matrices of `n` slots at `out` (16 f32 each): for each slot whose graph bone
   * (an i32 at `slots`) is not negative, root (16 f64) × compose(t, r, s of that bone: 3, 4, 3 f64 per
   * bone) × its inverse bind matrix (16 f64 per slot at `inv`, last row 0 0 0 1).
   */
  skin(n: number, slots: number, t: number, r: number, s: number, inv: number, root: number, out: number): void {
    this.skinFn(n, slots, t, r, s, inv, root, out);
  }
}

let kernel: SkinningKernel | null | undefined;

/** This thread's skinning kernel, made on first use; null where the engine has no WebAssembly SIMD. */
export function skinningKernel(): SkinningKernel | null {
  if (kernel !== undefined) return kernel;
  kernel = null;
  const wasm = webAssembly();
  if (wasm === undefined) return null;
  try {
    const bytes = hexBytes(SKINNING_WASM_HEX);
    // validate() is false where SIMD is not supported: the module is then unusable.
    if (wasm.validate(bytes)) kernel = new SkinningKernel(new wasm.Module(bytes));
  } catch {
    kernel = null;
  }
  return kernel;
}

/** The module's bytes from their hex (no atob or Buffer: browser- and Node-safe). */
function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

type SkinFunction = (n: number, slots: number, t: number, r: number, s: number, inv: number, root: number, out: number) => void;

/** The part of the WebAssembly JS API used here, declared locally so that no DOM or Node types are needed. */
interface WasmModule { readonly __module?: never }
interface WasmMemory { readonly buffer: ArrayBufferLike; grow(pages: number): number }
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { readonly exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum?: number }) => WasmMemory;
}

function webAssembly(): WasmApi | undefined {
  return (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
}
