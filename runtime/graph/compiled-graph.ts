/**
 * What every instance of a graph reads from the asset: the graph bound to its skeleton and clips
 * once, what its node types prepared, the temporaries and update contexts its instances share, and
 * the layout of an instance's per-frame numbers. AnimGraph (graph.ts) is this plus the making of
 * instances.
 */
import { resolveBlendProfile, type BlendProfile } from '../core/blend-profile.ts';
import { ClipBinding } from '../core/clip.ts';
import { ComponentPosePool } from '../core/component-pose.ts';
import { AnimGraphError } from '../core/errors.ts';
import { Montage } from '../core/montage.ts';
import { PosePool } from '../core/pose.ts';
import type { Skeleton } from '../core/skeleton.ts';
import type { UpdateContext } from '../node/node.ts';
import { Parameters, type ParameterDefinition } from '../node/parameters.ts';
import { CurveInputs } from './curve-inputs.ts';
import { checkGraphData, checkGraphDepth, type AnimGraphDefinition, type CompiledNode } from './definition.ts';
import { FrameNumbering, type FrameLayout } from './frame-layout.ts';
import { buildNodes, prepareNodes } from './node-build.ts';
import { poseSnapshotNamesOf } from './pose-snapshots.ts';
import { bindSlotPlayers } from './slot-play.ts';

/**
 * A validated graph asset bound to a skeleton and clips: immutable, shared by all its instances
 * (Bevy's asset/instance split). Clip bindings are built once here. What an instance reads of its
 * graph (AnimGraphInstance.graph); AnimGraph adds createInstance and createInstances.
 */
export class CompiledGraph {
  readonly name: string;
  readonly skeleton: Skeleton;
  readonly parameterDefinitions: Readonly<Record<string, ParameterDefinition>>;
  readonly clipBindings: ReadonlyMap<string, ClipBinding>;
  /** The asset's montages by name (AnimGraphInstance.playMontage), compiled once and shared by every instance. */
  readonly montages: ReadonlyMap<string, Montage>;
  /** The asset's blend profiles, each bound to the skeleton once (per-bone scales), shared by every instance. */
  readonly blendProfiles: ReadonlyMap<string, BlendProfile>;
  /**
   * Every curve name the graph's clips carry, sorted: a name's index is its slot in an instance's
   * curve values (AnimGraphInstance.curve).
   */
  readonly curveNames: readonly string[];
  /** The slot of each curve name (its index in curveNames). */
  readonly curveSlots: ReadonlyMap<string, number>;
  /**
   * The curves that drive properties and parameters, laid out in every instance's parameter values
   * (curve-inputs.ts); null when nothing binds a curve.
   */
  readonly curveInputs: CurveInputs | null;
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

  /**
   * What every instance's nodes lay out alike, kept once here rather than per character: where
   * each node keeps its numbers in an instance's frame numbers, the slot names and the pose snapshot
   * names. Recorded by the graph's first instance, or learned by building the nodes once when asked
   * for before any.
   */
  private learned: LearnedLayout | null = null;

  constructor(definition: AnimGraphDefinition) {
    if (definition.nodes.length === 0) throw new AnimGraphError('invalid-data', 'a graph needs at least one node');
    checkGraphDepth(definition.nodes);
    checkGraphData(definition);
    this.name = definition.name;
    this.skeleton = definition.skeleton;
    this.parameterDefinitions = definition.parameters;
    this.nodes = definition.nodes;
    this.curveNames = [...new Set([...definition.clips.values()].flatMap((clip) => clip.curves.map((c) => c.name)))].sort();
    this.curveSlots = new Map(this.curveNames.map((name, i) => [name, i]));
    this.curveInputs = CurveInputs.of(definition.parameters, definition.nodes, this.curveSlots, definition.name);
    this.clipBindings = new Map([...definition.clips].map(([name, clip], i) => [name, new ClipBinding(clip, definition.skeleton, this.curveSlots, i)]));
    const clipOf = (name: string) => definition.clips.get(name);
    this.montages = new Map(Object.entries(definition.montages ?? {}).map(([name, json]) => [name, new Montage(name, json, this.clipBindings.get(json.clip), clipOf)]));
    this.blendProfiles = new Map(Object.entries(definition.blendProfiles ?? {}).map(([name, p]) => [name, resolveBlendProfile(name, p, definition.skeleton)]));
    this.shared = prepareNodes(this, definition);
    this.posePool = new PosePool(definition.skeleton.boneCount);
    this.componentPosePool = new ComponentPosePool(definition.skeleton);
  }

  /**
   * How many per-frame numbers an instance keeps (AnimGraphInstance.frameNumbers: its own, then
   * what its nodes reserve), for storage given to createInstance (InstanceOutput.frameNumbers).
   * The same for every instance of the graph (see frameLayout).
   */
  get frameNumberCount(): number {
    return this.frameLayout.count;
  }

  /** Where each node keeps its numbers in an instance's frame numbers: the same for every instance of the graph. */
  get frameLayout(): FrameLayout {
    return (this.learned ??= this.learnByBuilding()).frameLayout;
  }

  /**
   * The slot names AnimGraphInstance.playSlot takes (every instance's slotNames): which nodes play
   * slots is known once they are built, so learned, with the frame layout, from the first instance.
   */
  get slotNames(): readonly string[] {
    return (this.learned ??= this.learnByBuilding()).slotNames;
  }

  /**
   * The names the graph's PoseSnapshot nodes read (each once, in the graph's order): the snapshots
   * AnimGraphInstance.savePoseSnapshot saves without allocating, and those a Crowd saves.
   */
  get poseSnapshotNames(): readonly string[] {
    return (this.learned ??= this.learnByBuilding()).poseSnapshotNames;
  }

  /** The frame layout once an instance has been built (or frameLayout asked for), null before. */
  get knownFrameLayout(): FrameLayout | null {
    return this.learned?.frameLayout ?? null;
  }

  /** Records what the graph's first instance laid out, once its nodes are built; later calls change nothing. */
  recordLayout(frameLayout: FrameLayout, slotNames: readonly string[], poseSnapshotNames: readonly string[]): void {
    this.learned ??= { frameLayout, slotNames, poseSnapshotNames };
  }

  /** The frame layout and names, from the nodes built once (for nothing else: no instance is made). */
  private learnByBuilding(): LearnedLayout {
    const numbering = new FrameNumbering(null, 0);
    const nodes = buildNodes(this, new Parameters(this.parameterDefinitions, undefined, this.curveInputs?.extraSlots ?? 0), numbering);
    return { frameLayout: numbering.finish(), slotNames: [...(bindSlotPlayers(nodes)?.keys() ?? [])], poseSnapshotNames: poseSnapshotNamesOf(nodes) };
  }
}

/** What CompiledGraph learns from its first instance's nodes. */
interface LearnedLayout {
  readonly frameLayout: FrameLayout;
  readonly slotNames: readonly string[];
  readonly poseSnapshotNames: readonly string[];
}
