import { describe, expect, it } from 'vitest';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { quatFromAxisAngle } from '../../../runtime/core/math.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { expectClose } from '../../support/graphs.ts';

// root -> a (10 along X) -> b (10 along X); c is a second root child.
const skeleton = Skeleton.fromDefinitions([
  { name: 'root' },
  { name: 'a', parent: 'root', translation: [10, 0, 0] },
  { name: 'b', parent: 'a', translation: [10, 0, 0] },
  { name: 'c', parent: 'root', translation: [0, 5, 0] },
]);

describe('ComponentPose', () => {
  it('the skeleton lists each bone’s descendants, parents first, and only those', () => {
    // A skeleton not in depth-first order: d (child of a) comes after c (child of root).
    const s = Skeleton.fromDefinitions([
      { name: 'root' }, { name: 'a', parent: 'root' }, { name: 'c', parent: 'root' }, { name: 'd', parent: 'a' }, { name: 'e', parent: 'd' },
    ]);
    const of = (bone: number) => Array.from(s.descendants.subarray(s.descendantStart[bone], s.descendantEnd[bone]));
    // Depth-first pre-order: a's subtree (a, d, e) before c.
    expect([of(0), of(1), of(2), of(3), of(4)]).toEqual([[1, 3, 4, 2], [3, 4], [], [4], []]);
    expect(Array.from(s.depths)).toEqual([0, 1, 1, 2, 3]);
  });

  it('keeps one entry per bone for a chain, not one per ancestor (a 10,000-bone chain held 50 million)', () => {
    const n = 10_000;
    const s = new Skeleton(Array.from({ length: n }, (_, i) => `b${i}`), Int32Array.from({ length: n }, (_, i) => i - 1));
    expect(s.descendants.length).toBe(n);
    expect([s.descendantStart[0], s.descendantEnd[0]]).toEqual([1, n]);
    expect(s.descendants[n - 1]).toBe(n - 1);
    expect(s.depths[n - 1]).toBe(n - 1);
    // Several roots, each with its own run.
    const forest = new Skeleton(['r0', 'r1', 'a', 'b'], [-1, -1, 1, 0]);
    expect(Array.from(forest.descendants)).toEqual([0, 3, 1, 2]);
    expect([forest.descendantStart[1], forest.descendantEnd[1]]).toEqual([3, 4]);
  });

  it('computes component transforms lazily up the chain', () => {
    const cs = new ComponentPose(skeleton);
    cs.setFromLocal(skeleton.referencePose);
    quatFromAxisAngle(cs.local.rotations, 4, 0, 0, 1, Math.PI / 2); // a turns 90 about Z
    cs.markLocalChanged();
    cs.ensureComponent(2);
    expectClose(cs.translations.subarray(6, 9), [10, 10, 0], 1e-12);
  });

  it('setting a bone in component space moves its children with it and converts back to local', () => {
    const cs = new ComponentPose(skeleton);
    cs.setFromLocal(skeleton.referencePose);
    const t = Float64Array.of(0, 10, 0), r = quatFromAxisAngle(new Float64Array(4), 0, 0, 0, 1, Math.PI / 2), s = Float64Array.of(1, 1, 1);
    cs.setComponent(1, t, r, s, 0);
    cs.ensureComponent(2);
    cs.ensureComponent(3);
    expectClose(cs.translations.subarray(6, 9), [0, 20, 0], 1e-12); // b followed a
    expectClose(cs.translations.subarray(9, 12), [0, 5, 0], 1e-12); // c untouched
    const local = cs.ensureAllLocal();
    expectClose(local.translations.subarray(3, 6), [0, 10, 0], 1e-12);
    expectClose(local.translations.subarray(6, 9), [10, 0, 0], 1e-12); // b's local is unchanged
    expectClose(local.rotations.subarray(4, 8), r, 1e-12);
  });

  it('setting a child then its parent keeps the child’s new local transform', () => {
    const cs = new ComponentPose(skeleton);
    cs.setFromLocal(skeleton.referencePose);
    const id = Float64Array.of(0, 0, 0, 1), one = Float64Array.of(1, 1, 1);
    cs.setComponent(2, Float64Array.of(20, 3, 0), id, one, 0); // b lifted 3 in component space
    cs.setComponent(1, Float64Array.of(10, 0, 7), id, one, 0); // then a moved along Z
    cs.ensureComponent(2);
    expectClose(cs.translations.subarray(6, 9), [20, 3, 7], 1e-12);
  });

  it('markComposed (a batch composed both poses elsewhere) makes every transform valid again after any change', () => {
    const id = Float64Array.of(0, 0, 0, 1), one = Float64Array.of(1, 1, 1);
    const cs = new ComponentPose(skeleton);
    cs.setFromLocal(skeleton.referencePose);
    cs.ensureAllComponent();
    cs.markComposed();
    cs.markComposed(); // twice in a row, as a crowd's character is marked every frame
    // A component write leaves a's local and b's component stale; marked composed, both count as written.
    cs.setComponent(1, Float64Array.of(0, 10, 0), id, one, 0);
    cs.markComposed();
    expectClose(cs.ensureAllLocal().translations.subarray(3, 6), [10, 0, 0], 0); // a's local kept, not recomputed
    cs.ensureComponent(2);
    expectClose(cs.translations.subarray(6, 9), [20, 0, 0], 0); // b's component kept, not recomposed
    // A local change leaves every component transform stale; marked composed, they count as written.
    cs.local.translations[3] = 50;
    cs.markLocalChanged();
    cs.markComposed();
    cs.ensureComponent(1);
    expectClose(cs.translations.subarray(3, 6), [0, 10, 0], 0); // a's component as setComponent left it
  });
});
