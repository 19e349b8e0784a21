/**
 * The locomotion example's crowd (graphs/examples/sample-locomotion.json) and its schedule, as
 * bench/locomotion-crowd.ts times it and bench/crowd-misses.ts (`--graph locomotion`) counts it.
 */
import { fileURLToPath } from 'node:url';
import { loadGraphFile } from '../../host/files.ts';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import type { InstanceBatch } from '../../runtime/graph/instance-batch.ts';

export function locomotionGraph(): AnimGraph {
  return loadGraphFile(fileURLToPath(new URL('../../graphs/examples/sample-locomotion.json', import.meta.url)));
}

const DT = 1 / 60;
export const SWITCH_EVERY = 30;
export const GAITS = [1, 2, 1, 0];

/** The crowd's characters and their schedule: gait switches staggered across the crowd. */
export class LocomotionCrowd {
  private frame = 0;
  readonly instances: readonly AnimGraphInstance[];

  constructor(readonly batch: InstanceBatch) {
    const instances = batch.instances;
    this.instances = instances;
    instances.forEach((instance, i) => {
      instance.setParameter('gait', GAITS[i % GAITS.length]);
      instance.setParameter('speed', 0.8 + 0.4 * ((i * 7919) % 101) / 100);
      // Each character at its own phase of its clips.
      instance.update((i % 61) / 60);
    });
  }

  frames(count: number): void {
    const instances = this.instances, n = instances.length;
    for (let f = 0; f < count; f++) {
      const frame = this.frame++;
      for (let i = 0; i < n; i++) {
        const instance = instances[i];
        if ((frame + i) % SWITCH_EVERY === 0) {
          instance.setParameter('gait', GAITS[((frame + i) / SWITCH_EVERY + i) % GAITS.length]);
        }
      }
      this.batch.update(DT);
    }
  }
}

