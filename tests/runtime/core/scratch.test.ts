import { describe, expect, it } from 'vitest';
import { ScratchNumbers } from '../../../runtime/core/scratch.ts';

describe('ScratchNumbers', () => {
  it('gives every caller one array while it is long enough, and a longer one when asked for more', () => {
    const scratch = new ScratchNumbers();
    const first = scratch.atLeast(12);
    expect(first.length).toBe(12);
    expect(scratch.atLeast(8)).toBe(first);
    expect(scratch.atLeast(12)).toBe(first);
    const longer = scratch.atLeast(40);
    expect(longer).not.toBe(first);
    expect(longer.length).toBe(40);
    // The first caller's array stays as long as it asked for.
    expect(first.length).toBe(12);
    expect(scratch.atLeast(12)).toBe(longer);
  });

  it('keeps separate scratches apart', () => {
    const a = new ScratchNumbers(), b = new ScratchNumbers();
    expect(a.atLeast(4)).not.toBe(b.atLeast(4));
  });
});
