/**
 * What a crowd's threads share (see crowd.ts for the Crowd itself): where each thread gets its
 * graph, the arrays over SharedArrayBuffers that carry characters' calls, poses and events between
 * them, and the control words through which the calling thread starts the workers' frames.
 */
import { pathToFileURL } from 'node:url';
import { AnimGraph } from '../runtime/graph/graph.ts';
import type { CrowdEventBuffers, CrowdEventName } from './crowd-events.ts';

/**
 * Where every thread of a crowd gets its graph: each builds its own from the same source, since a
 * graph's nodes and clips cannot cross threads. `file`: a JSON graph asset (loadGraphFile).
 * `module`: a module (path or URL) whose export `export` is called with `args` and returns an
 * AnimGraph, or a promise of one.
 */
export type CrowdGraphSource =
  | { file: string }
  | { module: string; export: string; args?: readonly unknown[] };

/** The graph a source names, built on the calling thread. */
export async function buildCrowdGraph(source: CrowdGraphSource): Promise<AnimGraph> {
  if ('file' in source) {
    const { loadGraphFile } = await import('./files.ts');
    return loadGraphFile(source.file);
  }
  const url = /^[a-z][a-z0-9+.-]*:/i.test(source.module) ? source.module : pathToFileURL(source.module).href;
  const exported = (await import(url))[source.export];
  if (typeof exported !== 'function') throw new TypeError(`crowd source: ${source.module} has no function export '${source.export}'`);
  const graph: unknown = await exported(...(source.args ?? []));
  if (!(graph instanceof AnimGraph)) throw new TypeError(`crowd source: ${source.module}'s '${source.export}' did not return an AnimGraph`);
  return graph;
}

/** The arrays a crowd's threads share, all over SharedArrayBuffers. */
export interface CrowdBuffers {
  /**
   * [frame sequence, worker threads done with the frame, stop, worker that failed (1-based) or 0,
   * what Crowd.measureAllocation asks (MEASURE_*)].
   */
  control: Int32Array;
  /** Per thread (the calling thread's at 0): bytes allocated per frame in the last measureAllocation. */
  allocation: Float64Array;
  /** The failed worker's error message, UTF-8, zero-padded. */
  failure: Uint8Array;
  /** [delta time of the frame]. */
  frame: Float64Array;
  /** Character i's parameter values at [i * width, (i + 1) * width), as Parameters.values. */
  parameters: Float64Array;
  /** Per character: 1 when its parameters changed since its last update. */
  parametersChanged: Int32Array;
  /** Per character: 1 to reset it before its next update. */
  resetRequested: Int32Array;
  /**
   * Character i's update rate at [3i], phase (in [0, rate)) at [3i + 1], and 1 at [3i + 2] when
   * its skipped frames interpolate, 0 when they hold (AnimGraphInstance.setUpdateRate).
   */
  updateRates: Int32Array;
  /** Per character: 1 when updateRates changed since its thread last applied them. */
  updateRateChanged: Int32Array;
  /**
   * Character i's slot calls waiting for its next update, CROWD_SLOT_CALLS of SLOT_CALL_NUMBERS from
   * [i * CROWD_SLOT_CALLS * SLOT_CALL_NUMBERS]: [1 (playSlot) or 2 (stopSlot), the slot's index in
   * CrowdWorkerData.slotNames, the clip's in clipNames, blendIn, blendOut, playRate].
   */
  slotCalls: Float64Array;
  /** Per character: how many of its slotCalls wait. */
  slotCallCount: Int32Array;
  /**
   * Character i's slots after its last update, at [i * slots, (i + 1) * slots) in
   * CrowdShare.slotNames' order: 1 while a clip plays in the slot (AnimGraphInstance.isSlotPlaying).
   */
  slotPlaying: Uint8Array;
  translations: Float64Array;
  rotations: Float64Array;
  scales: Float64Array;
  componentTranslations: Float64Array;
  componentRotations: Float64Array;
  componentScales: Float64Array;
  rootMotion: Float64Array;
  /** The characters' forwarded events of the frame (CrowdOptions.events); empty without them. */
  events: CrowdEventBuffers;
}

/** control's words: [frame sequence, worker threads done with the frame, stop, worker that failed (1-based) or 0, MEASURING]. */
export const SEQUENCE = 0, DONE = 1, STOP = 2, FAILED = 3, MEASURING = 4;
/** control[MEASURING]: not measuring; measuring (each thread's window open); close the windows, run no frame. */
export const MEASURE_OFF = 0, MEASURE_ON = 1, MEASURE_END = 2;
/** How many playSlot and stopSlot calls a character takes between two of its updates. */
export const CROWD_SLOT_CALLS = 8;
export const SLOT_CALL_NUMBERS = 6, PLAY_SLOT = 1, STOP_SLOT = 2;

/** What a thread needs to know to evaluate its share of a crowd: characters [first, end). */
export interface CrowdShare {
  /** The thread: 0 the calling thread, else its worker's number (1-based, as error messages give it). */
  worker: number;
  first: number;
  end: number;
  componentSpace: boolean;
  buffers: CrowdBuffers;
  /** The calling thread's graph's slot and clip names, which slotCalls index (each thread plays them by name). */
  slotNames: readonly string[];
  clipNames: readonly string[];
  /** The events the crowd forwards (CrowdOptions.events) and the room for them per character. */
  events: readonly CrowdEventName[];
  eventsPerCharacter: number;
}

/** What a worker thread is told at start (see crowd-worker.ts). */
export interface CrowdWorkerData extends CrowdShare {
  source: CrowdGraphSource;
  /**
   * The shared WebAssembly memory holding the crowd's poses and the calling thread's copy of the
   * clips (SamplingKernel.createShared), which the worker attaches its own kernel to; null when
   * the crowd samples in JavaScript.
   */
  kernelMemory: object | null;
  /** Threads of the crowd (workers + 1): the kernels' scratch slots. */
  threads: number;
}

export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(Math.max(length, 1) * 8)).subarray(0, length);
}

export function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Math.max(length, 1) * 4)).subarray(0, length);
}
