import v8 from 'node:v8';
import { AnimGraphError } from '../runtime/core/errors.ts';

/**
 * Where a frame's garbage would be allocated: V8 puts new objects (a boxed double, a closure, an
 * array) in the young generation, or the large-object spaces when big. Old and code space are left
 * out: they grow when V8 compiles or re-tiers a function, which a loaded machine can make happen in
 * any window (seen as 10-17 bytes a frame in whole windows when measured with heapUsed). V8
 * pretenures into old space only allocation sites whose objects survive, which per-frame garbage
 * does not.
 */
const ALLOCATION_SPACES = new Set(['new_space', 'new_large_object_space', 'large_object_space']);

/** A space as v8.getHeapSpaceStatistics names it, or as a v8.GCProfiler's statistics do. */
type SpaceStatistics = { spaceName?: string; space_name?: string; spaceUsedSize?: number; space_used_size?: number };

function allocationSpacesUsed(spaces: readonly SpaceStatistics[]): number {
  let bytes = 0;
  for (const s of spaces) if (ALLOCATION_SPACES.has((s.spaceName ?? s.space_name)!)) bytes += (s.spaceUsedSize ?? s.space_used_size)!;
  return bytes;
}

/**
 * What this thread allocates over some frames: the growth of its allocation spaces from when the
 * window opens to when it closes, adding back what each garbage collection in between collected
 * (a v8.GCProfiler lists them). Count the frames in `frames`.
 */
export class AllocationWindow {
  frames = 0;
  private readonly profiler = new v8.GCProfiler();
  private readonly before: number;

  constructor() {
    this.profiler.start();
    this.before = allocationSpacesUsed(v8.getHeapSpaceStatistics());
  }

  /** Bytes per frame since the window opened (0 over no frames). */
  close(): number {
    let bytes = allocationSpacesUsed(v8.getHeapSpaceStatistics()) - this.before;
    for (const stat of this.profiler.stop()?.statistics ?? []) {
      bytes += allocationSpacesUsed(stat.beforeGC.heapSpaceStatistics) - allocationSpacesUsed(stat.afterGC.heapSpaceStatistics);
    }
    return this.frames > 0 ? bytes / this.frames : 0;
  }
}

/**
 * Bytes this thread allocates per call of `frame`, over `frames` calls (V8's young generation and
 * large objects, garbage collections counted): to check that your frame loop (an instance's
 * update and evaluate, a batch's update, your own nodes) allocates nothing once warm. A frame that
 * allocates nothing measures a fraction of a byte (the measurement's own heap statistics, about
 * 2.5 KB over all the frames). Warm the code first: unoptimised code allocates. For a Crowd's
 * worker threads, see Crowd.measureAllocation.
 */
export function measureAllocation(frames: number, frame: () => void): number {
  if (!Number.isInteger(frames) || frames < 1) throw new AnimGraphError(typeof frames === 'number' ? 'out-of-range' : 'invalid-argument', `frames must be a whole number of 1 or more; got ${frames}`);
  const window = new AllocationWindow();
  let bytes: number;
  try {
    for (; window.frames < frames; window.frames++) frame();
  } finally {
    bytes = window.close(); // also when a frame throws: the profiler stops
  }
  return bytes;
}
