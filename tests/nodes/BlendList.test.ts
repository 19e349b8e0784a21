import { describe, expect, it } from 'vitest';
import { bipedInstance } from '../support/graphs.ts';

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
});
