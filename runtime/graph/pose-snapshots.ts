/**
 * An instance's pose snapshots (AnimGraphInstance.savePoseSnapshot): one pose per name, made when
 * the instance is built for the names its PoseSnapshot nodes read, so that saving them allocates
 * nothing.
 */
import { AnimGraphError } from '../core/errors.ts';
import { Pose, poseCopy } from '../core/pose.ts';
import type { Skeleton } from '../core/skeleton.ts';
import type { PoseNode } from '../node/node.ts';
import { isPoseSnapshotReader } from '../node/pose-snapshot.ts';

/** Snapshot poses by name. */
export type PoseSnapshots = Map<string, Pose>;

/**
 * A pose per snapshot name the readers among `nodes` give (the reference pose until saved), each
 * handed to its readers; null when there are none, so that most characters carry no map.
 */
export function bindPoseSnapshots(nodes: readonly PoseNode[], skeleton: Skeleton): PoseSnapshots | null {
  let snapshots: PoseSnapshots | null = null;
  for (const node of nodes) {
    if (!isPoseSnapshotReader(node)) continue;
    snapshots ??= new Map();
    let pose = snapshots.get(node.snapshotName);
    if (pose === undefined) {
      pose = poseCopy(new Pose(skeleton.boneCount), skeleton.referencePose);
      snapshots.set(node.snapshotName, pose);
    }
    node.bindSnapshot(pose);
  }
  return snapshots;
}

/** The snapshot names the readers among `nodes` read, each once, in the nodes' order. */
export function poseSnapshotNamesOf(nodes: readonly PoseNode[]): string[] {
  return [...new Set(nodes.filter(isPoseSnapshotReader).map((node) => node.snapshotName))];
}

/** Copies `shown` into the snapshot `name` (made if new, in `snapshots`, made if null); returns the map. */
export function savePoseSnapshot(snapshots: PoseSnapshots | null, name: string, shown: Pose): PoseSnapshots {
  if (typeof name !== 'string' || name === '') {
    throw new AnimGraphError('invalid-argument', `savePoseSnapshot: the name must be a non-empty string; got ${typeof name === 'string' ? "''" : String(name)}`);
  }
  const map = snapshots ?? new Map<string, Pose>();
  let pose = map.get(name);
  if (pose === undefined) {
    pose = new Pose(shown.boneCount);
    map.set(name, pose);
  }
  poseCopy(pose, shown);
  return map;
}
