import { LocalPoseNode, type Link, type NodeType, type PoseLink, type UpdateContext } from '../runtime/node.ts';
import type { Pose } from '../runtime/pose.ts';
import { defineNodeType } from '../runtime/node-type.ts';

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

  protected onUpdate(ctx: UpdateContext): void {
    this.pose.update(ctx);
  }

  protected onEvaluate(out: Pose): void {
    this.pose.evaluate(out);
  }
}

export const OutputType: NodeType = defineNodeType({
  type: 'Output',
  space: 'local',
  properties: {},
  inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  create: ({ id, inputs }) => new OutputNode(id, inputs.pose),
});
