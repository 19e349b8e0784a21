import { LocalPoseNode, type Link, type NodeType, type PoseLink, type UpdateContext } from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

/**
 * The graph's result (Unreal's Output Pose): the root of every instance. The loader adds it on top
 * of the node named by the asset's `output`; a component-space node there is converted back to
 * local space by the link.
 */
export class OutputNode extends LocalPoseNode {
  private readonly inputLinks: readonly Link[];

  constructor(id: string, private readonly pose: PoseLink) {
    super(id, 'Output');
    this.inputLinks = [pose];
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  /**
   * A local input is updated and evaluated by the instance straight, with this node's bookkeeping
   * done there (AnimGraphInstance): two objects fewer (this node and its link) for every
   * character's frame. A component-space input goes through the link, which converts it.
   */
  override passThroughInput(): LocalPoseNode | null {
    const node = this.pose.node;
    return node.space === 'local' ? node : null;
  }

  /** Relevant from the graph's first update on, at weight 1: the root is updated on every update. */
  override get relevant(): boolean {
    return this.graph.updateCounter > 0;
  }

  override get weight(): number {
    return this.relevant ? 1 : 0;
  }

  protected onUpdate(ctx: UpdateContext): void {
    this.pose.update(ctx);
  }

  protected onEvaluate(out: Pose): void {
    this.pose.evaluate(out);
  }
}

export const OutputType: NodeType = defineBuiltInNodeType({
  type: 'Output',
  space: 'local',
  properties: {},
  inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  create: ({ id, inputs }) => new OutputNode(id, inputs.pose),
});
