/**
 * The crowd bench's measurement: timed windows interleaved between sides, and steady-state
 * allocation per frame from V8's heap-space statistics around GC-free windows.
 */
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { median } from './median.ts';
import type { Runner } from './runners.ts';

export { median };

export const gc: () => void = (() => {
  const g = (globalThis as { gc?: () => void }).gc;
  if (typeof g !== 'function') {
    console.error('bench/crowd.ts needs --expose-gc: node --expose-gc --import tsx bench/crowd.ts');
    process.exit(2);
  }
  return g;
})();


function timeWindow(runner: Runner, frames: number): number {
  const start = performance.now();
  runner.frames(frames);
  return (performance.now() - start) / frames;
}

interface HeapWindow {
  /** Growth of the spaces where the frame loop's objects are allocated (see ALLOCATION_SPACES). */
  bytes: number;
  /** Growth of old and code space, kept for the JSON only (see ALLOCATION_SPACES). */
  otherBytes: number;
  frames: number;
  /** Whether a GC ran during the window (the delta is then meaningless). */
  collected: boolean;
}

/**
 * Where objects made by JavaScript in the frame loop go: the young generation, and the large
 * object spaces for big arrays. Old and code space are left out of the figure: right after a full
 * gc() their used size moves by up to ~100 KB with no allocation at all (sweeping bookkeeping; the
 * same jump shows in empty windows and does not scale with the number of frames), and JIT code
 * lands there. A per-frame allocation V8 pretenures straight into old space would be missed, but
 * that only happens to objects that survive, which a steady-state leak would first show here.
 */
const ALLOCATION_SPACES = new Set(['new_space', 'new_large_object_space', 'large_object_space']);

function heapSpaces(): { allocation: number; other: number } {
  let allocation = 0, other = 0;
  for (const space of v8.getHeapSpaceStatistics()) {
    if (ALLOCATION_SPACES.has(space.space_name)) allocation += space.space_used_size;
    else other += space.space_used_size;
  }
  return { allocation, other };
}

export function heapWindow(runner: Runner, frames: number, acrossGCs = false): HeapWindow {
  // Counting across GCs needs no clean heap first (and a gc() of three.js's heap takes ~0.2 s).
  if (!acrossGCs) {
    gc();
    gc();
  }
  const profiler = new v8.GCProfiler();
  profiler.start();
  const before = heapSpaces();
  runner.frames(frames);
  const after = heapSpaces();
  const report = profiler.stop();
  let bytes = after.allocation - before.allocation;
  const gcs = report?.statistics ?? [];
  if (acrossGCs) {
    // The allocation spaces only grow between GCs: add up the growth of every stretch between
    // them (what each GC took away is given back). Exact for the young generation; an allocation
    // site V8 pretenures straight into old space is missed (see ALLOCATION_SPACES).
    for (const stat of gcs) bytes += allocationUsed(stat.beforeGC.heapSpaceStatistics) - allocationUsed(stat.afterGC.heapSpaceStatistics);
    return { bytes, otherBytes: Number.NaN, frames, collected: false };
  }
  const collected = gcs.length > 0 || bytes < 0;
  return { bytes, otherBytes: after.other - before.other, frames, collected };
}

function allocationUsed(spaces: readonly { spaceName: string; spaceUsedSize: number }[]): number {
  let used = 0;
  for (const space of spaces) if (ALLOCATION_SPACES.has(space.spaceName)) used += space.spaceUsedSize;
  return used;
}

export interface AllocationResult {
  /** Median over the window pairs of the per-frame growth, bytes per frame. */
  bytesPerFrame: number;
  /** Per-pair values (bytes per frame). */
  samples: number[];
  /** Frames of the shorter window of each pair (the longer one runs twice as many). */
  framesPerWindow: number;
  /** Windows thrown away because a GC ran during them. */
  discarded: number;
  /** Per-pair old + code space growth per frame, for reference only (see ALLOCATION_SPACES). */
  otherSamples: number[];
}

/**
 * Steady-state bytes per frame: the heap growth over 2f frames minus that over f frames, divided
 * by f. Whatever a window costs once (the heap-statistics object read at its end, about 600 bytes,
 * or anything else done once per call of `frames`) cancels out; what remains is per frame.
 */
export function measureAllocation(runner: Runner, frames: number, windows: number, acrossGCs = false): AllocationResult {
  const samples: number[] = [];
  const otherSamples: number[] = [];
  let discarded = 0;
  let f = Math.max(1, frames);
  if (!acrossGCs) heapWindow(runner, f); // settle: the first window after other work sometimes carries a one-off
  while (samples.length < windows && discarded < 40) {
    const short = heapWindow(runner, f, acrossGCs);
    const long = heapWindow(runner, 2 * f, acrossGCs);
    if (short.collected || long.collected) {
      discarded++;
      f = Math.max(1, f >> 1);
      continue;
    }
    samples.push(Math.max(0, (long.bytes - short.bytes) / f));
    otherSamples.push((long.otherBytes - short.otherBytes) / f);
  }
  return { bytesPerFrame: samples.length > 0 ? median(samples) : Number.NaN, samples, framesPerWindow: f, discarded, otherSamples };
}

/** Bytes a window costs with no frames at all (reported, for reference: the measurement's own cost). */
export function windowOverhead(): number {
  const samples: number[] = [];
  for (let i = 0; i < 9; i++) {
    const w = heapWindow({ frames() {} }, 1);
    if (!w.collected) samples.push(w.bytes);
  }
  return samples.length > 0 ? Math.min(...samples) : Number.NaN;
}

export interface Side {
  runner: Runner;
  frames: number;
  ms: number[];
}

/** Timed windows of each side in turn, the order reversed every other round (ABC CBA ...). */
export function interleave(sides: readonly Side[], windows: number): void {
  for (let w = 0; w < windows; w++) {
    const order = w % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) side.ms.push(timeWindow(side.runner, side.frames));
  }
}
