import type { BlendProfile } from '../core/blend-profile.ts';
import type { ComponentPose, ComponentPosePool } from '../core/component-pose.ts';
import type { AnimGraphEventEmitter } from './events.ts';
import { poseBlendTwo, type Pose, type PosePool } from '../core/pose.ts';
import type { Skeleton } from '../core/skeleton.ts';

/** A branch at or below this weight is irrelevant: it is neither updated nor evaluated (Unreal's ZERO_ANIMWEIGHT_THRESH). */
export const ZERO_WEIGHT = 0.00001;

/** What a node sees of the graph instance it belongs to. */
export interface GraphRuntime {
  readonly skeleton: Skeleton;
  /** Parameter values by slot (see Parameters). */
  readonly parameterValues: Float64Array;
  readonly events: AnimGraphEventEmitter;
  /**
   * This frame's curve values by slot (see AnimGraph.curveNames): zeroed at the start of each
   * update, to which each relevant clip player adds its clip's curves times its absolute weight.
   */
  readonly curveValues: Float64Array;
  readonly posePool: PosePool;
  readonly componentPosePool: ComponentPosePool;
  /** Incremented once per graph update; a node updated in frame f-1 and f stays relevant. */
  readonly updateCounter: number;
  /** A reusable update context for the given depth of the update recursion. */
  updateContextAt(depth: number): UpdateContext;
  /**
   * The instance's per-frame numbers: each node's absolute weight of its last update (at the node's
   * nodeSlot) and what nodes reserved when built (NodeBuild.numbers).
   */
  readonly frameNumbers: Float64Array;
  /** Where one of the instance's nodes keeps its weight in frameNumbers (asked once, at its first initialize). */
  nodeSlot(node: AnimNode): number;
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

  /**
   * The instance being updated. Contexts are lent by the graph to each of its instances in turn
   * (AnimGraph.updateContextLoan), so this changes between instances, never during an update.
   */
  graph: GraphRuntime;

  constructor(graph: GraphRuntime, readonly depth: number) {
    this.graph = graph;
  }

  /**
   * The context for a child branch, with this branch's delta time and weight and an empty report;
   * multiply its `weight` by the child's fraction before updating the child (Unreal's
   * FractionalWeight). The caller applies the fraction, so no double crosses the call: see
   * CONTRIBUTING.md, "Numbers in the frame loop".
   * What the previous child at this depth reported is added to this context first.
   */
  child(): UpdateContext {
    const child = this.graph.updateContextAt(this.depth + 1);
    this.gatherChild(child);
    child.deltaTime = this.deltaTime;
    child.weight = this.weight;
    child.inertializer = this.inertializer;
    child.rootVelocityWindow = this.rootVelocityWindow;
    child.clearReport();
    child.pending[0] = 1;
    return child;
  }

  /** Adds what the last child branch reported, if not yet added (called when this branch's update ends). */
  gatherReports(): void {
    this.gatherChild(this.graph.updateContextAt(this.depth + 1));
  }

  /** Empties the report, for the top of a new frame. */
  resetReport(): void {
    this.clearReport();
    this.pending[0] = 0;
  }

  /** Zeroes the root motion and velocity: eight stores rather than two fill calls, builtins V8 does not inline. */
  private clearReport(): void {
    const rm = this.rootMotion, rv = this.rootVelocity;
    rm[0] = 0; rm[1] = 0; rm[2] = 0; rm[3] = 0;
    rv[0] = 0; rv[1] = 0; rv[2] = 0; rv[3] = 0;
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
   * InertialRequest the requester keeps: other shapes work too, but one shape keeps the reads
   * unboxed; see CONTRIBUTING.md, "Numbers in the frame loop"). Several requests
   * in one frame merge by the shortest duration. A request's `profile` gives each bone its own
   * share of the duration (runtime/core/blend-profile.ts). The request is read at this frame's evaluate,
   * not when made (so a switch's cold code reads no number), so it must hold its values until then;
   * the same object asked twice before an evaluate counts once.
   */
  requestInertialization(request: { readonly duration: number; readonly profile?: BlendProfile | null }, requester: AnimNode): void;
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
 * What AnimNode forwards its bookkeeping through: its input links (see link.ts). The base class
 * needs only these calls, so this file does not depend on the link classes, which depend on it.
 */
export interface NodeInput {
  initialize(ctx: InitializeContext): void;
  cacheBones(ctx: CacheBonesContext): void;
  gatherDebug(): DebugNode;
}

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
   * Where the absolute weight of the last update is kept in the instance's frameNumbers (a typed
   * array, not a field of this base class, so the double stays unboxed: see CONTRIBUTING.md,
   * "Numbers in the frame loop"; one per instance rather than one per node, fewer
   * objects for a crowd's frame to go through); -1 until the first initialize.
   */
  private weightSlot = -1;
  private lastUpdate = -2;

  constructor(readonly id: string, readonly type: string) {}

  /** Every pose link this node owns, in pin order. The base class forwards calls through them. */
  protected abstract get links(): readonly NodeInput[];

  /** May be called more than once; resets per-instance state. */
  initialize(ctx: InitializeContext): void {
    this.graph = ctx.graph;
    // Asked once: a state machine re-initializes a state's nodes in the frame loop.
    if (this.weightSlot < 0) this.weightSlot = ctx.graph.nodeSlot(this);
    this.lastUpdate = -2;
    this.graph.frameNumbers[this.weightSlot] = 0;
    // An indexed loop: a state machine re-initializes a state's sub-graph when it enters it, in the
    // frame loop, and for-of over `links` (a getter every node class overrides) allocates an iterator there.
    const links = this.links;
    for (let i = 0; i < links.length; i++) links[i].initialize(ctx);
    this.onInitialize(ctx);
  }

  /**
   * Called by the graph instance after each graph update on the nodes that define it, in reverse
   * build order (so a node named by another's `node` property comes after every branch that names
   * it): a SaveCachedPose updates its branch here, once per frame, at the largest weight its uses
   * asked for, and a Slot the update did not reach moves what it plays on (after the cache that
   * updates its branch, if any). `top` is the update's top context (depth 0), whose report is the graph's.
   */
  afterGraphUpdate?(top: UpdateContext): void;

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
    this.graph.frameNumbers[this.weightSlot] = ctx.weight;
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
    return this.relevant ? this.graph.frameNumbers[this.weightSlot] : 0;
  }

  /**
   * Writes into out[index] the absolute weight of the node's latest update, this frame's or the
   * previous one's; 0 if it was updated in neither, or initialized since (Unreal's cached blend
   * weight): what a state machine's rules read at the start of its update, before the states below
   * it update. Written, not returned: a double returned from a call V8 does not inline is boxed
   * (see CONTRIBUTING.md, "Numbers in the frame loop").
   */
  writeLatestWeight(out: Float64Array, index: number): void {
    const counter = this.graph.updateCounter, last = this.lastUpdate;
    if (last === counter || last === counter - 1) out[index] = this.graph.frameNumbers[this.weightSlot];
    else out[index] = 0;
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
   * The node whose pose this one passes on unchanged, for the instance to update and evaluate
   * straight (the output node's local input); null for a node that does work of its own.
   */
  passThroughInput(): LocalPoseNode | null {
    return null;
  }

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
