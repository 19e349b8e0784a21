import type { ComponentPose } from '../runtime/core/component-pose.ts';
import { readFlag, type CacheBonesContext, type ComponentPoseLink, type NodeType, type ScalarProperty } from '../runtime/node/node.ts';
import { SkeletalControlNode, type BoneTransforms } from '../runtime/node/skeletal-control.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

/**
 * Copies the component-space translation, rotation and/or scale of a source bone onto a target
 * bone (Unreal's Copy Bone, the simplest skeletal control). The
 * target's children follow it. With nothing to copy, the pose passes through.
 */
export class CopyBone extends SkeletalControlNode {
  private source = -1;
  private target = -1;

  constructor(
    id: string,
    input: ComponentPoseLink,
    alpha: ScalarProperty,
    private readonly sourceBone: string,
    private readonly targetBone: string,
    private readonly copyTranslation: ScalarProperty,
    private readonly copyRotation: ScalarProperty,
    private readonly copyScale: ScalarProperty,
  ) {
    super(id, 'CopyBone', input, alpha);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    this.source = ctx.boneIndex(this.id, this.sourceBone);
    this.target = ctx.boneIndex(this.id, this.targetBone);
  }

  protected override isValidToEvaluate(): boolean {
    return this.source >= 0 && this.target >= 0;
  }

  protected evaluateBoneTransforms(pose: ComponentPose, out: BoneTransforms): void {
    const values = this.graph.parameterValues;
    const t = readFlag(values, this.copyTranslation);
    const r = readFlag(values, this.copyRotation);
    const s = readFlag(values, this.copyScale);
    if (!t && !r && !s) return;
    pose.ensureComponent(this.source);
    const k = out.add(this.target, pose);
    const src = this.source;
    for (let i = 0; i < 3; i++) {
      if (t) out.translations[k * 3 + i] = pose.translations[src * 3 + i];
      if (s) out.scales[k * 3 + i] = pose.scales[src * 3 + i];
    }
    if (r) for (let i = 0; i < 4; i++) out.rotations[k * 4 + i] = pose.rotations[src * 4 + i];
  }

  protected override debugDescription(): string {
    return `${this.sourceBone} -> ${this.targetBone}`;
  }
}

export const CopyBoneType: NodeType = defineBuiltInNodeType({
  type: 'CopyBone',
  space: 'component',
  properties: {
    sourceBone: { kind: 'bone' },
    targetBone: { kind: 'bone' },
    copyTranslation: { kind: 'bool', default: false },
    copyRotation: { kind: 'bool', default: true },
    copyScale: { kind: 'bool', default: false },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  create: ({ id, properties: p, inputs }) =>
    new CopyBone(
      id, inputs.pose, p.alpha, p.sourceBone, p.targetBone,
      p.copyTranslation, p.copyRotation, p.copyScale,
    ),
});

