/**
 * The contract between an instance's pose snapshots (AnimGraphInstance.savePoseSnapshot) and the
 * nodes that play them back (PoseSnapshot): the instance makes one pose per name its readers give
 * when it is built, and hands each reader its pose.
 */
import type { Pose } from '../core/pose.ts';
import type { PoseNode } from './anim-node.ts';

/** A node that outputs a snapshot of the instance's pose (nodes/PoseSnapshot.ts). */
export interface PoseSnapshotReader {
  readonly id: string;
  readonly snapshotName: string;
  /** The instance's pose for snapshotName, which savePoseSnapshot overwrites; given once, when the instance is built. */
  bindSnapshot(pose: Pose): void;
}

export function isPoseSnapshotReader(node: PoseNode): node is PoseNode & PoseSnapshotReader {
  const candidate = node as Partial<PoseSnapshotReader>;
  return typeof candidate.snapshotName === 'string' && typeof candidate.bindSnapshot === 'function';
}
