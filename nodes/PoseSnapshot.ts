import * as z from 'zod';
import { poseBlendTwo, poseCopy, type Pose } from '../runtime/core/pose.ts';
import { LocalPoseNode, NO_LINKS, type DebugNode, type Link, type NodeType, type UpdateContext } from '../runtime/node/node.ts';
import type { PoseSnapshotReader } from '../runtime/node/pose-snapshot.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';
import { lazy } from '../runtime/core/lazy.ts';

/**
 * Unreal's Pose Snapshot: the pose the instance saved under a name (AnimGraphInstance.savePoseSnapshot),
 * a pose source like a clip player, to blend from (a getup from a ragdoll: snapshot the ragdoll's
 * pose, then blend to the getup clip). Until a save, the skeleton's reference pose.
 */
export class PoseSnapshot extends LocalPoseNode implements PoseSnapshotReader {
  private snapshot: Pose | null = null;

  constructor(id: string, readonly snapshotName: string) {
    super(id, 'PoseSnapshot');
  }

  protected get links(): readonly Link[] {
    return NO_LINKS;
  }

  bindSnapshot(pose: Pose): void {
    this.snapshot = pose;
  }

  protected onUpdate(_ctx: UpdateContext): void {}

  protected onEvaluate(out: Pose): void {
    poseCopy(out, this.snapshot ?? this.graph.skeleton.referencePose);
  }

  protected override onEvaluateBlendedInto(out: Pose, weights: Float64Array): void {
    poseBlendTwo(out, out, this.snapshot ?? this.graph.skeleton.referencePose, weights);
  }

  protected override debugDescription(): string {
    return `Snapshot: ${this.snapshotName}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.poseSource = true;
    node.values = { snapshot: this.snapshotName };
  }
}

export const PoseSnapshotType: NodeType = defineBuiltInNodeType({
  type: 'PoseSnapshot',
  space: 'local',
  properties: { snapshotName: { kind: 'object', schema: lazy(() => z.string().min(1)) } },
  inputs: [],
  create: ({ id, properties: p }) => new PoseSnapshot(id, p.snapshotName ?? id),
});
