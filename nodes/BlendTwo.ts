import { clamp } from '../runtime/core/math.ts';
import { LocalPoseNode, readScalar, type DebugNode, type Link, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext } from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

/**
 * Blends two poses by alpha (Unreal's Blend): 0 gives A, 1 gives B. An input whose absolute weight
 * (this node's weight times its share) is at or below the relevance threshold is neither updated
 * nor evaluated.
 */
export class BlendTwo extends LocalPoseNode {
  /**
   * [weight of A, weight of B], as the pose blends take them: B's is the alpha (kept here, not in a
   * field of its own: see CONTRIBUTING.md, "Numbers in the frame loop").
   */
  private readonly weights = new Float64Array(2);
  /** Whether A and B were updated this frame: evaluation leaves out a branch that was not. */
  private updatedA = false;
  private updatedB = false;
  private readonly inputLinks: readonly Link[];

  constructor(id: string, private readonly a: PoseLink, private readonly b: PoseLink, private readonly alphaProperty: ScalarProperty) {
    super(id, 'BlendTwo');
    this.inputLinks = [a, b];
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  protected override onInitialize(): void {
    this.weights[0] = 1;
    this.weights[1] = 0;
    this.updatedA = false;
    this.updatedB = false;
  }

  protected onUpdate(ctx: UpdateContext): void {
    const alpha = clamp(readScalar(this.graph.parameterValues, this.alphaProperty), 0, 1);
    this.weights[1] = alpha === alpha ? alpha : 0;
    this.weights[0] = 1 - this.weights[1];
    // The link decides relevance on the absolute weight (see Link.update).
    let child = ctx.child();
    child.weight *= this.weights[0];
    this.updatedA = this.a.update(child);
    child = ctx.child();
    child.weight *= this.weights[1];
    this.updatedB = this.b.update(child);
  }

  protected onEvaluate(out: Pose): void {
    // Neither updated happens only when this node's own weight is barely above the threshold
    // (or before the first update): its output then hardly matters, so take the larger share.
    const alpha = this.weights[1];
    const useA = this.updatedA || (!this.updatedB && alpha <= 0.5);
    const useB = this.updatedB || (!this.updatedA && alpha > 0.5);
    if (!useB) {
      this.a.evaluate(out);
      return;
    }
    if (!useA) {
      this.b.evaluate(out);
      return;
    }
    this.a.evaluate(out);
    this.b.evaluateBlendedInto(out, this.weights);
  }

  protected override debugDescription(): string {
    return `Alpha: ${(this.weights[1] * 100).toFixed(1)}%`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.values = { alpha: this.weights[1] };
  }
}

export const BlendTwoType: NodeType = defineBuiltInNodeType({
  type: 'BlendTwo',
  space: 'local',
  properties: { alpha: { kind: 'float', default: 0.5, min: 0, max: 1 } },
  inputs: [
    { name: 'A', kind: 'pose', space: 'local' },
    { name: 'B', kind: 'pose', space: 'local' },
  ],
  create: ({ id, properties: p, inputs }) => new BlendTwo(id, inputs.A, inputs.B, p.alpha),
});
