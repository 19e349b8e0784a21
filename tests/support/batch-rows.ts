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

/**
 * `frames` frames of `dt` for a batch and for instances of their own (`alone`, one per character):
 * `beforeFrame(frame)` (from 1) sets what both get, then the batch updates and each instance
 * updates and evaluates; after every frame each character's montage position is the same in both.
 */
export function stepLikeAlone(
  batch: { update(dt: number): void; readonly instances: readonly AnimGraphInstance[] }, alone: readonly AnimGraphInstance[],
  frames: number, dt: number, beforeFrame: (frame: number) => void,
): void {
  for (let frame = 1; frame <= frames; frame++) {
    beforeFrame(frame);
    batch.update(dt);
    for (const c of alone) {
      c.update(dt);
      c.evaluate();
    }
    alone.forEach((c, i) => expect(batch.instances[i].montagePosition(), `frame ${frame}, character ${i}`).toBe(c.montagePosition()));
  }
}
