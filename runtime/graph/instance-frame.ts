/**
 * A character's frame: its graph's nodes updated (every frame, or on the update-rate schedule with
 * the pose interpolated between) and evaluated, its output pose, component pose, root motion and
 * curves, and the state all that keeps, laid out in the order a frame reads it. AnimGraphInstance
 * (instance.ts) adds what code drives between frames.
 */
import { ComponentPose, type ComponentPosePool } from '../core/component-pose.ts';
import { checkStorage, Pose, poseCopy, type PosePool, type PoseStorage } from '../core/pose.ts';
import { AnimGraphError } from '../core/errors.ts';
import type { Skeleton } from '../core/skeleton.ts';
import { AnimGraphEventEmitter } from '../node/events.ts';
import {
  CacheBonesContext, InitializeContext, UpdateContext, type AnimNode, type GraphRuntime, type LocalPoseNode, type PoseNode,
} from '../node/node.ts';
import { Parameters } from '../node/parameters.ts';
import type { CompiledGraph } from './compiled-graph.ts';
import type { CurveInputs } from './curve-inputs.ts';
import { DELTA_TIME, ELAPSED, GRAPH_DELTA, ROOT_MOTION, UPDATE_RATE } from './frame-layout.ts';
import { buildInstanceNodes, type InstanceOutput } from './instance-build.ts';
import type { Interpolation } from './interpolation.ts';
import type { SlotPlayer } from './slot-play.ts';
import { UpdateRateClock } from './update-rate.ts';

/**
 * The longest delta time one update advances, in seconds (11.6 days): a longer one is held to it.
 * Nodes add delta times up (play and blend clocks) and multiply them by rates; bounding the step
 * keeps those sums and products finite whatever a caller passes.
 */
export const MAX_DELTA_TIME = 1e6;

/** The curve values of every instance of a graph without curves (most): one empty array, nothing to write in it. */
const NO_CURVES = new Float64Array(0);

/** A character's state and frame; made as an AnimGraphInstance. */
export abstract class InstanceFrame implements GraphRuntime {
  /** The graph the instance was made from (an AnimGraph: what every instance of it reads). */
  readonly graph: CompiledGraph;
  // The fields a frame reads, first and together: V8 lays an object's fields out in the order they
  // are declared, and a crowd's frame reads them for every character (fewer cache lines to miss).
  protected readonly root: LocalPoseNode;
  /** What the frame updates and evaluates: the root, or the node it passes through (LocalPoseNode.passThroughInput). */
  private readonly frameRoot: LocalPoseNode;
  /** The update-rate clock, its numbers among frameNumbers (frame-layout.ts, UPDATE_RATE). */
  protected readonly clock: UpdateRateClock;
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
   * Fields holding doubles are each a separate heap number in V8, and every typed array two
   * objects, more for a crowd's frame to go through per character.
   */
  readonly frameNumbers: Float64Array;
  /** Where the instance's own numbers start in frameNumbers (InstanceOutput.frameNumbersAt); node slots include it. */
  readonly frameNumbersAt: number;
  // The instance's own numbers by name (frame-layout.ts lays them out).
  /** This frame's delta time, clamped (update() puts the given one there first); deltaTimeAt is its index. */
  private get deltaTime(): number { return this.frameNumbers[this.frameNumbersAt + DELTA_TIME]; }
  private set deltaTime(value: number) { this.frameNumbers[this.frameNumbersAt + DELTA_TIME] = value; }
  private get deltaTimeAt(): number { return this.frameNumbersAt + DELTA_TIME; }
  /** Seconds of update time since the instance was built or reset (`time`). */
  private get elapsed(): number { return this.frameNumbers[this.frameNumbersAt + ELAPSED]; }
  private set elapsed(value: number) { this.frameNumbers[this.frameNumbersAt + ELAPSED] = value; }
  /** What the graph's update advances by: the delta time, or below full rate the update-rate clock's graphDelta. */
  private get graphDelta(): number { return this.frameNumbers[this.frameNumbersAt + GRAPH_DELTA]; }
  private set graphDelta(value: number) { this.frameNumbers[this.frameNumbersAt + GRAPH_DELTA] = value; }
  /** Where this frame's root motion (4 numbers) starts in frameNumbers. */
  private get rootMotionAt(): number { return this.frameNumbersAt + ROOT_MOTION; }
  /**
   * Whether evaluate() shows `interpolation` (below full update rate, and after going back to it
   * until the display catches up with the graph) instead of the graph.
   */
  protected interpolating = false;
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
  /** The graph's curve-driven slots (the graph's, shared): null when nothing binds a curve. */
  private readonly curveInputs: CurveInputs | null;
  /** The nodes with an afterGraphUpdate hook (cached poses, Slots), in reverse build order. */
  private readonly afterUpdate: PoseNode[] | null;
  /** The pose evaluate() returns: the last one shown (the reference pose before the first update). */
  protected readonly output: Pose;
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
    const at = this.rootMotionAt;
    return this.rootMotionView ??= this.frameNumbers.subarray(at, at + 4);
  }
  private rootMotionView: Float64Array | null = null;
  /** Whether the batch composed the component pose (markComponentComposed) and its bookkeeping does not know yet. */
  private componentComposedUnmarked = false;
  readonly skeleton: Skeleton;
  readonly events = new AnimGraphEventEmitter();
  readonly parameters: Parameters;
  readonly posePool: PosePool;
  readonly componentPosePool: ComponentPosePool;
  /** The nodes in build order (the graph's compiled order): `nodes` maps their ids, made when first asked for. */
  protected readonly builtNodes: readonly PoseNode[];
  /** This frame's curve values by slot (AnimGraph.curveNames); see curve(). */
  readonly curveValues: Float64Array;
  /**
   * The slot table: slot players by slot name (a name's first Slot node, which the name's other
   * Slots follow: see bindSlotPlayers); null for a graph without Slot nodes (most of a crowd's),
   * which then carries no map per character.
   */
  protected readonly slots: Map<string, (PoseNode & SlotPlayer)[]> | null;
  /** The lists of `slots` in slotNames' order (isSlotPlayingAt); empty without slots. */
  protected readonly slotLists: readonly (readonly SlotPlayer[])[];
  /**
   * The output's component pose, made when first asked for: a character whose component pose
   * nobody reads (most of a crowd's) carries no component arrays or bookkeeping (5.6 KB for 65 bones).
   */
  private outputComponent: ComponentPose | null = null;
  /** Where the component pose goes (InstanceOutput.component), if not arrays of its own. */
  private readonly componentStorage: PoseStorage | undefined;
  /** Where the update-rate interpolation poses go (InstanceOutput.interpolationStorage), if not arrays of their own. */
  protected readonly interpolationStorage: (() => readonly [PoseStorage, PoseStorage]) | undefined;
  /** Contexts of its own, for an update that finds the graph's lent (made when first needed). */
  private ownContexts: UpdateContext[] | null = null;
  /** What the instance shows below full update rate (made by the first setUpdateRate above 1). */
  protected interpolation: Interpolation | null = null;

  protected constructor(graph: CompiledGraph, output: InstanceOutput) {
    this.graph = graph;
    this.skeleton = graph.skeleton;
    this.curveInputs = graph.curveInputs;
    this.parameters = new Parameters(graph.parameterDefinitions, this.events, graph.curveInputs?.extraSlots ?? 0);
    this.parameterValues = this.parameters.values;
    this.curveInputs?.restart(this.parameterValues);
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
    const built = buildInstanceNodes(graph, this.parameters, output);
    this.frameNumbers = built.frameNumbers;
    this.frameNumbersAt = built.frameNumbersAt;
    this.clock = new UpdateRateClock(this.frameNumbers, this.frameNumbersAt + UPDATE_RATE);
    this.builtNodes = built.nodes;
    this.slots = built.slots;
    this.slotLists = built.slots === null ? [] : [...built.slots.values()];
    const after = this.builtNodes.filter((n) => n.afterGraphUpdate !== undefined).reverse();
    // null when empty: one fewer object to read per frame for most graphs.
    this.afterUpdate = after.length > 0 ? after : null;
    this.hasCurves = this.curveValues.length > 0;
    const root = this.builtNodes[this.builtNodes.length - 1];
    if (root.space !== 'local') throw new AnimGraphError('invalid-data', `the root node '${root.id}' must produce a local-space pose`);
    this.root = root;
    this.root.initialize(new InitializeContext(this));
    this.frameRoot = root.passThroughInput() ?? root;
    const cache = new CacheBonesContext(graph.skeleton);
    this.root.cacheBones(cache);
    if (cache.unknownBones.length > 0) {
      throw new AnimGraphError('unknown-name', `unknown bones: ${cache.unknownBones.map((u) => `${u.nodeId}: '${u.bone}'`).join(', ')}`);
    }
  }

  get updateCounter(): number {
    return this.counter;
  }

  /** Seconds of update time accumulated since the instance was built. */
  get time(): number {
    return this.elapsed;
  }

  nodeSlot(node: AnimNode): number {
    const layout = this.graph.frameLayout, index = layout.indexOf(node.id);
    if (index < 0 || this.builtNodes[index] !== node) throw new AnimGraphError('invalid-argument', `node '${node.id}' is not one of this instance's nodes`);
    return this.frameNumbersAt + layout.weightSlot(index);
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
   * Advances the graph by `deltaTime` seconds. A negative, NaN or infinite delta time is treated
   * as 0, one above MAX_DELTA_TIME (1e6 s) as MAX_DELTA_TIME (the frame loop never throws). Below
   * full update rate (setUpdateRate), most frames only move the displayed time on.
   */
  update(deltaTime: number): void {
    this.deltaTime = deltaTime;
    this.updateFrom(this.frameNumbers, this.deltaTimeAt);
  }

  /**
   * update() with the delta time read from deltaTime[index]: for callers that compute delta times
   * in the frame loop (a Crowd; see CONTRIBUTING.md, "Numbers in the frame loop").
   */
  updateFrom(deltaTime: Float64Array, index: number): void {
    if (this.updating) {
      // The nodes are part way through this frame: a nested update would advance some of them twice.
      throw new AnimGraphError('invalid-state', `graph '${this.graph.name}': update called from a listener of this instance's events, during its update; call it after update returns`);
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
    this.deltaTime = given > 0 && given < Infinity ? (given < 1e6 ? given : 1e6) : 0;
    this.elapsed += this.deltaTime;
    // The update-rate path in a function of its own: V8 optimises a function once it has run enough
    // of its bytecode, and with it inline this one, mostly taking the short path at full rate, ran
    // unoptimised for thousands of frames, boxing the numbers above (about 20 B a frame).
    if (!this.interpolating) this.updateNow();
    else this.advanceInterpolating();
  }

  /** advance below full update rate (or catching up after it): the graph on its schedule, the pose and curves interpolated. */
  private advanceInterpolating(): void {
    const clock = this.clock, interpolation = this.interpolation!;
    if (this.counter === 0 && (!(this.deltaTime > 0) || !clock.interpolate)) {
      // A graph never updated (new, or reset) has no pose to show or hold: its first update runs
      // on whatever frame it comes, a zero delta time or an unscheduled frame included, and the
      // interval starts from it. (Interpolating, a first frame with time to move evaluates anyway.)
      this.updateNow();
      interpolation.start(this.output, false, this.curveValues);
      clock.restart();
      return;
    }
    this.frame++;
    if (clock.tick(this.frameNumbers, this.deltaTimeAt, this.frame) === 1) {
      // The target becomes the start of the next interval: evaluated first if nobody asked for it.
      // A graph never updated evaluates to blends of nothing: the reference pose, as evaluate() shows it.
      if (interpolation.targetStale) {
        if (this.counter === 0) poseCopy(interpolation.target, this.skeleton.referencePose);
        else this.evaluateGraph(interpolation.target);
        interpolation.evaluated(false);
      }
      interpolation.shift(clock.interpolate);
      this.graphDelta = clock.graphDelta;
      this.updateGraph();
      interpolation.keepUpdate(this.curveValues, this.updateContextAt(0).rootMotion);
      if (clock.rate === 1 && clock.ahead === 0) {
        // Back at full rate and caught up: the graph's pose, curves and motion are this frame's.
        this.interpolating = false;
        interpolation.flushMotion(this.frameNumbers, this.rootMotionAt);
        return;
      }
    }
    interpolation.showFrame(this.frameNumbers, this.rootMotionAt, this.curveValues);
  }

  /** Updates the graph by this frame's whole delta time; the frame's root motion is what it reported. */
  private updateNow(): void {
    this.frame++;
    this.graphDelta = this.deltaTime;
    this.updateGraph();
    // Four copies rather than TypedArray.set, a builtin call per character per frame.
    // Into frameNumbers rather than through the rootMotion view: one object fewer per character.
    const numbers = this.frameNumbers, from = this.updateContextAt(0).rootMotion, to = this.rootMotionAt;
    numbers[to] = from[0]; numbers[to + 1] = from[1]; numbers[to + 2] = from[2]; numbers[to + 3] = from[3];
  }

  /**
   * Updates the graph by graphDelta seconds, in the graph's update contexts unless they are lent.
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
    ctx.deltaTime = this.graphDelta;
    ctx.weight = 1;
    ctx.inertializer = null;
    ctx.rootVelocityWindow = -1;
    ctx.resetReport();
    // Most graphs have no curves; fill is a builtin call even on an empty array.
    if (this.hasCurves) this.curveValues.fill(0);
    // What curves drive reads the previous update's curves, from here to this frame's evaluate.
    const inputs = this.curveInputs;
    if (inputs !== null) inputs.apply(this.parameterValues);
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
    if (inputs !== null) inputs.latch(this.parameterValues, this.curveValues);
  }

  /** The graph's current pose becomes the target of the interval, shown as it is. */
  protected startInterpolating(): void {
    this.interpolation!.start(this.output, this.evaluatedAt === this.frame && this.evaluatedAt >= 0, this.curveValues);
    this.clock.restart();
    this.interpolating = true;
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
      const interpolation = this.interpolation!, clock = this.clock;
      if (interpolation.targetStale) {
        // Holding (interpolate: false, no look-ahead left to show), the target is shown as it is
        // until the next shift: evaluated straight into the output, no copy.
        const intoOutput = !clock.interpolate && clock.ahead <= 0 && this.frameNumbers[clock.weightsAt + 1] === 1;
        this.evaluateGraph(intoOutput ? this.output : interpolation.target);
        interpolation.evaluated(intoOutput);
        if (intoOutput) this.componentStale = true;
      }
      // A held frame (interpolate: false) shows the same target again: no copy, no component pass.
      if (interpolation.show()) this.componentStale = true;
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
    const n = this.frameNumbers, from = this.rootMotionAt;
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

  /**
   * The last evaluated pose (evaluating first if need be) while its component pose has not been
   * composed from it, else null (then componentPose() returns it as it is): for a consumer that
   * composes the local pose into its own matrices in one pass (the three.js binding), leaving the
   * component pass to whoever calls componentPose(). The pose is the instance's own: read it, never write it.
   */
  uncomposedPose(): Pose | null {
    if (this.evaluatedAt !== this.frame || this.evaluatedAt < 0) this.evaluate();
    return this.componentStale ? this.output : null;
  }

  /** The output's component pose, made on first use: its local pose is the output itself (evaluated into: no copy per frame). */
  private ownComponentPose(): ComponentPose {
    return this.outputComponent ??= new ComponentPose(this.skeleton, { local: this.output, component: this.componentStorage });
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
    this.elapsed = 0;
    this.evaluatedAt = -1;
    this.curveInputs?.restart(this.parameterValues);
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
