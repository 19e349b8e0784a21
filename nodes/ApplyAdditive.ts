import { applyAdditive } from '../runtime/core/additive.ts';
import { clamp } from '../runtime/core/math.ts';
import { LocalPoseNode, readScalar, ZERO_WEIGHT, type DebugNode, type Link, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext } from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';
import { ScratchNumbers } from '../runtime/core/scratch.ts';

/** Mesh-space rotations, used within one call: every instance's (see ScratchNumbers). Local space needs none. */
const MESH_ROTATIONS = new ScratchNumbers(), NO_SCRATCH = new Float64Array(0);

/**
 * Adds an additive pose onto a base pose, scaled by alpha (Unreal's Apply Additive): translations
 * plus alpha × delta, rotations turned by the delta nlerped from the identity by alpha (as Unreal's
 * BlendFromIdentityAndAccumulate; slerped with `rotationBlend: "slerp"`), scales
 * times 1 + alpha × (ratio − 1); in mesh space the rotations are applied in component space (see
 * runtime/core/additive.ts). The base is updated at the node's weight; the additive branch at the
 * node's weight × alpha, and not at all (nor evaluated) when that is at or below the relevance
 * threshold, so alpha 0 is exactly the base.
 */
export class ApplyAdditive extends LocalPoseNode {
  /** [alpha], read by applyAdditive (see CONTRIBUTING.md, "Numbers in the frame loop"). */
  private readonly alpha = new Float64Array(1);
  private updatedAdditive = false;
  private readonly inputLinks: readonly Link[];
  /** The base's and the result's component-space rotations, in mesh space (MESH_ROTATIONS', shared). */
  private readonly scratch: Float64Array;

  constructor(
    id: string,
    private readonly base: PoseLink,
    private readonly additive: PoseLink,
    private readonly alphaProperty: ScalarProperty,
    private readonly mesh: boolean,
    boneCount: number,
    /** Scale the rotation delta by slerp rather than Unreal's nlerp. */
    private readonly slerp = false,
  ) {
    super(id, 'ApplyAdditive');
    this.inputLinks = [base, additive];
    this.scratch = mesh ? MESH_ROTATIONS.atLeast(boneCount * 8) : NO_SCRATCH;
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  protected override onInitialize(): void {
    this.alpha[0] = 0;
    this.updatedAdditive = false;
  }

  protected onUpdate(ctx: UpdateContext): void {
    const alpha = clamp(readScalar(this.graph.parameterValues, this.alphaProperty), 0, 1);
    this.alpha[0] = alpha === alpha ? alpha : 0;
    this.base.update(ctx.child());
    this.updatedAdditive = false;
    if (!(this.alpha[0] > ZERO_WEIGHT)) return;
    const child = ctx.child();
    child.weight *= this.alpha[0];
    this.updatedAdditive = this.additive.update(child);
    // An additive moves bones relative to the base, not the character: whatever root motion its
    // players report is not the character's.
    child.rootMotion.fill(0);
    child.rootVelocity.fill(0);
  }

  protected onEvaluate(out: Pose): void {
    this.base.evaluate(out);
    if (!this.updatedAdditive) return;
    const pool = this.graph.posePool;
    const delta = pool.acquire();
    this.additive.evaluate(delta);
    applyAdditive(out, delta, this.alpha, 0, this.mesh, this.graph.skeleton.parents, this.scratch, this.slerp);
    pool.release(delta);
  }

  protected override debugDescription(): string {
    return `Alpha: ${(this.alpha[0] * 100).toFixed(1)}% (${this.mesh ? 'mesh' : 'local'})`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.values = { alpha: this.alpha[0], space: this.mesh ? 'mesh' : 'local' };
  }
}

export const ApplyAdditiveType: NodeType = defineBuiltInNodeType({
  type: 'ApplyAdditive',
  space: 'local',
  properties: {
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
    space: { kind: 'enum', options: ['local', 'mesh'], default: 'local' },
    rotationBlend: { kind: 'enum', options: ['nlerp', 'slerp'], default: 'nlerp' },
  },
  inputs: [
    { name: 'base', kind: 'pose', space: 'local' },
    { name: 'additive', kind: 'pose', space: 'local' },
  ],
  additiveInputs: (p) => ({ additive: (p.space as 'local' | 'mesh' | undefined) ?? 'local' }),
  create: ({ id, boneCount, properties: p, inputs }) =>
    new ApplyAdditive(id, inputs.base, inputs.additive, p.alpha, p.space === 'mesh', boneCount, p.rotationBlend === 'slerp'),
});
