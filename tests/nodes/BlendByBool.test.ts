import { describe, expect, it } from 'vitest';
import { bipedInstance } from '../support/graphs.ts';

describe('BlendByBool', () => {
  const graph = () => bipedInstance({
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    gait: { type: 'BlendByBool', inputs: { True: 'run', False: 'walk' }, properties: { active: { param: 'running' }, trueBlendTime: 0.2, falseBlendTime: 0.5 } },
  }, 'gait', { running: { type: 'bool', default: false } });
  const weights = (g: ReturnType<typeof graph>) => g.gatherDebug().children[0].children.map((c) => c.weight);

  it('plays False while the bool is false and True while it is true, with the blend time of the direction', () => {
    const g = graph();
    g.update(0.1);
    expect(weights(g)).toEqual([0, 1]);
    g.setParameter('running', true);
    g.update(0.1);
    expect(weights(g)[0]).toBeCloseTo(0.5, 12); // 0.1 of 0.2 s
    g.update(0.1);
    expect(weights(g)).toEqual([1, 0]);
    g.setParameter('running', false);
    g.update(0.1);
    expect(weights(g)[1]).toBeCloseTo(0.2, 12); // 0.1 of 0.5 s
  });
});
