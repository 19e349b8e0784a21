import { describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../host/files.ts';
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

  it('blends over a bound blend time as the parameter is at the switch, and at once for NaN or a negative one', () => {
    const g = bipedInstance({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      gait: { type: 'BlendByBool', inputs: { True: 'run', False: 'walk' }, properties: { active: { param: 'running' }, trueBlendTime: { param: 'time' }, falseBlendTime: 0.5 } },
    }, 'gait', { running: { type: 'bool', default: false }, time: { type: 'float', default: 0.2 } });
    g.update(0.1);
    g.setParameter('time', 0.4); // changed after the last frame, before the switch
    g.setParameter('running', true);
    g.update(0.1);
    expect(weights(g)[0]).toBeCloseTo(0.25, 12); // 0.1 of 0.4 s
    for (const time of [Number.NaN, -1]) {
      g.setParameter('running', false);
      g.update(1);
      g.parameterValues[g.parameters.slotOf('time')] = time; // setParameter refuses NaN; the hot-loop path does not
      g.setParameter('running', true);
      g.update(0.1);
      expect(weights(g)).toEqual([1, 0]);
      expect(g.gatherDebug().children[0].description).not.toMatch(/NaN/);
    }
  });

  it('takes a blend profile: a bone at timeFactor 0 switches at once, the rest crossfade', () => {
    const g = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      parameters: { running: { type: 'bool', default: false } },
      blendProfiles: { headFirst: { mode: 'timeFactor', bones: { head: 0 } } },
      nodes: {
        walk: { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: 0.3 } },
        run: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: 0.1 } },
        gait: { type: 'BlendByBool', inputs: { True: 'run', False: 'walk' }, properties: { active: { param: 'running' }, trueBlendTime: 0.4, blendProfile: 'headFirst' } },
      },
      output: 'gait',
    }).createInstance();
    const alone = (clip: string, time: number) => {
      const h = loadGraphAsset({ format: 'animgraph/1', skeleton: 'builtin:biped', clips: { [clip]: { source: `builtin:${clip}` } }, nodes: { p: { type: 'SequenceEvaluator', properties: { clip, explicitTime: time } } }, output: 'p' }).createInstance();
      h.update(0);
      return Float64Array.from(h.evaluate().rotations);
    };
    const run = alone('run', 0.1), walk = alone('walk', 0.3);
    g.update(0.1);
    g.setParameter('running', true);
    g.update(0.1);
    const out = g.evaluate().rotations;
    const head = g.skeleton.indexOf('head') * 4, pelvis = g.skeleton.indexOf('pelvis') * 4;
    for (let k = 0; k < 4; k++) expect(out[head + k]).toBeCloseTo(run[head + k], 12);
    expect(Math.max(...[0, 1, 2, 3].map((k) => Math.abs(out[pelvis + k] - run[pelvis + k])))).toBeGreaterThan(1e-6);
    expect(Math.max(...[0, 1, 2, 3].map((k) => Math.abs(out[pelvis + k] - walk[pelvis + k])))).toBeGreaterThan(1e-6);
    expect(g.gatherDebug().children[0].description).toBe('Active: 0 Blend: 0.100 / 0.400 Profile: headFirst');
  });
});
