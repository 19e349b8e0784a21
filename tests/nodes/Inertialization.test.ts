import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../host/files.ts';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import type { AnimNode } from '../../runtime/node/node.ts';
import type { Inertialization } from '../../nodes/Inertialization.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { bipedInstance, expectClose } from '../support/graphs.ts';

const DT = 0.05;
const pure = (clip: string, time: number) => sampleClip(new Pose(22), new ClipBinding(builtinClip(clip), sampleSkeleton()), time, true);
const inert = (g: AnimGraphInstance) => g.gatherDebug().children[0];

const listGraph = () => bipedInstance({
  idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
  walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
  run: { type: 'SequencePlayer', properties: { clip: 'run' } },
  list: { type: 'BlendList', inputs: { poses: ['idle', 'walk', 'run'] }, properties: { activeIndex: { param: 'gait' }, blendTimes: [0.3, 0.4, 0.5], blendMode: 'inertial' } },
  inert: { type: 'Inertialization', inputs: { pose: 'list' } },
}, 'inert', { gait: { type: 'int', default: 1 } });

describe('Inertialization with requests from BlendList', () => {
  it('switches the list at once and inertializes over the blend time of the pose switched to', () => {
    const g = listGraph();
    for (let i = 0; i < 4; i++) { g.update(DT); g.evaluate(); }
    const last = Float64Array.from(g.evaluate().rotations);
    g.setParameter('gait', 2);
    g.update(DT);
    expectClose(g.evaluate().rotations, last, 1e-12); // time 0 repeats the last output
    const list = inert(g).children[0];
    expect(list.values?.weights).toEqual([0, 0, 1]);
    expect(list.children.map((c) => c.weight)).toEqual([0, 0, 1]); // the walk is no longer updated
    expect(inert(g).description).toBe("'Active' Time: 0.000 / 0.500 (0%) [0.000]");
    g.update(DT); g.evaluate();
    expect(inert(g).description).toBe("'Active' Time: 0.050 / 0.500 (10%) [0.000]");
    for (let i = 0; i < 9; i++) { g.update(DT); g.evaluate(); } // 10 x 0.05 = 0.5 s
    expect(inert(g).values?.active).toBe(false);
    expectClose(g.evaluate().rotations, pure('run', 11 * DT).rotations, 1e-12);
  });

  it('takes the shortest of several requests in one frame', () => {
    const g = bipedInstance({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      walk2: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      upper: { type: 'BlendByBool', inputs: { True: 'run', False: 'walk' }, properties: { active: { param: 'fast' }, trueBlendTime: 0.3, blendMode: 'inertial' } },
      lower: { type: 'BlendByBool', inputs: { True: 'idle', False: 'walk2' }, properties: { active: { param: 'fast' }, trueBlendTime: 0.1, blendMode: 'inertial' } },
      mix: { type: 'BlendTwo', inputs: { A: 'upper', B: 'lower' }, properties: { alpha: 0.5 } },
      inert: { type: 'Inertialization', inputs: { pose: 'mix' } },
    }, 'inert', { fast: { type: 'bool', default: false } });
    g.update(DT); g.evaluate();
    g.update(DT); g.evaluate();
    g.setParameter('fast', true);
    g.update(DT); g.evaluate();
    expect(inert(g).values).toMatchObject({ active: true, duration: 0.1, lastRequester: 'lower' });
  });

  it('reads a request at evaluate, not when asked, and gives a tie to the first asker', () => {
    const g = listGraph();
    g.update(DT); g.evaluate();
    g.update(DT); g.evaluate();
    // Requests made directly, as a custom node would.
    const node = (g as unknown as { builtNodes: AnimNode[] }).builtNodes.find((n) => n.id === 'inert') as Inertialization;
    const first = { duration: 0.4, profile: null }, second = { duration: 0.2, profile: null };
    g.update(DT);
    node.requestInertialization(first, { id: 'first' } as AnimNode);
    node.requestInertialization(second, { id: 'second' } as AnimNode);
    node.requestInertialization(first, { id: 'again' } as AnimNode); // the same object counts once
    first.duration = 0.2; // read at evaluate: now a tie, which the first asker keeps
    g.evaluate();
    expect(inert(g).values).toMatchObject({ active: true, duration: 0.2, lastRequester: 'first' });
  });

  it('subtracts the deficit from requests that keep interrupting, and pays it down', () => {
    const g = listGraph();
    g.update(DT); g.evaluate();
    g.update(DT); g.evaluate();
    g.setParameter('gait', 0); // 0.3 s
    g.update(DT); g.evaluate();
    g.update(DT); g.evaluate(); // 0.05 s in
    g.setParameter('gait', 1); // 0.1 s in: interrupts with 0.2 s owed; no deficit outstanding yet: full 0.4 s
    g.update(DT); g.evaluate();
    expect(inert(g).values).toMatchObject({ duration: 0.4 });
    expect(inert(g).values?.deficit).toBeCloseTo(0.2, 12);
    g.update(DT); g.evaluate(); // deficit paid down to 0.15
    expect(inert(g).values?.deficit).toBeCloseTo(0.15, 12);
    g.setParameter('gait', 2); // 0.1 s in: deficit outstanding, so the 0.3 s now owed is subtracted from 0.5 s
    g.update(DT); g.evaluate();
    expect(inert(g).values?.duration).toBeCloseTo(0.2, 12);
    expect(inert(g).values?.deficit).toBeCloseTo(0.3, 12);
  });

  it('switches at once, owing nothing, when the deficit swallows the whole request', () => {
    const g = listGraph();
    g.update(DT); g.evaluate();
    g.setParameter('gait', 0); // 0.3 s
    g.update(DT); g.evaluate();
    g.setParameter('gait', 2); // 0.05 s in, 0.25 s owed, none outstanding before: the full 0.5 s
    g.update(DT); g.evaluate();
    expect(inert(g).values?.deficit).toBeCloseTo(0.25, 12);
    g.setParameter('gait', 0); // 0.05 s in: 0.45 s owed, more than the 0.3 s asked for
    g.update(DT);
    const out = g.evaluate();
    expect(inert(g).values).toMatchObject({ active: false, deficit: 0 });
    expectClose(out.rotations, pure('idle', 2 * DT).rotations, 1e-12); // idle played on two frames only
  });

  it('emits start and end events with the duration, marking interruptions', () => {
    const g = listGraph();
    const seen: unknown[] = [];
    g.events.on('inertializationStarted', (id, d) => seen.push(['start', id, d]));
    g.events.on('inertializationEnded', (id, d, interrupted) => seen.push(['end', id, d, interrupted]));
    g.update(DT); g.evaluate();
    g.update(DT); g.evaluate();
    g.setParameter('gait', 2);
    g.update(DT); g.evaluate();
    g.setParameter('gait', 0);
    g.update(DT); g.evaluate();
    for (let i = 0; i < 10; i++) { g.update(DT); g.evaluate(); }
    expect(seen).toEqual([['start', 'inert', 0.5], ['end', 'inert', 0.5, true], ['start', 'inert', 0.3], ['end', 'inert', 0.3, false]]);
  });
});

describe('Inertialization with a blend profile (per-bone transition time)', () => {
  const profiled = (profile: Record<string, unknown>) => loadGraphAsset({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    parameters: { gait: { type: 'int', default: 1 } },
    blendProfiles: { p: profile },
    nodes: {
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      list: { type: 'BlendList', inputs: { poses: ['idle', 'walk', 'run'] }, properties: { activeIndex: { param: 'gait' }, blendTimes: [0.4, 0.4, 0.4], blendMode: 'inertial', blendProfile: 'p' } },
      inert: { type: 'Inertialization', inputs: { pose: 'list' } },
    },
    output: 'inert',
  }).createInstance();
  const rotation = (pose: Pose, bone: number) => pose.rotations.subarray(bone * 4, bone * 4 + 4);
  // thigh_l (14) to ball_l (17): the left leg; spine_02 (3) takes the whole time.
  const LEG = [14, 15, 16, 17], SPINE = 3;

  it('timeFactor: the left leg (0.5) settles at half the blend time, the spine at the end', () => {
    const g = profiled({ mode: 'timeFactor', branches: [{ bone: 'thigh_l', scale: 0.5 }] });
    for (let i = 0; i < 4; i++) { g.update(DT); g.evaluate(); }
    g.setParameter('gait', 2);
    g.update(DT);
    g.evaluate();
    expect(inert(g).description).toBe("'Active' Time: 0.000 / 0.400 (0%) [0.000] Profile: p");
    expect(inert(g).values?.blendProfile).toBe('p');
    for (let i = 0; i < 4; i++) { g.update(DT); g.evaluate(); } // 0.2 s
    const out = g.evaluate(), run = pure('run', 5 * DT);
    for (const bone of LEG) expectClose(rotation(out, bone), rotation(run, bone), 1e-12);
    expect(Math.max(...[0, 1, 2, 3].map((k) => Math.abs(rotation(out, SPINE)[k] - rotation(run, SPINE)[k])))).toBeGreaterThan(1e-6);
    for (let i = 0; i < 4; i++) { g.update(DT); g.evaluate(); } // 0.4 s
    expect(inert(g).values?.active).toBe(false);
    expectClose(g.evaluate().rotations, pure('run', 9 * DT).rotations, 1e-12);
  });

  it('weightFactor: a bone at 0.5 takes twice the time, so the transition lasts until it settles; 0 is instant in timeFactor', () => {
    const g = profiled({ mode: 'weightFactor', branches: [{ bone: 'thigh_l', scale: 0.5 }] });
    for (let i = 0; i < 4; i++) { g.update(DT); g.evaluate(); }
    g.setParameter('gait', 2);
    g.update(DT);
    g.evaluate();
    expect(inert(g).description).toBe("'Active' Time: 0.000 / 0.800 (0%) [0.000] Profile: p");
    const h = profiled({ mode: 'timeFactor', bones: { thigh_l: 0 } });
    for (let i = 0; i < 4; i++) { h.update(DT); h.evaluate(); }
    h.setParameter('gait', 2);
    h.update(DT);
    h.evaluate();
    h.update(DT);
    const out = h.evaluate();
    expectClose(rotation(out, 14), rotation(pure('run', 2 * DT), 14), 1e-12);
    expect(out.rotations.every((x) => Number.isFinite(x))).toBe(true);
  });

  it('reports a blendMask profile on an inertial BlendList as the wrong mode', () => {
    const result = checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { idle: { source: 'builtin:idle' } },
      blendProfiles: { mask: { mode: 'blendMask', bones: { neck: 1 } } },
      nodes: {
        a: { type: 'SequencePlayer', properties: { clip: 'idle' } },
        b: { type: 'SequencePlayer', properties: { clip: 'idle' } },
        list: { type: 'BlendList', inputs: { poses: ['a', 'b'] }, properties: { blendMode: 'inertial', blendProfile: 'mask' } },
        inert: { type: 'Inertialization', inputs: { pose: 'list' } },
      },
      output: 'inert',
    });
    expect(result.ok ? [] : result.problems.map((p) => [p.path, p.code])).toEqual([['$.nodes.list.properties.blendProfile', 'blend-profile-mode']]);
  });
});

describe('inertialization requests at load', () => {
  const asset = (nodes: Record<string, unknown>, output: string) => ({
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    parameters: { fast: { type: 'bool' } }, nodes, output,
  });
  const players = {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
  };

  it('rejects an inertial blend with no Inertialization node below it, naming both ends', () => {
    const result = checkGraphAsset(asset({ ...players, gait: { type: 'BlendByBool', inputs: { True: 'run', False: 'walk' }, properties: { active: { param: 'fast' }, blendMode: 'inertial' } } }, 'gait'));
    expect(result.ok).toBe(false);
    const p = !result.ok ? result.problems[0] : undefined;
    expect(p).toMatchObject({ path: '$.nodes.gait.properties.blendMode', code: 'no-inertialization' });
    expect(p?.message).toContain("BlendByBool 'gait'");
    expect(p?.message).toContain("the output 'gait'");
  });

  it('accepts one with an Inertialization node anywhere below it, and a crossfade without', () => {
    const gait = { type: 'BlendByBool', inputs: { True: 'run', False: 'walk' }, properties: { active: { param: 'fast' }, blendMode: 'inertial' } };
    expect(checkGraphAsset(asset({ ...players, gait, c: { type: 'CopyBone', inputs: { pose: 'gait' }, properties: { sourceBone: 'head', targetBone: 'neck' } }, i: { type: 'Inertialization', inputs: { pose: 'c' } } }, 'i')).ok).toBe(true);
    expect(checkGraphAsset(asset({ ...players, gait: { ...gait, properties: { active: true } } }, 'gait')).ok).toBe(true);
  });
});
