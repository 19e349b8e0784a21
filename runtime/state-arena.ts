/**
 * Where a graph instance's typed arrays (its poses, weights, per-bone state) come from while it is
 * built: views into a few large ArrayBuffers, handed out in order, rather than an ArrayBuffer each.
 *
 * Why: an instance of a small graph holds about 40 typed arrays. Made one by one, each is a
 * separately allocated backing store the garbage collector tracks, which made creating a crowd
 * mostly GC (10,000 characters took 1.4–2.1 s, 42% of it collecting) and scattered a character's
 * state across memory. From an arena, an instance's state is contiguous, and an InstanceBatch's
 * characters follow one another in memory in the order a frame visits them.
 *
 * The arena is current only during AnimGraphInstance's constructor (withStateArena); per-instance
 * classes take their arrays through stateFloat64/stateInt32/stateUint8, which fall back to
 * ordinary arrays when no arena is current (a Pose made by hand, a pose pool growing mid-frame).
 * Arrays shared between instances (a graph's caches, module scratch) must not come from here.
 */
export class StateArena {
  private buffer: ArrayBuffer | null = null;
  private offset = 0;

  /** @param chunkBytes bytes of each ArrayBuffer (larger requests get one of their own). */
  constructor(private readonly chunkBytes = 8192) {}

  /** `bytes` (a multiple of 8), zeroed, at an 8-byte aligned offset of a chunk. */
  take(bytes: number): [ArrayBuffer, number] {
    if (this.buffer === null || this.offset + bytes > this.buffer.byteLength) {
      if (bytes > this.chunkBytes / 2) return [new ArrayBuffer(bytes), 0];
      this.buffer = new ArrayBuffer(this.chunkBytes);
      this.offset = 0;
    }
    const at = this.offset;
    this.offset += bytes;
    return [this.buffer, at];
  }
}

let current: StateArena | null = null;

/** Whether an arena is current (an InstanceBatch's, while it builds its characters). */
export function hasStateArena(): boolean {
  return current !== null;
}

/** Runs `build` with `arena` current (see StateArena), restoring the previous one after. */
export function withStateArena<T>(arena: StateArena, build: () => T): T {
  const previous = current;
  current = arena;
  try {
    return build();
  } finally {
    current = previous;
  }
}

/** Rounded up to 8 bytes, so every view stays aligned for Float64Array. */
function taken(bytes: number): [ArrayBuffer, number] | null {
  if (current === null || bytes === 0) return null;
  return current.take((bytes + 7) & ~7);
}

/** A zeroed Float64Array of `length`, from the current arena if there is one. */
export function stateFloat64(length: number): Float64Array {
  const at = taken(length * 8);
  return at === null ? new Float64Array(length) : new Float64Array(at[0], at[1], length);
}

/** A zeroed Int32Array of `length`, from the current arena if there is one. */
export function stateInt32(length: number): Int32Array {
  const at = taken(length * 4);
  return at === null ? new Int32Array(length) : new Int32Array(at[0], at[1], length);
}

/** A zeroed Uint8Array of `length`, from the current arena if there is one. */
export function stateUint8(length: number): Uint8Array {
  const at = taken(length);
  return at === null ? new Uint8Array(length) : new Uint8Array(at[0], at[1], length);
}
