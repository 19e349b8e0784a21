/**
 * Numbers a node needs only within one call of its frame (a pose's component-space rotations while
 * a mesh-space blend runs): one array serves every node that asks the same ScratchNumbers, since
 * nodes never run concurrently on a thread (a worker has its own modules) and a call that uses it
 * runs no other node and fires no event (whose listener could). Held per node, they were
 * kilobytes per character that a crowd carried and the frame dragged through the cache.
 */
export class ScratchNumbers {
  private array: Float64Array<ArrayBuffer> = new Float64Array(0);

  /**
   * An array of at least `length` numbers shared with the other callers. Ask when the node is built
   * or binds its bones, never in the frame (it allocates when it grows), and keep what it returns:
   * a later, longer request gets a new array, and the one kept stays long enough for its holder.
   */
  atLeast(length: number): Float64Array<ArrayBuffer> {
    if (this.array.length < length) this.array = new Float64Array(length);
    return this.array;
  }
}
