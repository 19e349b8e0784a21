import { describe, expect, it } from 'vitest';
import { type GraphProblem } from '../../graphs/loader.ts';
import { checkGraphAsset, loadGraphAsset } from '../../host/files.ts';
import { hasNaN } from '../support/graphs.ts';

/**
 * Finite numbers the loader accepted but the runtime turned into NaN or
 * Infinity. Ranges are bounded where an asset writes them (here) and guarded where a parameter
 * can set them (the node tests: SequencePlayer, InertialBlend, StrideWarping; the inertializer).
 */
function asset(extra: Record<string, unknown> = {}, nodes: Record<string, unknown> = {}): any {
  return {
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    parameters: { i: { type: 'int' }, on: { type: 'bool' } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      ...nodes,
    },
    output: Object.keys(nodes).at(-1) ?? 'walk',
    ...extra,
  };
}

function problems(json: unknown): GraphProblem[] {
  const result = checkGraphAsset(json);
  if (result.ok) throw new Error('expected the asset to be rejected');
  return [...result.problems];
}

describe('ranges bounded at load', () => {
  it('blend times are at most 1e6 s (a longer one overflowed the inertial curve from about 1e154)', () => {
    const p = problems(asset({}, {
      list: { type: 'BlendList', inputs: { poses: ['walk', 'run'] }, properties: { activeIndex: { param: 'i' }, blendTimes: [0.2, 1e155] } },
    }));
    expect(p).toEqual([{ path: '$.nodes.list.properties.blendTimes[1]', code: 'schema', message: 'Too big: expected number to be <=1000000' }]);
    const q = problems(asset({}, {
      ib: { type: 'InertialBlend', inputs: { A: 'walk', B: 'run' }, properties: { blendTime: 1e300 } },
      s: { type: 'Inertialization', inputs: { pose: 'ib' } },
    }));
    expect(q.map((x) => [x.path, x.code])).toEqual([['$.nodes.ib.properties.blendTime', 'schema']]);
    const r = problems(asset({}, {
      bb: { type: 'BlendByBool', inputs: { True: 'walk', False: 'run' }, properties: { active: { param: 'on' }, trueBlendTime: 2e6, falseBlendTime: 1e6 } },
    }));
    expect(r.map((x) => [x.path, x.code])).toEqual([['$.nodes.bb.properties.trueBlendTime', 'schema']]);
    // 1e6 itself loads.
    expect(checkGraphAsset(asset({}, { list: { type: 'BlendList', inputs: { poses: ['walk', 'run'] }, properties: { blendTimes: 1e6 } } })).ok).toBe(true);
  });

  it('curve key values are within ±1e15, as translations are (keys of ±1.7e308 interpolated to Infinity)', () => {
    const curved = (keys: number[][]) => asset({ clips: { walk: { source: 'builtin:walk', curves: { lean: keys, ok: [[0, 1]] } }, run: { source: 'builtin:run' } } });
    expect(problems(curved([[0, -1.7e308], [0.5, 1.7e308], [0.7, 2e15]]))).toEqual([
      { path: '$.clips.walk.curves.lean[0][1]', code: 'value-range', message: "curve 'lean': key 0 value -1.7e+308 is beyond ±1e15" },
    ]);
    // At the bound, the curve reads finite values between its keys.
    const g = loadGraphAsset(curved([[0, -1e15], [0.5, 1e15]])).createInstance();
    g.update(0.125);
    expect(g.curve('lean')).toBe(-0.5e15);
  });

  it('helper bone translations are within ±1e9 (offsets near 1e308 summed to Infinity in component space)', () => {
    const p = problems(asset({ helperBones: [{ name: 'far', parent: 'hand_l', translation: [1e308, 0, -2e9] }, { name: 'farther', parent: 'far', translation: [1e308, 0, 0] }] }));
    expect(p).toEqual([
      { path: '$.helperBones[0].translation[0]', code: 'schema', message: 'Too big: expected number to be <=1000000000' },
      { path: '$.helperBones[0].translation[2]', code: 'schema', message: 'Too small: expected number to be >=-1000000000' },
      { path: '$.helperBones[1].translation[0]', code: 'schema', message: 'Too big: expected number to be <=1000000000' },
    ]);
    // At the limit, a chain of helpers stays finite.
    const g = loadGraphAsset(asset({ helperBones: [{ name: 'far', parent: 'hand_l', translation: [1e9, -1e9, 1e9] }, { name: 'farther', parent: 'far', translation: [1e9, 1e9, -1e9] }] })).createInstance();
    g.update(0.1);
    const cs = g.componentPose();
    expect(hasNaN(cs.translations)).toBe(false);
    // 'far' (bone 22) lies its offset's length (√3 × 1e9) from the hand, within the hand's reach of the root.
    const far = Math.hypot(cs.translations[66], cs.translations[67], cs.translations[68]);
    expect(Math.abs(far - Math.sqrt(3) * 1e9)).toBeLessThan(300);
  });
});
