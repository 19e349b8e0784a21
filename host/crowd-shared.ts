/**
 * What a crowd's threads share (see crowd.ts for the Crowd itself): where each thread gets its
 * graph, the arrays over SharedArrayBuffers that carry characters' calls, poses and events between
 * them, and the control words through which the calling thread starts each worker's frame and
 * learns how it went. The calling thread's side of those words is crowd-threads.ts, a worker's
 * crowd-worker-loop.ts.
 */
import { pathToFileURL } from 'node:url';
import { AnimGraph } from '../runtime/graph/graph.ts';
import type { KernelPrecision } from '../runtime/kernel/sampling-kernel.ts';
import { crowdEventBuffers, type CrowdEventBuffers, type CrowdEventName } from './crowd-events.ts';

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
   * The crowd-wide words STOP, MEASURING and WAKE, then WORKER_WORDS per thread (workerWord: the
   * calling thread's, thread 0's, unused).
   */
  control: Int32Array;
  /** Per thread (the calling thread's at 0): bytes allocated per frame in the last measureAllocation. */
  allocation: Float64Array;
  /** Per thread, FAILURE_BYTES from thread * FAILURE_BYTES: the error a worker's frame threw, UTF-8, zero-padded. */
  failure: Uint8Array;
  /** [delta time of the frame]. */
  frame: Float64Array;
  /**
   * Per thread: the crowd's updates before its characters' first (0 but for a restarted worker,
   * whose instances count their updates from their restart), which its characters' update-rate
   * phases are shifted by so that they evaluate on the frames they did before.
   */
  phaseOffsets: Float64Array;
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
   * CrowdWorkerData.slotNames, the clip's in clipNames, blendIn, blendOut, playRate]; a
   * savePoseSnapshot is [3, the name's index in CrowdShare.poseSnapshotNames]; a playMontage
   * [4, the montage's index in montageNames, the section's index in it, rate]; a stopMontage [5, the
   * montage's index or -1 for all, its blend out or -1 for the montages' own]; a jumpToSection [6,
   * the montage's index, the section's index].
   */
  slotCalls: Float64Array;
  /** Per character: how many of its slotCalls wait. */
  slotCallCount: Int32Array;
  /**
   * Character i's slots after its last update, at [i * slots, (i + 1) * slots) in
   * CrowdShare.slotNames' order: 1 while a clip plays in the slot (AnimGraphInstance.isSlotPlaying).
   */
  slotPlaying: Uint8Array;
  /**
   * Per character, with CrowdOptions.checkFinite (else empty): what its last frame's check found,
   * 0 for a finite pose and root motion, else 1 + its first non-finite number's place (nonFiniteReport).
   */
  finiteReports: Int32Array;
  /** Per thread: how many of its characters' last frame was not finite (0 unless checking). */
  nonFiniteCharacters: Int32Array;
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

/**
 * control's crowd-wide words: STOP (1 once the crowd closes), MEASURING (what
 * Crowd.measureAllocation asks: MEASURE_*), WAKE (bumped and notified by a worker each time it
 * finishes what it was woken for or exits: the calling thread waits on it).
 */
export const STOP = 0, MEASURING = 1, WAKE = 2;
const CROWD_WORDS = 3;
/** control[MEASURING]: not measuring; measuring (each thread's window open); close the windows, run no frame. */
export const MEASURE_OFF = 0, MEASURE_ON = 1, MEASURE_END = 2;
/**
 * A worker's words (workerWord): GO, bumped and notified by the calling thread to wake it for a
 * frame; DONE, GO's value once it has finished that frame; EXITED, 1 once its thread has exited
 * (written by the thread as it exits, or by the calling thread's exit listener); EXIT_CODE, its exit
 * code then; THREW, 1 once a frame threw (its text in `failure`).
 */
export const GO = 0, DONE = 1, EXITED = 2, EXIT_CODE = 3, THREW = 4;
const WORKER_WORDS = 5;
/** Bytes of a worker's error text in CrowdBuffers.failure. */
export const FAILURE_BYTES = 4096;

/** Where word `word` (GO, DONE...) of thread `thread` is in CrowdBuffers.control. */
export function workerWord(thread: number, word: number): number {
  return CROWD_WORDS + thread * WORKER_WORDS + word;
}

/** How many playSlot and stopSlot calls a character takes between two of its updates. */
export const CROWD_SLOT_CALLS = 8;
export const SLOT_CALL_NUMBERS = 6, PLAY_SLOT = 1, STOP_SLOT = 2, SAVE_POSE_SNAPSHOT = 3, PLAY_MONTAGE = 4, STOP_MONTAGE = 5, JUMP_TO_SECTION = 6;

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
  /** The calling thread's graph's montage names, which montage calls index. */
  montageNames: readonly string[];
  /** The calling thread's graph's pose snapshot names, which a savePoseSnapshot call indexes. */
  poseSnapshotNames: readonly string[];
  /** The events the crowd forwards (CrowdOptions.events) and the room for them per character. */
  events: readonly CrowdEventName[];
  eventsPerCharacter: number;
  /** Check each character's pose and root motion for numbers that are not finite, after its frame (CrowdOptions.checkFinite). */
  checkFinite: boolean;
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
  /** The kernels' precision (CrowdOptions.precision). */
  precision: KernelPrecision;
}

export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(Math.max(length, 1) * 8)).subarray(0, length);
}

export function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Math.max(length, 1) * 4)).subarray(0, length);
}

function sharedBytes(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(Math.max(length, 1))).subarray(0, length);
}

/** The pose arrays a crowd's buffers take when the kernel holds none: in a shared WebAssembly memory. */
type PoseArrays = readonly Float64Array[] | undefined;

/**
 * A crowd's buffers for `count` characters of `bones` bones with `width` parameter numbers and
 * `slots` slots, over `threads` threads; the pose arrays are `poses` (a kernel's, in order:
 * translations, rotations, scales and the component ones) or arrays of their own. Every character
 * starts at full update rate, its skipped frames interpolating.
 */
export function crowdBuffers(
  count: number, bones: number, width: number, slots: number, threads: number, componentSpace: boolean,
  events: { names: readonly CrowdEventName[]; perCharacter: number }, checkFinite: boolean, poses: PoseArrays,
): CrowdBuffers {
  const n = bones, cs = componentSpace ? count * n : 0;
  const buffers: CrowdBuffers = {
    control: sharedInt32(CROWD_WORDS + threads * WORKER_WORDS),
    allocation: sharedFloat64(threads),
    failure: sharedBytes(threads * FAILURE_BYTES),
    frame: sharedFloat64(1),
    phaseOffsets: sharedFloat64(threads),
    parameters: sharedFloat64(count * width),
    parametersChanged: sharedInt32(count),
    resetRequested: sharedInt32(count),
    updateRates: sharedInt32(count * 3),
    updateRateChanged: sharedInt32(count),
    slotCalls: sharedFloat64(count * CROWD_SLOT_CALLS * SLOT_CALL_NUMBERS),
    slotCallCount: sharedInt32(count),
    slotPlaying: sharedBytes(count * slots),
    finiteReports: sharedInt32(checkFinite ? count : 0),
    nonFiniteCharacters: sharedInt32(threads),
    translations: poses?.[0] ?? sharedFloat64(count * n * 3),
    rotations: poses?.[1] ?? sharedFloat64(count * n * 4),
    scales: poses?.[2] ?? sharedFloat64(count * n * 3),
    componentTranslations: poses?.[3] ?? sharedFloat64(cs * 3),
    componentRotations: poses?.[4] ?? sharedFloat64(cs * 4),
    componentScales: poses?.[5] ?? sharedFloat64(cs * 3),
    rootMotion: sharedFloat64(count * 4),
    events: crowdEventBuffers(count, events.perCharacter, threads, events.names.length > 0),
  };
  for (let i = 0; i < count; i++) {
    buffers.updateRates[i * 3] = 1;
    buffers.updateRates[i * 3 + 2] = 1;
  }
  return buffers;
}

/** The characters' per-frame numbers in a crowd's kernel memory (kernelPoseLengths), `perCharacter` a character. */
export interface CrowdFrameNumbers {
  array: Float64Array;
  perCharacter: number;
}

/**
 * Readies the shared state of characters [first, end) for a new instance each (a restarted
 * worker's share): each applies its parameters and update rate at its first frame, and its slot
 * calls made meanwhile; no reset is left pending (it starts afresh), no slot plays and nothing is
 * found non-finite until that frame; its per-frame numbers in the kernel's memory, if there, are
 * zeroed, as a new instance takes them.
 */
export function restartShare(buffers: CrowdBuffers, first: number, end: number, slots: number, frameNumbers: CrowdFrameNumbers | null): void {
  buffers.parametersChanged.fill(1, first, end);
  buffers.updateRateChanged.fill(1, first, end);
  buffers.resetRequested.fill(0, first, end);
  buffers.slotPlaying.fill(0, first * slots, end * slots);
  if (buffers.finiteReports.length > 0) buffers.finiteReports.fill(0, first, end);
  frameNumbers?.array.fill(0, first * frameNumbers.perCharacter, end * frameNumbers.perCharacter);
}

/**
 * What a thread's check writes for a character whose frame left a number that is not finite:
 * 1 + bone * 3 + (0 translation, 1 rotation, 2 scale) for a bone, 1 + boneCount * 3 for its root
 * motion (see decodeNonFinite).
 */
export function nonFiniteReport(bone: number, attribute: number): number {
  return 1 + bone * 3 + attribute;
}
