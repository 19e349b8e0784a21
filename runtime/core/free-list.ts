/**
 * A stack of free objects (a pose pool's temporaries) that never gives memory back: taking the last
 * one leaves the array as it is, where a JavaScript array popped to empty would allocate at the
 * next push (see CONTRIBUTING.md, "Numbers in the frame loop").
 */
export class FreeList<T> {
  private readonly items: T[] = [];
  private count = 0;

  /** The object put last, or undefined when none is free. */
  take(): T | undefined {
    return this.count > 0 ? this.items[--this.count] : undefined;
  }

  /** How many objects are free. */
  get size(): number {
    return this.count;
  }

  /** Forgets every free object (keeping the array), for a pool about to put back all it owns. */
  clear(): void {
    this.count = 0;
  }

  put(item: T): void {
    // Grows only while the graph warms up (a new deepest branch).
    if (this.count === this.items.length) this.items.push(item);
    else this.items[this.count] = item;
    this.count++;
  }
}
