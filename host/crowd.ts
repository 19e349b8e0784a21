import { checkSlotStop, refillableSlotOptions, resolveSlotPlay, unknownClipError, unknownSlotError, type AnimGraph, type AnimGraphInstance, type SlotPlayOptions } from '../runtime/graph/graph.ts';
import {
  refillableMontageArgs, resolveMontagePlay, unknownMontageError, unknownSectionError, type MontagePlayOptions,
} from '../runtime/graph/slot-play.ts';
import type { Montage } from '../runtime/core/montage.ts';
import { characterArrays, FRAME_NUMBERS_ARRAY, kernelPoseLengths } from '../runtime/graph/instance-batch.ts';
import { SamplingKernel, type KernelPrecision } from '../runtime/kernel/sampling-kernel.ts';
import { describeValue, PARAMETER_WIDTH, Parameters, type ParameterValue } from '../runtime/node/parameters.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { checkUpdateRate, DEFAULT_UPDATE_RATE_OPTIONS, interpolatesSkipped, normalizePhase, type UpdateRateOptions } from '../runtime/graph/update-rate.ts';
import { CrowdEventDispatcher, CrowdEventEmitter, type NonFiniteAttribute } from './crowd-events.ts';
import { measureAllocation as measureThreadAllocation } from './allocation.ts';
import type { CrowdWorkerError } from './crowd-errors.ts';
import {
  buildCrowdGraph, CROWD_SLOT_CALLS, crowdBuffers, MEASURE_END, MEASURE_OFF, MEASURE_ON, MEASURING, PLAY_SLOT, SAVE_POSE_SNAPSHOT, SLOT_CALL_NUMBERS, STOP_SLOT,
  PLAY_MONTAGE, STOP_MONTAGE, JUMP_TO_SECTION,
  type CrowdBuffers, type CrowdShare, type CrowdWorkerData,
} from './crowd-shared.ts';
import { CrowdSlice } from './crowd-slice.ts';
import { CrowdThreads } from './crowd-threads.ts';
import { checkCrowdOptions, type CrowdOptions } from './crowd-options.ts';

// Where these were before the crowd's code was split by job (crowd-options.ts: the options;
// crowd-shared.ts: what the threads share; crowd-slice.ts: a thread's characters;
// crowd-worker-loop.ts: a worker's frames; crowd-threads.ts: the calling thread's side of the
// workers): importable from here as ever.
export { DEFAULT_WORKER_TIMEOUT, MIN_CHARACTERS_PER_THREAD, MIN_CORES_FOR_WORKERS, defaultWorkers, type CrowdOptions } from './crowd-options.ts';
export { buildCrowdGraph, CROWD_SLOT_CALLS, type CrowdGraphSource, type CrowdShare, type CrowdWorkerData } from './crowd-shared.ts';
export { CrowdSlice } from './crowd-slice.ts';
export { crowdWorkerLoop } from './crowd-worker-loop.ts';
export { CrowdWorkerError, type CrowdWorkerErrorCode } from './crowd-errors.ts';

/** nonFinitePose's attribute by a finiteReports entry's remainder (see nonFiniteReport). */
const ATTRIBUTES: readonly NonFiniteAttribute[] = ['translation', 'rotation', 'scale'];

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
  /**
   * The cores the machine offers this process (Node's availableParallelism) when the crowd was
   * made: what the default number of workers was chosen from (see CrowdOptions.workers).
   */
  readonly cores: number;
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
   * What the crowd samples in: 'single' when CrowdOptions.precision asked for it and every thread
   * samples in the kernel (`wasm`), else 'double'.
   */
  readonly precision: KernelPrecision;
  /**
   * The characters' forwarded instance events (CrowdOptions.events), each with the character's
   * index first, emitted by `update` once the frame is over, on the calling thread: characters in
   * order, each one's in the order they fired. `eventsDropped` tells how many a frame lost;
   * `nonFinitePose` (CrowdOptions.checkFinite) names each character whose frame was not finite, and
   * `workerFailed` (CrowdOptions.restartWorkers) each worker that failed.
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
  private readonly threads: CrowdThreads;
  /** Per thread, the first character of its share, then `count`. */
  private readonly shareBounds: Int32Array;
  /** Checks and converts values as an instance's setParameter does. */
  private readonly scratch: Parameters;
  /** playSlot's options resolved (made once, refilled per call). */
  private readonly slotOptions = refillableSlotOptions();
  /** CrowdOptions.restartWorkers and checkFinite. */
  private readonly restartsWorkers: boolean;
  private readonly checksFinite: boolean;
  /** Updates run so far (a restarted worker's characters count theirs from their restart: CrowdThreads.join). */
  private updates = 0;
  /** Worker failures not yet reported (thrown, or emitted as workerFailed): null when none. */
  private unreported: CrowdWorkerError[] | null = null;
  private closed = false;

  private constructor(
    graph: AnimGraph, count: number, buffers: CrowdBuffers, slice: CrowdSlice, threads: CrowdThreads, scratch: Parameters, wasm: boolean,
    /** The graph's slot names, which playSlot and stopSlot take. */
    readonly slotNames: readonly string[],
    private readonly clipNames: readonly string[],
    shareBounds: Int32Array,
    options: { perCharacter: number; forwards: boolean; restartWorkers: boolean; checkFinite: boolean; cores: number; precision: KernelPrecision },
  ) {
    this.graph = graph;
    this.count = count;
    this.boneCount = graph.skeleton.boneCount;
    this.buffers = buffers;
    this.slice = slice;
    this.threads = threads;
    this.workerCount = threads.count;
    this.cores = options.cores;
    this.scratch = scratch;
    this.translations = buffers.translations;
    this.rotations = buffers.rotations;
    this.scales = buffers.scales;
    this.componentTranslations = buffers.componentTranslations;
    this.componentRotations = buffers.componentRotations;
    this.componentScales = buffers.componentScales;
    this.rootMotion = buffers.rootMotion;
    this.wasm = wasm;
    this.precision = wasm ? options.precision : 'double';
    this.shareBounds = shareBounds;
    this.restartsWorkers = options.restartWorkers;
    this.checksFinite = options.checkFinite;
    const firstCharacters = Array.from(shareBounds.subarray(0, threads.count + 1));
    const dispatcher = options.forwards ? new CrowdEventDispatcher(buffers.events, firstCharacters, options.perCharacter, this.events, threads.running) : null;
    this.dispatcher = dispatcher;
    if (dispatcher !== null) threads.onRestart = (worker) => dispatcher.forget(worker);
  }

  /** Builds the graph on every thread and one instance per character; rejects if any thread fails to. */
  static async create(options: CrowdOptions): Promise<Crowd> {
    const { count, cores, workers, componentSpace, precision, events, eventsPerCharacter, timeout, restartWorkers, checkFinite } = checkCrowdOptions(options);
    const source = options.source;
    const graph = await buildCrowdGraph(options.source);
    const n = graph.skeleton.boneCount;
    const scratch = new Parameters(graph.parameterDefinitions);
    const width = scratch.values.length;
    const threads = workers + 1;
    // The poses in a shared WebAssembly memory with the clips, where every thread's sampling kernel
    // works on them; plain shared arrays where the engine cannot.
    const kernel = SamplingKernel.createShared(graph.skeleton, [...graph.clipBindings.values()], kernelPoseLengths(n, count, componentSpace, true, graph.frameNumberCount, threads), threads, 1 << 30, precision);
    const buffers = characterArrays('a crowd', count, n, componentSpace, () => crowdBuffers(
      count, n, width, graph.slotNames.length, threads, componentSpace, { names: events, perCharacter: eventsPerCharacter }, checkFinite, kernel?.poseArrays,
    ));
    for (let i = 0; i < count; i++) buffers.parameters.set(scratch.values, i * width);
    // Contiguous shares, the calling thread's first; sizes differ by at most one character.
    const bounds = Int32Array.from({ length: threads + 1 }, (_, t) => Math.round((t * count) / threads));
    // What slotCalls index: the names on this thread's graph.
    const clipNames = [...graph.clipBindings.keys()], slotNames = graph.slotNames, poseSnapshotNames = graph.poseSnapshotNames;
    const montageNames = [...graph.montages.keys()];
    const share = (t: number): CrowdShare => ({
      worker: t, first: bounds[t], end: bounds[t + 1], componentSpace, buffers, slotNames, clipNames, montageNames, poseSnapshotNames, events, eventsPerCharacter, checkFinite,
    });
    const slice = new CrowdSlice(graph, share(0), kernel);
    const data = Array.from({ length: workers }, (_, w): CrowdWorkerData => ({ ...share(w + 1), source, kernelMemory: kernel?.memory ?? null, threads, precision }));
    const frameNumbers = kernel === null ? null : { array: kernel.poseArrays[FRAME_NUMBERS_ARRAY], perCharacter: graph.frameNumberCount };
    const started = await CrowdThreads.start(data, timeout, buffers.control, buffers.phaseOffsets, frameNumbers, restartWorkers);
    return new Crowd(graph, count, buffers, slice, started.threads, scratch, slice.wasm && started.inJavaScript === 0, slotNames, clipNames, bounds, {
      perCharacter: eventsPerCharacter, forwards: events.length > 0, restartWorkers, checkFinite, cores, precision,
    });
  }

  /**
   * Sets a parameter of one character, applied before its next update. Throws as
   * AnimGraphInstance.setParameter does for an unknown name, a value of the wrong type or a
   * parameter that follows a curve.
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

  /**
   * A character's current parameter value (what it will use at its next update). Throws as
   * setParameter does for a parameter that follows a curve: its value is the character's own, on
   * the thread that evaluates it (read it from `instanceOf` on the calling thread's share).
   */
  getParameter(character: number, name: string): ParameterValue {
    this.checkCharacter(character);
    const scratch = this.scratch;
    scratch.refuseCurveDriven(name);
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
   * Plays montage `montage` on one character (AnimGraphInstance.playMontage), before its next
   * update, in turn with its slot calls (and counted with them against CROWD_SLOT_CALLS). Throws as
   * the instance's does, and past the 8th call, before anything changes.
   */
  playMontage(character: number, montage: string, options?: MontagePlayOptions): void {
    const m = this.montage(character, 'playMontage', montage);
    const resolved = this.montageArgs;
    resolveMontagePlay(m, options, resolved);
    const calls = this.buffers.slotCalls, at = this.queueSlotCall(character, PLAY_MONTAGE, this.montageIndex);
    calls[at + 2] = resolved.section;
    calls[at + 3] = resolved.rate;
  }

  /**
   * Jumps montage `montage` of one character to section `section` (AnimGraphInstance.jumpToSection,
   * the montage named), in turn with its slot calls. Throws for an unknown montage or section.
   */
  jumpToSection(character: number, montage: string, section: string): void {
    const m = this.montage(character, 'jumpToSection', montage);
    const index = m.sectionIndex(section);
    if (index < 0) throw unknownSectionError('jumpToSection', m, section);
    this.buffers.slotCalls[this.queueSlotCall(character, JUMP_TO_SECTION, this.montageIndex) + 2] = index;
  }

  /**
   * Blends out montage `montage` (default: every montage playing) of one character over `blendOut`
   * seconds (default the montages' own), as AnimGraphInstance.stopMontage, in turn with its slot calls.
   */
  stopMontage(character: number, blendOut?: number, montage?: string): void {
    let index = -1;
    if (montage !== undefined) {
      this.montage(character, 'stopMontage', montage);
      index = this.montageIndex;
    } else this.queueRoom(character, 0);
    if (blendOut !== undefined && (typeof blendOut !== 'number' || !(blendOut >= 0 && blendOut < Infinity))) {
      throw new AnimGraphError(typeof blendOut !== 'number' ? 'invalid-argument' : 'out-of-range', `stopMontage: blendOut is seconds, 0 or more (got ${describeValue(blendOut)})`);
    }
    this.buffers.slotCalls[this.queueSlotCall(character, STOP_MONTAGE, index) + 2] = blendOut === undefined ? -1 : blendOut;
  }

  /** The montage named `name`, its index left in montageIndex, once the character and room for a call are checked. */
  private montage(character: number, call: string, name: string): Montage {
    const m = this.graph.montages.get(name);
    this.montageIndex = this.queueRoom(character, m === undefined ? -1 : this.montageNames.indexOf(name));
    if (m === undefined) throw unknownMontageError(this.graph.name, call, name, this.montageNames);
    return m;
  }

  /** What montage() found. */
  private montageIndex = 0;
  /** playMontage's options resolved (made once, refilled per call). */
  private readonly montageArgs = refillableMontageArgs();
  /** The graph's montage names, which montage calls index. */
  private get montageNames(): readonly string[] {
    return this.montageNameList ??= [...this.graph.montages.keys()];
  }
  private montageNameList: readonly string[] | null = null;

  /**
   * Saves the pose one character showed last (AnimGraphInstance.savePoseSnapshot) under `name`,
   * before its next update, in turn with its playSlot and stopSlot calls (and counted with them
   * against CROWD_SLOT_CALLS), by the thread that evaluates it. Only the names the graph's
   * PoseSnapshot nodes read (graph.poseSnapshotNames), whose storage each character has from its
   * start: another is an AnimGraphError (`unknown-name`), as a full queue is (`out-of-range`), before
   * anything changes. Allocates nothing.
   */
  savePoseSnapshot(character: number, name: string): void {
    const index = this.queueRoom(character, this.graph.poseSnapshotNames.indexOf(name));
    if (index < 0) {
      const known = this.graph.poseSnapshotNames;
      throw new AnimGraphError('unknown-name', `graph '${this.graph.name}' has no PoseSnapshot node reading '${String(name)}' (snapshots: ${known.length > 0 ? known.join(', ') : 'none'})`);
    }
    this.queueSlotCall(character, SAVE_POSE_SNAPSHOT, index);
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
    const index = this.queueRoom(character, this.slotNames.indexOf(slot));
    if (index < 0) throw unknownSlotError(this.graph.name, slot, this.slotNames);
    return index;
  }

  /** `index`, once the character and (for an index from 0) room for another queued call are checked. */
  private queueRoom(character: number, index: number): number {
    this.checkWritable(character);
    if (index >= 0 && this.buffers.slotCallCount[character] >= CROWD_SLOT_CALLS) {
      throw new AnimGraphError('out-of-range', `character ${character} has ${CROWD_SLOT_CALLS} slot calls waiting for its next update, the most a crowd keeps`);
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
   * forwarded events and nonFinitePose reports on `events`. Throws if called from one of those
   * listeners (the next frame would overwrite the events being delivered): call it after `update`
   * returns.
   *
   * Waits for the worker threads at most CrowdOptions.workerTimeout once its own share is done. A
   * worker that exited, timed out or threw in the frame is a CrowdWorkerError, thrown once the
   * frame's events are delivered (or emitted as `workerFailed`, with restartWorkers): the other
   * characters have run the frame, and later updates run without that worker until restartWorker.
   */
  update(deltaTime: number): void {
    this.checkOpen();
    if (this.dispatching) throw new AnimGraphError('invalid-state', 'Crowd.update called from a listener of its events; call it after update returns');
    const b = this.buffers, threads = this.threads;
    threads.join(this.updates);
    this.dispatcher?.clear();
    b.frame[0] = deltaTime > 0 && Number.isFinite(deltaTime) ? deltaTime : 0;
    threads.wake();
    // The calling thread's own error waits for the workers too: the next frame must not start
    // while they are still in this one.
    let error: unknown = null;
    try {
      this.slice.run();
    } catch (e) {
      error = e;
    }
    const failures = threads.wait();
    this.updates++;
    if (failures !== null) this.failed(failures);
    if (error !== null) throw error;
    if (this.dispatcher !== null || this.checksFinite) this.deliver();
    if (this.unreported !== null) this.reportFailures();
  }

  /** Emits the frame's forwarded events, then its nonFinitePose reports. */
  private deliver(): void {
    this.dispatching = true;
    try {
      this.dispatcher?.dispatch();
      if (this.checksFinite) this.reportNonFinite();
    } finally {
      this.dispatching = false;
    }
  }

  /** Emits nonFinitePose for each character of a running thread whose frame the check found not finite, in order. */
  private reportNonFinite(): void {
    const b = this.buffers, counts = b.nonFiniteCharacters, reports = b.finiteReports, running = this.threads.running, bounds = this.shareBounds;
    for (let t = 0; t <= this.workerCount; t++) {
      if (counts[t] === 0 || running[t] !== 1) continue;
      for (let i = bounds[t]; i < bounds[t + 1]; i++) {
        const report = reports[i] - 1;
        if (report < 0) continue;
        const bone = (report / 3) | 0;
        if (bone === this.boneCount) this.events.emit('nonFinitePose', i, null, 'rootMotion');
        else this.events.emit('nonFinitePose', i, this.graph.skeleton.boneNames[bone], ATTRIBUTES[report - bone * 3]);
      }
    }
  }

  /** Keeps failures to report at the end of the update (or the next one, if a listener threw); restarts their workers with restartWorkers. */
  private failed(failures: CrowdWorkerError[]): void {
    this.unreported = this.unreported === null ? failures : [...this.unreported, ...failures];
    if (!this.restartsWorkers) return;
    for (const failure of failures) {
      this.threads.restart(failure.worker).catch((e: CrowdWorkerError) => {
        if (!this.closed) this.events.emit('workerFailed', e);
      });
    }
  }

  /** Throws the failures kept (the first, with the others in its `others`), or emits each as workerFailed. */
  private reportFailures(): void {
    const failures = this.unreported!;
    this.unreported = null;
    if (!this.restartsWorkers) {
      failures[0].others = failures.slice(1);
      throw failures[0];
    }
    this.dispatching = true;
    try {
      for (const failure of failures) this.events.emit('workerFailed', failure);
    } finally {
      this.dispatching = false;
    }
  }

  /**
   * Stops worker `worker` (1-based, as CrowdWorkerError.worker gives it) whatever it is doing, and
   * starts a new thread on its share of the characters; resolves once it is ready, and it takes
   * part in frames from the next update. Its characters start again from their initial state, with
   * the parameter values, update rates and slot calls the crowd holds for them (see docs/crowds.md);
   * the others keep theirs. A failed worker needs it; a running one may be restarted too. Rejects
   * with a `start-failed` CrowdWorkerError if the new thread cannot build its graph; a restart
   * under way is returned again; one that close() interrupts resolves.
   */
  async restartWorker(worker: number): Promise<void> {
    this.checkOpen();
    if (!Number.isInteger(worker) || worker < 1 || worker > this.workerCount) {
      throw new AnimGraphError('out-of-range', `no worker ${describeValue(worker)}: the crowd has ${this.workerCount === 0 ? 'no worker threads' : `workers 1 to ${this.workerCount}`}`);
    }
    return this.threads.restart(worker);
  }

  /**
   * A diagnostic: calls `frame` `frames` times (each call runs one frame of yours: whatever you set,
   * then `update` once) and returns the bytes each thread allocated per frame meanwhile, the
   * calling thread's first (your `frame` included), then each worker's (V8's young generation and
   * large objects, garbage collections counted; NaN for a worker not running at the end). A warm
   * crowd's frame allocates nothing, so the workers' figures should be 0 but for a fraction of a
   * byte (the measurement's own); more shows garbage made in the frame loop. Measure once the
   * crowd is warm: the first frames of a process run unoptimised code, which allocates.
   */
  measureAllocation(frames: number, frame: () => void): number[] {
    this.checkOpen();
    if (this.measuring) throw new AnimGraphError('invalid-state', 'Crowd.measureAllocation called from its own frame');
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
      this.threads.wake();
      const failures = this.threads.wait();
      Atomics.store(control, MEASURING, MEASURE_OFF);
      if (failures !== null) this.failed(failures); // reported by the next update
    }
    const bytes = Array.from(b.allocation);
    for (let t = 1; t < bytes.length; t++) if (this.threads.running[t] !== 1) bytes[t] = NaN;
    return bytes;
  }

  /** The instance of a character the calling thread evaluates (for its debug tree or events), else undefined. */
  instanceOf(character: number): AnimGraphInstance | undefined {
    return character >= this.slice.first && character < this.slice.end ? this.slice.instances[character - this.slice.first] : undefined;
  }

  /** Stops the worker threads, restarts under way included. The shared arrays keep the last frame's poses. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.threads.close();
  }

  /** checkCharacter for a call that changes a character: after close() it would do nothing, silently. */
  private checkWritable(character: number): void {
    this.checkOpen();
    this.checkCharacter(character);
  }

  /** Throws for a call that needs the workers (or would be lost without them) once close() has run. */
  private checkOpen(): void {
    if (this.closed) throw new AnimGraphError('invalid-state', 'the crowd is closed');
  }

  private checkCharacter(character: number): void {
    if (typeof character !== 'number') {
      // A string "0" was reported as a character that does not exist.
      throw new AnimGraphError('invalid-argument', `a character is given by its index, a number from 0 to ${this.count - 1}, not ${describeIndex(character)}`);
    }
    if (!Number.isInteger(character) || character < 0 || character >= this.count) {
      throw new AnimGraphError('out-of-range', `no character ${character}: the crowd has characters 0 to ${this.count - 1}`);
    }
  }
}

/** What was given as a character index that is not a number, for the error. */
function describeIndex(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return `a string (${describeValue(value)})`;
  return `${typeof value === 'object' ? 'an object' : `a ${typeof value}`} (${describeValue(value)})`;
}
