import {
  LocalPoseNode, NO_LINKS, type CacheBonesContext, type DebugNode, type InitializeContext, type Link, type NodeType,
  type UpdateContext,
} from '../runtime/node.ts';
import { poseBlendTwo, poseCopy, type Pose } from '../runtime/pose.ts';
import { defineNodeType } from '../runtime/node-type.ts';
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

  constructor(id: string, readonly cache: SaveCachedPose) {
    super(id, 'UseCachedPose');
    this.owner = cache.uses.length === 0;
    cache.addUse(this);
  }

  protected get links(): readonly Link[] {
    return NO_LINKS;
  }

  protected override onInitialize(ctx: InitializeContext): void {
    // Once per pass: the branch is reached from here only, not once per use.
    if (this.owner) this.cache.initialize(ctx);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    if (this.owner) this.cache.cacheBones(ctx);
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
    return this.owner ? `Cache: ${this.cache.id}` : `Cache: ${this.cache.id} (shown under ${this.cache.uses[0].id})`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.values = { cache: this.cache.id };
    if (this.owner) node.children.push(this.cache.gatherDebug());
  }
}

export const UseCachedPoseType: NodeType = defineNodeType({
  type: 'UseCachedPose',
  space: 'local',
  properties: { cache: { kind: 'node', nodeType: 'SaveCachedPose' } },
  inputs: [],
  create: ({ id, properties: p }) => {
    const cache = p.cache;
    // The loader checks the type; a definition built in code without it fails here, once.
    if (!(cache instanceof SaveCachedPose)) throw new TypeError(`UseCachedPose '${id}': '${cache.id}' is a ${cache.type}, not a SaveCachedPose`);
    return new UseCachedPose(id, cache);
  },
});
