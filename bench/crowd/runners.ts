/**
 * animgraph's side of the crowd bench: the characters as AnimGraphInstances of one shared graph
 * (GraphCrowd), and the same characters as one Crowd on worker threads (ThreadedCrowd).
 */
import { Crowd } from '../../host/crowd.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { InstanceBatch } from '../../runtime/graph/instance-batch.ts';
import { DT, type CaseDefinition } from './options.ts';

export class GraphCrowd {
  /** Frames run so far (the motion switches of the posesearch case are scheduled by it). */
  private frame = 0;

  readonly instances: readonly AnimGraphInstance[];
  private readonly batch: InstanceBatch | null;

  /**
   * @param crowd the characters: an InstanceBatch (each frame is then its update: every character
   *   updated and evaluated in order, then, in the sampling kernel, all composed together), or
   *   instances each updated, evaluated and (component) asked for its component pose in turn
   * @param switchEvery when above 0, character i sets its 'motion' parameter to the other clip
   *   before the update of every frame f with (f + i) % switchEvery === 0 (staggered, so each frame
   *   1/switchEvery of the crowd switches).
   */
  constructor(crowd: InstanceBatch | readonly AnimGraphInstance[], private readonly component: boolean, private readonly switchEvery = 0) {
    this.batch = crowd instanceof InstanceBatch ? crowd : null;
    this.instances = crowd instanceof InstanceBatch ? crowd.instances : crowd;
  }

  frames(frameCount: number): void {
    const instances = this.instances;
    const n = instances.length;
    const batch = this.batch;
    if (batch !== null) {
      const every = this.switchEvery;
      for (let f = 0; f < frameCount; f++, this.frame++) {
        if (every > 0) {
          for (let i = 0; i < n; i++) {
            const k = this.frame + i;
            if (k % every === 0) instances[i].setParameter('motion', ((k / every) | 0) & 1);
          }
        }
        batch.update(DT);
      }
      return;
    }
    if (this.switchEvery > 0) {
      const every = this.switchEvery;
      for (let f = 0; f < frameCount; f++, this.frame++) {
        for (let i = 0; i < n; i++) {
          const instance = instances[i];
          const k = this.frame + i;
          if (k % every === 0) instance.setParameter('motion', ((k / every) | 0) & 1);
          instance.update(DT);
          instance.evaluate();
          if (this.component) instance.componentPose();
        }
      }
    } else if (this.component) {
      for (let f = 0; f < frameCount; f++) {
        for (let i = 0; i < n; i++) {
          const instance = instances[i];
          instance.update(DT);
          instance.evaluate();
          instance.componentPose();
        }
      }
    } else {
      for (let f = 0; f < frameCount; f++) {
        for (let i = 0; i < n; i++) {
          const instance = instances[i];
          instance.update(DT);
          instance.evaluate();
        }
      }
    }
  }

  /** One phase of a frame alone, to tell where allocation comes from (see allocationBreakdown). */
  phase(which: 'update' | 'evaluate' | 'evaluate+componentPose' | 'setParameter'): Runner {
    const instances = this.instances;
    const n = instances.length;
    switch (which) {
      case 'setParameter': {
        // The switches of a frame alone: the same calls, with nothing updated in between.
        const every = Math.max(1, this.switchEvery);
        let frame = 0;
        return {
          frames: (frameCount) => {
            for (let f = 0; f < frameCount; f++, frame++) {
              for (let i = 0; i < n; i++) if ((frame + i) % every === 0) instances[i].setParameter('motion', (((frame + i) / every) | 0) & 1);
            }
          },
        };
      }
      case 'update':
        return { frames: (frameCount) => { for (let f = 0; f < frameCount; f++) for (let i = 0; i < n; i++) instances[i].update(DT); } };
      case 'evaluate':
        return { frames: (frameCount) => { for (let f = 0; f < frameCount; f++) for (let i = 0; i < n; i++) instances[i].evaluate(); } };
      default:
        return {
          frames: (frameCount) => {
            for (let f = 0; f < frameCount; f++) {
              for (let i = 0; i < n; i++) {
                instances[i].evaluate();
                instances[i].componentPose();
              }
            }
          },
        };
    }
  }
}

export interface Runner {
  frames(frameCount: number): void;
}

/**
 * The same characters as a GraphCrowd, as one Crowd: its calling thread and worker threads
 * evaluate shares of it together, each character bit-identical to its instance alone. Switches
 * follow GraphCrowd's schedule.
 */
export class ThreadedCrowd implements Runner {
  private frame = 0;

  constructor(readonly crowd: Crowd, private readonly switchEvery = 0) {}

  static async create(def: CaseDefinition, count: number, phases: Float64Array, workers: number): Promise<ThreadedCrowd> {
    const source = { module: new URL('../crowd-cases.ts', import.meta.url).href, export: 'buildCrowdGraph', args: [def.kind] };
    const crowd = await Crowd.create({ source, count, workers, componentSpace: def.component, precision: def.precision ?? 'double' });
    for (let i = 0; i < count; i++) {
      crowd.setParameter(i, 'phaseA', phases[i * 2]);
      crowd.setParameter(i, 'phaseB', phases[i * 2 + 1]);
      crowd.reset(i);
    }
    def.startCrowd?.(crowd);
    return new ThreadedCrowd(crowd, def.switchEvery);
  }

  frames(frameCount: number): void {
    const crowd = this.crowd, n = crowd.count, every = this.switchEvery;
    for (let f = 0; f < frameCount; f++, this.frame++) {
      if (every > 0) {
        for (let i = 0; i < n; i++) {
          const k = this.frame + i;
          if (k % every === 0) crowd.setParameter(i, 'motion', ((k / every) | 0) & 1);
        }
      }
      crowd.update(DT);
    }
  }
}
