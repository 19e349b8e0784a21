import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  AnimGraph, checkSlotStop, refillableSlotOptions, resolveSlotPlay, unknownClipError, unknownSlotError, type AnimGraphInstance, type SlotPlayOptions,
} from '../runtime/graph/graph.ts';
import { characterArrays, composeInGroups, createCharacter, kernelPoseLengths, kernelPosePool, runCharacterFrame } from '../runtime/graph/instance-batch.ts';
import { SamplingKernel } from '../runtime/kernel/sampling-kernel.ts';
import { describeValue, PARAMETER_WIDTH, Parameters, type ParameterValue } from '../runtime/node/parameters.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { checkUpdateRate, DEFAULT_UPDATE_RATE_OPTIONS, interpolatesSkipped, normalizePhase, type UpdateRateOptions } from '../runtime/graph/update-rate.ts';
import {
  checkCrowdEvents, checkEventsPerCharacter, crowdEventBuffers, CrowdEventDispatcher, CrowdEventEmitter, CrowdEventRecorder,
  type CrowdEventBuffers, type CrowdEventName,
} from './crowd-events.ts';
import { AllocationWindow, measureAllocation as measureThreadAllocation } from './allocation.ts';

/**
 * Where every thread of a crowd gets its graph: each builds its own from the same source, since a
 * graph's nodes and clips cannot cross threads. `file`: a JSON graph asset (loadGraphFile).
 * `module`: a module (path or URL) whose export `export` is called with `args` and returns an
 * AnimGraph, or a promise of one.
 */
export type CrowdGraphSource =
  | { file: string }
  | { module: string; export: string; args?: readonly unknown[] };

export interface CrowdOptions {
  source: CrowdGraphSource;
  /** Number of characters, each an instance of the graph. */
  count: number;
  /**
   * Worker threads besides the calling thread, which evaluates a share of the crowd too. Default:
   * one fewer than the machine's cores (0 on one core: everything on the calling thread).
   */
  workers?: number;
  /** Also publish every character's component-space pose each frame. Default false. */
  componentSpace?: boolean;
  /**
   * Instance events to deliver on the calling thread through Crowd.events, whichever thread
   * evaluates the character (say `notify` for footsteps, `slotEnded` for gameplay): each with the
   * character's index first. Default none; every event but parameterChanged can be forwarded.
   */
  events?: readonly CrowdEventName[];
  /**
   * Room for forwarded events, per character per frame, pooled over each thread's share (4 by
   * default, at most 256); a frame with more loses the rest and Crowd.events emits `eventsDropped`.
   */
  eventsPerCharacter?: number;
}

/** The arrays a crowd's threads share, all over SharedArrayBuffers. */
interface CrowdBuffers {
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

const SEQUENCE = 0, DONE = 1, STOP = 2, FAILED = 3, MEASURING = 4;
/** control[MEASURING]: not measuring; measuring (each thread's window open); close the windows, run no frame. */
const MEASURE_OFF = 0, MEASURE_ON = 1, MEASURE_END = 2;
/** How many playSlot and stopSlot calls a character takes between two of its updates. */
export const CROWD_SLOT_CALLS = 8;
const SLOT_CALL_NUMBERS = 6, PLAY_SLOT = 1, STOP_SLOT = 2;
/** setUpdateRate's options as the slices apply them (made once: see CONTRIBUTING.md, "Numbers in the frame loop"). */
const INTERPOLATE: UpdateRateOptions = { interpolate: true }, HOLD: UpdateRateOptions = { interpolate: false };

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

/**
 * The characters [first, end) of a crowd that one thread evaluates: their instances, and the
 * copying between them and the shared arrays. Allocates nothing per frame.
 */
export class CrowdSlice {
  readonly instances: AnimGraphInstance[] = [];
  readonly first: number;
  readonly end: number;
  private readonly componentSpace: boolean;
  private readonly buffers: CrowdBuffers;
  /** The names slotCalls index (CrowdShare). */
  private readonly slotNames: readonly string[];
  private readonly clipNames: readonly string[];
  /** For each of slotNames, its index in this thread's graph's slotNames (isSlotPlayingAt). */
  private readonly slotIndices: Int32Array;
  /** Whether the characters' component poses are composed in the kernel, a group at a time (composeInGroups). */
  private readonly composesInKernel: boolean;

  /**
   * @param kernel this thread's sampling kernel on the crowd's shared memory, whose poseArrays are
   *   then the pose arrays of `share.buffers` (the views a worker received are replaced by its
   *   kernel's: a Pose finds its kernel by the very buffer object it views), or null to sample in
   *   JavaScript. The thread (share.worker) uses its own pool of temporaries in the kernel's memory.
   */
  constructor(readonly graph: AnimGraph, share: CrowdShare, private readonly kernel: SamplingKernel | null = null) {
    const { first, end, componentSpace, buffers } = share;
    this.first = first;
    this.end = end;
    this.componentSpace = componentSpace;
    this.buffers = buffers;
    this.slotNames = share.slotNames;
    this.clipNames = share.clipNames;
    // The calling thread's slot names as this thread's graph orders them (-1 for one it lacks: never playing).
    const own = graph.slotNames;
    this.slotIndices = Int32Array.from(share.slotNames, (name) => own.indexOf(name));
    const n = graph.skeleton.boneCount;
    if (kernel !== null) {
      [buffers.translations, buffers.rotations, buffers.scales, buffers.componentTranslations, buffers.componentRotations, buffers.componentScales] = kernel.poseArrays.slice(0, 6);
    }
    // Each character evaluates straight into its rows of the shared arrays: nothing to publish. In
    // the kernel, the thread's temporaries are its own pool's, in the memory too.
    const posePool = kernel === null ? graph.posePool : kernelPosePool(kernel, n, share.worker);
    for (let i = first; i < end; i++) this.instances.push(createCharacter(graph, buffers, i, componentSpace, kernel, posePool));
    this.composesInKernel = kernel !== null && componentSpace;
    if (share.events.length > 0) {
      const recorder = new CrowdEventRecorder(buffers.events, share.worker, first, end - first, share.eventsPerCharacter);
      for (let k = 0; k < this.instances.length; k++) recorder.listen(this.instances[k], first + k, share.events);
    }
  }

  /** Whether this slice samples in the kernel. */
  get wasm(): boolean {
    return this.kernel !== null;
  }

  /** A playSlot's options, made once and refilled per call. */
  private readonly slotOptions = refillableSlotOptions();

  /** Plays character i's waiting slot calls on its instance, in the order they were made. */
  private runSlotCalls(instance: AnimGraphInstance, i: number): void {
    const b = this.buffers, calls = b.slotCalls, count = b.slotCallCount[i], options = this.slotOptions;
    for (let k = 0, at = i * CROWD_SLOT_CALLS * SLOT_CALL_NUMBERS; k < count; k++, at += SLOT_CALL_NUMBERS) {
      const slot = this.slotNames[calls[at + 1]];
      if (calls[at] === PLAY_SLOT) {
        options.blendIn = calls[at + 3];
        options.blendOut = calls[at + 4];
        options.playRate = calls[at + 5];
        instance.playSlot(slot, this.clipNames[calls[at + 2]], options);
      } else {
        instance.stopSlot(slot, calls[at + 4]);
      }
    }
    b.slotCallCount[i] = 0;
  }

  /**
   * Applies each character's pending parameters, reset, update rate and slot calls, then advances
   * it by the frame's delta time and evaluates it, character after character (so that its events,
   * those of its slot calls included, come in character order).
   */
  run(): void {
    const b = this.buffers, instances = this.instances;
    // In the kernel, with component space, the characters run in groups composed together (as
    // InstanceBatch.update does), each after its pending changes (beforeFrame).
    if (this.composesInKernel) {
      composeInGroups(this.kernel!, instances, b.frame, b.rootMotion, b, this.first, this);
      return;
    }
    for (let k = 0; k < instances.length; k++) {
      this.beforeFrame(k);
      runCharacterFrame(instances[k], b.frame, this.componentSpace, b.rootMotion, this.first + k);
      this.afterFrame(k);
    }
  }

  /** Publishes what the share's character k's update left in its slots (Crowd.isSlotPlaying). */
  afterFrame(k: number): void {
    const slots = this.slotNames.length;
    if (slots === 0) return;
    const instance = this.instances[k], playing = this.buffers.slotPlaying;
    for (let s = 0, at = (this.first + k) * slots; s < slots; s++) playing[at + s] = instance.isSlotPlayingAt(this.slotIndices[s]) ? 1 : 0;
  }

  /** Applies the pending parameters, reset, update rate and slot calls of the share's character k. */
  beforeFrame(k: number): void {
    const b = this.buffers;
    const i = this.first + k;
    const instance = this.instances[k];
    if (b.parametersChanged[i] === 1) {
      // Parameters are read by nodes from this array every frame, so writing it is setting them
      // (no parameterChanged events: their listeners would be on another thread).
      const values = instance.parameterValues;
      const width = values.length, from = i * width;
      for (let s = 0; s < width; s++) values[s] = b.parameters[from + s];
      b.parametersChanged[i] = 0;
    }
    if (b.resetRequested[i] === 1) {
      instance.reset();
      b.resetRequested[i] = 0;
    }
    if (b.updateRateChanged[i] === 1) {
      // Checked when set; the first rate above 1 allocates the character's interpolation poses, once.
      instance.setUpdateRate(b.updateRates[i * 3], b.updateRates[i * 3 + 1], b.updateRates[i * 3 + 2] === 1 ? INTERPOLATE : HOLD);
      b.updateRateChanged[i] = 0;
    }
    if (b.slotCallCount[i] > 0) this.runSlotCalls(instance, i);
  }
}

/**
 * Runs a worker's slice each time the calling thread starts a frame, until told to stop. A frame
 * that throws (a node type's bug: the built-in nodes do not throw in the frame loop) is reported
 * through the shared failure slots, and the calling thread's update rethrows it.
 */
export function crowdWorkerLoop(slice: CrowdSlice, buffers: CrowdBuffers, worker: number): void {
  const control = buffers.control;
  let seen = 0;
  let window: AllocationWindow | null = null;
  for (;;) {
    Atomics.wait(control, SEQUENCE, seen);
    seen = Atomics.load(control, SEQUENCE);
    if (Atomics.load(control, STOP) === 1) return;
    // Crowd.measureAllocation: the window opens before the first frame it measures, and closes
    // when told, with no frame run then.
    const measuring = Atomics.load(control, MEASURING);
    if (measuring === MEASURE_END) {
      if (window !== null) buffers.allocation[worker] = window.close();
      window = null;
      Atomics.add(control, DONE, 1);
      Atomics.notify(control, DONE);
      continue;
    }
    if (measuring === MEASURE_ON && window === null) window = new AllocationWindow();
    if (window !== null) window.frames++;
    try {
      slice.run();
    } catch (e) {
      if (Atomics.compareExchange(control, FAILED, 0, worker) === 0) {
        const text = new TextEncoder().encode(e instanceof Error ? (e.stack ?? e.message) : String(e));
        buffers.failure.set(text.subarray(0, buffers.failure.length));
      }
    }
    Atomics.add(control, DONE, 1);
    Atomics.notify(control, DONE);
  }
}

function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(Math.max(length, 1) * 8)).subarray(0, length);
}

function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Math.max(length, 1) * 4)).subarray(0, length);
}

/**
 * Many characters of one graph asset, evaluated together: the calling thread and `workers` worker
 * threads each own a contiguous share of the characters, and every character's pose lands in
 * shared arrays laid out like a pose per character ([character][bone][xyz(w)]). `update` runs one
 * frame for all of them and returns when every share is done.
 *
 * Each character is an independent AnimGraphInstance, so its poses are bit-identical to evaluating
 * it alone with the same parameters and delta times. The events named in CrowdOptions.events reach
 * the calling thread (`events`) whichever thread evaluates the character; debug trees stay on that
 * thread: inspect characters of the calling thread's share with `instanceOf`.
 */
export class Crowd {
  readonly count: number;
  readonly boneCount: number;
  /** The calling thread's copy of the graph. */
  readonly graph: AnimGraph;
  readonly workerCount: number;
  /** Local-space poses: character i, bone b at (i * boneCount + b) * 3 (rotations: * 4). */
  readonly translations: Float64Array;
  readonly rotations: Float64Array;
  readonly scales: Float64Array;
  /** Component-space poses, laid out likewise; empty unless the crowd was made with componentSpace. */
  readonly componentTranslations: Float64Array;
  readonly componentRotations: Float64Array;
  readonly componentScales: Float64Array;
  /** Character i's root motion of the last frame at [i * 4, i * 4 + 4): [dx, dy, dz, dHeading]. */
  readonly rootMotion: Float64Array;
  /**
   * Whether every thread samples in the WebAssembly SIMD kernel (see InstanceBatch.wasm): the
   * poses are then in a shared WebAssembly memory with a copy of the clips, which each worker's
   * kernel attaches to. A worker whose graph differs from the calling thread's (a module source
   * that builds different clips) samples in JavaScript instead, with the same results.
   */
  readonly wasm: boolean;
  /**
   * The characters' forwarded instance events (CrowdOptions.events), each with the character's
   * index first, emitted by `update` once the frame is over, on the calling thread: characters in
   * order, each one's in the order they fired. `eventsDropped` tells how many a frame lost.
   */
  readonly events = new CrowdEventEmitter();
  private readonly buffers: CrowdBuffers;
  /** Hands the threads' recorded events to `events`; null when the crowd forwards none. */
  private readonly dispatcher: CrowdEventDispatcher | null;
  /** Set while `events` listeners run: update may not be called from them. */
  private dispatching = false;
  /** measureAllocation is running (a nested call would end the workers' windows early). */
  private measuring = false;
  private readonly slice: CrowdSlice;
  private readonly workers: Worker[];
  /** Checks and converts values as an instance's setParameter does. */
  private readonly scratch: Parameters;
  /** playSlot's options resolved (made once, refilled per call). */
  private readonly slotOptions = refillableSlotOptions();
  private closed = false;

  private constructor(
    graph: AnimGraph, count: number, buffers: CrowdBuffers, slice: CrowdSlice, workers: Worker[], scratch: Parameters, wasm: boolean,
    /** The graph's slot names, which playSlot and stopSlot take. */
    readonly slotNames: readonly string[],
    private readonly clipNames: readonly string[],
    forwarding: { firstCharacters: readonly number[]; perCharacter: number } | null,
  ) {
    this.graph = graph;
    this.count = count;
    this.boneCount = graph.skeleton.boneCount;
    this.buffers = buffers;
    this.slice = slice;
    this.workers = workers;
    this.workerCount = workers.length;
    this.scratch = scratch;
    this.translations = buffers.translations;
    this.rotations = buffers.rotations;
    this.scales = buffers.scales;
    this.componentTranslations = buffers.componentTranslations;
    this.componentRotations = buffers.componentRotations;
    this.componentScales = buffers.componentScales;
    this.rootMotion = buffers.rootMotion;
    this.wasm = wasm;
    this.dispatcher = forwarding === null ? null : new CrowdEventDispatcher(buffers.events, forwarding.firstCharacters, forwarding.perCharacter, this.events);
  }

  /** Builds the graph on every thread and one instance per character; rejects if any thread fails to. */
  static async create(options: CrowdOptions): Promise<Crowd> {
    const count = options.count;
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`a crowd needs a whole number of characters, at least 1; got ${describeValue(count)}`);
    // Checked before the cap at count - 1, which let 1.5 workers through for 2 characters.
    const asked = options.workers ?? Math.max(availableParallelism() - 1, 0);
    if (!Number.isInteger(asked) || asked < 0) throw new RangeError(`workers must be a whole number, at least 0; got ${describeValue(options.workers)}`);
    const workers = Math.min(asked, count - 1);
    const source = options.source;
    if (workers > 0 && typeof source === 'object' && source !== null && 'args' in source) {
      // Each worker receives the args by structured clone: a function in them failed as a bare
      // "DataCloneError: ()=>1 could not be cloned", naming neither the option nor the crowd.
      try {
        structuredClone(source.args);
      } catch (e) {
        throw new TypeError(`crowd source.args must be data a worker thread can receive (numbers, strings, arrays, plain objects: structured clone), for each of the ${workers} workers: ${(e as Error).message}`);
      }
    }
    const componentSpace = options.componentSpace ?? false;
    const events = checkCrowdEvents(options.events), eventsPerCharacter = checkEventsPerCharacter(options.eventsPerCharacter);
    const graph = await buildCrowdGraph(options.source);
    const n = graph.skeleton.boneCount;
    const scratch = new Parameters(graph.parameterDefinitions);
    const width = scratch.values.length;
    const cs = componentSpace ? count * n : 0;
    const threads = workers + 1;
    // The poses in a shared WebAssembly memory with the clips, where every thread's sampling kernel
    // works on them; plain shared arrays where the engine cannot.
    const kernel = SamplingKernel.createShared(graph.skeleton, [...graph.clipBindings.values()], kernelPoseLengths(n, count, componentSpace, true, graph.frameNumberCount, threads), threads);
    const poses = kernel?.poseArrays;

    const buffers: CrowdBuffers = characterArrays('a crowd', count, n, componentSpace, () => ({
      control: sharedInt32(5),
      allocation: sharedFloat64(threads),
      failure: new Uint8Array(new SharedArrayBuffer(4096)),
      frame: sharedFloat64(1),
      parameters: sharedFloat64(count * width),
      parametersChanged: sharedInt32(count),
      resetRequested: sharedInt32(count),
      updateRates: sharedInt32(count * 3),
      updateRateChanged: sharedInt32(count),
      slotCalls: sharedFloat64(count * CROWD_SLOT_CALLS * SLOT_CALL_NUMBERS),
      slotCallCount: sharedInt32(count),
      slotPlaying: new Uint8Array(new SharedArrayBuffer(Math.max(count * graph.slotNames.length, 1))),
      translations: poses?.[0] ?? sharedFloat64(count * n * 3),
      rotations: poses?.[1] ?? sharedFloat64(count * n * 4),
      scales: poses?.[2] ?? sharedFloat64(count * n * 3),
      componentTranslations: poses?.[3] ?? sharedFloat64(cs * 3),
      componentRotations: poses?.[4] ?? sharedFloat64(cs * 4),
      componentScales: poses?.[5] ?? sharedFloat64(cs * 3),
      rootMotion: sharedFloat64(count * 4),
      events: crowdEventBuffers(count, eventsPerCharacter, threads, events.length > 0),
    }));
    for (let i = 0; i < count; i++) buffers.parameters.set(scratch.values, i * width);
    for (let i = 0; i < count; i++) {
      buffers.updateRates[i * 3] = 1;
      buffers.updateRates[i * 3 + 2] = 1;
    }
    // Contiguous shares, the calling thread's first; sizes differ by at most one character.
    const bound = (t: number) => Math.round((t * count) / threads);
    // What slotCalls index: the names on this thread's graph.
    const clipNames = [...graph.clipBindings.keys()], slotNames = graph.slotNames;
    const share = (t: number): CrowdShare => ({
      worker: t, first: bound(t), end: bound(t + 1), componentSpace, buffers, slotNames, clipNames, events, eventsPerCharacter,
    });
    const slice = new CrowdSlice(graph, share(0), kernel);
    const started: Worker[] = [];
    let workersInJavaScript = 0;
    try {
      await Promise.all(Array.from({ length: workers }, (_, w) => {
        const data: CrowdWorkerData = { ...share(w + 1), source: options.source, kernelMemory: kernel?.memory ?? null, threads };
        const worker = new Worker(new URL('./crowd-worker.mjs', import.meta.url), { workerData: data });
        started.push(worker);
        return new Promise<void>((resolve, reject) => {
          worker.once('message', (m: { ready?: true; wasm?: boolean; error?: string }) => {
            if (!m.ready) return reject(new Error(`crowd worker ${w + 1}: ${m.error}`));
            if (m.wasm !== true) workersInJavaScript++;
            resolve();
          });
          worker.once('error', reject);
          worker.once('exit', (code) => reject(new Error(`crowd worker ${w + 1} exited (code ${code}) before it was ready`)));
        });
      }));
    } catch (e) {
      await Promise.all(started.map((w) => w.terminate()));
      throw e;
    }
    for (const worker of started) {
      worker.removeAllListeners();
      // A crowd the program forgets to close must not keep the process alive.
      worker.unref();
    }
    const forwarding = events.length === 0 ? null : { firstCharacters: Array.from({ length: threads }, (_, t) => bound(t)), perCharacter: eventsPerCharacter };
    return new Crowd(graph, count, buffers, slice, started, scratch, slice.wasm && workersInJavaScript === 0, slotNames, clipNames, forwarding);
  }

  /**
   * Sets a parameter of one character, applied before its next update. Throws as
   * AnimGraphInstance.setParameter does for an unknown name or a value of the wrong type.
   */
  setParameter(character: number, name: string, value: ParameterValue): void {
    this.checkWritable(character);
    const scratch = this.scratch;
    scratch.set(name, value);
    const slot = scratch.slotOf(name), width = PARAMETER_WIDTH[scratch.typeOf(name)!];
    const at = character * scratch.values.length + slot;
    for (let s = 0; s < width; s++) this.buffers.parameters[at + s] = scratch.values[slot + s];
    this.buffers.parametersChanged[character] = 1;
  }

  /** A character's current parameter value (what it will use at its next update). */
  getParameter(character: number, name: string): ParameterValue {
    this.checkCharacter(character);
    const scratch = this.scratch;
    const slot = scratch.slotOf(name);
    if (slot < 0) return scratch.get(name); // throws the unknown-parameter error
    const width = PARAMETER_WIDTH[scratch.typeOf(name)!];
    const at = character * scratch.values.length + slot;
    for (let s = 0; s < width; s++) scratch.values[slot + s] = this.buffers.parameters[at + s];
    return scratch.get(name);
  }

  /** Re-initialises a character (as AnimGraphInstance.reset) before its next update. */
  reset(character: number): void {
    this.checkWritable(character);
    this.buffers.resetRequested[character] = 1;
  }

  /**
   * Sets a character's update rate (AnimGraphInstance.setUpdateRate), applied before its next
   * update by the thread that evaluates it: its graph updated and evaluated on one frame in
   * `rate`, its pose interpolated in between (or held, with `{ interpolate: false }`). `phase`
   * (default: the character's index, which spreads contiguous characters of one rate evenly over
   * the frames) picks which frames. Throws a RangeError for a rate or phase out of range, as the
   * instance's does.
   */
  setUpdateRate(character: number, rate: number, phase = character, options: UpdateRateOptions = DEFAULT_UPDATE_RATE_OPTIONS): void {
    this.checkWritable(character);
    checkUpdateRate(rate, phase);
    const interpolate = interpolatesSkipped(options);
    this.buffers.updateRates[character * 3] = rate;
    this.buffers.updateRates[character * 3 + 1] = normalizePhase(phase, rate);
    this.buffers.updateRates[character * 3 + 2] = interpolate ? 1 : 0;
    this.buffers.updateRateChanged[character] = 1;
  }

  /**
   * Plays clip `clip` in slot `slot` of one character (AnimGraphInstance.playSlot), before its next
   * update, after its parameters, reset and update rate; calls made between two updates play in
   * the order they were made, CROWD_SLOT_CALLS (8) of them at most (with stopSlot's). Throws as the
   * instance's does (an unknown slot or clip, options out of range), and a RangeError past the 8th
   * call, before anything changes. Allocates nothing, given options of one shape or none.
   */
  playSlot(character: number, slot: string, clip: string, options?: SlotPlayOptions): void {
    const slotIndex = this.slotIndex(character, slot);
    const clipIndex = this.clipNames.indexOf(clip);
    if (clipIndex < 0) throw unknownClipError(this.graph.name, slot, clip);
    const resolved = this.slotOptions;
    resolveSlotPlay(slot, options, resolved);
    const calls = this.buffers.slotCalls, at = this.queueSlotCall(character, PLAY_SLOT, slotIndex);
    calls[at + 2] = clipIndex;
    calls[at + 3] = resolved.blendIn;
    calls[at + 4] = resolved.blendOut;
    calls[at + 5] = resolved.playRate;
  }

  /**
   * Blends out what plays in slot `slot` of one character over `blendOut` seconds
   * (AnimGraphInstance.stopSlot), in turn with its playSlot calls (see playSlot). Throws as the
   * instance's does, and past the 8th call.
   */
  stopSlot(character: number, slot: string, blendOut = 0.2): void {
    const slotIndex = this.slotIndex(character, slot);
    checkSlotStop(slot, blendOut);
    this.buffers.slotCalls[this.queueSlotCall(character, STOP_SLOT, slotIndex) + 4] = blendOut;
  }

  /**
   * Whether a clip played in slot `slot` of one character (AnimGraphInstance.isSlotPlaying) at the
   * end of its last update, whichever thread evaluates it: calls made since are not counted until
   * its next update. Throws for an unknown slot or character.
   */
  isSlotPlaying(character: number, slot: string): boolean {
    this.checkCharacter(character);
    const index = this.slotNames.indexOf(slot);
    if (index < 0) throw unknownSlotError(this.graph.name, slot, this.slotNames);
    return this.buffers.slotPlaying[character * this.slotNames.length + index] === 1;
  }

  /** The index of `slot` in slotNames, once the character, the slot and room for another call are checked. */
  private slotIndex(character: number, slot: string): number {
    this.checkWritable(character);
    const index = this.slotNames.indexOf(slot);
    if (index < 0) throw unknownSlotError(this.graph.name, slot, this.slotNames);
    if (this.buffers.slotCallCount[character] >= CROWD_SLOT_CALLS) {
      throw new RangeError(`character ${character} has ${CROWD_SLOT_CALLS} slot calls waiting for its next update, the most a crowd keeps`);
    }
    return index;
  }

  /** Appends a call of `kind` on slot `slotIndex` to character `character`'s (checked by slotIndex); returns where its numbers go. */
  private queueSlotCall(character: number, kind: number, slotIndex: number): number {
    const at = (character * CROWD_SLOT_CALLS + this.buffers.slotCallCount[character]++) * SLOT_CALL_NUMBERS;
    this.buffers.slotCalls[at] = kind;
    this.buffers.slotCalls[at + 1] = slotIndex;
    return at;
  }

  /** A character's update rate (what it will use at its next update). */
  getUpdateRate(character: number): number {
    this.checkCharacter(character);
    return this.buffers.updateRates[character * 3];
  }

  /**
   * Advances every character by `deltaTime` seconds (negative, NaN or infinite count as 0) and
   * evaluates it; returns when all the poses are in the shared arrays, after emitting the frame's
   * forwarded events on `events`. Throws if called from one of those listeners (the next frame
   * would overwrite the events being delivered): call it after `update` returns.
   */
  update(deltaTime: number): void {
    this.checkOpen();
    if (this.dispatching) throw new Error('Crowd.update called from a listener of its events; call it after update returns');
    const b = this.buffers, control = b.control;
    this.dispatcher?.clear();
    b.frame[0] = deltaTime > 0 && Number.isFinite(deltaTime) ? deltaTime : 0;
    this.startWorkers();
    // The calling thread's own error waits for the workers too: the next frame must not start
    // while they are still in this one.
    let error: unknown = null;
    try {
      this.slice.run();
    } catch (e) {
      error = e;
    }
    this.awaitWorkers();
    if (error !== null) throw error;
    const failed = Atomics.load(control, FAILED);
    if (failed !== 0) {
      const text = new TextDecoder().decode(b.failure.slice()).replace(/\0+$/, '');
      throw new Error(`crowd worker ${failed} failed in a frame; close the crowd. ${text}`);
    }
    if (this.dispatcher !== null) {
      this.dispatching = true;
      try {
        this.dispatcher.dispatch();
      } finally {
        this.dispatching = false;
      }
    }
  }

  /**
   * A diagnostic: calls `frame` `frames` times (each call runs one frame of yours: whatever you set,
   * then `update` once) and returns the bytes each thread allocated per frame meanwhile, the
   * calling thread's first (your `frame` included), then each worker's (V8's young generation and
   * large objects, garbage collections counted). A warm crowd's frame allocates nothing, so the
   * workers' figures should be 0 but for a fraction of a byte (the measurement's own); more shows
   * garbage made in the frame loop. Measure once the crowd is warm: the first frames of a process
   * run unoptimised code, which allocates.
   */
  measureAllocation(frames: number, frame: () => void): number[] {
    this.checkOpen();
    if (this.measuring) throw new Error('Crowd.measureAllocation called from its own frame');
    const b = this.buffers, control = b.control;
    b.allocation.fill(0);
    Atomics.store(control, MEASURING, MEASURE_ON);
    this.measuring = true;
    try {
      b.allocation[0] = measureThreadAllocation(frames, frame);
    } finally {
      this.measuring = false;
      // The workers close their windows without running a frame.
      Atomics.store(control, MEASURING, MEASURE_END);
      this.startWorkers();
      this.awaitWorkers();
      Atomics.store(control, MEASURING, MEASURE_OFF);
    }
    return Array.from(b.allocation);
  }

  /** Wakes the worker threads for a frame (or for what control[MEASURING] asks). */
  private startWorkers(): void {
    if (this.workerCount === 0) return;
    const control = this.buffers.control;
    Atomics.store(control, DONE, 0);
    Atomics.add(control, SEQUENCE, 1);
    Atomics.notify(control, SEQUENCE);
  }

  /** Returns when every worker thread has finished what startWorkers woke it for. */
  private awaitWorkers(): void {
    const control = this.buffers.control, workers = this.workerCount;
    for (let done = Atomics.load(control, DONE); done < workers; done = Atomics.load(control, DONE)) {
      Atomics.wait(control, DONE, done);
    }
  }

  /** The instance of a character the calling thread evaluates (for its debug tree or events), else undefined. */
  instanceOf(character: number): AnimGraphInstance | undefined {
    return character >= this.slice.first && character < this.slice.end ? this.slice.instances[character - this.slice.first] : undefined;
  }

  /** Stops the worker threads. The shared arrays keep the last frame's poses. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const control = this.buffers.control;
    Atomics.store(control, STOP, 1);
    Atomics.add(control, SEQUENCE, 1);
    Atomics.notify(control, SEQUENCE);
    await Promise.all(this.workers.map((w) => new Promise<void>((resolve) => {
      w.once('exit', () => resolve());
      w.ref(); // unref'd at create: the exit must keep the process waiting for it
      // A worker stuck in a frame (it never is: the frame loop does not throw) is stopped anyway.
      setTimeout(() => void w.terminate(), 1000).unref();
    })));
  }

  /** checkCharacter for a call that changes a character: after close() it would do nothing, silently. */
  private checkWritable(character: number): void {
    this.checkOpen();
    this.checkCharacter(character);
  }

  /** Throws for a call that needs the workers (or would be lost without them) once close() has run. */
  private checkOpen(): void {
    if (this.closed) throw new Error('the crowd is closed');
  }

  private checkCharacter(character: number): void {
    if (typeof character !== 'number') {
      // A string "0" was reported as a character that does not exist.
      throw new AnimGraphError('invalid-argument', `a character is given by its index, a number from 0 to ${this.count - 1}, not ${describeIndex(character)}`);
    }
    if (!Number.isInteger(character) || character < 0 || character >= this.count) {
      throw new RangeError(`no character ${character}: the crowd has characters 0 to ${this.count - 1}`);
    }
  }
}

/** What was given as a character index that is not a number, for the error. */
function describeIndex(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return `a string (${describeValue(value)})`;
  return `${typeof value === 'object' ? 'an object' : `a ${typeof value}`} (${describeValue(value)})`;
}
