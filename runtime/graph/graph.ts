import { resolveBlendProfile, type BlendProfile, type BlendProfileJson } from '../core/blend-profile.ts';
import { ClipBinding, clipKeyProblem, clipTimingProblem, type Clip } from '../core/clip.ts';
import { ComponentPose, ComponentPosePool } from '../core/component-pose.ts';
import { AnimGraphEventEmitter } from '../node/events.ts';
import { InstanceBatch, type InstanceBatchOptions } from './instance-batch.ts';
import {
  CacheBonesContext, ComponentPoseLink, ComponentPoseNode as ComponentPoseNodeClass, InitializeContext, LocalPoseNode as LocalPoseNodeClass,
  MAX_NODE_NUMBERS, NodeBuildError, NodePrepareError, PoseLink, UpdateContext, checkProblemCode, nodeReferences, thrownText,
  type AnimNode, type DebugNode, type NodeProblem, type GraphRuntime, type Link, type LocalPoseNode, type NodeType, type PoseNode,
  type PropertySpec, type ResolvedProperties, type ScalarProperty, type Vec3Property,
} from '../node/node.ts';
import { Parameters, type ParameterDefinition, type ParameterValue } from '../node/parameters.ts';
import { checkStorage, Pose, PosePool, poseBlendTwo, poseCopy, type PoseStorage } from '../core/pose.ts';
import { referenceRangeProblems, type Skeleton } from '../core/skeleton.ts';
import { checkUpdateRate, DEFAULT_UPDATE_RATE_OPTIONS, interpolatesSkipped, normalizePhase, UpdateRateClock, type UpdateRateOptions } from './update-rate.ts';

/**
 * The most nodes a chain from a graph's output down to a leaf may have. initialize, update,
 * evaluate and the debug tree recurse a few calls per level, and a cold (interpreted) first
 * call overflows Node's default stack at 2,000 to 2,500 levels: 500 leaves the caller three
 * quarters of it, and is still ten times what a hand-made graph needs. The loader reports
 * deeper graphs as `too-deep`; AnimGraph refuses them with a RangeError.
 */
export const MAX_GRAPH_DEPTH = 500;

/**
 * The longest delta time one update advances, in seconds (11.6 days): a longer one is held to it.
 * Nodes add delta times up (play and blend clocks) and multiply them by rates; bounding the step
 * keeps those sums and products finite whatever a caller passes.
 */
export const MAX_DELTA_TIME = 1e6;

/** A property value as written in an asset: a literal, or a binding to a parameter. */
export type PropertyValue =
  | number | boolean | string | number[] | string[] | { param: string } | { readonly [key: string]: unknown }
  /** A list property: one object of field values per item. */
  | { readonly [key: string]: unknown }[];

/** One node of a validated graph, ready to be instantiated. */
export interface CompiledNode {
  id: string;
  nodeType: NodeType;
  properties: Readonly<Record<string, PropertyValue | undefined>>;
  /** Node ids by input name (an array for pose-list inputs). */
  inputs: Readonly<Record<string, string | readonly string[]>>;
  /**
   * The root node ids of named sub-graphs the node owns besides its inputs (a StateMachine's
   * states), built before it like inputs; the node receives them as NodeBuild.subGraphs.
   */
  subGraphs?: Readonly<Record<string, string>>;
}

export interface AnimGraphDefinition {
  name: string;
  skeleton: Skeleton;
  parameters: Readonly<Record<string, ParameterDefinition>>;
  clips: ReadonlyMap<string, Clip>;
  /** Nodes in post-order: every node after the nodes it links to; the last one is the root. */
  nodes: readonly CompiledNode[];
  /**
   * How a file path written in the asset is named (for NodePrepareContext.resolvePath); default the
   * path as written. graphs/loader.ts joins it to the asset's folder.
   */
  resolvePath?: (path: string) => string;
  /** False to ignore index files named in the asset and rebuild their data (default true). */
  useIndexFiles?: boolean;
  /** The asset's blend profiles by name (checked by the loader), bound to the skeleton once here. */
  blendProfiles?: Readonly<Record<string, BlendProfileJson>>;
  /**
   * Reads a file named in the asset (the path as written there), for NodePrepareContext.readFile:
   * file access comes from whoever loads the graph (graphs/loader.ts reads from disk). Without it,
   * a node that needs a file reports that it cannot read it.
   */
  readFile?: (path: string) => Uint8Array;
}

/**
 * A validated graph asset bound to a skeleton and clips: immutable, shared by all its instances
 * (Bevy's asset/instance split). Clip bindings are built once here.
 */
export class AnimGraph {
  readonly name: string;
  readonly skeleton: Skeleton;
  readonly parameterDefinitions: Readonly<Record<string, ParameterDefinition>>;
  readonly clipBindings: ReadonlyMap<string, ClipBinding>;
  /** The asset's blend profiles, each bound to the skeleton once (per-bone scales), shared by every instance. */
  readonly blendProfiles: ReadonlyMap<string, BlendProfile>;
  /**
   * Every curve name the graph's clips carry, sorted: a name's index is its slot in an instance's
   * curve values (AnimGraphInstance.curve).
   */
  readonly curveNames: readonly string[];
  /** The slot of each curve name (its index in curveNames). */
  readonly curveSlots: ReadonlyMap<string, number>;
  readonly nodes: readonly CompiledNode[];
  /** What each node type's `prepare` built for its nodes, by node id: immutable, shared by every instance. */
  readonly shared: ReadonlyMap<string, unknown>;
  /**
   * Temporaries of evaluation (a blend's second input, a space conversion), shared by every
   * instance: nodes take them and give them back within one evaluate, and instances evaluate one at
   * a time (a worker thread has its own graph), so a crowd of one asset works in the same few
   * poses instead of a cold set per character.
   */
  readonly posePool: PosePool;
  readonly componentPosePool: ComponentPosePool;
  /**
   * Scalar and vec3 properties resolved once per graph, by the property record they come from (a
   * node's properties, an item of a list property) and name: immutable, so every instance's nodes
   * read the same few objects rather than a crowd's worth of copies (objects a frame goes through
   * per character are what makes a large crowd's frame cost more per character: docs/performance.md).
   */
  readonly resolvedProperties = new WeakMap<object, Map<string, unknown>>();

  /**
   * The update contexts (one per depth of the update recursion) that the instance being updated
   * works in: instances of a graph update one at a time on a thread (a worker has its own graph), so
   * a crowd shares one set rather than carrying a set per character, objects a large crowd's frame
   * would each miss in the cache. An instance updated while another is (from an event listener)
   * finds the set lent and uses contexts of its own.
   */
  readonly updateContextLoan: { readonly contexts: UpdateContext[]; lent: boolean } = { contexts: [], lent: false };

  private frameNumberCountKnown = -1;
  private slotNamesKnown: readonly string[] | null = null;

  /**
   * Per node id, its place in the build order (an instance's nodes are built in the compiled order)
   * and where it keeps its weight in an instance's frameNumbers: the same for every instance (each
   * node reserves the same numbers), so kept once here rather than in a map per character. Filled
   * by the first instance built.
   */
  readonly nodeWeightSlots = new Map<string, { readonly index: number; readonly slot: number }>();

  constructor(definition: AnimGraphDefinition) {
    if (definition.nodes.length === 0) throw new RangeError('a graph needs at least one node');
    checkGraphDepth(definition.nodes);
    checkGraphData(definition);
    this.name = definition.name;
    this.skeleton = definition.skeleton;
    this.parameterDefinitions = definition.parameters;
    this.nodes = definition.nodes;
    this.curveNames = [...new Set([...definition.clips.values()].flatMap((clip) => clip.curves.map((c) => c.name)))].sort();
    this.curveSlots = new Map(this.curveNames.map((name, i) => [name, i]));
    this.clipBindings = new Map([...definition.clips].map(([name, clip], i) => [name, new ClipBinding(clip, definition.skeleton, this.curveSlots, i)]));
    this.blendProfiles = new Map(Object.entries(definition.blendProfiles ?? {}).map(([name, p]) => [name, resolveBlendProfile(name, p, definition.skeleton)]));
    this.shared = prepareNodes(this, definition);
    this.posePool = new PosePool(definition.skeleton.boneCount);
    this.componentPosePool = new ComponentPosePool(definition.skeleton);
  }

  /**
   * How many per-frame numbers an instance keeps (AnimGraphInstance.frameNumbers: its own, then
   * what its nodes reserve), for storage given to createInstance (InstanceOutput.frameNumbers).
   * The same for every instance of the graph; counted once, by building one.
   */
  get frameNumberCount(): number {
    if (this.frameNumberCountKnown < 0) this.learnFromInstance();
    return this.frameNumberCountKnown;
  }

  /**
   * The slot names AnimGraphInstance.playSlot takes (every instance's slotNames): which nodes play
   * slots is known once they are built, so learned, with frameNumberCount, from one instance.
   */
  get slotNames(): readonly string[] {
    if (this.slotNamesKnown === null) this.learnFromInstance();
    return this.slotNamesKnown!;
  }

  private learnFromInstance(): void {
    const instance = new AnimGraphInstance(this);
    this.frameNumberCountKnown = instance.frameNumbers.length;
    this.slotNamesKnown = instance.slotNames;
  }

  /**
   * A new character. `output`: arrays the instance evaluates its output pose (`local`) and its
   * component pose (`component`) into, instead of arrays of its own; a Crowd passes views into
   * the arrays it shares between threads, so that no pose is copied per frame.
   */
  createInstance(output?: InstanceOutput): AnimGraphInstance {
    return new AnimGraphInstance(this, output);
  }

  /**
   * `count` new characters whose poses share one array per attribute, in character order (see
   * InstanceBatch): for crowds, where separate arrays per character scatter a frame's writes.
   */
  createInstances(count: number, options?: InstanceBatchOptions): InstanceBatch {
    return new InstanceBatch(this, count, options);
  }
}

/** How AnimGraphInstance.playSlot plays a clip (every field optional). */
export interface SlotPlayOptions {
  /** Seconds the clip takes to blend in over the slot's source (default 0.2; 0 cuts in). */
  blendIn?: number;
  /** Seconds it takes to blend out before its end (default 0.2; 0 cuts out at the end). */
  blendOut?: number;
  /** Clip seconds per second (default 1); above 0 and finite. */
  playRate?: number;
}

/**
 * How AnimGraphInstance.playSlot passes a clip's timing to a SlotPlayer: every field given, checked.
 * The numbers travel in an object rather than as arguments: see CONTRIBUTING.md, "Numbers in the
 * frame loop".
 */
export type SlotPlayArgs = Readonly<Required<SlotPlayOptions>>;

/** What AnimGraphInstance.playSlot drives: a node playing clips over its input on demand (nodes/Slot.ts). */
export interface SlotPlayer {
  readonly id: string;
  readonly slotName: string;
  /**
   * Starts `clip` with `args`' timing. `args` is the caller's, reused by its next call: read it on
   * entry, before anything (an event) can run code that plays another clip. Allocates nothing.
   */
  playClip(clip: ClipBinding, args: SlotPlayArgs): void;
  /** Blends out whatever plays over `blendOut` seconds from now. */
  stopClips(blendOut: number): void;
  /** Whether a clip plays (blending in, playing or blending out). */
  readonly playing: boolean;
}

/** The RangeError for a slot name the graph has none of (AnimGraphInstance.playSlot and a Crowd's). */
export function unknownSlotError(graphName: string, slot: string, slotNames: readonly string[]): RangeError {
  return new RangeError(`graph '${graphName}' has no Slot node named '${slot}' (slots: ${slotNames.join(', ') || 'none'})`);
}

/** The RangeError for playSlot given a clip the graph has none of (AnimGraphInstance.playSlot and a Crowd's). */
export function unknownClipError(graphName: string, slot: string, clip: string): RangeError {
  return new RangeError(`playSlot('${slot}'): no clip '${clip}' in graph '${graphName}'`);
}

/**
 * Fills `into` with `options` and their defaults (blendIn and blendOut 0.2 s, playRate 1), and
 * throws playSlot's RangeError for values out of range: blend times not 0 or more and finite, a play
 * rate not above 0 and finite. The numbers go through `into` rather than a return value or
 * arguments, which V8 would box (see SlotPlayArgs).
 */
export function resolveSlotPlay(slot: string, options: SlotPlayOptions | undefined, into: Required<SlotPlayOptions>): void {
  // No options reads no object: a default of `{}` would be a new one per call, and a shared one
  // a second shape at the reads below (see CONTRIBUTING.md, "Numbers in the frame loop").
  into.blendIn = 0.2;
  into.blendOut = 0.2;
  into.playRate = 1;
  if (options !== undefined) {
    if (typeof options !== 'object' || options === null) throw new TypeError(`playSlot('${slot}'): options are an object ({ blendIn, blendOut, playRate }); got ${options === null ? 'null' : typeof options}`);
    // Each read once: a read V8 boxes (above) would box twice.
    const givenIn = options.blendIn, givenOut = options.blendOut, givenRate = options.playRate;
    // A string compared as a number ('0.2' >= 0) and was kept as one; null became 0.
    if ((givenIn !== undefined && typeof givenIn !== 'number') || (givenOut !== undefined && typeof givenOut !== 'number')
      || (givenRate !== undefined && typeof givenRate !== 'number')) {
      throw slotOptionTypeError(slot, [givenIn, givenOut, givenRate]);
    }
    if (givenIn !== undefined) into.blendIn = givenIn;
    if (givenOut !== undefined) into.blendOut = givenOut;
    if (givenRate !== undefined) into.playRate = givenRate;
    // Options naming none of the three (a misspelt { blendin: 0.5 }) would play with the defaults, silently.
    else if (givenIn === undefined && givenOut === undefined) unknownSlotOptions(slot, options);
  }
  const blendIn = into.blendIn, blendOut = into.blendOut, playRate = into.playRate;
  if (!(blendIn >= 0 && blendIn < Infinity) || !(blendOut >= 0 && blendOut < Infinity)) {
    throw new RangeError(`playSlot('${slot}'): blendIn and blendOut are seconds, 0 or more (got ${blendIn}, ${blendOut})`);
  }
  if (!(playRate > 0 && playRate < Infinity)) throw new RangeError(`playSlot('${slot}'): playRate must be above 0 and finite (got ${playRate})`);
}

/** playSlot's TypeError for option values that are not numbers (a function of its own: no closure in resolveSlotPlay). */
function slotOptionTypeError(slot: string, given: readonly unknown[]): TypeError {
  const shown = given.map((v) => (v === undefined ? 'undefined' : JSON.stringify(v) ?? String(v)));
  return new TypeError(`playSlot('${slot}'): blendIn, blendOut and playRate are numbers (got ${shown.join(', ')})`);
}

/** Throws for options with keys but none of playSlot's (called only then, so the common path enumerates nothing). */
function unknownSlotOptions(slot: string, options: object): void {
  const keys = Object.keys(options);
  if (keys.length > 0) throw new TypeError(`playSlot('${slot}'): unknown option${keys.length === 1 ? '' : 's'} ${keys.map((k) => `'${k}'`).join(', ')} (options: blendIn, blendOut, playRate)`);
}

/** Throws stopSlot's RangeError for a blend-out time that is not 0 or more and finite. */
export function checkSlotStop(slot: string, blendOut: number): void {
  if (!(blendOut >= 0 && blendOut < Infinity)) throw new RangeError(`stopSlot('${slot}'): blendOut is seconds, 0 or more (got ${blendOut})`);
}

/**
 * Slot options for code that refills one object per call rather than making one: made with
 * fractions, so that V8 lays its fields out as doubles from the start and writes them in place
 * (see CONTRIBUTING.md, "Numbers in the frame loop").
 */
export function refillableSlotOptions(): Required<SlotPlayOptions> {
  return { blendIn: 0.5, blendOut: 0.5, playRate: 0.5 };
}

/** The one SlotPlayArgs playSlot fills: every instance on the thread shares it (see SlotPlayer.playClip). */
const slotPlayArgs = refillableSlotOptions();

function isSlotPlayer(node: PoseNode): node is PoseNode & SlotPlayer {
  const candidate = node as Partial<SlotPlayer>;
  return typeof candidate.slotName === 'string' && typeof candidate.playClip === 'function';
}

/** Where an instance writes its output pose and component pose (see AnimGraph.createInstance). */
export interface InstanceOutput {
  readonly local?: PoseStorage;
  readonly component?: PoseStorage;
  /**
   * The pool of temporary poses its nodes work in (default: the graph's, shared by its instances).
   * An InstanceBatch passes its own, whose first poses are in its sampling kernel's memory.
   */
  readonly posePool?: PosePool;
  /**
   * Storage for the two poses the instance interpolates between below full rate (setUpdateRate),
   * asked for when it first goes below; default: arrays of its own. An InstanceBatch gives rows of
   * its sampling kernel's memory.
   */
  readonly interpolationStorage?: () => readonly [PoseStorage, PoseStorage];
  /**
   * Storage for the instance's per-frame numbers (AnimGraphInstance.frameNumbers): exactly
   * AnimGraph.frameNumberCount doubles, all 0; default: an array of its own. An InstanceBatch gives
   * a row of its sampling kernel's memory, where the kernel reads what nodes keep there (an
   * inertializer's offsets).
   */
  readonly frameNumbers?: Float64Array;
  /**
   * Where the instance's numbers start in `frameNumbers` (default 0), which then holds
   * AnimGraph.frameNumberCount doubles, all 0, from there on: an InstanceBatch gives every character
   * the same array (its kernel's rows), so that a character's frame has one object fewer to read.
   */
  readonly frameNumbersAt?: number;
}

/** AnimGraphInstance.frameNumbers' own entries; what nodes reserve (their weights included) starts at RESERVED. */
const DELTA_TIME = 0, ELAPSED = 1, GRAPH_DELTA = 2, ROOT_MOTION = 4, RESERVED = 8;

/** The curve values of every instance of a graph without curves (most): one empty array, nothing to write in it. */
const NO_CURVES = new Float64Array(0);

/**
 * Per-character state: node instances, parameters, pose buffers and events. User code sets
 * parameters between frames, then calls update(dt) and evaluate().
 */
export class AnimGraphInstance implements GraphRuntime {
  readonly graph: AnimGraph;
  // The fields a frame reads, first and together: V8 lays an object's fields out in the order they
  // are declared, and a crowd's frame reads them for every character (fewer cache lines to miss).
  private readonly root: LocalPoseNode;
  /** What the frame updates and evaluates: the root, or the node it passes through (LocalPoseNode.passThroughInput). */
  private readonly frameRoot: LocalPoseNode;
  private readonly clock = new UpdateRateClock();
  /**
   * Updates seen, the update-rate schedule's frame count (UpdateRateClock.tick): never reset, so
   * a reset keeps a crowd's spread. Here rather than on the clock, which a character at full rate
   * then does not touch.
   */
  private frame = 0;
  /**
   * The frame's numbers in one array: the delta time (clamped), the elapsed time, the graph
   * update's delta time, the root motion (rootMotion views it), then each node's weight (at its
   * nodeSlot) and what it reserved when built (NodeBuild.numbers: clip clocks, inertialization offsets).
   * One array rather than double fields or arrays of their own: see CONTRIBUTING.md, "Numbers in
   * the frame loop" (objects per character).
   */
  readonly frameNumbers: Float64Array;
  /** Where the instance's own numbers start in frameNumbers (InstanceOutput.frameNumbersAt); node slots include it. */
  readonly frameNumbersAt: number;
  /**
   * Whether evaluate() shows the interpolation of `previous` and `target` (below full update rate,
   * and after going back to it until the display catches up with the graph) instead of the graph.
   */
  private interpolating = false;
  /** Graph updates (UpdateContext relevance counts them); frames skipped by the update rate are not. */
  private counter = 0;
  /** Whether update() is running (its event listeners may not call it again). */
  private updating = false;
  /** Whether a listener called reset() during update(): done when the update returns. */
  private resetRequested = false;
  /** The update contexts in use: the graph's, lent for the update (AnimGraph.updateContextLoan), or ownContexts. */
  private updateContexts: UpdateContext[] = [];
  /** Whether the graph's clips have curves (curveValues is not empty). */
  private readonly hasCurves: boolean;
  /** The nodes with an afterGraphUpdate hook (cached poses), in reverse build order. */
  private readonly afterUpdate: PoseNode[] | null;
  private readonly output: Pose;
  /** The update-rate schedule's frame (`frame`) of the last evaluate and componentPose (-1: none since a reset). */
  private evaluatedAt = -1;
  /** Whether the output changed since the component pose was last computed from it. */
  private componentStale = true;
  /** parameters.values, held here too: nodes read it every frame, one object fewer to go through. */
  readonly parameterValues: Float64Array;
  /**
   * This frame's root motion, [dx, dy, dz, dHeading] in the character's frame after `update`: what
   * the output's branch reported up through the update (see UpdateContext.rootMotion); below full
   * update rate, this frame's share of what the graph's last updates reported (see setUpdateRate).
   * A view of frameNumbers, made when first asked for (a crowd reads its root motion from the batch).
   */
  get rootMotion(): Float64Array {
    const at = this.frameNumbersAt + ROOT_MOTION;
    return this.rootMotionView ??= this.frameNumbers.subarray(at, at + 4);
  }
  private rootMotionView: Float64Array | null = null;
  /** Whether the batch composed the component pose (markComponentComposed) and its bookkeeping does not know yet. */
  private componentComposedUnmarked = false;
  /** Whether the output holds `target` as it is (so a held frame has nothing to write). */
  private showsTarget = false;
  readonly skeleton: Skeleton;
  readonly events = new AnimGraphEventEmitter();
  readonly parameters: Parameters;
  readonly posePool: PosePool;
  readonly componentPosePool: ComponentPosePool;
  /** The nodes in build order (the graph's compiled order): `nodes` maps their ids, made when first asked for. */
  private readonly builtNodes: readonly PoseNode[];
  private nodeMap: ReadonlyMap<string, PoseNode> | null = null;
  /** This frame's curve values by slot (AnimGraph.curveNames); see curve(). */
  readonly curveValues: Float64Array;
  /**
   * Slot nodes by slot name (several nodes may share one name: playSlot plays on each); null for a
   * graph without Slot nodes (most of a crowd's), which then carries no map per character.
   */
  private readonly slots: Map<string, (PoseNode & SlotPlayer)[]> | null;
  /** The lists of `slots` in slotNames' order (isSlotPlayingAt); empty without slots. */
  private readonly slotLists: readonly (readonly SlotPlayer[])[];
  /**
   * The output's component pose, made when first asked for: a character whose component pose
   * nobody reads (most of a crowd's) carries no component arrays or bookkeeping (5.6 KB for 65 bones).
   */
  private outputComponent: ComponentPose | null = null;
  /** Where the component pose goes (InstanceOutput.component), if not arrays of its own. */
  private readonly componentStorage: PoseStorage | undefined;
  /** Where the update-rate interpolation poses go (InstanceOutput.interpolationStorage), if not arrays of their own. */
  private readonly interpolationStorage: (() => readonly [PoseStorage, PoseStorage]) | undefined;
  /** Contexts of its own, for an update that finds the graph's lent (made when first needed). */
  private ownContexts: UpdateContext[] | null = null;
  /** The graph's last two evaluations (allocated by the first setUpdateRate above 1). */
  private previous: Pose | null = null;
  private target: Pose | null = null;
  /** Whether the graph has been updated since `target` was evaluated. */
  private targetStale = true;
  private curvesPrevious: Float64Array | null = null;
  private curvesTarget: Float64Array | null = null;
  /** Root motion the graph reported that no frame has reported yet (the look-ahead's share). */
  private pendingMotion: Float64Array | null = null;

  constructor(graph: AnimGraph, output: InstanceOutput = {}) {
    this.graph = graph;
    this.skeleton = graph.skeleton;
    this.parameters = new Parameters(graph.parameterDefinitions, this.events);
    this.parameterValues = this.parameters.values;
    this.posePool = output.posePool ?? graph.posePool;
    this.interpolationStorage = output.interpolationStorage;
    this.componentPosePool = graph.componentPosePool;
    this.curveValues = graph.curveNames.length > 0 ? new Float64Array(graph.curveNames.length) : NO_CURVES;
    this.output = new Pose(graph.skeleton.boneCount, output.local);
    // What a renderer reading the arrays shows before the first update: the character at rest, not
    // every bone at the origin (see evaluate).
    poseCopy(this.output, graph.skeleton.referencePose);
    // Checked now rather than when the component pose is first made: bad storage is the caller's error at creation.
    if (output.component !== undefined) checkStorage(output.component, graph.skeleton.boneCount, 'component pose');
    this.componentStorage = output.component;
    const built = new Map<string, PoseNode>();
    // Each node's numbers (its weight, then what its type reserves) after the instance's own.
    let reserved = RESERVED;
    const reserve = (count: number): number => {
      const at = reserved;
      reserved += count;
      return at;
    };
    const weightSlots = graph.nodeWeightSlots;
    const storage = output.frameNumbers, at = output.frameNumbersAt ?? 0;
    if (!(Number.isInteger(at) && at >= 0 && (at === 0 || storage !== undefined))) {
      throw new RangeError(`frameNumbersAt: expected a whole number from 0, and frameNumbers storage with it; got ${at}`);
    }
    this.frameNumbersAt = at;
    // Nodes are given offsets into the whole array; the graph's weight slots are the instance's own.
    // The array is sized once every node is built: a count asked later would be given no room.
    let laidOut = false;
    const numbersOf = (compiled: CompiledNode) => (count: number): number => {
      const name = compiled.nodeType.type;
      if (laidOut) {
        throw new NodeBuildError(compiled.id, name, `numbers(${count}) once the node is built; reserve in create, where the instance's numbers are laid out`);
      }
      // A fraction put the next node's numbers at a fractional index, a negative count overlapped them.
      if (!(Number.isInteger(count) && count >= 0 && count <= MAX_NODE_NUMBERS)) {
        throw new NodeBuildError(compiled.id, name, `numbers(${count}): expected a whole number of numbers from 0 to ${MAX_NODE_NUMBERS}`);
      }
      return at + reserve(count);
    };
    for (const compiled of graph.nodes) {
      const node = buildNode(compiled, built, this.parameters, graph, numbersOf(compiled));
      const slot = reserve(1), known = weightSlots.get(compiled.id);
      if (known === undefined) weightSlots.set(compiled.id, { index: built.size, slot });
      else if (known.slot !== slot) throw new Error(`internal: node '${compiled.id}' reserved its weight at ${slot}, not at ${known.slot} as in the graph's first instance`);
      built.set(compiled.id, node);
    }
    this.builtNodes = [...built.values()];
    laidOut = true;
    if (storage !== undefined) {
      // Exactly the count in storage of the instance's own; at least the count from `at` in a shared array.
      const room = storage.length - at, fits = output.frameNumbersAt === undefined ? room === reserved : room >= reserved;
      if (!fits || storage.subarray(at, at + reserved).some((x) => x !== 0)) {
        throw new RangeError(`frameNumbers storage: expected ${reserved} numbers${at > 0 ? ` from ${at}` : ''}, all 0 (AnimGraph.frameNumberCount); got ${room}${fits ? ', not all 0' : ''}`);
      }
    }
    this.frameNumbers = storage ?? new Float64Array(reserved);
    const after = this.builtNodes.filter((n) => n.afterGraphUpdate !== undefined).reverse();
    // null when empty: one fewer object to read per frame for most graphs.
    this.afterUpdate = after.length > 0 ? after : null;
    this.hasCurves = this.curveValues.length > 0;
    let slots: Map<string, (PoseNode & SlotPlayer)[]> | null = null;
    for (const node of this.builtNodes) {
      if (!isSlotPlayer(node)) continue;
      slots ??= new Map();
      const list = slots.get(node.slotName);
      if (list) list.push(node);
      else slots.set(node.slotName, [node]);
    }
    this.slots = slots;
    this.slotLists = slots === null ? [] : [...slots.values()];
    const root = built.get(graph.nodes[graph.nodes.length - 1].id)!;
    if (root.space !== 'local') throw new TypeError(`the root node '${root.id}' must produce a local-space pose`);
    this.root = root;
    this.root.initialize(new InitializeContext(this));
    this.frameRoot = root.passThroughInput() ?? root;
    const cache = new CacheBonesContext(graph.skeleton);
    this.root.cacheBones(cache);
    if (cache.unknownBones.length > 0) {
      throw new RangeError(`unknown bones: ${cache.unknownBones.map((u) => `${u.nodeId}: '${u.bone}'`).join(', ')}`);
    }
  }

  get updateCounter(): number {
    return this.counter;
  }

  /** Seconds of update time accumulated since the instance was built. */
  get time(): number {
    return this.frameNumbers[this.frameNumbersAt + ELAPSED];
  }

  /** The instance's nodes by id (the graph's node ids, state machines' states' nodes included). */
  get nodes(): ReadonlyMap<string, PoseNode> {
    return this.nodeMap ??= new Map(this.builtNodes.map((node) => [node.id, node]));
  }

  nodeSlot(node: AnimNode): number {
    const known = this.graph.nodeWeightSlots.get(node.id);
    if (known === undefined || this.builtNodes[known.index] !== node) throw new RangeError(`node '${node.id}' is not one of this instance's nodes`);
    return this.frameNumbersAt + known.slot;
  }

  updateContextAt(depth: number): UpdateContext {
    let ctx = this.updateContexts[depth];
    if (ctx === undefined) {
      ctx = new UpdateContext(this, depth);
      this.updateContexts[depth] = ctx;
    }
    return ctx;
  }

  /**
   * The value of curve `name` this frame: the curves of the clips that played in the last update
   * (sampled at their play times), blended by their players' absolute weights; a clip without the
   * curve counts as 0. Throws a RangeError for a name no clip of the graph carries (see
   * AnimGraph.curveNames), as a misspelt name is a bug to hear of at once, not a 0 to miss.
   */
  curve(name: string): number {
    const slot = this.graph.curveSlots.get(name);
    if (slot === undefined) {
      const known = this.graph.curveNames;
      throw new RangeError(`no clip of graph '${this.graph.name}' has a curve '${name}' (curves: ${known.length > 0 ? known.join(', ') : 'none'})`);
    }
    return this.curveValues[slot];
  }

  /**
   * Plays clip `clipName` (a clip of the graph asset) over the pose of every Slot node named `slot`,
   * blending in over blendIn seconds and out over the last blendOut seconds of the clip; it ends
   * by itself (event `slotEnded`). A clip already playing there blends out over the new blendIn
   * (it ends as `interrupted`). Throws a RangeError for an unknown slot or clip, or options out of
   * range (negative or non-finite blend times, a play rate not above 0). Allocates nothing, given
   * options of one shape (the same fields given) or none: V8 boxes a number it reads from objects
   * of several shapes at one place, here 16 bytes for each number given.
   */
  playSlot(slot: string, clipName: string, options?: SlotPlayOptions): void {
    const players = this.slotPlayers(slot);
    const clip = this.graph.clipBindings.get(clipName);
    if (clip === undefined) throw unknownClipError(this.graph.name, slot, clipName);
    const args = slotPlayArgs;
    resolveSlotPlay(slot, options, args);
    const blendIn = args.blendIn, blendOut = args.blendOut, playRate = args.playRate;
    // Written again before each player: a slotEnded listener of the one before may have played another clip.
    // Indexed loops, no for-of: for a character playing a clip now and then this code stays cold
    // (see CONTRIBUTING.md, "Numbers in the frame loop").
    for (let i = 0; i < players.length; i++) {
      args.blendIn = blendIn;
      args.blendOut = blendOut;
      args.playRate = playRate;
      players[i].playClip(clip, args);
    }
  }

  /** Blends out whatever plays in slot `slot` over `blendOut` seconds (default 0.2). Throws for an unknown slot. */
  stopSlot(slot: string, blendOut = 0.2): void {
    const players = this.slotPlayers(slot);
    checkSlotStop(slot, blendOut);
    for (let i = 0; i < players.length; i++) players[i].stopClips(blendOut);
  }

  /** The names playSlot takes: the graph's Slot nodes' (each once, in the graph's order). */
  get slotNames(): string[] {
    return [...(this.slots?.keys() ?? [])];
  }

  /** Whether a clip plays in slot `slot` (blending in, playing or blending out). Throws for an unknown slot. */
  isSlotPlaying(slot: string): boolean {
    return anyPlaying(this.slotPlayers(slot));
  }

  /**
   * isSlotPlaying for the slot at `index` in slotNames, false for an index out of range: for
   * loops over every character's slots, which look up no name.
   */
  isSlotPlayingAt(index: number): boolean {
    return index >= 0 && index < this.slotLists.length && anyPlaying(this.slotLists[index]);
  }

  private slotPlayers(slot: string): readonly SlotPlayer[] {
    const players = this.slots?.get(slot);
    if (players === undefined) {
      throw unknownSlotError(this.graph.name, slot, this.slotNames);
    }
    return players;
  }

  setParameter(name: string, value: ParameterValue): void {
    this.parameters.set(name, value);
  }

  getParameter(name: string): ParameterValue {
    return this.parameters.get(name);
  }

  /**
   * Advances the graph by `deltaTime` seconds. A negative, NaN or infinite delta time is treated
   * as 0, one above MAX_DELTA_TIME (1e6 s) as MAX_DELTA_TIME (the frame loop never throws). Below
   * full update rate (setUpdateRate), most frames only move the displayed time on.
   */
  update(deltaTime: number): void {
    const at = this.frameNumbersAt + DELTA_TIME;
    this.frameNumbers[at] = deltaTime;
    this.updateFrom(this.frameNumbers, at);
  }

  /**
   * update() with the delta time read from deltaTime[index]: for callers that compute delta times
   * in the frame loop (a Crowd; see CONTRIBUTING.md, "Numbers in the frame loop").
   */
  updateFrom(deltaTime: Float64Array, index: number): void {
    if (this.updating) {
      // The nodes are part way through this frame: a nested update would advance some of them twice.
      throw new Error(`graph '${this.graph.name}': update called from a listener of this instance's events, during its update; call it after update returns`);
    }
    this.updating = true;
    try {
      this.advance(deltaTime, index);
    } finally {
      this.updating = false;
      if (this.resetRequested) {
        this.resetRequested = false;
        this.reset();
      }
    }
  }

  /** updateFrom's work: the graph updated now, or on the update rate's schedule with the pose interpolated. */
  private advance(deltaTime: Float64Array, index: number): void {
    const given = deltaTime[index];
    // MAX_DELTA_TIME written as a literal: see CONTRIBUTING.md, "Numbers in the frame loop"
    const numbers = this.frameNumbers, at = this.frameNumbersAt;
    numbers[at + DELTA_TIME] = given > 0 && given < Infinity ? (given < 1e6 ? given : 1e6) : 0;
    numbers[at + ELAPSED] += numbers[at + DELTA_TIME];
    // The update-rate path in a function of its own, so that this short path at full rate is
    // optimised early: see CONTRIBUTING.md, "Numbers in the frame loop".
    if (!this.interpolating) this.updateNow();
    else this.advanceInterpolating();
  }

  /** advance below full update rate (or catching up after it): the graph on its schedule, the pose and curves interpolated. */
  private advanceInterpolating(): void {
    const clock = this.clock;
    const numbers = this.frameNumbers, at = this.frameNumbersAt;
    if (this.counter === 0 && (!(numbers[at + DELTA_TIME] > 0) || !clock.interpolate)) {
      // A graph never updated (new, or reset) has no pose to show or hold: its first update runs
      // on whatever frame it comes, a zero delta time or an unscheduled frame included, and the
      // interval starts from it. (Interpolating, a first frame with time to move evaluates anyway.)
      this.updateNow();
      this.curvesTarget!.set(this.curveValues);
      this.targetStale = true;
      this.pendingMotion!.fill(0);
      clock.restart();
      return;
    }
    const pending = this.pendingMotion!;
    this.frame++;
    if (clock.tick(numbers, at + DELTA_TIME, this.frame) === 1) {
      // The target becomes the start of the next interval: evaluated first if nobody asked for it.
      // A graph never updated evaluates to blends of nothing: the reference pose, as evaluate() shows it.
      if (this.targetStale) {
        if (this.counter === 0) poseCopy(this.target!, this.skeleton.referencePose);
        else this.evaluateGraph(this.target!);
      }
      const pose = this.previous!;
      this.previous = this.target;
      this.target = pose;
      const curves = this.curvesPrevious!;
      this.curvesPrevious = this.curvesTarget;
      this.curvesTarget = curves;
      numbers[at + GRAPH_DELTA] = clock.graphDelta;
      this.updateGraph();
      this.targetStale = true;
      curves.set(this.curveValues);
      const motion = this.updateContextAt(0).rootMotion;
      for (let i = 0; i < 4; i++) pending[i] += motion[i];
      if (clock.rate === 1 && clock.ahead === 0) {
        // Back at full rate and caught up: the graph's pose, curves and motion are this frame's.
        this.interpolating = false;
        this.rootMotion.set(pending);
        pending.fill(0);
        return;
      }
    }
    const share = clock.share, out = this.rootMotion;
    for (let i = 0; i < 4; i++) {
      out[i] = pending[i] * share;
      pending[i] -= out[i];
    }
    const w = clock.weights, values = this.curveValues, from = this.curvesPrevious!, to = this.curvesTarget!;
    for (let i = 0; i < values.length; i++) values[i] = from[i] * w[0] + to[i] * w[1];
  }

  /** Updates the graph by this frame's whole delta time; the frame's root motion is what it reported. */
  private updateNow(): void {
    this.frame++;
    const numbers = this.frameNumbers, at = this.frameNumbersAt;
    numbers[at + GRAPH_DELTA] = numbers[at + DELTA_TIME];
    this.updateGraph();
    // Four copies rather than TypedArray.set, a builtin call per character per frame.
    // Into frameNumbers rather than through the rootMotion view: one object fewer per character.
    const from = this.updateContextAt(0).rootMotion, to = at + ROOT_MOTION;
    numbers[to] = from[0]; numbers[to + 1] = from[1]; numbers[to + 2] = from[2]; numbers[to + 3] = from[3];
  }

  /**
   * Updates the graph by frameNumbers[GRAPH_DELTA] seconds, in the graph's update contexts unless they are lent.
   * A node that throws leaves reports in the contexts that the next update in them would add to
   * its own (the graph's are the next instance's): they are emptied before the error goes on.
   */
  private updateGraph(): void {
    const loan = this.graph.updateContextLoan;
    if (loan.lent) {
      const own = this.updateContexts = this.ownContexts ??= [];
      try {
        this.updateGraphIn();
      } catch (e) {
        emptyReports(own);
        throw e;
      }
      return;
    }
    loan.lent = true;
    const contexts = loan.contexts;
    for (let i = 0; i < contexts.length; i++) contexts[i].graph = this;
    this.updateContexts = contexts;
    try {
      this.updateGraphIn();
    } catch (e) {
      emptyReports(contexts);
      throw e;
    } finally {
      loan.lent = false;
    }
  }

  private updateGraphIn(): void {
    this.counter++;
    const ctx = this.updateContextAt(0);
    ctx.deltaTime = this.frameNumbers[this.frameNumbersAt + GRAPH_DELTA];
    ctx.weight = 1;
    ctx.inertializer = null;
    ctx.rootVelocityWindow = -1;
    ctx.resetReport();
    // Most graphs have no curves; fill is a builtin call even on an empty array.
    if (this.hasCurves) this.curveValues.fill(0);
    const root = this.root, frameRoot = this.frameRoot;
    if (frameRoot === root) {
      root.update(ctx);
    } else {
      // The root passes its input through (the output node): what its update would do besides
      // updating the input, here, so that a frame does not go through it and its link. It becomes
      // relevant on the first update (its own relevant and weight say so: see OutputNode).
      if (this.counter === 1 && this.events.has('nodeBecameRelevant')) this.events.emit('nodeBecameRelevant', root.id, root.type);
      frameRoot.update(ctx);
    }
    const after = this.afterUpdate;
    if (after !== null) for (let i = 0; i < after.length; i++) after[i].afterGraphUpdate!(ctx);
  }

  /**
   * Updates and evaluates the graph on one frame in `rate` only (Unreal's update-rate
   * optimisation, for a level of detail chosen in code, by distance for instance), and shows on
   * every frame a pose interpolated between its last two evaluations: translations and scales
   * lerped, rotations nlerped in one hemisphere; curves lerped likewise. 1 (the default) updates
   * every frame. The graph runs ahead of the displayed time by up to rate - 1 frames, so that the
   * interval the display crosses is already evaluated: its events fire when the graph crosses
   * them (in order, once per crossing, none lost), up to rate - 1 frames before the pose shows
   * them; `rootMotion` reports, each frame, its share (by time) of what the graph's updates
   * reported, which adds up to the same total. Evaluation frames are those where
   * (frame + phase) % rate is 0, frame counting updates: give a crowd's characters different
   * phases to spread their evaluations over the frames.
   *
   * A change takes effect at the next update without a jump: going to a lower rate interpolates
   * from the pose shown; going back to 1 interpolates until the display reaches the graph's time.
   * Throws a RangeError for a rate that is not a whole number from 1 to MAX_UPDATE_RATE (255) or a
   * phase that is not a whole number. The first rate above 1 allocates the instance's two
   * interpolation poses; afterwards nothing is allocated.
   *
   * `{ interpolate: false }` (Unreal's bInterpolateSkippedFrames off, for the farthest
   * characters): the graph is updated on the scheduled frames only, by all the time since its last
   * update, so it evaluates at the displayed time, and skipped frames hold its pose and cost
   * nothing (not even a copy, nor the component pose again). Events then fire on the update that
   * crosses them, up to rate - 1 frames late, and root motion is reported whole on that frame.
   */
  setUpdateRate(rate: number, phase = 0, options: UpdateRateOptions = DEFAULT_UPDATE_RATE_OPTIONS): void {
    checkUpdateRate(rate, phase);
    const interpolate = interpolatesSkipped(options);
    const clock = this.clock;
    clock.rate = rate;
    clock.phase = normalizePhase(phase, rate);
    clock.interpolate = interpolate;
    if (rate === 1 || this.interpolating) return;
    if (this.previous === null) {
      const storage = this.interpolationStorage?.();
      this.previous = new Pose(this.skeleton.boneCount, storage?.[0]);
      this.target = new Pose(this.skeleton.boneCount, storage?.[1]);
      this.pendingMotion = new Float64Array(4);
      this.curvesPrevious = new Float64Array(this.curveValues.length);
      this.curvesTarget = new Float64Array(this.curveValues.length);
    }
    this.startInterpolating();
  }

  /** The update rate: the graph is updated and evaluated on one frame in this many. */
  get updateRate(): number {
    return this.clock.rate;
  }

  /** The phase of the evaluation frames, in [0, updateRate). */
  get updatePhase(): number {
    return this.clock.phase;
  }

  /** Whether skipped frames interpolate (true, the default) or hold the last pose (see setUpdateRate). */
  get interpolatesSkippedFrames(): boolean {
    return this.clock.interpolate;
  }

  /** Seconds the graph runs ahead of the displayed time (see setUpdateRate): 0 at full rate. */
  get lookAhead(): number {
    return this.interpolating ? Math.max(0, this.clock.ahead) : 0;
  }

  /** The graph's current pose becomes the target of the interval, shown as it is. */
  private startInterpolating(): void {
    if (this.evaluatedAt === this.frame && this.evaluatedAt >= 0) {
      poseCopy(this.target!, this.output);
      this.targetStale = false;
    } else {
      this.targetStale = true;
    }
    this.curvesTarget!.set(this.curveValues);
    this.pendingMotion!.fill(0);
    this.clock.restart();
    this.interpolating = true;
    this.showsTarget = false;
  }

  /**
   * Evaluates the graph's output pose (local space). The returned pose is owned by the instance
   * and overwritten by the next evaluate. Before the first update (and after reset), the skeleton's
   * reference pose. Below full update rate (setUpdateRate), the pose at the
   * displayed time interpolated between the graph's last two evaluations (the graph evaluated
   * only when it has been updated since).
   */
  evaluate(): Pose {
    if (this.counter === 0) {
      // Never updated (new, or reset): no node has a weight or a time yet, and blends of nothing
      // put every bone at the origin. The reference pose instead, as Unreal's ResetToRefPose.
      poseCopy(this.output, this.skeleton.referencePose);
      this.componentStale = true;
      this.evaluatedAt = this.frame;
      return this.output;
    }
    if (!this.interpolating) {
      this.evaluateGraph(this.output);
      this.componentStale = true;
    } else {
      const target = this.target!;
      if (this.targetStale) {
        this.evaluateGraph(target);
        this.targetStale = false;
        this.showsTarget = false;
      }
      const w = this.clock.weights;
      if (w[1] !== 1) {
        poseBlendTwo(this.output, this.previous!, target, w);
        this.showsTarget = false;
        this.componentStale = true;
      } else if (!this.showsTarget) {
        // A held frame (interpolate: false) shows the same target again: no copy, no component pass.
        poseCopy(this.output, target);
        this.showsTarget = true;
        this.componentStale = true;
      }
    }
    this.evaluatedAt = this.frame;
    return this.output;
  }

  /**
   * Evaluates the graph into `into`. A node that throws leaves the pools' poses it and the nodes
   * above it held lent for good (the kernel's temporaries of a batch among them): they are taken
   * back before the error goes on, by the outermost evaluation on the pools only, since one nested
   * in another's (from an event listener) cannot tell the other's poses from its own; the error
   * passes through the outer one, which takes them back.
   */
  private evaluateGraph(into: Pose): void {
    const poses = this.posePool, componentPoses = this.componentPosePool;
    const posesLent = poses.lent, componentPosesLent = componentPoses.lent;
    try {
      this.frameRoot.evaluate(into);
    } catch (e) {
      if (posesLent === 0) poses.reclaim();
      if (componentPosesLent === 0) componentPoses.reclaim();
      throw e;
    }
  }

  /**
   * Copies this frame's root motion to out[at, at + 4): what an InstanceBatch does for each
   * character, reading the instance's own numbers rather than the rootMotion view of them.
   */
  rootMotionInto(out: Float64Array, at: number): void {
    const n = this.frameNumbers, from = this.frameNumbersAt + ROOT_MOTION;
    out[at] = n[from]; out[at + 1] = n[from + 1]; out[at + 2] = n[from + 2]; out[at + 3] = n[from + 3];
  }

  /**
   * Tells the instance that its component pose has been composed from its evaluated output by its
   * InstanceBatch (which composes its characters together in the sampling kernel); componentPose()
   * then returns it as it is. Not for other callers: a pose marked so without being composed is stale.
   */
  markComponentComposed(): void {
    // The component pose's bookkeeping is told when it is next asked for, not on every frame of
    // a crowd whose component poses are read from the batch's arrays.
    this.componentStale = false;
    this.componentComposedUnmarked = true;
  }

  /** The last evaluated pose in component space (every bone computed). */
  componentPose(): ComponentPose {
    if (this.evaluatedAt !== this.frame || this.evaluatedAt < 0) this.evaluate();
    const pose = this.ownComponentPose();
    if (this.componentStale) {
      pose.recomposeAll();
      this.componentStale = false;
    } else if (this.componentComposedUnmarked) {
      pose.markComposed();
    }
    this.componentComposedUnmarked = false;
    return pose;
  }

  /** The output's component pose, made on first use: its local pose is the output itself (evaluated into: no copy per frame). */
  private ownComponentPose(): ComponentPose {
    return this.outputComponent ??= new ComponentPose(this.skeleton, { local: this.output, component: this.componentStorage });
  }

  gatherDebug(): DebugNode {
    return this.root.gatherDebug();
  }

  /**
   * Re-initialises every node (play times, blends) as if the instance were new. Called from a
   * listener of this instance's events during update(), it takes effect when the update returns:
   * re-initialised part way through the frame, a node would go on with state it no longer has (a
   * state machine with no active state).
   */
  reset(): void {
    if (this.updating) {
      this.resetRequested = true;
      return;
    }
    this.counter = 0;
    this.frameNumbers[this.frameNumbersAt + ELAPSED] = 0;
    this.evaluatedAt = -1;
    this.root.initialize(new InitializeContext(this));
    // The update rate stays; the interval restarts from the graph's new state.
    this.interpolating = false;
    if (this.clock.rate > 1) this.startInterpolating();
  }
}

/** Empties every context's report (root motion and velocity, and what waits to be gathered). */
function emptyReports(contexts: readonly UpdateContext[]): void {
  for (let i = 0; i < contexts.length; i++) contexts[i].resetReport();
}

function anyPlaying(players: readonly SlotPlayer[]): boolean {
  for (let i = 0; i < players.length; i++) if (players[i].playing) return true;
  return false;
}

/**
 * The longest chain of `nodes` (compiled, in post-order) from its last node down, counting the
 * levels inside state machines' states (a state's root sits one below its machine) and a cached
 * pose below each node that names it: `depth` nodes, `chain` their ids from the top down.
 */
export function graphDepth(nodes: readonly CompiledNode[]): { depth: number; chain: string[] } {
  const height = new Map<string, number>();
  const below = new Map<string, string>();
  let deepest = 0, top = '';
  for (const node of nodes) {
    let h = 0, next = '';
    // A node named by a `node` property (a cached pose) is updated, evaluated and shown below the namer.
    const targets = [...Object.values(node.inputs).flat(), ...Object.values(node.subGraphs ?? {}), ...nodeReferences(node.nodeType, node.properties).map(([, t]) => t)];
    for (const target of targets) {
      const t = height.get(target) ?? 0;
      if (t > h) { h = t; next = target; }
    }
    height.set(node.id, h + 1);
    if (next !== '') below.set(node.id, next);
    if (h + 1 > deepest) { deepest = h + 1; top = node.id; }
  }
  const chain: string[] = [];
  for (let id: string | undefined = top; id !== undefined && id !== ''; id = below.get(id)) chain.push(id);
  return { depth: deepest, chain };
}

/** Throws a RangeError when a chain of `nodes` (in post-order) is longer than MAX_GRAPH_DEPTH (plus the output node). */
function checkGraphDepth(nodes: readonly CompiledNode[]): void {
  const { depth } = graphDepth(nodes);
  // The loader's limit counts from the node the asset's `output` names, below the Output node.
  if (depth > MAX_GRAPH_DEPTH + 1) throw new RangeError(`the graph is ${depth} nodes deep; at most ${MAX_GRAPH_DEPTH} (plus the output node) are allowed`);
}

/**
 * Throws a RangeError listing every clip key and reference value the frame loop could not sample,
 * blend or compose to a finite pose, and every clip whose frame time or duration is out of range
 * (see clipKeyProblem, clipTimingProblem, referenceRangeProblems): a graph built in
 * code, whose clips and skeleton no loader checked, fails here rather than giving NaN poses every
 * frame. (A loaded asset's are reported by the loader, with their JSON paths, and never reach this.)
 */
function checkGraphData(definition: AnimGraphDefinition): void {
  const messages = referenceRangeProblems(definition.skeleton);
  for (const [name, clip] of definition.clips) {
    const problem = clipKeyProblem(clip) ?? clipTimingProblem(1 / clip.frameRate, clip.frameCount);
    if (problem !== null) messages.push(`clip '${name}': ${problem}`);
  }
  if (messages.length > 0) throw new RangeError(`graph '${definition.name}' cannot be sampled to finite poses:\n${messages.map((m) => `  ${m}`).join('\n')}`);
}

function buildNode(
  compiled: CompiledNode, built: ReadonlyMap<string, PoseNode>, parameters: Parameters, graph: AnimGraph, numbers: (count: number) => number,
): PoseNode {
  const { nodeType } = compiled;
  const inputs: Record<string, Link | Link[]> = {};
  for (const spec of nodeType.inputs) {
    const target = compiled.inputs[spec.name];
    const makeLink = (id: string): Link => {
      const node = built.get(id);
      if (!node) throw new RangeError(`node '${compiled.id}' links '${spec.name}' to '${id}', which is not built before it`);
      return spec.space === 'local' ? new PoseLink(node) : new ComponentPoseLink(node);
    };
    if (spec.kind === 'poseList') inputs[spec.name] = (Array.isArray(target) ? target : []).map(makeLink);
    else if (typeof target === 'string') inputs[spec.name] = makeLink(target);
  }
  const subGraphs: Record<string, PoseLink> = {};
  for (const [name, id] of Object.entries(compiled.subGraphs ?? {})) {
    const node = built.get(id);
    if (!node) throw new RangeError(`node '${compiled.id}' has sub-graph '${name}' rooted at '${id}', which is not built before it`);
    subGraphs[name] = new PoseLink(node);
  }
  let node: unknown;
  try {
    node = nodeType.create({
      id: compiled.id, boneCount: graph.skeleton.boneCount, properties: resolveProperties(compiled, built, parameters, graph), inputs,
      shared: graph.shared.get(compiled.id), subGraphs, parameterSlot: (name) => parameters.slotOf(name),
      blendProfile: (name) => graph.blendProfiles.get(name) ?? null, numbers,
    });
  } catch (e) {
    // Named here, so that the loader reports it at the node (it said only 'graph failed to instantiate').
    if (e instanceof NodeBuildError && e.nodeId === compiled.id) throw e;
    throw new NodeBuildError(compiled.id, nodeType.type, `create threw ${thrownText(e)}`, e);
  }
  return checkBuiltNode(compiled, node);
}

/**
 * `node` as create returned it, if it is a node of the compiled node's id and of its type's space. A
 * wrong one failed later and elsewhere: undefined as the next node's link 'not built before it', a
 * plain object at initialize, another id (the same node returned twice) as 'not one of this
 * instance's nodes'.
 */
function checkBuiltNode(compiled: CompiledNode, node: unknown): PoseNode {
  const { id, nodeType } = compiled;
  if (!(node instanceof LocalPoseNodeClass || node instanceof ComponentPoseNodeClass)) {
    const given = typeof node === 'object' && node !== null ? `an object of class ${node.constructor?.name ?? 'Object'}` : String(node);
    throw new NodeBuildError(id, nodeType.type, `create returned ${given}, not a node (a LocalPoseNode or ComponentPoseNode)`);
  }
  if (node.id !== id) throw new NodeBuildError(id, nodeType.type, `create returned a node of id '${node.id}': give the node the id create receives`);
  if (node.space !== nodeType.space) {
    throw new NodeBuildError(id, nodeType.type, `create returned a ${node.space}-space node; the type declares space '${nodeType.space}', which the loader checked links by`);
  }
  return node;
}

function resolveNodeReference(compiled: CompiledNode, built: ReadonlyMap<string, PoseNode>, value: PropertyValue | undefined): PoseNode {
  const node = typeof value === 'string' ? built.get(value) : undefined;
  if (!node) throw new RangeError(`node '${compiled.id}' names ${JSON.stringify(value)}, which is not built before it`);
  return node;
}

/** Runs every node type's `prepare` once for the graph; throws NodePrepareError listing all problems. */
function prepareNodes(graph: AnimGraph, definition: AnimGraphDefinition): Map<string, unknown> {
  const shared = new Map<string, unknown>();
  const problems: NodeProblem[] = [];
  const resolvePath = definition.resolvePath ?? ((path: string) => path);
  // The slots every instance's parameters will have (Parameters lays them out by the definitions alone).
  const parameters = new Parameters(graph.parameterDefinitions);
  const failures: NodeBuildError[] = [];
  for (const compiled of definition.nodes) {
    const prepare = compiled.nodeType.prepare;
    if (!prepare) continue;
    const before = problems.length;
    let data: unknown;
    try {
      data = prepare.call(compiled.nodeType, {
        id: compiled.id,
        properties: compiled.properties,
        resolved: resolveProperties(compiled, new Map(), parameters, graph),
        skeleton: graph.skeleton,
        clip: (name) => graph.clipBindings.get(name),
        resolvePath,
        readFile: definition.readFile ?? noFileAccess,
        useIndexFiles: definition.useIndexFiles ?? true,
        parameterSlot: (name) => parameters.slotOf(name),
        blendProfile: (name) => graph.blendProfiles.get(name) ?? null,
        subGraphs: Object.keys(compiled.subGraphs ?? {}),
        report: (path, code, message) => {
          checkProblemCode(code, path);
          problems.push({ nodeId: compiled.id, path, code, message });
        },
      });
    } catch (e) {
      // Each node's, listed with the others' problems: the loader reports them at their nodes.
      failures.push(new NodeBuildError(compiled.id, compiled.nodeType.type, `prepare threw ${thrownText(e)}`, e));
      continue;
    }
    if (problems.length === before) shared.set(compiled.id, data);
  }
  if (problems.length > 0 || failures.length > 0) throw new NodePrepareError(problems, failures);
  return shared;
}

function noFileAccess(path: string): Uint8Array {
  throw new Error(`no file access to read '${path}': the graph definition has no readFile (graphs/loader.ts gives one)`);
}

function resolveProperties(compiled: CompiledNode, built: ReadonlyMap<string, PoseNode>, parameters: Parameters, graph: AnimGraph): ResolvedProperties {
  return resolvePropertyValues(compiled, compiled.nodeType.properties, compiled.properties, parameters, graph, built);
}

/** Resolves `values` described by `specs`: a node's properties, or one item of a list property. */
function resolvePropertyValues(
  compiled: CompiledNode, specs: Readonly<Record<string, PropertySpec>>, values: Readonly<Record<string, PropertyValue | undefined>>,
  parameters: Parameters, graph: AnimGraph, built: ReadonlyMap<string, PoseNode>,
): ResolvedProperties {
  const raw = (name: string): PropertyValue | undefined => {
    if (!Object.hasOwn(specs, name)) throw new RangeError(`node type ${compiled.nodeType.type} has no property '${name}'`);
    return Object.hasOwn(values, name) ? values[name] : undefined;
  };
  const binding = (value: PropertyValue | undefined): number =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && typeof value.param === 'string' ? parameters.slotOf(value.param) : -1;
  // One object per graph, record and name (AnimGraph.resolvedProperties); a property's kind is fixed by its spec.
  const shared = <T>(name: string, resolve: () => T): T => {
    let byName = graph.resolvedProperties.get(values);
    if (byName === undefined) {
      byName = new Map();
      graph.resolvedProperties.set(values, byName);
    }
    if (!byName.has(name)) byName.set(name, resolve());
    return byName.get(name) as T;
  };
  return {
    scalar(name): ScalarProperty {
      return shared(name, (): ScalarProperty => {
        const value = raw(name);
        const spec = specs[name];
        const fallback = 'default' in spec ? spec.default : 0;
        const literal = typeof value === 'number' || typeof value === 'boolean' ? value : fallback;
        return { slot: binding(value), constant: typeof literal === 'boolean' ? (literal ? 1 : 0) : Number(literal) };
      });
    },
    vec3(name): Vec3Property {
      return shared(name, () => {
        const value = raw(name);
        const spec = specs[name];
        const literal = Array.isArray(value) ? value : 'default' in spec && Array.isArray(spec.default) ? spec.default : [0, 0, 0];
        // `constant` first, not the scalar's `{ slot, constant }` order, and not a class: an object
        // of its own shape keeps the scalars' `constant` a double field (see CONTRIBUTING.md,
        // "Numbers in the frame loop"; tests/support/bound-scalar-allocation-probe.ts).
        return { constant: Float64Array.from(literal as readonly unknown[], Number), slot: binding(value) };
      });
    },
    enumValue(name): string {
      const value = raw(name);
      const spec = specs[name];
      return typeof value === 'string' ? value : 'default' in spec ? String(spec.default) : '';
    },
    clip(name): ClipBinding {
      const value = raw(name);
      const clip = typeof value === 'string' ? graph.clipBindings.get(value) : undefined;
      if (!clip) throw new RangeError(`node '${compiled.id}': no clip named ${JSON.stringify(value)}`);
      return clip;
    },
    bone(name): string {
      const value = raw(name);
      return typeof value === 'string' ? value : '';
    },
    floatList(name): number[] {
      const value = raw(name);
      const spec = specs[name];
      const count = compiled.inputs[spec.kind === 'floatList' ? spec.perInput : '']?.length ?? 0;
      const fallback = spec.kind === 'floatList' ? spec.default : 0;
      if (Array.isArray(value)) return Array.from({ length: count }, (_, i) => Number(value[i] ?? fallback));
      return new Array<number>(count).fill(typeof value === 'number' ? value : fallback);
    },
    clipList(name): ClipBinding[] {
      const value = raw(name);
      const names: unknown[] = Array.isArray(value) ? value : [];
      return names.map((clipName) => {
        const clip = typeof clipName === 'string' ? graph.clipBindings.get(clipName) : undefined;
        if (!clip) throw new RangeError(`node '${compiled.id}': no clip named ${JSON.stringify(clipName)}`);
        return clip;
      });
    },
    literal(name): unknown {
      return raw(name);
    },
    list(name): ResolvedProperties[] {
      const value = raw(name);
      const spec = specs[name];
      if (spec.kind !== 'list') throw new RangeError(`property '${name}' of ${compiled.nodeType.type} is not a list`);
      const items: unknown[] = Array.isArray(value) ? value : [];
      return items.map((item) => resolvePropertyValues(compiled, spec.item, item as Record<string, PropertyValue>, parameters, graph, built));
    },
    node(name): PoseNode {
      return resolveNodeReference(compiled, built, raw(name));
    },
    blendProfile(name): BlendProfile | null {
      const value = raw(name);
      if (typeof value !== 'string') return null;
      const profile = graph.blendProfiles.get(value);
      if (!profile) throw new RangeError(`node '${compiled.id}': no blend profile named ${JSON.stringify(value)}`);
      return profile;
    },
  };
}
