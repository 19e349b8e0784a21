import { CompiledGraph } from './compiled-graph.ts';
import type { InstanceOutput } from './instance-build.ts';
import { AnimGraphInstance } from './instance.ts';
import { InstanceBatch, type InstanceBatchOptions } from './instance-batch.ts';

// The graph's definition, slot arguments and instance, where the loader, nodes/Slot.ts and the crowd
// import them from: each has a file of its own below this one.
export { graphDepth, MAX_GRAPH_DEPTH, type AnimGraphDefinition, type CompiledNode, type PropertyValue } from './definition.ts';
export {
  checkSlotStop, refillableSlotOptions, resolveSlotPlay, unknownClipError, unknownSlotError,
  type SlotPlayArgs, type SlotPlayer, type SlotPlayOptions,
} from './slot-play.ts';
export { AnimGraphInstance } from './instance.ts';
export { MAX_DELTA_TIME } from './instance-frame.ts';
export type { InstanceOutput } from './instance-build.ts';

/**
 * A validated graph asset bound to a skeleton and clips: immutable, shared by all its instances
 * (Bevy's asset/instance split). Clip bindings are built once here. What its instances read of it
 * is CompiledGraph's (compiled-graph.ts, below the instance and the batch); this adds the making
 * of instances, which needs them.
 */
export class AnimGraph extends CompiledGraph {
  /**
   * A new character. `output`: arrays the instance evaluates its output pose (`local`) and its
   * component pose (`component`) into, instead of arrays of its own; a Crowd passes views into
   * the arrays it shares between threads, so that no pose is copied per frame.
   */
  createInstance(output?: InstanceOutput): AnimGraphInstance {
    return new AnimGraphInstance(this, output);
  }

  /**
   * `count` new characters whose poses share one array per attribute, in character order (see
   * InstanceBatch): for crowds, where separate arrays per character scatter a frame's writes.
   */
  createInstances(count: number, options?: InstanceBatchOptions): InstanceBatch {
    return new InstanceBatch(this, count, options);
  }
}
