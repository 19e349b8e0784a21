import { describeValue } from '../node/parameters.ts';
import { AnimGraphError } from '../core/errors.ts';
import type { CompiledGraph } from './compiled-graph.ts';
import type { InstanceOutput } from './instance-build.ts';
import { AnimGraphInstance } from './instance.ts';
import { Pose, PosePool, type BatchPoseArrays, type PoseStorage } from '../core/pose.ts';
import { SamplingKernel, type KernelPrecision } from '../kernel/sampling-kernel.ts';
import { ComponentPose } from '../core/component-pose.ts';
import type { Skeleton } from '../core/skeleton.ts';

export type { BatchPoseArrays } from '../core/pose.ts';

/**
 * Character `character`'s rows of `arrays` as an instance's output storage (see
 * AnimGraph.createInstance): the instance then evaluates straight into them, with no copy.
 */
export function characterOutput(arrays: BatchPoseArrays, boneCount: number, character: number, componentSpace: boolean): InstanceOutput {
  const view = (a: Float64Array, width: number): Float64Array => a.subarray(character * boneCount * width, (character + 1) * boneCount * width);
  return {
    local: { translations: view(arrays.translations, 3), rotations: view(arrays.rotations, 4), scales: view(arrays.scales, 3) },
    component: componentSpace
      ? { translations: view(arrays.componentTranslations, 3), rotations: view(arrays.componentRotations, 4), scales: view(arrays.componentScales, 3) }
      : undefined,
  };
}

/**
 * One character's frame as a crowd runs it: updated by deltaTime[0] (see
 * AnimGraphInstance.updateFrom), evaluated into its rows, its component pose computed if
 * `componentSpace`, and its root motion copied to rootMotion[character * 4, character * 4 + 4).
 */
export function runCharacterFrame(
  instance: AnimGraphInstance, deltaTime: Float64Array, componentSpace: boolean, rootMotion: Float64Array, character: number,
): void {
  instance.updateFrom(deltaTime, 0);
  instance.evaluate();
  if (componentSpace) instance.componentPose();
  instance.rootMotionInto(rootMotion, character * 4);
}

/**
 * Temporary poses per pool in a sampling kernel's memory: enough for the usual depth of a graph's
 * temporaries (a layer within a transition within a blend); deeper ones are ordinary poses.
 */
const POOL_POSES_IN_KERNEL = 4;
/** Where kernelPoseLengths puts the interpolation poses' arrays and the pools' among a kernel's poseArrays. */
const INTERPOLATION_ARRAYS = 6, POOL_ARRAYS = 13;
/** Where kernelPoseLengths puts the characters' per-frame numbers among a kernel's poseArrays. */
export const FRAME_NUMBERS_ARRAY = 12;

/**
 * The pose arrays a kernel holds for `count` characters (translations, rotations, scales, then the
 * component ones, empty without `componentSpace`), then those of their update-rate interpolation
 * poses (previous translations, rotations, scales, then the target's: empty without
 * `interpolation`), then the characters' per-frame numbers (`frameNumbers` each:
 * AnimGraph.frameNumberCount), then `pools` pose pools' temporaries (POOL_POSES_IN_KERNEL each):
 * one pool per thread evaluating characters.
 */
export function kernelPoseLengths(
  boneCount: number, count: number, componentSpace: boolean, interpolation: boolean, frameNumbers: number, pools: number,
): number[] {
  const n = boneCount, cs = componentSpace ? count * n : 0, ip = interpolation ? count * n : 0;
  const lengths = [count * n * 3, count * n * 4, count * n * 3, cs * 3, cs * 4, cs * 3, ip * 3, ip * 4, ip * 3, ip * 3, ip * 4, ip * 3, count * frameNumbers];
  for (let p = 0; p < pools * POOL_POSES_IN_KERNEL; p++) lengths.push(n * 3, n * 4, n * 3);
  return lengths;
}

/** A kernel's six arrays from `at` of its poseArrays, as the six arrays of a group of characters. */
export function kernelArrays(kernel: SamplingKernel, at: number): BatchPoseArrays {
  const a = kernel.poseArrays;
  return {
    translations: a[at], rotations: a[at + 1], scales: a[at + 2],
    componentTranslations: a[at + 3], componentRotations: a[at + 4], componentScales: a[at + 5],
  };
}

/**
 * Character `character` of a group (an InstanceBatch, or a Crowd thread's share) whose poses are in
 * `arrays`: an instance evaluating into its rows. With a kernel laid out by kernelPoseLengths, its
 * nodes' temporaries come from `posePool` (the thread's pool in the kernel: kernelPosePool) and its
 * update-rate interpolation poses, when it first goes below full rate, are its rows of the kernel's
 * interpolation arrays, and its per-frame numbers its row of the kernel's (where the kernel reads
 * what nodes keep there).
 */
export function createCharacter(
  graph: CompiledGraph, arrays: BatchPoseArrays, character: number, componentSpace: boolean, kernel: SamplingKernel | null, posePool: PosePool,
): AnimGraphInstance {
  const n = graph.skeleton.boneCount;
  const interpolationStorage = kernel === null || kernel.poseArrays[INTERPOLATION_ARRAYS].length === 0 ? undefined : (): readonly [PoseStorage, PoseStorage] => {
    // previous and target as a character's local and component rows of the interpolation arrays
    const rows = characterOutput(kernelArrays(kernel, INTERPOLATION_ARRAYS), n, character, true);
    return [rows.local!, rows.component!];
  };
  // Every character's row of one array: a view per character would be one more object for its frame to read.
  const frameNumbers = kernel === null || kernel.poseArrays[FRAME_NUMBERS_ARRAY].length === 0 ? undefined : kernel.poseArrays[FRAME_NUMBERS_ARRAY];
  const frameNumbersAt = frameNumbers === undefined ? undefined : character * graph.frameNumberCount;
  const output = characterOutput(arrays, n, character, componentSpace);
  // Before its first update a character shows its skeleton's reference pose: the instance writes its
  // local rows; its component rows (composed only when asked for) get the reference composed once.
  if (output.component !== undefined) {
    const reference = referenceComponent(graph.skeleton), rows = output.component;
    rows.translations.set(reference.translations);
    rows.rotations.set(reference.rotations);
    rows.scales.set(reference.scales);
  }
  return new AnimGraphInstance(graph, { ...output, posePool, interpolationStorage, frameNumbers, frameNumbersAt });
}

/** A skeleton's reference pose in component space, composed once per skeleton. */
const referenceComponents = new WeakMap<Skeleton, ComponentPose>();
function referenceComponent(skeleton: Skeleton): ComponentPose {
  let pose = referenceComponents.get(skeleton);
  if (pose === undefined) {
    pose = new ComponentPose(skeleton);
    pose.setFromLocal(skeleton.referencePose);
    pose.ensureAllComponent();
    referenceComponents.set(skeleton, pose);
  }
  return pose;
}

/**
 * Pool `pool` of a kernel laid out by kernelPoseLengths: a PosePool handing out its poses in the
 * kernel first, so that nodes' temporaries (a layer, a transition's source) are sampled there too.
 */
export function kernelPosePool(kernel: SamplingKernel, boneCount: number, pool: number): PosePool {
  const arrays = kernel.poseArrays;
  return new PosePool(boneCount, Array.from({ length: POOL_POSES_IN_KERNEL }, (_, k) => {
    const at = POOL_ARRAYS + (pool * POOL_POSES_IN_KERNEL + k) * 3;
    return new Pose(boneCount, { translations: arrays[at], rotations: arrays[at + 1], scales: arrays[at + 2] });
  }));
}

/**
 * What runs around each character's frame in composeInGroups, given the character's index in
 * `instances`: before it, a Crowd's pending calls; after it (before the group's component pass), what
 * the crowd publishes of the character's state.
 */
export interface CharacterFrameHooks {
  beforeFrame(k: number): void;
  afterFrame(k: number): void;
}

/**
 * Runs characters' frames in the kernel, component space included, as groups of eight: each
 * group's characters evaluated (each between `hooks`' beforeFrame and afterFrame, if given), then composed
 * together while their local poses are still in the cache (the kernel overlaps their chains of
 * parent-to-child latencies), then marked composed. `first` is the first character's row in `arrays`.
 */
export function composeInGroups(
  kernel: SamplingKernel, instances: readonly AnimGraphInstance[], deltaTime: Float64Array, rootMotion: Float64Array, arrays: BatchPoseArrays, first: number,
  hooks: CharacterFrameHooks | null = null,
): void {
  const count = instances.length;
  for (let start = 0; start < count; start += 8) {
    const end = start + 8 < count ? start + 8 : count;
    for (let k = start; k < end; k++) {
      if (hooks !== null) hooks.beforeFrame(k);
      runCharacterFrame(instances[k], deltaTime, false, rootMotion, first + k);
      if (hooks !== null) hooks.afterFrame(k);
    }
    kernel.composeCharacters(arrays, first + start, end - start);
    for (let k = start; k < end; k++) instances[k].markComponentComposed();
  }
}

/** Arrays of their own for `bones` bones of characters, the component ones empty without `componentSpace`. */
/**
 * `allocate`'s arrays for `count` characters of `bones` bones, or an AnimGraphError
 * (`out-of-range`, the engine's error its `cause`) saying what they needed where the engine refuses
 * them (its own says only "Invalid typed array length" or "Array buffer allocation failed"). `what`
 * names the caller: 'a batch', 'a crowd'.
 */
export function characterArrays<T>(what: string, count: number, bones: number, componentSpace: boolean, allocate: () => T): T {
  try {
    return allocate();
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const bytes = count * bones * (componentSpace ? 160 : 80);
    throw new AnimGraphError('out-of-range', `${what} of ${count} characters of ${bones} bones needs ${(bytes / 2 ** 30).toFixed(1)} GiB for its poses, which this engine could not allocate (${e.message})`, { cause: e });
  }
}

function ownPoseArrays(bones: number, componentSpace: boolean): BatchPoseArrays {
  const cs = componentSpace ? bones : 0;
  return {
    translations: new Float64Array(bones * 3), rotations: new Float64Array(bones * 4), scales: new Float64Array(bones * 3),
    componentTranslations: new Float64Array(cs * 3), componentRotations: new Float64Array(cs * 4), componentScales: new Float64Array(cs * 3),
  };
}

export interface InstanceBatchOptions {
  /** Also compute every character's component-space pose in `update` (default false). */
  componentSpace?: boolean;
  /**
   * Put the poses in a WebAssembly SIMD sampling kernel's memory, with a copy of the graph's clips,
   * so that clips are sampled into them, poses blended and component space composed in about half
   * the time, bit-identically (default true; see runtime/kernel/sampling-kernel.ts). Ignored where the
   * engine has no WebAssembly SIMD.
   */
  wasm?: boolean;
  /**
   * With the kernel: reserve each character's two update-rate interpolation poses in its memory
   * (default true), where a character below full rate (setUpdateRate) then evaluates and
   * interpolates in WebAssembly too. They are address space until a character uses them (the
   * memory's pages are committed when first written), but they triple the memory's size.
   */
  updateRates?: boolean;
  /**
   * What the kernel samples clips in (default 'double'): 'double' gives poses bit-identical to an
   * instance alone; 'single' samples in float32, four bones to a SIMD vector, from float32 copies
   * of the keys, in less time, each sample then off by a float32's rounding (docs/performance.md,
   * "Single precision"), and the component pass (`componentSpace`) composes in float32, four
   * characters to a SIMD vector; blends of N poses, layers, inertialization and the nodes in
   * JavaScript stay in double precision. Ignored (double) without the kernel: see
   * InstanceBatch.precision.
   */
  precision?: KernelPrecision;
}

/**
 * `count` characters of one graph evaluated together on the calling thread, their poses in one
 * array per attribute (BatchPoseArrays) rather than arrays of their own: a crowd's frame then
 * writes its poses in order through memory, and a renderer reads them as one buffer (a bone
 * texture, instanced skinning). Each character is an ordinary instance (`instances[i]`: parameters,
 * events, debug tree, slots), and its poses are bit-identical to those of an instance of its own.
 * Browser-safe; `Crowd` (animgraph/node) does the same across worker threads.
 */
export class InstanceBatch implements BatchPoseArrays {
  readonly count: number;
  readonly boneCount: number;
  readonly componentSpace: boolean;
  readonly instances: readonly AnimGraphInstance[];
  readonly translations: Float64Array;
  readonly rotations: Float64Array;
  readonly scales: Float64Array;
  readonly componentTranslations: Float64Array;
  readonly componentRotations: Float64Array;
  readonly componentScales: Float64Array;
  /** Character i's root motion of the last update at [i * 4, i * 4 + 4): [dx, dy, dz, dHeading]. */
  readonly rootMotion: Float64Array;
  /**
   * Whether the poses are in a sampling kernel's memory (the `wasm` option, where the engine runs
   * it): sampling, blending and the component pass then run in WebAssembly for them.
   */
  readonly wasm: boolean;
  /**
   * Bytes of the sampling kernel's memory (poses, temporaries, interpolation poses, reference pose,
   * the clips' copy), or 0 without it. V8's heap figures do not count it.
   */
  readonly wasmMemoryBytes: number;
  /** What the batch samples in: the `precision` option with the kernel, 'double' without it. */
  readonly precision: KernelPrecision;
  private readonly kernel: SamplingKernel | null;
  /** The frame's delta time, handed to each instance in an array (see CONTRIBUTING.md, "Numbers in the frame loop"). */
  private readonly deltaTime = new Float64Array(1);

  constructor(graph: CompiledGraph, count: number, options: InstanceBatchOptions = {}) {
    if (!Number.isInteger(count) || count < 1) throw new AnimGraphError(typeof count === 'number' ? 'out-of-range' : 'invalid-argument', `a batch needs a whole number of characters, at least 1; got ${describeValue(count)}`);
    const n = graph.skeleton.boneCount;
    const componentSpace = options.componentSpace ?? false;
    const precision = options.precision ?? 'double';
    if (precision !== 'double' && precision !== 'single') throw new AnimGraphError('invalid-argument', `a batch's precision is 'double' or 'single'; got ${describeValue(options.precision)}`);
    this.count = count;
    this.boneCount = n;
    this.componentSpace = componentSpace;
    const kernel = options.wasm ?? true
      ? SamplingKernel.create(graph.skeleton, [...graph.clipBindings.values()], kernelPoseLengths(n, count, componentSpace, options.updateRates ?? true, graph.frameNumberCount, 1), 1 << 30, undefined, precision)
      : null;
    // The characters evaluate one at a time, so they share one pool of temporaries, as instances
    // share their graph's; this one's first poses are in the kernel's memory.
    const pool = kernel === null ? graph.posePool : kernelPosePool(kernel, n, 0);
    const arrays = kernel === null ? characterArrays('a batch', count, n, componentSpace, () => ownPoseArrays(n * count, componentSpace)) : kernelArrays(kernel, 0);
    this.wasm = kernel !== null;
    this.wasmMemoryBytes = kernel?.byteLength ?? 0;
    this.precision = kernel?.precision ?? 'double';
    this.kernel = kernel;
    ({
      translations: this.translations, rotations: this.rotations, scales: this.scales,
      componentTranslations: this.componentTranslations, componentRotations: this.componentRotations, componentScales: this.componentScales,
    } = arrays);
    this.rootMotion = new Float64Array(count * 4);
    const instances: AnimGraphInstance[] = [];
    for (let i = 0; i < count; i++) instances.push(createCharacter(graph, this, i, componentSpace, kernel, pool));
    this.instances = instances;
  }

  /**
   * Advances every character by `deltaTime` seconds (as AnimGraphInstance.update) and evaluates it
   * into the arrays, in character order; allocates nothing.
   */
  update(deltaTime: number): void {
    const instances = this.instances, dt = this.deltaTime;
    dt[0] = deltaTime;
    const kernel = this.kernel;
    if (kernel === null || !this.componentSpace) {
      for (let i = 0; i < instances.length; i++) runCharacterFrame(instances[i], dt, this.componentSpace, this.rootMotion, i);
      return;
    }
    composeInGroups(kernel, instances, dt, this.rootMotion, this, 0);
  }
}
