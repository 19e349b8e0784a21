import type { ClipBinding } from './clip.ts';
import type { ComponentPose, ComponentPosePool } from './component-pose.ts';
import type { AnimGraphEventEmitter } from './events.ts';
import { poseBlendTwo, type Pose, type PosePool } from './pose.ts';
import type { Skeleton } from './skeleton.ts';
import type { ParameterType } from './parameters.ts';
import type { ZodType } from 'zod';

/** A branch at or below this weight is irrelevant: it is neither updated nor evaluated (Unreal's ZERO_ANIMWEIGHT_THRESH). */
export const ZERO_WEIGHT = 0.00001;

/** What a node sees of the graph instance it belongs to. */
export interface GraphRuntime {
  readonly skeleton: Skeleton;
  /** Parameter values by slot (see Parameters). */
  readonly parameterValues: Float64Array;
  readonly events: AnimGraphEventEmitter;
  readonly posePool: PosePool;
  readonly componentPosePool: ComponentPosePool;
  /** Incremented once per graph update; a node updated in frame f-1 and f stays relevant. */
  readonly updateCounter: number;
  /** A reusable update context for the given depth of the update recursion. */
  updateContextAt(depth: number): UpdateContext;
}

export class InitializeContext {
  constructor(readonly graph: GraphRuntime) {}
}

export class CacheBonesContext {
  /** Bone names nodes asked for that the skeleton lacks, with the node that asked. */
  readonly unknownBones: { nodeId: string; bone: string }[] = [];

  constructor(readonly skeleton: Skeleton) {}

  /** The index of a bone, recording it as unknown (and returning -1) if the skeleton has none. */
  boneIndex(nodeId: string, name: string): number {
    const index = this.skeleton.indexOf(name);
    if (index < 0) this.unknownBones.push({ nodeId, bone: name });
    return index;
  }
}

/**
 * Delta time and the absolute blend weight of the branch being updated, and what the branch reports
 * back up: its root motion. Contexts are pooled per recursion depth by the graph instance, so
 * `child` allocates nothing: a child's context is reused by its next sibling only after what the
 * child's branch reported has been added to this context (see `child` and AnimNode.update).
 *
 * Root motion travels up through the update, as poses do through evaluation: a node that plays
 * root motion adds its weighted delta to its own context; a child context starts at zero and is
 * added into its parent's when the parent asks for the next child or finishes its update. So
 * between `input.update(child)` and the end of its own update, a node reads in `child.rootMotion`
 * exactly what its input branch added, and may scale or filter it (StrideWarping does) without
 * knowing what is below. The graph's root motion is the top context's.
 */
export class UpdateContext {
  deltaTime = 0;
  weight = 1;
  /**
   * The nearest Inertialization node below this branch (toward the output), which blend nodes in
   * inertial mode ask for a transition; null when there is none (the loader rejects such graphs).
   */
  inertializer: InertializationRequests | null = null;
  /**
   * Root motion this branch added this frame, [dx, dy, dz, dHeading] in the character's frame,
   * each source's delta times its absolute weight.
   */
  readonly rootMotion = new Float64Array(4);
  /**
   * The branch's root-motion velocity as its clips play it, [vx, vy, vz, w] in the character's
   * frame: each source's clip's mean root velocity over `rootVelocityWindow` seconds of clip time
   * around its play time (the whole clip when 0), times the clip seconds it advances per second,
   * times its absolute weight, summed; w sums the weights of the sources that reported one. Reported
   * only when a node above asks (rootVelocityWindow >= 0): a warp wants the pace of a step, not the
   * root's speed within it, which rises and falls with each footfall.
   */
  readonly rootVelocity = new Float64Array(4);
  /** Clip seconds over which sources average `rootVelocity`; negative: nobody above asks for it. */
  rootVelocityWindow = -1;
  /** 1 while this context holds a report its parent has not added yet (in an array, as weights are). */
  private readonly pending = new Uint8Array(1);

  constructor(readonly graph: GraphRuntime, readonly depth: number) {}

  /**
   * The context for a child branch, with this branch's delta time and weight and an empty report;
   * multiply its `weight` by the child's fraction before updating the child (Unreal's
   * FractionalWeight). The fraction is applied by the caller rather than passed in because V8
   * boxes a double passed to a call it does not inline, which would allocate on every update.
   * What the previous child at this depth reported is added to this context first.
   */
  child(): UpdateContext {
    const child = this.graph.updateContextAt(this.depth + 1);
    this.gatherChild(child);
    child.deltaTime = this.deltaTime;
    child.weight = this.weight;
    child.inertializer = this.inertializer;
    child.rootVelocityWindow = this.rootVelocityWindow;
    child.rootMotion.fill(0);
    child.rootVelocity.fill(0);
    child.pending[0] = 1;
    return child;
  }

  /** Adds what the last child branch reported, if not yet added (called when this branch's update ends). */
  gatherReports(): void {
    this.gatherChild(this.graph.updateContextAt(this.depth + 1));
  }

  /** Empties the report, for the top of a new frame. */
  resetReport(): void {
    this.rootMotion.fill(0);
    this.rootVelocity.fill(0);
    this.pending[0] = 0;
  }

  private gatherChild(child: UpdateContext): void {
    if (child.pending[0] === 0) return;
    child.pending[0] = 0;
    const rm = this.rootMotion, crm = child.rootMotion, rv = this.rootVelocity, crv = child.rootVelocity;
    for (let k = 0; k < 4; k++) {
      rm[k] += crm[k];
      rv[k] += crv[k];
    }
  }
}

/** What a node offers to the branch above it when it can inertialize transitions requested there. */
export interface InertializationRequests {
  /**
   * Asks for an inertial transition of `request.duration` seconds starting this frame (an
   * InertialRequest the requester keeps). Several requests in one frame merge by the shortest duration.
   */
  requestInertialization(request: { readonly duration: number }, requester: AnimNode): void;
}

/** One line of the debug tree: what a node did this frame. */
export interface DebugNode {
  id: string;
  type: string;
  /** Absolute weight this frame, 0..1 (0 when the node was not updated). */
  weight: number;
  description: string;
  /** Skeletal controls report their alpha, 0..1. */
  alpha?: number;
  /** True for nodes that produce a pose from a clip (leaves). */
  poseSource?: boolean;
  /** Node-specific values for tools (play time, blend weights, ...), not only for display. */
  values?: Record<string, number | boolean | string | number[]>;
  children: DebugNode[];
}

export type PoseSpace = 'local' | 'component';

/**
 * The behaviour node contract (Unreal's FAnimNode_Base). Public methods are template methods:
 * they do the bookkeeping (forwarding initialize/cacheBones/gatherDebug to every input link,
 * relevance tracking, weight recording) and call the protected `on…` hooks that subclasses
 * implement. Per-instance state lives on the node; the asset it came from is never mutated.
 */
export abstract class AnimNode {
  abstract readonly space: PoseSpace;
  protected graph!: GraphRuntime;
  /**
   * Absolute weight of the last update, in a typed array: this base class's methods see every node
   * class, and V8 boxes a double stored through such a many-shaped (megamorphic) property access.
   */
  private readonly lastWeight = new Float64Array(1);
  private lastUpdate = -2;

  constructor(readonly id: string, readonly type: string) {}

  /** Every pose link this node owns, in pin order. The base class forwards calls through them. */
  protected abstract get links(): readonly Link[];

  /** May be called more than once; resets per-instance state. */
  initialize(ctx: InitializeContext): void {
    this.graph = ctx.graph;
    this.lastUpdate = -2;
    this.lastWeight[0] = 0;
    for (const link of this.links) link.initialize(ctx);
    this.onInitialize(ctx);
  }

  /** Resolves bone names to indices; runs at bind and whenever the required bones change. */
  cacheBones(ctx: CacheBonesContext): void {
    for (const link of this.links) link.cacheBones(ctx);
    this.onCacheBones(ctx);
  }

  update(ctx: UpdateContext): void {
    const counter = this.graph.updateCounter;
    if (this.lastUpdate !== counter - 1 && this.lastUpdate !== counter) {
      this.onBecomeRelevant(ctx);
      if (this.graph.events.has('nodeBecameRelevant')) this.graph.events.emit('nodeBecameRelevant', this.id, this.type);
    }
    this.lastUpdate = counter;
    this.lastWeight[0] = ctx.weight;
    this.onUpdate(ctx);
    // What the node's last child branch reported joins its own, so the branch above sees it all.
    ctx.gatherReports();
  }

  /** True if the node was updated in the current frame. */
  get relevant(): boolean {
    return this.lastUpdate === this.graph.updateCounter;
  }

  /** Absolute weight this frame; 0 if the node was not updated this frame. */
  get weight(): number {
    return this.relevant ? this.lastWeight[0] : 0;
  }

  gatherDebug(): DebugNode {
    const node: DebugNode = {
      id: this.id,
      type: this.type,
      weight: this.weight,
      description: this.debugDescription(),
      children: this.links.map((l) => l.gatherDebug()),
    };
    this.onGatherDebug(node);
    return node;
  }

  protected onInitialize(_ctx: InitializeContext): void {}
  protected onCacheBones(_ctx: CacheBonesContext): void {}
  /** Called before onUpdate when the node was not updated on the previous frame. */
  protected onBecomeRelevant(_ctx: UpdateContext): void {}
  protected abstract onUpdate(ctx: UpdateContext): void;
  protected debugDescription(): string {
    return '';
  }
  /** Adds node-specific fields (alpha, values, poseSource) to this node's debug line. */
  protected onGatherDebug(_node: DebugNode): void {}
}

/** A node that produces a local-space pose (players, blends). */
export abstract class LocalPoseNode extends AnimNode {
  readonly space = 'local' as const;

  /** Writes this frame's pose into `out`. */
  evaluate(out: Pose): void {
    this.onEvaluate(out);
  }

  /**
   * Blends this frame's pose into `out` as poseBlendTwo's second pose: out = out * weights[0] +
   * pose * weights[1]. What a two-way blend asks of its second input.
   */
  evaluateBlendedInto(out: Pose, weights: Float64Array): void {
    this.onEvaluateBlendedInto(out, weights);
  }

  protected abstract onEvaluate(out: Pose): void;

  /**
   * Evaluates into a pooled pose and blends that. A node that can produce its pose bone by bone
   * (a clip player) overrides this to blend as it goes, with the same numbers and no pose between.
   */
  protected onEvaluateBlendedInto(out: Pose, weights: Float64Array): void {
    const pool = this.graph.posePool;
    const pose = pool.acquire();
    this.onEvaluate(pose);
    poseBlendTwo(out, out, pose, weights);
    pool.release(pose);
  }
}

/** A node that produces a component-space pose (skeletal controls). */
export abstract class ComponentPoseNode extends AnimNode {
  readonly space = 'component' as const;

  evaluateComponentSpace(out: ComponentPose): void {
    this.onEvaluateComponentSpace(out);
  }

  protected abstract onEvaluateComponentSpace(out: ComponentPose): void;
}

export type PoseNode = LocalPoseNode | ComponentPoseNode;

/** The links of a node that has no pose inputs (players). */
export const NO_LINKS: readonly Link[] = [];

/** Forwards every call to the node it links to (Unreal's FPoseLink / FComponentSpacePoseLink). */
export abstract class Link {
  protected graph!: GraphRuntime;
  /** The linked node by its space, resolved once so that evaluation needs no type test. */
  protected readonly localNode: LocalPoseNode | null;
  protected readonly componentNode: ComponentPoseNode | null;

  constructor(readonly node: PoseNode) {
    this.localNode = node.space === 'local' ? node : null;
    this.componentNode = node.space === 'component' ? node : null;
  }

  initialize(ctx: InitializeContext): void {
    this.graph = ctx.graph;
    this.node.initialize(ctx);
  }

  cacheBones(ctx: CacheBonesContext): void {
    this.node.cacheBones(ctx);
  }

  /**
   * Updates the linked branch unless its absolute weight (`ctx.weight`, the product of the blend
   * shares above it) is at or below ZERO_WEIGHT. The test lives here, on the absolute weight, so
   * that a branch nested under several blends is dropped by the same rule as a direct input: a
   * blend comparing only its own local share would keep updating a 0.5 × 1.5e-5 branch. Returns
   * whether the branch was updated, so a blend can leave it out of its evaluation too.
   */
  update(ctx: UpdateContext): boolean {
    if (!(ctx.weight > ZERO_WEIGHT)) return false;
    this.node.update(ctx);
    return true;
  }

  gatherDebug(): DebugNode {
    return this.node.gatherDebug();
  }
}

/**
 * A local-space input. If the linked node works in component space, the link converts its output
 * back to local space.
 */
export class PoseLink extends Link {
  /** See LocalPoseNode.evaluateBlendedInto. */
  evaluateBlendedInto(out: Pose, weights: Float64Array): void {
    if (this.localNode !== null) {
      this.localNode.evaluateBlendedInto(out, weights);
      return;
    }
    const pool = this.graph.posePool;
    const pose = pool.acquire();
    this.evaluate(pose);
    poseBlendTwo(out, out, pose, weights);
    pool.release(pose);
  }

  evaluate(out: Pose): void {
    if (this.localNode !== null) {
      this.localNode.evaluate(out);
      return;
    }
    const pool = this.graph.componentPosePool;
    const cs = pool.acquire();
    cs.attachLocal(out);
    this.componentNode!.evaluateComponentSpace(cs);
    cs.ensureAllLocal();
    cs.detachLocal();
    pool.release(cs);
  }
}

/**
 * A component-space input. If the linked node works in local space, its pose is evaluated into the
 * component pose's local buffer and component transforms are computed lazily when read.
 */
export class ComponentPoseLink extends Link {
  evaluateComponentSpace(out: ComponentPose): void {
    if (this.componentNode !== null) {
      this.componentNode.evaluateComponentSpace(out);
      return;
    }
    this.localNode!.evaluate(out.local);
    out.markLocalChanged();
  }
}

// ---------------------------------------------------------------------------------------------
// Node types: what a node declares once, read by the asset schema, the loader and the editor.

/**
 * A property that can be a literal or bound to a parameter of a compatible type. `bindable: false`
 * makes it a literal only (a node that reads it once, when built, says so): the loader refuses a
 * binding on it (`not-bindable`) and the JSON Schema offers none. Every other property of these
 * kinds must honour its binding, reading the parameter every frame.
 */
export type BindableSpec =
  | { kind: 'float'; default: number; min?: number; max?: number; bindable?: false }
  | { kind: 'int'; default: number; min?: number; max?: number; bindable?: false }
  | { kind: 'bool'; default: boolean; bindable?: false }
  | { kind: 'vec3'; default: [number, number, number]; bindable?: false };

export type PropertySpec =
  | BindableSpec
  | { kind: 'enum'; options: readonly string[]; default: string }
  /** The name of a clip declared in the asset's `clips`. Required. */
  | { kind: 'clip' }
  /**
   * The name of a skeleton bone. Required, unless `optional`: then it may be left out, and the node
   * reads '' (no bone) from ResolvedProperties.bone.
   */
  | { kind: 'bone'; optional?: boolean }
  /** A list of numbers, one per entry of a pose-list input (for example blend times). */
  | { kind: 'floatList'; default: number; min?: number; max?: number; perInput: string }
  /** A list of clip names declared in the asset's `clips` (each checked by the loader). Required. */
  | { kind: 'clipList'; minCount?: number }
  /** A file path, relative to the graph file. Optional. */
  | { kind: 'file' }
  /**
   * A node-specific structured value (an object) validated by `schema`, which also becomes its
   * JSON Schema; references inside it (bones, clips) are checked by the node type's `check`.
   * Optional: the node decides what its absence means.
   */
  | { kind: 'object'; schema: ZodType }
  /**
   * A direction: a literal, non-zero vec3 that the node normalises (a joint axis). Not bindable, so
   * the loader can reject a zero direction. Read it with ResolvedProperties.vec3.
   */
  | { kind: 'direction'; default: [number, number, number] }
  /**
   * A list of items, each an object with the fields `item` describes, as properties of their own:
   * a field may be bound to a parameter where its kind allows, and the loader checks the names
   * in it (bones, clips, parameters) with paths such as `helpers[0].source`. Required when
   * `minCount` is above 0; otherwise optional, default []. Read with ResolvedProperties.list.
   */
  | { kind: 'list'; item: Readonly<Record<string, PropertySpec>>; minCount?: number };

export interface InputSpec {
  name: string;
  /** 'pose': one link; 'poseList': an ordered list of links. */
  kind: 'pose' | 'poseList';
  /** The space the node reads this input in; the link converts if the linked node differs. */
  space: PoseSpace;
  /** For poseList: the fewest links allowed. */
  minCount?: number;
  /**
   * The spaces this input takes from the linked node. By default both: the link converts between
   * local and component space. A node that must not pay for (or cannot use) a conversion narrows it,
   * and the loader reports a link from a node of the other space.
   */
  accepts?: readonly PoseSpace[];
}

/** A bound property, resolved at build time: read `slot` of the parameter values, or `constant`. */
export interface ScalarProperty {
  readonly slot: number;
  readonly constant: number;
}

export interface Vec3Property {
  readonly slot: number;
  readonly constant: Float64Array;
}

export function readScalar(values: Float64Array, p: ScalarProperty): number {
  return p.slot >= 0 ? values[p.slot] : p.constant;
}

/** Reads a vec3 property into out[o..o+2]. */
export function readVec3(out: Float64Array, o: number, values: Float64Array, p: Vec3Property): Float64Array {
  if (p.slot >= 0) {
    out[o] = values[p.slot]; out[o + 1] = values[p.slot + 1]; out[o + 2] = values[p.slot + 2];
  } else {
    out[o] = p.constant[0]; out[o + 1] = p.constant[1]; out[o + 2] = p.constant[2];
  }
  return out;
}

/** The properties of one node, resolved for one graph instance. */
export interface ResolvedProperties {
  scalar(name: string): ScalarProperty;
  vec3(name: string): Vec3Property;
  enumValue(name: string): string;
  clip(name: string): ClipBinding;
  bone(name: string): string;
  floatList(name: string): number[];
  /** The clips of a clipList property, in order. */
  clipList(name: string): ClipBinding[];
  /** The literal value of an `object` or `file` property as validated, or undefined when absent. */
  literal(name: string): unknown;
  /** The items of a list property, each resolved like a node's properties (by the item's field names). */
  list(name: string): ResolvedProperties[];
}

export interface NodeBuild {
  id: string;
  /** Bones in the skeleton the instance is bound to, for sizing per-bone state once. */
  boneCount: number;
  properties: ResolvedProperties;
  /** Links by input name: a PoseLink or ComponentPoseLink for 'pose', an array for 'poseList'. */
  inputs: Record<string, Link | Link[]>;
  /**
   * What the node type's `prepare` returned for this node of this graph: immutable data built once
   * per AnimGraph and shared by every instance (undefined for types without `prepare`).
   */
  shared?: unknown;
}

/** Codes of the problems a node type reports from `check` or `prepare` (a subset of the loader's). */
export type NodeProblemCode = 'schema' | 'unknown-bone' | 'unknown-clip' | 'file' | 'stale-index';

/** A problem found by a node type, at a path below the node's `properties` block. */
export interface NodeProblem {
  nodeId: string;
  /** Keys below `properties`, e.g. ['features', 'positions', 'bones', 1]. */
  path: readonly PropertyKey[];
  code: NodeProblemCode;
  message: string;
}

/** What NodeType.check sees at load time, after the generic property checks. */
export interface NodeCheckContext {
  readonly id: string;
  /** The node's well-formed literal properties (bound ones as `{ param }`). */
  readonly properties: Readonly<Record<string, unknown>>;
  /**
   * The properties as written, unvalidated: a malformed property is missing from `properties` (its
   * schema problems are already reported), but its readable parts can still be checked here.
   */
  readonly rawProperties: Readonly<Record<string, unknown>>;
  /** The skeleton, when it loaded. */
  readonly skeleton: Skeleton | undefined;
  /** Names of the clips that loaded. */
  readonly clipNames: ReadonlySet<string>;
  report(path: readonly PropertyKey[], code: NodeProblemCode, message: string): void;
}

/** What NodeType.prepare sees: the bound graph, once per (AnimGraph, node). */
export interface NodePrepareContext {
  readonly id: string;
  readonly properties: Readonly<Record<string, unknown>>;
  readonly skeleton: Skeleton;
  /** The graph's binding of a clip, or undefined if the graph has no clip of that name. */
  clip(name: string): ClipBinding | undefined;
  /** A file path written in the asset, resolved against the graph file's folder. */
  resolvePath(path: string): string;
  /**
   * False when index files named in the asset must be ignored and their data rebuilt from the
   * clips (what `animgraph index` does).
   */
  readonly useIndexFiles: boolean;
  report(path: readonly PropertyKey[], code: NodeProblemCode, message: string): void;
}

/** Thrown when binding a graph whose nodes' `prepare` reported problems; the loader maps them to JSON paths. */
export class NodePrepareError extends Error {
  constructor(readonly problems: readonly NodeProblem[]) {
    super(problems.map((p) => `node '${p.nodeId}' ${[...p.path].map(String).join('.')}: ${p.message}`).join('\n'));
    this.name = 'NodePrepareError';
  }
}

/** Everything the loader, the schema and the editor need to know about a node type. */
export interface NodeType {
  type: string;
  space: PoseSpace;
  properties: Readonly<Record<string, PropertySpec>>;
  inputs: readonly InputSpec[];
  create(build: NodeBuild): PoseNode;
  /** True for nodes that take inertialization requests from the branch above them. */
  providesInertialization?: boolean;
  /**
   * Whether a node with these (validated) properties sends inertialization requests; the loader
   * then requires a node that provides them between it and the output.
   */
  requestsInertialization?(properties: Readonly<Record<string, unknown>>): boolean;
  /**
   * Load-time checks the generic property rules cannot express (names inside an `object`
   * property, combinations of values). Called with the well-formed properties; report each
   * problem with its path below `properties`.
   */
  check?(ctx: NodeCheckContext): void;
  /**
   * Builds immutable data for one node of one graph (a search database, a lookup table), once
   * when the AnimGraph is bound; every instance's create() receives it as `build.shared`.
   */
  prepare?(ctx: NodePrepareContext): unknown;
}

export type { ParameterType };
