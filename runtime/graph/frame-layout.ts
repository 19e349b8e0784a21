/**
 * The layout of an instance's per-frame numbers (AnimGraphInstance.frameNumbers), the same for
 * every instance of a graph: the instance's own numbers (below), then, per node in build order,
 * what the node reserved when built (NodeBuild.numbers) and its weight (AnimNode's weight slot).
 * The graph's first instance lays them out as its nodes ask; the graph keeps that FrameLayout, and
 * every later instance's nodes are handed the same offsets.
 */
import { MAX_NODE_NUMBERS, NodeBuildError } from '../node/node.ts';
import type { CompiledNode } from './definition.ts';
import { UPDATE_RATE_NUMBERS } from './update-rate.ts';

/**
 * The instance's own numbers, by index: the frame's delta time (clamped), the elapsed time, the
 * graph update's delta time, the root motion (4: ROOT_MOTION to ROOT_MOTION + 4), then the
 * update-rate clock's and interpolation's numbers (UPDATE_RATE_NUMBERS from UPDATE_RATE: see
 * update-rate.ts); the nodes' numbers start at INSTANCE_NUMBERS.
 */
export const DELTA_TIME = 0, ELAPSED = 1, GRAPH_DELTA = 2, ROOT_MOTION = 4, UPDATE_RATE = 8, INSTANCE_NUMBERS = UPDATE_RATE + UPDATE_RATE_NUMBERS;

/** Where each node of a graph keeps its numbers in an instance's frame numbers, from the instance's start. */
export class FrameLayout {
  constructor(
    /** How many numbers an instance keeps (AnimGraph.frameNumberCount). */
    readonly count: number,
    /** Each node's place in build order (the graph's compiled order), by id. */
    private readonly indices: ReadonlyMap<string, number>,
    /** Each node's weight slot, in build order. */
    private readonly weights: Int32Array,
    /** Each node's reservations (NodeBuild.numbers), in build order: offset and count of each, in the order it asked. */
    readonly reservations: readonly (readonly number[])[],
  ) {}

  /** The place in build order of the node of id `id`, or -1 for none. */
  indexOf(id: string): number {
    return this.indices.get(id) ?? -1;
  }

  /** Where the node at `index` in build order keeps its weight. */
  weightSlot(index: number): number {
    return this.weights[index];
  }
}

/**
 * Hands the nodes of one instance their numbers as they are built, its frame numbers starting at
 * `at`: the offsets of `layout`, or, for the graph's first instance (`layout` null), offsets laid
 * out in the order the nodes ask for them, which finish() returns as the graph's layout.
 */
export class FrameNumbering {
  private reserved = INSTANCE_NUMBERS;
  /** Set once every node is built: a count asked later would be given no room. */
  private laidOut = false;
  private readonly indices = new Map<string, number>();
  private readonly weights: number[] = [];
  private readonly reservations: number[][] = [];

  constructor(private readonly layout: FrameLayout | null, private readonly at: number) {}

  /** NodeBuild.numbers for `compiled`, the node at `index` in build order. */
  numbersFor(index: number, compiled: CompiledNode): (count: number) => number {
    const mine: number[] = [];
    if (this.layout === null) this.reservations[index] = mine;
    let asked = 0;
    return (count: number): number => {
      const name = compiled.nodeType.type;
      if (this.laidOut) {
        throw new NodeBuildError(compiled.id, name, `numbers(${count}) once the node is built; reserve in create, where the instance's numbers are laid out`);
      }
      // A fraction put the next node's numbers at a fractional index, a negative count overlapped them.
      if (!(Number.isInteger(count) && count >= 0 && count <= MAX_NODE_NUMBERS)) {
        throw new NodeBuildError(compiled.id, name, `numbers(${count}): expected a whole number of numbers from 0 to ${MAX_NODE_NUMBERS}`);
      }
      const k = 2 * asked++;
      if (this.layout === null) {
        mine.push(this.reserved, count);
        this.reserved += count;
        return this.at + mine[k];
      }
      const known = this.layout.reservations[index];
      if (!(k < known.length && known[k + 1] === count)) {
        const first = known.filter((_, i) => i % 2 === 1).map((c) => `numbers(${c})`).join(', ') || 'nothing';
        throw new NodeBuildError(compiled.id, name, `numbers(${count}) where the graph's first instance reserved ${first}: a node reserves the same numbers in every instance of a graph`);
      }
      return this.at + known[k];
    };
  }

  /** Places the weight of `compiled`, the node at `index` in build order, once it is built. */
  placeWeight(index: number, compiled: CompiledNode): void {
    if (this.layout !== null) return;
    this.indices.set(compiled.id, index);
    this.weights[index] = this.reserved++;
  }

  /** Ends the laying out, once every node is built: the graph's layout (`layout`, or the one laid out). */
  finish(): FrameLayout {
    this.laidOut = true;
    return this.layout ?? new FrameLayout(this.reserved, this.indices, Int32Array.from(this.weights), this.reservations);
  }
}
