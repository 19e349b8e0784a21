import { refillableSlotOptions, type AnimGraph, type AnimGraphInstance } from '../runtime/graph/graph.ts';
import { composeInGroups, createCharacter, kernelPosePool, runCharacterFrame } from '../runtime/graph/instance-batch.ts';
import type { SamplingKernel } from '../runtime/kernel/sampling-kernel.ts';
import { Parameters } from '../runtime/node/parameters.ts';
import type { UpdateRateOptions } from '../runtime/graph/update-rate.ts';
import { CrowdEventRecorder } from './crowd-events.ts';
import {
  CROWD_SLOT_CALLS, JUMP_TO_SECTION, nonFiniteReport, PLAY_MONTAGE, PLAY_SLOT, SAVE_POSE_SNAPSHOT, SLOT_CALL_NUMBERS, STOP_MONTAGE, type CrowdBuffers, type CrowdShare,
} from './crowd-shared.ts';
import type { Montage } from '../runtime/core/montage.ts';

/** setUpdateRate's options as the slices apply them (made once: see CONTRIBUTING.md, "Numbers in the frame loop"). */
const INTERPOLATE: UpdateRateOptions = { interpolate: true }, HOLD: UpdateRateOptions = { interpolate: false };

/**
 * The characters [first, end) of a crowd that one thread evaluates: their instances, and the
 * copying between them and the shared arrays. Allocates nothing per frame.
 */
export class CrowdSlice {
  readonly instances: AnimGraphInstance[] = [];
  readonly first: number;
  readonly end: number;
  /** The thread (CrowdShare.worker): 0 the calling thread. */
  private readonly thread: number;
  private readonly componentSpace: boolean;
  private readonly buffers: CrowdBuffers;
  /** The names slotCalls index (CrowdShare). */
  private readonly slotNames: readonly string[];
  private readonly clipNames: readonly string[];
  private readonly poseSnapshotNames: readonly string[];
  /** The montages the share's montageNames name, on this thread's graph. */
  private readonly montages: readonly Montage[];
  /** A playMontage's options, made once and refilled per call. */
  private readonly montageOptions = { section: '', rate: 0.5 };
  /** For each of slotNames, its index in this thread's graph's slotNames (isSlotPlayingAt). */
  private readonly slotIndices: Int32Array;
  /** Whether the characters' component poses are composed in the kernel, a group at a time (composeInGroups). */
  private readonly composesInKernel: boolean;
  /** Whether each character's frame is checked for numbers that are not finite (CrowdShare.checkFinite). */
  private readonly checkFinite: boolean;
  private readonly boneCount: number;
  /** Doubles of a character's row in the crowd's parameters (the declared parameters'). */
  private readonly parameterWidth: number;
  /** CurveInputs.drivenSlots of the graph: slots the rows do not set; null when nothing binds a curve. */
  private readonly drivenSlots: Uint8Array | null;

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
    this.thread = share.worker;
    this.componentSpace = componentSpace;
    this.buffers = buffers;
    this.slotNames = share.slotNames;
    this.clipNames = share.clipNames;
    this.poseSnapshotNames = share.poseSnapshotNames;
    this.montages = share.montageNames.map((name) => graph.montages.get(name)!);
    this.checkFinite = share.checkFinite;
    this.drivenSlots = graph.curveInputs?.drivenSlots ?? null;
    this.parameterWidth = graph.curveInputs?.declaredSize ?? new Parameters(graph.parameterDefinitions).values.length;
    // The calling thread's slot names as this thread's graph orders them (-1 for one it lacks: never playing).
    const own = graph.slotNames;
    this.slotIndices = Int32Array.from(share.slotNames, (name) => own.indexOf(name));
    const n = graph.skeleton.boneCount;
    this.boneCount = n;
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

  /** Plays character i's waiting slot calls (and pose snapshot saves) on its instance, in the order they were made. */
  private runSlotCalls(instance: AnimGraphInstance, i: number): void {
    const b = this.buffers, calls = b.slotCalls, count = b.slotCallCount[i], options = this.slotOptions;
    for (let k = 0, at = i * CROWD_SLOT_CALLS * SLOT_CALL_NUMBERS; k < count; k++, at += SLOT_CALL_NUMBERS) {
      if (calls[at] === SAVE_POSE_SNAPSHOT) {
        instance.savePoseSnapshot(this.poseSnapshotNames[calls[at + 1]]);
        continue;
      }
      if (calls[at] >= PLAY_MONTAGE) {
        this.runMontageCall(instance, calls, at);
        continue;
      }
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

  /** A montage call (see CrowdBuffers.slotCalls), its numbers copied rather than passed. */
  private runMontageCall(instance: AnimGraphInstance, calls: Float64Array, at: number): void {
    const kind = calls[at], index = calls[at + 1];
    if (kind === STOP_MONTAGE) {
      const blendOut = calls[at + 2];
      if (blendOut < 0) instance.stopMontage(undefined, index < 0 ? undefined : this.montages[index].name);
      else instance.stopMontage(blendOut, index < 0 ? undefined : this.montages[index].name);
      return;
    }
    const montage = this.montages[index], section = montage.sectionNames[calls[at + 2]];
    if (kind === JUMP_TO_SECTION) {
      instance.jumpToSection(section, montage.name);
      return;
    }
    const options = this.montageOptions;
    options.section = section;
    options.rate = calls[at + 3];
    instance.playMontage(montage.name, options);
  }

  /**
   * Applies each character's pending parameters, reset, update rate and slot calls, then advances
   * it by the frame's delta time and evaluates it, character after character (so that its events,
   * those of its slot calls included, come in character order).
   */
  run(): void {
    const b = this.buffers, instances = this.instances;
    if (this.checkFinite) b.nonFiniteCharacters[this.thread] = 0;
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

  /**
   * Publishes what the share's character k's update left in its slots (Crowd.isSlotPlaying) and,
   * when checking, whether its pose and root motion are finite (its component pose is composed
   * from them).
   */
  afterFrame(k: number): void {
    if (this.checkFinite) this.checkFiniteRow(this.first + k);
    const slots = this.slotNames.length;
    if (slots === 0) return;
    const instance = this.instances[k], playing = this.buffers.slotPlaying;
    for (let s = 0, at = (this.first + k) * slots; s < slots; s++) playing[at + s] = instance.isSlotPlayingAt(this.slotIndices[s]) ? 1 : 0;
  }

  /**
   * Writes character i's finiteReports entry: 0, or where its first number that is not finite is
   * (root motion first, then bone by bone: translation, rotation, scale; see firstNonFinite), and
   * counts it in the thread's nonFiniteCharacters. `x * 0` is 0 for a finite number and NaN for
   * the others, so sums of them over the character's rows tell whether to look further.
   */
  private checkFiniteRow(i: number): void {
    const b = this.buffers, n = this.boneCount, t = b.translations, r = b.rotations, s = b.scales, m = b.rootMotion;
    // Ten sums, each a chain of additions of its own: one sum would wait on each addition in turn.
    let t0 = m[i * 4] * 0 + m[i * 4 + 1] * 0, t1 = m[i * 4 + 2] * 0 + m[i * 4 + 3] * 0, t2 = 0, s0 = 0, s1 = 0, s2 = 0, r0 = 0, r1 = 0, r2 = 0, r3 = 0;
    for (let bone = i * n, end = bone + n; bone < end; bone++) {
      const at3 = bone * 3, at4 = bone * 4;
      t0 += t[at3] * 0;
      t1 += t[at3 + 1] * 0;
      t2 += t[at3 + 2] * 0;
      s0 += s[at3] * 0;
      s1 += s[at3 + 1] * 0;
      s2 += s[at3 + 2] * 0;
      r0 += r[at4] * 0;
      r1 += r[at4 + 1] * 0;
      r2 += r[at4 + 2] * 0;
      r3 += r[at4 + 3] * 0;
    }
    if (t0 + t1 + t2 + s0 + s1 + s2 + r0 + r1 + r2 + r3 === 0) {
      b.finiteReports[i] = 0;
      return;
    }
    b.finiteReports[i] = this.firstNonFinite(i);
    b.nonFiniteCharacters[this.thread]++;
  }

  /** Where character i's first number that is not finite is, as a finiteReports entry. */
  private firstNonFinite(i: number): number {
    const b = this.buffers, n = this.boneCount, finite = Number.isFinite;
    for (let c = i * 4; c < i * 4 + 4; c++) if (!finite(b.rootMotion[c])) return nonFiniteReport(n, 0);
    for (let bone = 0; bone < n; bone++) {
      const at3 = (i * n + bone) * 3, at4 = (i * n + bone) * 4;
      for (let c = 0; c < 3; c++) if (!finite(b.translations[at3 + c])) return nonFiniteReport(bone, 0);
      for (let c = 0; c < 4; c++) if (!finite(b.rotations[at4 + c])) return nonFiniteReport(bone, 1);
      for (let c = 0; c < 3; c++) if (!finite(b.scales[at3 + c])) return nonFiniteReport(bone, 2);
    }
    return nonFiniteReport(n, 0); // not reached: the sum found one
  }

  /** Applies the pending parameters, reset, update rate and slot calls of the share's character k. */
  beforeFrame(k: number): void {
    const b = this.buffers;
    const i = this.first + k;
    const instance = this.instances[k];
    if (b.parametersChanged[i] === 1) {
      // Parameters are read by nodes from this array every frame, so writing it is setting them
      // (no parameterChanged events: their listeners would be on another thread).
      // Only the declared parameters' slots are in the rows; those a curve drives are the
      // character's own (the calling thread's rows hold their defaults), and stay as its last update set them.
      const values = instance.parameterValues, driven = this.drivenSlots;
      const width = this.parameterWidth, from = i * width;
      if (driven === null) for (let s = 0; s < width; s++) values[s] = b.parameters[from + s];
      else for (let s = 0; s < width; s++) if (driven[s] === 0) values[s] = b.parameters[from + s];
      b.parametersChanged[i] = 0;
    }
    if (b.resetRequested[i] === 1) {
      instance.reset();
      b.resetRequested[i] = 0;
    }
    if (b.updateRateChanged[i] === 1) {
      // Checked when set; the first rate above 1 allocates the character's interpolation poses, once.
      // A restarted share counts its updates from its restart: the offset keeps its evaluation frames.
      const rate = b.updateRates[i * 3], phase = b.updateRates[i * 3 + 1] + ((b.phaseOffsets[this.thread] % rate) | 0);
      instance.setUpdateRate(rate, phase, b.updateRates[i * 3 + 2] === 1 ? INTERPOLATE : HOLD);
      b.updateRateChanged[i] = 0;
    }
    if (b.slotCallCount[i] > 0) this.runSlotCalls(instance, i);
  }
}
