import type { ComponentPose } from '../core/component-pose.ts';
import {
  ZERO_WEIGHT, type CacheBonesContext, type ComponentPoseNode, type DebugNode, type GraphRuntime, type InitializeContext,
  type LocalPoseNode, type PoseNode, type UpdateContext,
} from './anim-node.ts';
import { poseBlendTwo, type Pose } from '../core/pose.ts';

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
