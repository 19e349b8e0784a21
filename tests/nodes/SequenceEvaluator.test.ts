import { describe, expect, it } from 'vitest';
import { ClipBinding, sampleClip } from '../../runtime/clip.ts';
import { Pose } from '../../runtime/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/sample-data.ts';
import { bipedInstance } from '../support/graphs.ts';

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
