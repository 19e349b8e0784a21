import {
  LocalPoseNode, NO_LINKS, type CacheBonesContext, type DebugNode, type InitializeContext, type Link, type NodeType,
  type UpdateContext,
} from '../runtime/node/node.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { poseBlendTwo, poseCopy, type Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';
import { SaveCachedPose } from './SaveCachedPose.ts';

/**
 * Unreal's Use Cached Pose: the pose of the SaveCachedPose its `cache` property names. Its update
 * only records its absolute weight with the cache (which updates its branch once, after the graph
 * update: see SaveCachedPose); its evaluation copies the cache's pose, evaluated once per frame.
 * The cache's first use (in build order) initializes the cached branch and shows it in the debug
 * tree; the others show only their own line.
 */
export class UseCachedPose extends LocalPoseNode {
  private readonly owner: boolean;
  /** Whether the use lies in a state machine's state and its cache in the graph around the machine. */
  private readonly foreign: boolean;

  constructor(id: string, readonly cache: SaveCachedPose) {
    super(id, 'UseCachedPose');
    // The loader scopes the ids of a state's nodes by machine and state (`sm/walk/use`).
    this.foreign = scopeOf(id) !== scopeOf(cache.id);
    this.owner = cache.addUse(this, this.foreign);
  }

  protected get links(): readonly Link[] {
    return NO_LINKS;
  }

  protected override onInitialize(ctx: InitializeContext): void {
    // Once per pass: the branch is reached from here only, not once per use. A use in a state
    // initializes a cache of the graph around it only if nothing has in this pass, so entering
    // the state does not restart it.
    if (this.owner) this.cache.initialize(ctx);
    else if (this.foreign) this.cache.initializeOnce(ctx);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    if (this.owner) this.cache.cacheBones(ctx);
    else if (this.foreign) this.cache.cacheBonesOnce(ctx);
  }

  protected onUpdate(ctx: UpdateContext): void {
    this.cache.request(ctx);
  }

  protected onEvaluate(out: Pose): void {
    poseCopy(out, this.cache.cachedPose());
  }

  protected override onEvaluateBlendedInto(out: Pose, weights: Float64Array): void {
    poseBlendTwo(out, out, this.cache.cachedPose(), weights);
  }

  protected override debugDescription(): string {
    return this.cache.shownUnder === this ? `Cache: ${this.cache.id}` : `Cache: ${this.cache.id} (shown under ${this.cache.shownUnder?.id})`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.values = { cache: this.cache.id };
    if (this.cache.shownUnder === this) node.children.push(this.cache.gatherDebug());
  }
}

/** The scope of a compiled node id: '' at the top level, 'sm/walk/' for `sm/walk/use`. */
function scopeOf(id: string): string {
  return id.slice(0, id.lastIndexOf('/') + 1);
}

export const UseCachedPoseType: NodeType = defineBuiltInNodeType({
  type: 'UseCachedPose',
  space: 'local',
  properties: { cache: { kind: 'node', nodeType: 'SaveCachedPose' } },
  inputs: [],
  create: ({ id, properties: p }) => {
    const cache = p.cache;
    // The loader checks the type; a definition built in code without it fails here, once.
    if (!(cache instanceof SaveCachedPose)) throw new AnimGraphError('invalid-data', `UseCachedPose '${id}': '${cache.id}' is a ${cache.type}, not a SaveCachedPose`);
    return new UseCachedPose(id, cache);
  },
});
