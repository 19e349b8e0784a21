/**
 * A stack of free objects (a pose pool's temporaries) that never gives memory back: taking the last
 * one leaves the array as it is. A JavaScript array popped to empty drops its backing store when the
 * pop runs unoptimised (V8's builtin trims it), and the next push allocates a new one, which
 * happened every frame a lone character's rarely run branch (a crossfade's evaluation) took a
 * pool's last pose.
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
