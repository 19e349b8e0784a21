/**
 * What an instance is built from and into: the storage its caller may give it (InstanceOutput) and
 * its nodes, built with their per-frame numbers laid out as the graph's first instance laid them.
 */
import type { PosePool, PoseStorage } from '../core/pose.ts';
import { AnimGraphError } from '../core/errors.ts';
import type { PoseNode } from '../node/node.ts';
import type { Parameters } from '../node/parameters.ts';
import type { CompiledGraph } from './compiled-graph.ts';
import { FrameNumbering } from './frame-layout.ts';
import { buildNodes } from './node-build.ts';
import { poseSnapshotNamesOf } from './pose-snapshots.ts';
import { bindSlotPlayers, type SlotPlayer } from './slot-play.ts';

/** Where an instance writes its output pose and component pose (see AnimGraph.createInstance). */
export interface InstanceOutput {
  readonly local?: PoseStorage;
  readonly component?: PoseStorage;
  /**
   * The pool of temporary poses its nodes work in (default: the graph's, shared by its instances).
   * An InstanceBatch passes its own, whose first poses are in its sampling kernel's memory.
   */
  readonly posePool?: PosePool;
  /**
   * Storage for the two poses the instance interpolates between below full rate (setUpdateRate),
   * asked for when it first goes below; default: arrays of its own. An InstanceBatch gives rows of
   * its sampling kernel's memory.
   */
  readonly interpolationStorage?: () => readonly [PoseStorage, PoseStorage];
  /**
   * Storage for the instance's per-frame numbers (AnimGraphInstance.frameNumbers): exactly
   * AnimGraph.frameNumberCount doubles, all 0; default: an array of its own. An InstanceBatch gives
   * a row of its sampling kernel's memory, where the kernel reads what nodes keep there (an
   * inertializer's offsets).
   */
  readonly frameNumbers?: Float64Array;
  /**
   * Where the instance's numbers start in `frameNumbers` (default 0), which then holds
   * AnimGraph.frameNumberCount doubles, all 0, from there on: an InstanceBatch gives every character
   * the same array (its kernel's rows), so that a character's frame has one object fewer to read.
   */
  readonly frameNumbersAt?: number;
}

/** An instance's nodes, built, and where they keep their per-frame numbers. */
export interface BuiltNodes {
  /** In build order (the graph's compiled order): the root last. */
  readonly nodes: readonly PoseNode[];
  /** The instance's slot table: its slot players by slot name, in the graph's order, followers left out; null without (see bindSlotPlayers). */
  readonly slots: Map<string, (PoseNode & SlotPlayer)[]> | null;
  /** The instance's per-frame numbers: `output`'s, checked, or an array of its own. */
  readonly frameNumbers: Float64Array;
  readonly frameNumbersAt: number;
}

/**
 * Builds `graph`'s nodes for an instance with `parameters`, each node given its numbers in the
 * frame numbers `output` gives (or an array made to the graph's count). The graph's first instance
 * lays the numbers out, and the graph keeps that layout (CompiledGraph.recordLayout) before any node
 * is initialized: nodes ask for their weight slots then. Throws an AnimGraphError for frame-number
 * storage that does not fit the layout or is not all 0.
 */
export function buildInstanceNodes(graph: CompiledGraph, parameters: Parameters, output: InstanceOutput): BuiltNodes {
  const storage = output.frameNumbers, at = output.frameNumbersAt ?? 0;
  if (!(Number.isInteger(at) && at >= 0 && (at === 0 || storage !== undefined))) {
    // A number out of range, or anything else (a string, `at` without storage to index).
    const code = typeof at === 'number' && storage !== undefined ? 'out-of-range' : 'invalid-argument';
    throw new AnimGraphError(code, `frameNumbersAt: expected a whole number from 0, and frameNumbers storage with it; got ${at}`);
  }
  // Nodes are given offsets into the whole array.
  const numbering = new FrameNumbering(graph.knownFrameLayout, at);
  const nodes = buildNodes(graph, parameters, numbering);
  const layout = numbering.finish(), reserved = layout.count;
  const slots = bindSlotPlayers(nodes);
  graph.recordLayout(layout, [...(slots?.keys() ?? [])], poseSnapshotNamesOf(nodes));
  if (storage !== undefined) {
    // Exactly the count in storage of the instance's own; at least the count from `at` in a shared array.
    const room = storage.length - at, fits = output.frameNumbersAt === undefined ? room === reserved : room >= reserved;
    if (!fits || storage.subarray(at, at + reserved).some((x) => x !== 0)) {
      throw new AnimGraphError('invalid-argument', `frameNumbers storage: expected ${reserved} numbers${at > 0 ? ` from ${at}` : ''}, all 0 (AnimGraph.frameNumberCount); got ${room}${fits ? ', not all 0' : ''}`);
    }
  }
  return { nodes, slots, frameNumbers: storage ?? new Float64Array(reserved), frameNumbersAt: at };
}
