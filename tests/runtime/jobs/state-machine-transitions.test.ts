import { describe, expect, it } from 'vitest';
import { LINEAR_BLEND, namedBlendCurve } from '../../../runtime/core/blend-curve.ts';
import type { UpdateContext } from '../../../runtime/node/node.ts';
import { MAX_ACTIVE_TRANSITIONS, TransitionStack } from '../../../runtime/jobs/state-machine-transitions.ts';

const frame = (deltaTime: number) => ({ deltaTime }) as UpdateContext;
const seconds = (s: number) => Float64Array.of(s);

describe('TransitionStack', () => {
  it('folds the stack oldest first: W = W (1 − α) + α on each entry\'s state', () => {
    const stack = new TransitionStack(3, 0, LINEAR_BLEND);
    stack.jumpTo(0);
    stack.push(0, 1, seconds(1), LINEAR_BLEND, null);
    stack.advance(frame(0.5)); // 0 -> 1 at 0.5
    stack.push(1, 2, seconds(1), namedBlendCurve('cubic'), null);
    stack.advance(frame(0.25)); // 0 -> 1 at 0.75 beneath 1 -> 2 at cubic(0.25) = 0.15625
    const a = 0.15625;
    expect(Array.from(stack.weights)).toEqual([0.25 * (1 - a), 0.75 * (1 - a), a].map((w) => expect.closeTo(w, 14)));
    expect(stack.count).toBe(2);
    // The older one completes first: dropped, the base becomes state 1, the newer goes on over it.
    stack.advance(frame(0.25)); // older at 1.0, newer at 0.5 (cubic 0.5)
    expect(stack.count).toBe(1);
    expect(Array.from(stack.weights)).toEqual([0, 0.5, 0.5].map((w) => expect.closeTo(w, 14)));
    // The newer completing drops every older one with it.
    stack.push(2, 0, seconds(10), LINEAR_BLEND, null);
    stack.advance(frame(0.5)); // 1 -> 2 complete, 2 -> 0 at 0.05: both older dropped when the newest ends
    expect(stack.count).toBe(1);
    expect(Array.from(stack.weights)).toEqual([0.05, 0, 0.95].map((w) => expect.closeTo(w, 14)));
  });

  it('shortens an entry into a state with weight w to its duration × (1 − w)', () => {
    const stack = new TransitionStack(2, 0, LINEAR_BLEND);
    stack.jumpTo(0);
    stack.push(0, 1, seconds(0.25), LINEAR_BLEND, null);
    stack.advance(frame(0.065)); // state 0 at 0.74
    stack.push(1, 0, seconds(0.25), LINEAR_BLEND, null);
    const times = new Float64Array(2);
    stack.advance(frame(0));
    stack.newestTimes(times);
    expect(times[1]).toBeCloseTo(0.065, 14);
    stack.advance(frame(0.065));
    expect(stack.count).toBe(0);
    expect(Array.from(stack.weights)).toEqual([1, 0]);
  });

  it(`holds the oldest of more than ${MAX_ACTIVE_TRANSITIONS} entries where it is, folded into the base, weights summing to 1`, () => {
    const stack = new TransitionStack(2, 0, LINEAR_BLEND);
    stack.jumpTo(0);
    stack.push(0, 1, seconds(1), LINEAR_BLEND, null);
    stack.advance(frame(0.5)); // the oldest at 0.5: (0.5, 0.5)
    for (let k = 1; k <= MAX_ACTIVE_TRANSITIONS; k++) stack.push(k & 1, (k + 1) & 1, seconds(1000), LINEAR_BLEND, null);
    expect(stack.count).toBe(MAX_ACTIVE_TRANSITIONS);
    stack.advance(frame(0.5));
    // The base froze the oldest at 0.5; the eight newer ones, alternating 0 and 1, each into a state at
    // weight 0.5 when pushed, so over 1000 × 0.5 s: at 0.5 / 500.
    let w = [0.5, 0.5];
    for (let k = 1; k <= MAX_ACTIVE_TRANSITIONS; k++) {
      const a = 0.5 / 500, next = (k + 1) & 1;
      w = w.map((x, s) => x * (1 - a) + (s === next ? a : 0));
    }
    expect(Array.from(stack.weights)).toEqual(w.map((x) => expect.closeTo(x, 14)));
    expect(stack.weights[0] + stack.weights[1]).toBeCloseTo(1, 14);
  });
});
