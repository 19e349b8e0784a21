import {
  LocalPoseNode, type AnimNode, type CacheBonesContext, type DebugNode, type InitializeContext, type InertializationRequests, type Link, type NodeType, type PoseLink,
  type UpdateContext,
} from '../runtime/node/node.ts';
import { Pose, poseCopy } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

/**
 * Unreal's Save Cached Pose: a branch whose pose several UseCachedPose nodes share, so the graph
 * is a DAG through caches only (an ordinary node still feeds one input). No input links to it: a
 * use names it in its `cache` property.
 *
 * Update: each use, when its branch is relevant, records its absolute weight here; after the
 * whole graph update the instance calls afterGraphUpdate, and the cached branch is updated once,
 * with the largest weight any use recorded (and that use's inertializer and root-velocity window),
 * as Unreal's SaveCachedPose does in PostGraphUpdate. Updating after the graph rather than at the
 * first use means the branch never runs at a small first use's weight, which could drop a blend
 * input that a heavier use needs. The price: what the branch reports (root motion, root velocity)
 * cannot reach the nodes between a use and the output; it joins the graph's root motion directly,
 * scaled to the sum of the uses' weights (as if each use played its own copy of the branch at its
 * own weight, so two uses at 50% give the branch's full root motion once), so a StrideWarping
 * above a use sees none of it. Events of the cached branch fire once per frame, not once per use.
 *
 * Evaluate: the branch is evaluated once per frame (at the first use evaluated) into a pose owned
 * by this node, sized at bind, which each use copies or blends from.
 */
export class SaveCachedPose extends LocalPoseNode {
  /** The UseCachedPose nodes naming this cache, in build order. */
  readonly uses: AnimNode[] = [];
  /**
   * The use that shows the branch in the debug tree: the first use in the cache's own graph, else
   * (a cache used only from state machine states) the first use; see addUse.
   */
  shownUnder: AnimNode | null = null;
  /** Whether a use in the cache's own graph owns the branch. */
  private ownedByGraph = false;
  /** The initialization pass that last initialized the branch (see initializeOnce). */
  private initializedBy: InitializeContext | null = null;
  private bonesCachedBy: CacheBonesContext | null = null;
  private readonly inputLinks: readonly Link[];
  private readonly cached: Pose;
  /** [largest use weight, sum of use weights, the largest use's root-velocity window] this frame. */
  private readonly requested = new Float64Array(3);
  private requestedAt = -1;
  private requestInertializer: InertializationRequests | null = null;
  private evaluatedAt = -1;

  constructor(id: string, boneCount: number, private readonly input: PoseLink) {
    super(id, 'SaveCachedPose');
    this.inputLinks = [input];
    this.cached = new Pose(boneCount);
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  /**
   * Registers a use. `foreign`: the use lies in a state machine state inside the cache's graph, not
   * in that graph itself. Returns whether the use owns the branch: the first use in the cache's own
   * graph, which initializes it with that graph (a state re-entered restarts a cache of its own).
   */
  addUse(use: AnimNode, foreign: boolean): boolean {
    this.uses.push(use);
    const owner = !foreign && (this.shownUnder === null || !this.ownedByGraph);
    if (owner || this.shownUnder === null) this.shownUnder = use;
    if (owner) this.ownedByGraph = true;
    return owner;
  }

  /**
   * Initializes the branch unless this initialization pass already has: what a use in a state
   * calls, so that entering the state (which re-initializes its sub-graph with the pass the machine
   * was initialized in) does not restart a cache of the graph around it, as in Unreal, where a
   * SaveCachedPose initializes once per initialization counter.
   */
  initializeOnce(ctx: InitializeContext): void {
    if (this.initializedBy !== ctx) this.initialize(ctx);
  }

  /** cacheBones once per pass, for the same reason. */
  cacheBonesOnce(ctx: CacheBonesContext): void {
    if (this.bonesCachedBy !== ctx) this.cacheBones(ctx);
  }

  /** Called by a use in its update: asks for the branch this frame at `ctx.weight`. */
  request(ctx: UpdateContext): void {
    const r = this.requested, counter = this.graph.updateCounter;
    if (this.requestedAt !== counter) {
      this.requestedAt = counter;
      r[0] = 0;
      r[1] = 0;
      r[2] = -1;
      this.requestInertializer = null;
    }
    r[1] += ctx.weight;
    // Strictly larger: on a tie the first use keeps it, so the choice is deterministic.
    if (ctx.weight > r[0]) {
      r[0] = ctx.weight;
      r[2] = ctx.rootVelocityWindow;
      this.requestInertializer = ctx.inertializer;
    }
  }

  override afterGraphUpdate(top: UpdateContext): void {
    if (this.requestedAt !== this.graph.updateCounter) return;
    const ctx = top.child();
    ctx.weight = this.requested[0];
    ctx.rootVelocityWindow = this.requested[2];
    ctx.inertializer = this.requestInertializer;
    this.update(ctx);
    top.gatherReports();
  }

  /** This frame's pose of the cached branch, evaluated at the first call of the frame. */
  cachedPose(): Pose {
    const counter = this.graph.updateCounter;
    if (this.evaluatedAt !== counter) {
      this.input.evaluate(this.cached);
      this.evaluatedAt = counter;
    }
    return this.cached;
  }

  protected override onInitialize(ctx: InitializeContext): void {
    this.initializedBy = ctx;
    this.requested[0] = 0;
    this.requested[1] = 0;
    this.requested[2] = -1;
    this.requestedAt = -1;
    this.requestInertializer = null;
    this.evaluatedAt = -1;
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    this.bonesCachedBy = ctx;
  }

  protected onUpdate(ctx: UpdateContext): void {
    const child = ctx.child();
    this.input.update(child);
    // Updated without a request only when code calls update itself: then its report stands as is.
    if (this.requestedAt !== this.graph.updateCounter || !(this.requested[0] > 0)) return;
    const scale = this.requested[1] / this.requested[0];
    const rm = child.rootMotion, rv = child.rootVelocity;
    for (let k = 0; k < 4; k++) {
      rm[k] *= scale;
      rv[k] *= scale;
    }
  }

  protected onEvaluate(out: Pose): void {
    poseCopy(out, this.cachedPose());
  }

  protected override debugDescription(): string {
    return `Uses: ${this.uses.map((u) => u.id).join(', ')}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    const thisFrame = this.relevant;
    node.values = {
      uses: this.uses.map((u) => u.id).join(', '),
      useWeights: this.uses.map((u) => u.weight),
      useWeightSum: thisFrame ? this.requested[1] : 0,
    };
  }
}

export const SaveCachedPoseType: NodeType = defineBuiltInNodeType({
  type: 'SaveCachedPose',
  space: 'local',
  properties: {},
  inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  referencedOnly: true,
  create: ({ id, boneCount, inputs }) => new SaveCachedPose(id, boneCount, inputs.pose),
});
