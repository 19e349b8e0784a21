import { describe, expect, it } from 'vitest';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import { ZERO_WEIGHT } from '../../runtime/node/node.ts';
import { Pose, poseBlendTwo } from '../../runtime/core/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { bipedInstance, expectClose } from '../support/graphs.ts';

const sample = (clip: string, time: number) =>
  sampleClip(new Pose(22), new ClipBinding(builtinClip(clip), sampleSkeleton()), time, true);

const graph = (alpha: unknown) => bipedInstance({
  a: { type: 'SequencePlayer', properties: { clip: 'walk' } },
  b: { type: 'SequencePlayer', properties: { clip: 'run' } },
  blend: { type: 'BlendTwo', inputs: { A: 'a', B: 'b' }, properties: { alpha } },
}, 'blend', { alpha: { type: 'float', default: 0.25 } });

describe('BlendTwo', () => {
  it('lerps translations and nlerps rotations by alpha', () => {
    const g = graph(0.25);
    g.update(0.2);
    const out = g.evaluate();
    const a = sample('walk', 0.2), b = sample('run', 0.2);
    const pelvisY = 1 * 3 + 1;
    expect(out.translations[pelvisY]).toBeCloseTo(a.translations[pelvisY] * 0.75 + b.translations[pelvisY] * 0.25, 12);
    // Independent nlerp of the left thigh (bone 14).
    const q = [0, 1, 2, 3].map((k) => a.rotations[56 + k] * 0.75 + b.rotations[56 + k] * 0.25 * Math.sign(
      [0, 1, 2, 3].reduce((s, j) => s + a.rotations[56 + j] * b.rotations[56 + j], 0)));
    const len = Math.hypot(...q);
    expectClose(out.rotations.subarray(56, 60), q.map((x) => x / len), 1e-12);
  });

  it('blends a B that is not a player (a blend, a component-space control) exactly as one evaluated on its own', () => {
    // B as a nested blend (a local node's default) and as CopyBone (a component-space link): the
    // output must equal poseBlendTwo of A and of B evaluated alone.
    for (const b of [
      { type: 'BlendTwo', inputs: { A: 'run', B: 'idle' }, properties: { alpha: 0.4 } },
      { type: 'CopyBone', inputs: { pose: 'run' }, properties: { sourceBone: 'lowerarm_l', targetBone: 'lowerarm_r' } },
    ]) {
      const nodes = {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run' } },
        idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
        b,
      };
      const blended = bipedInstance({ ...nodes, blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'b' }, properties: { alpha: 0.3 } } }, 'blend');
      const a = bipedInstance(nodes, 'walk'), alone = bipedInstance(nodes, 'b');
      for (const g of [blended, a, alone]) g.update(0.37);
      const expected = poseBlendTwo(new Pose(22), a.evaluate(), alone.evaluate(), Float64Array.of(0.7, 0.3));
      const out = blended.evaluate();
      expect(Array.from(out.translations)).toEqual(Array.from(expected.translations));
      expect(Array.from(out.rotations)).toEqual(Array.from(expected.rotations));
    }
  });

  it('gives each input its share of the weight, and skips an input at zero weight', () => {
    const g = graph(0);
    g.update(0.2);
    const [a, b] = g.gatherDebug().children[0].children;
    expect([a.weight, b.weight]).toEqual([1, 0]);
    expect(b.values?.time).toBe(0); // not updated
    expectClose(g.evaluate().rotations, sample('walk', 0.2).rotations, 0);
  });

  it('clamps a bound alpha to [0, 1]', () => {
    const g = graph({ param: 'alpha' });
    g.setParameter('alpha', 7);
    g.update(0.1);
    expect(g.gatherDebug().children[0].values?.alpha).toBe(1);
    expectClose(g.evaluate().rotations, sample('run', 0.1).rotations, 0);
    g.setParameter('alpha', 0.5);
    g.update(0.1);
    expect(g.gatherDebug().children[0].children.map((c) => c.weight)).toEqual([0.5, 0.5]);
  });

  describe('relevance on the absolute weight (weights multiply down the graph)', () => {
    // idle at 50%, and the other 50% an inner blend whose B (run) gets `inner` of it.
    const nested = () => bipedInstance({
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      inner: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: { param: 'inner' } } },
      outer: { type: 'BlendTwo', inputs: { A: 'idle', B: 'inner' }, properties: { alpha: 0.5 } },
    }, 'outer', { inner: { type: 'float', default: 0 } });
    const run = (g: AnimGraphInstance) => g.gatherDebug().children[0].children[1].children[1];

    it('does not update a nested input whose absolute weight is at the threshold', () => {
      // The inner share alone is above the threshold: a test on the local share would update run.
      expect(2e-5).toBeGreaterThan(ZERO_WEIGHT);
      expect(0.5 * 2e-5).toBe(ZERO_WEIGHT); // exactly at it: halving a double is exact
      const g = nested();
      const relevant: string[] = [];
      g.events.on('nodeBecameRelevant', (id) => relevant.push(id));
      g.setParameter('inner', 2e-5);
      g.update(0.25);
      g.update(0.25);
      expect(run(g).values?.time).toBe(0);
      expect(run(g).weight).toBe(0);
      expect(relevant).not.toContain('run');
      // Not evaluated either: the inner blend outputs the walk alone, so the graph is 50/50 idle/walk.
      const out = g.evaluate();
      const idle = sample('idle', 0.5), walk = sample('walk', 0.5);
      expect(out.translations[4]).toBeCloseTo((idle.translations[4] + walk.translations[4]) / 2, 12);
    });

    it('does not update one at 0.5 × 1.5e-5 (the issue\'s case)', () => {
      const g = nested();
      g.setParameter('inner', 1.5e-5);
      g.update(0.25);
      expect(run(g).values?.time).toBe(0);
      expect(run(g).weight).toBe(0);
    });

    it('updates a nested input just above the threshold', () => {
      const g = nested();
      const relevant: string[] = [];
      g.events.on('nodeBecameRelevant', (id) => relevant.push(id));
      g.setParameter('inner', 2.2e-5);
      g.update(0.25);
      g.update(0.25);
      expect(run(g).values?.time).toBeCloseTo(0.5, 12);
      expect(run(g).weight).toBeCloseTo(1.1e-5, 18);
      expect(relevant).toContain('run');
    });
  });
});
