import { describe, expect, it } from 'vitest';
import { ClipBinding, sampleClip } from '../../runtime/clip.ts';
import { Pose } from '../../runtime/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/sample-data.ts';
import { bipedInstance } from '../support/graphs.ts';

const sampleBuiltin = (clip: string, time: number) =>
  sampleClip(new Pose(22), new ClipBinding(builtinClip(clip), sampleSkeleton()), time, true);

const graph = (blendTimes: number[] = [0.2, 0.4, 0.1]) => bipedInstance({
  idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
  walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
  run: { type: 'SequencePlayer', properties: { clip: 'run' } },
  list: { type: 'BlendList', inputs: { poses: ['idle', 'walk', 'run'] }, properties: { activeIndex: { param: 'i' }, blendTimes } },
}, 'list', { i: { type: 'int', default: 0 } });

const weights = (g: ReturnType<typeof graph>) => g.gatherDebug().children[0].values?.weights as number[];

describe('BlendList', () => {
  it('starts on the chosen pose without a blend', () => {
    const g = graph();
    g.setParameter('i', 2);
    g.update(1 / 30);
    expect(weights(g)).toEqual([0, 0, 1]);
  });

  it('crossfades linearly over the blend time of the pose switched to', () => {
    const g = graph();
    g.update(0.1);
    g.setParameter('i', 1); // blend time 0.4
    g.update(0.1);
    expect(weights(g)[0]).toBeCloseTo(0.75, 12);
    expect(weights(g)[1]).toBeCloseTo(0.25, 12);
    g.update(0.3);
    expect(weights(g)).toEqual([0, 1, 0]);
  });

  it('switching mid-blend starts from the current weights (no pop)', () => {
    const g = graph();
    g.update(0.1);
    g.setParameter('i', 1);
    g.update(0.2); // idle 0.5, walk 0.5
    const before = weights(g);
    g.setParameter('i', 2); // blend time 0.1
    g.update(0.05);
    const after = weights(g);
    expect(after[0]).toBeCloseTo(before[0] * 0.5, 12);
    expect(after[1]).toBeCloseTo(before[1] * 0.5, 12);
    expect(after[2]).toBeCloseTo(0.5, 12);
    expect(after.reduce((s, w) => s + w, 0)).toBeCloseTo(1, 12);
  });

  it('clamps an out-of-range index to the nearest pose', () => {
    const g = graph();
    g.setParameter('i', 9);
    g.update(0);
    expect(g.gatherDebug().children[0].values?.activeIndex).toBe(2);
    g.setParameter('i', -3);
    g.update(0.5);
    expect(g.gatherDebug().children[0].values?.activeIndex).toBe(0);
  });

  it('updates only relevant inputs and reports a node becoming relevant', () => {
    const g = graph([0, 0, 0]);
    const relevant: string[] = [];
    g.events.on('nodeBecameRelevant', (id) => relevant.push(id));
    g.update(0.1);
    expect(relevant).toEqual(['output', 'list', 'idle']);
    g.setParameter('i', 1);
    g.update(0.1);
    g.update(0.1);
    expect(relevant).toEqual(['output', 'list', 'idle', 'walk']);
    const [idle, walk, run] = g.gatherDebug().children[0].children;
    expect([idle.weight, walk.weight, run.weight]).toEqual([0, 1, 0]);
    expect(idle.values?.time).toBeCloseTo(0.1, 12);
    expect(run.values?.time).toBe(0);
    g.setParameter('i', 0);
    g.update(0.1);
    expect(relevant.at(-1)).toBe('idle'); // relevant again after a frame away
  });

  it('skips an input whose absolute weight is at or below the threshold, not its local share', () => {
    // The list gets half the weight; switching to run over 1e4 s gives run dt / 1e4 of that half.
    const nested = () => bipedInstance({
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      list: { type: 'BlendList', inputs: { poses: ['walk', 'run'] }, properties: { activeIndex: { param: 'i' }, blendTimes: [1e4, 1e4] } },
      outer: { type: 'BlendTwo', inputs: { A: 'idle', B: 'list' }, properties: { alpha: 0.5 } },
    }, 'outer', { i: { type: 'int', default: 0 } });
    const players = (g: ReturnType<typeof nested>) => g.gatherDebug().children[0].children[1].children;

    const below = nested();
    below.update(0);
    below.setParameter('i', 1);
    below.update(0.15); // run's share 1.5e-5, absolute 7.5e-6
    const [walk, run] = players(below);
    expect(below.gatherDebug().children[0].children[1].values?.weights).toEqual([expect.closeTo(1 - 1.5e-5, 15), expect.closeTo(1.5e-5, 15)]);
    expect(run.values?.time).toBe(0);
    expect(run.weight).toBe(0);
    expect(walk.weight).toBeCloseTo(0.5 * (1 - 1.5e-5), 15);
    // The walk alone makes the list's pose, at full weight: half idle, half walk at 0.15 s.
    const out = below.evaluate();
    const expected = (sampleBuiltin('idle', 0.15).translations[4] + sampleBuiltin('walk', 0.15).translations[4]) / 2;
    expect(out.translations[4]).toBeCloseTo(expected, 12);

    const above = nested();
    above.update(0);
    above.setParameter('i', 1);
    above.update(0.24); // run's share 2.4e-5, absolute 1.2e-5
    expect(players(above)[1].values?.time).toBeCloseTo(0.24, 12);
    expect(players(above)[1].weight).toBeCloseTo(1.2e-5, 15);
  });
});
