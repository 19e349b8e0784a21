import { describe, expect, it } from 'vitest';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { loadGraphAsset } from '../../host/files.ts';
import { bipedInstance, hasNaN } from '../support/graphs.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';

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

// Held poses (play rate 0), so a bone's pose tells its blend weight exactly.
const profiled = (profile: Record<string, unknown>, blendTimes = [0.4, 0.4, 0.2]) => loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
  parameters: { i: { type: 'int', default: 0 } },
  blendProfiles: { p: profile },
  nodes: {
    idle: { type: 'SequencePlayer', properties: { clip: 'idle', playRate: 0, startTime: 0.3 } },
    walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 0, startTime: 0.3 } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 0, startTime: 0.3 } },
    list: { type: 'BlendList', inputs: { poses: ['idle', 'walk', 'run'] }, properties: { activeIndex: { param: 'i' }, blendTimes, blendProfile: 'p' } },
  },
  output: 'list',
}).createInstance();
const held = (clip: string) => sampleBuiltin(clip, 0.3);
// Bones of the biped: pelvis 1, thigh_l 14, calf_l 15, foot_l 16.
const PELVIS = 1, THIGH_L = 14, FOOT_L = 16;
const boneTranslation = (pose: Pose, bone: number) => Array.from(pose.translations.subarray(bone * 3, bone * 3 + 3));
const boneRotation = (pose: Pose, bone: number) => Array.from(pose.rotations.subarray(bone * 4, bone * 4 + 4));

describe('BlendList with a blend profile', () => {
  it('timeFactor: the left leg (0.5) is on the new pose at half the blend time; the pelvis (1) is half way', () => {
    const g = profiled({ mode: 'timeFactor', branches: [{ bone: 'thigh_l', scale: 0.5 }] });
    g.update(0.1);
    g.setParameter('i', 1); // to walk over 0.4 s
    g.update(0.2);
    const out = g.evaluate();
    const idle = held('idle'), walk = held('walk');
    for (const bone of [THIGH_L, FOOT_L]) {
      expect(boneRotation(out, bone).map((x, k) => x - boneRotation(walk, bone)[k]).every((d) => Math.abs(d) < 1e-12)).toBe(true);
    }
    const pelvis = boneTranslation(out, PELVIS);
    boneTranslation(idle, PELVIS).forEach((a, k) => expect(pelvis[k]).toBeCloseTo((a + boneTranslation(walk, PELVIS)[k]) / 2, 12));
    expect(g.gatherDebug().children[0].description).toBe('Active: 1 Blend: 0.200 / 0.400 Profile: p');
    expect(g.gatherDebug().children[0].values?.blendProfile).toBe('p');
    g.update(0.2);
    expect(Array.from(g.evaluate().translations)).toEqual(Array.from(walk.translations));
  });

  it('weightFactor 3 on the pelvis: at a quarter of the blend it has 0.75 / (0.75 + 0.75) = half of the new pose', () => {
    const g = profiled({ mode: 'weightFactor', bones: { pelvis: 3 } });
    g.update(0.1);
    g.setParameter('i', 2); // to run over 0.2 s
    g.update(0.05);
    const out = g.evaluate();
    const idle = held('idle'), run = held('run');
    boneTranslation(out, PELVIS).forEach((x, k) => expect(x).toBeCloseTo((boneTranslation(idle, PELVIS)[k] + boneTranslation(run, PELVIS)[k]) / 2, 12));
    // A bone not named (scale 1) has the blend's weight, 0.25.
    const root = 0;
    boneTranslation(out, root).forEach((x, k) => expect(x).toBeCloseTo(0.75 * boneTranslation(idle, root)[k] + 0.25 * boneTranslation(run, root)[k], 12));
  });

  it('a switch in the middle of a profiled blend does not pop: every bone continues from where it was', () => {
    const g = profiled({ mode: 'timeFactor', branches: [{ bone: 'thigh_l', scale: 0.5 }, { bone: 'spine_01', scale: 0.2 }] });
    g.update(0.1);
    g.setParameter('i', 1);
    g.update(0.15);
    const before = Float64Array.from(g.evaluate().translations);
    const beforeRotations = Float64Array.from(g.evaluate().rotations);
    g.setParameter('i', 2); // interrupted, to run
    g.update(0);
    const after = g.evaluate();
    for (let k = 0; k < before.length; k++) expect(after.translations[k]).toBeCloseTo(before[k], 12);
    for (let k = 0; k < beforeRotations.length; k++) expect(after.rotations[k]).toBeCloseTo(beforeRotations[k], 12);
    g.update(0.1);
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
  });

  it('a zero blend time or a zero scale switches at once, without NaN', () => {
    const g = profiled({ mode: 'timeFactor', bones: { pelvis: 0 } }, [0, 0, 0]);
    g.update(0.1);
    g.setParameter('i', 1);
    g.update(0.1);
    expect(Array.from(g.evaluate().translations)).toEqual(Array.from(held('walk').translations));
    const h = profiled({ mode: 'timeFactor', bones: { pelvis: 0 } });
    h.update(0.1);
    h.setParameter('i', 1);
    h.update(0);
    const out = h.evaluate();
    expect(boneTranslation(out, PELVIS)).toEqual(boneTranslation(held('walk'), PELVIS));
    expect(hasNaN(out.translations) || hasNaN(out.rotations)).toBe(false);
  });
});

describeWithData('BlendList with a blend profile on CMU subject 2', () => {
  const cmu = (output: string, profile = true) => loadGraphAsset({
    format: 'animgraph/1',
    skeleton: { bvh: `${CMU}002_01.bvh` },
    clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1] }, run: { source: `${CMU}002_03.bvh`, frames: [1, -1] } },
    parameters: { run: { type: 'int', default: 0 } },
    // The upper body from the waist up takes the whole switch; the hips and legs half of it.
    blendProfiles: { legsFirst: { mode: 'timeFactor', branches: [{ bone: 'CC_Base_Hip', scale: 0.5 }, { bone: 'CC_Base_Waist', scale: 1 }] } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 0, startTime: 0.5 } },
      run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 0, startTime: 0.5 } },
      ...(output === 'gait' ? {} : { only: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 0, startTime: 0.5 } } }),
      gait: {
        type: 'BlendList', inputs: { poses: ['walk', 'run'] },
        properties: { activeIndex: { param: 'run' }, blendTimes: [0.5, 0.5], ...(profile ? { blendProfile: 'legsFirst' } : {}) },
      },
    },
    output,
  }).createInstance();

  it('walk to run: the legs reach the run at half the blend time, the upper body only at the end', () => {
    const only = cmu('only');
    only.update(0); // before its first update an instance shows the reference pose
    const runPose = only.evaluate();
    const g = cmu('gait');
    const bones = g.skeleton;
    const thigh = bones.indexOf('CC_Base_L_Thigh'), calf = bones.indexOf('CC_Base_R_Calf');
    const neck = bones.indexOf('CC_Base_NeckTwist01'), arm = bones.indexOf('CC_Base_L_Upperarm');
    expect(Math.min(thigh, calf, neck, arm)).toBeGreaterThanOrEqual(0);
    const distance = (pose: Pose, bone: number) => {
      const a = boneRotation(pose, bone), b = boneRotation(runPose, bone);
      return 1 - Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    };
    g.update(1 / 60);
    const start = Float64Array.from(g.evaluate().rotations);
    const startPose = { rotations: start } as Pose;
    expect(distance(startPose, arm)).toBeGreaterThan(1e-4);
    g.setParameter('run', 1);
    for (let f = 0; f < 15; f++) g.update(1 / 60); // 0.25 s of 0.5
    const half = g.evaluate();
    for (const bone of [thigh, calf]) expect(distance(half, bone)).toBeLessThan(1e-12);
    for (const bone of [neck, arm]) expect(distance(half, bone)).toBeGreaterThan(distance(startPose, bone) * 0.1);
    for (let f = 0; f < 15; f++) g.update(1 / 60);
    const end = g.evaluate();
    for (const bone of [thigh, calf, neck, arm]) expect(distance(end, bone)).toBeLessThan(1e-12);
    // Without the profile, the legs are still half way at 0.25 s.
    const plain = cmu('gait', false);
    plain.update(1 / 60);
    plain.setParameter('run', 1);
    for (let f = 0; f < 15; f++) plain.update(1 / 60);
    expect(distance(plain.evaluate(), thigh)).toBeGreaterThan(1e-6);
  });

  it('a switch follows the blendCurve (BlendList and BlendByBool alike), the pose the weighted walk and run', () => {
    const graph = (node: Record<string, unknown>) => loadGraphAsset({
      format: 'animgraph/1',
      skeleton: { bvh: `${CMU}002_01.bvh` },
      clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1] }, run: { source: `${CMU}002_03.bvh`, frames: [1, -1] } },
      parameters: { run: { type: 'int', default: 0 }, fast: { type: 'bool', default: false } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 0, startTime: 0.5 } },
        run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 0, startTime: 0.5 } },
        gait: node,
      },
      output: 'gait',
    }).createInstance();
    const list = graph({ type: 'BlendList', inputs: { poses: ['walk', 'run'] }, properties: { activeIndex: { param: 'run' }, blendTimes: [0.4, 0.4], blendCurve: 'circularOut' } });
    const bool = graph({ type: 'BlendByBool', inputs: { True: 'run', False: 'walk' }, properties: { active: { param: 'fast' }, trueBlendTime: 0.4, blendCurve: 'circularOut' } });
    for (const g of [list, bool]) g.update(1 / 60);
    list.setParameter('run', 1);
    bool.setParameter('fast', true);
    for (const g of [list, bool]) g.update(0.1); // p = 0.25: circularOut √(1 − 0.75²)
    const expected = Math.sqrt(1 - 0.75 * 0.75);
    expect((list.gatherDebug().children[0].values!.weights as number[])[1]).toBeCloseTo(expected, 12);
    expect((bool.gatherDebug().children[0].values!.weights as number[])[0]).toBeCloseTo(expected, 12);
    const a = list.evaluate().rotations, b = bool.evaluate().rotations;
    // The same rotations (each blend keeps its first input's hemisphere: run first in BlendByBool).
    for (let k = 0; k < a.length; k += 4) expect(Math.abs(a[k] * b[k] + a[k + 1] * b[k + 1] + a[k + 2] * b[k + 2] + a[k + 3] * b[k + 3])).toBeCloseTo(1, 12);
  });
});
