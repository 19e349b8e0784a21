import { describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../host/files.ts';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { rootMotionDelta } from '../../runtime/jobs/root-motion.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { bipedInstance, expectClose } from '../support/graphs.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';

describe('SequenceEvaluator', () => {
  const graph = (loop: boolean) => bipedInstance(
    { e: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: { param: 't' }, loop } } },
    'e', { t: { type: 'float', default: 0 } },
  );
  const expected = (time: number) => sampleClip(new Pose(22), new ClipBinding(builtinClip('run'), sampleSkeleton()), time, false);

  it('samples at the explicit time whatever the delta time', () => {
    const g = graph(false);
    g.setParameter('t', 0.35);
    g.update(10);
    expect(Array.from(g.evaluate().rotations)).toEqual(Array.from(expected(0.35).rotations));
  });

  it('clamps outside the clip, or wraps when looping', () => {
    const clamped = graph(false);
    clamped.setParameter('t', 5);
    clamped.update(0);
    expect(clamped.gatherDebug().children[0].values?.time).toBeCloseTo(0.7, 12);
    const wrapped = graph(true);
    wrapped.setParameter('t', 0.9);
    wrapped.update(0);
    expect(wrapped.gatherDebug().children[0].values?.time).toBeCloseTo(0.2, 12);
  });
});

describeWithData('SequenceEvaluator root motion (CMU walk)', () => {
  const graph = (nodes: Record<string, unknown>, output: string) => loadGraphAsset({
    format: 'animgraph/1', skeleton: { bvh: `${CMU}007_04.bvh` },
    clips: { walk: { source: `${CMU}007_04.bvh`, frames: [1, -1], rootMotion: true } },
    parameters: { t: { type: 'float', default: 0 }, alpha: { type: 'float', default: 0 } },
    nodes, output,
  });
  const evaluator = (loop: boolean) => ({ e: { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: { param: 't' }, loop } } });
  const clipOf = (g: AnimGraph) => g.clipBindings.get('walk')!.clip;
  const delta = (g: AnimGraph, span: number[]) => Array.from(rootMotionDelta(new Float64Array(4), clipOf(g), clipOf(g).rootMotion!, Float64Array.from(span)));
  /** The root motion a graph adds in one update after setting t. */
  const step = (g: AnimGraphInstance, t: number, dt = 1 / 30) => {
    g.setParameter('t', t);
    g.update(dt);
    return Array.from(g.rootMotion);
  };

  it('adds the root motion from the previous explicit time to this one, as a player advancing over it would', () => {
    const asset = graph(evaluator(false), 'e');
    const g = asset.createInstance();
    expect(step(g, 0.5)).toEqual([0, 0, 0, 0]); // no previous time yet
    const forward = step(g, 0.8);
    expectClose(forward, delta(asset, [0.5, 0.8, 0, 1]), 1e-12);
    expect(Math.hypot(forward[0], forward[2])).toBeGreaterThan(20); // about 108 cm/s for 0.3 s
    // The same span played by a SequencePlayer from 0.5 s at rate 1.
    const player = graph({ p: { type: 'SequencePlayer', properties: { clip: 'walk', startTime: 0.5, loop: false } } }, 'p').createInstance();
    player.update(0.3);
    expectClose(forward, player.rootMotion, 1e-12);
    // Back again: the reverse span, and the character walks back.
    const back = step(g, 0.5);
    expectClose(back, delta(asset, [0.8, 0.5, 0, -1]), 1e-12);
    expect(back[0] * forward[0] + back[2] * forward[2]).toBeLessThan(0);
    // Held still: nothing. Past the end, not looping: up to the end only.
    expect(step(g, 0.5)).toEqual([0, 0, 0, 0]);
    const duration = clipOf(asset).duration;
    step(g, duration - 0.2);
    expectClose(step(g, duration + 1), delta(asset, [duration - 0.2, duration, 0, 1]), 1e-12);
  });

  it('crosses the clip\'s end when looping, and adds its share of the weight under a blend', () => {
    const asset = graph({
      ...evaluator(true),
      still: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 0 } },
      b: { type: 'BlendTwo', inputs: { A: 'e', B: 'still' }, properties: { alpha: { param: 'alpha' } } },
    }, 'b');
    const duration = clipOf(asset).duration;
    const g = asset.createInstance();
    g.setParameter('alpha', 0.25);
    step(g, duration - 0.1);
    // From 0.1 s before the end to 0.2 s after it: to the end, then on from the start.
    const crossed = step(g, duration + 0.2);
    expectClose(crossed, delta(asset, [duration - 0.1, 0.2, 1, 1]).map((x) => x * 0.75), 1e-12);
    const looping = graph({ p: { type: 'SequencePlayer', properties: { clip: 'walk', startTime: duration - 0.1 } } }, 'p').createInstance();
    looping.update(0.3);
    expectClose(crossed, Array.from(looping.rootMotion, (x) => x * 0.75), 1e-9);
    // Out of the blend for a frame, the time jumps; back in, the jump is not walked.
    g.setParameter('alpha', 1);
    step(g, 1.2);
    g.setParameter('alpha', 0);
    expect(step(g, 2.5)).toEqual([0, 0, 0, 0]);
    expectClose(step(g, 2.6), delta(asset, [2.5, 2.6, 1, 1]), 1e-12);
  });
});
