import { expect } from 'vitest';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import type { BatchPoseArrays } from '../../runtime/graph/instance-batch.ts';

/**
 * Every character's rows of a crowd's arrays (an InstanceBatch's or a Crowd's) against an instance
 * of its own run alone with the same parameters and delta times: poses, component poses and root
 * motion, bit for bit.
 */
export function expectRowsLikeAlone(crowd: BatchPoseArrays & { boneCount: number; rootMotion: Float64Array }, alone: readonly AnimGraphInstance[]): void {
  const n = crowd.boneCount;
  alone.forEach((instance, i) => {
    const local = instance.evaluate(), cs = instance.componentPose();
    expect(Array.from(crowd.translations.subarray(i * n * 3, (i + 1) * n * 3))).toEqual(Array.from(local.translations));
    expect(Array.from(crowd.rotations.subarray(i * n * 4, (i + 1) * n * 4))).toEqual(Array.from(local.rotations));
    expect(Array.from(crowd.scales.subarray(i * n * 3, (i + 1) * n * 3))).toEqual(Array.from(local.scales));
    expect(Array.from(crowd.componentTranslations.subarray(i * n * 3, (i + 1) * n * 3))).toEqual(Array.from(cs.translations));
    expect(Array.from(crowd.componentRotations.subarray(i * n * 4, (i + 1) * n * 4))).toEqual(Array.from(cs.rotations));
    expect(Array.from(crowd.rootMotion.subarray(i * 4, i * 4 + 4))).toEqual(Array.from(instance.rootMotion));
  });
}
