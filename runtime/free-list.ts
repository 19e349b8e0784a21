/**
 * A stack of reusable objects (the pose pools' temporaries) that never gives its storage back.
 * Array.prototype.pop shrinks a V8 array's backing store once it is less than half full, and the
 * next push then allocates a new one: a pool emptied by a blend and refilled after it allocated on
 * every such frame. Here the array only grows (while the graph warms up) and a count splits the
 * free objects from the slots of those in use.
 */
export class FreeList<T> {
  private readonly items: T[] = [];
  private count = 0;
  private made = 0;

  constructor(private readonly make: () => T) {}

  acquire(): T {
    if (this.count > 0) return this.items[--this.count];
    this.made++;
    return this.make();
  }

  release(item: T): void {
    if (this.count < this.items.length) this.items[this.count] = item;
    else this.items.push(item);
    this.count++;
  }

  /** How many objects this list has ever made. */
  get size(): number {
    return this.made;
  }
}
