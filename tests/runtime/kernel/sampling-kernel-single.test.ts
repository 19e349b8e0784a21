import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCrowdGraph, createCrowdBatch, crowdPhases } from '../../../bench/crowd-cases.ts';
import { Crowd } from '../../../host/crowd.ts';
import { loadGraphFile } from '../../../host/files.ts';
import { Clip, ClipBinding } from '../../../runtime/core/clip.ts';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { AnimGraphError } from '../../../runtime/core/errors.ts';
import { quatFromAxisAngle } from '../../../runtime/core/math.ts';
import { Pose } from '../../../runtime/core/pose.ts';
import { ClipCursor, sampleClipAt, sampleClipBlendInto } from '../../../runtime/core/sampling.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import type { AnimGraph } from '../../../runtime/graph/graph.ts';
import { characterOutput, kernelArrays, kernelPoseLengths, type InstanceBatch } from '../../../runtime/graph/instance-batch.ts';
import { SamplingKernel } from '../../../runtime/kernel/sampling-kernel.ts';
import { runProbe } from '../../support/allocation.ts';
import { CMU, describeWithData } from '../../support/shared-data.ts';

// Five bones, so that the kernel's four-bone groups end on a partial one: a root translated and
// turned about Z, a child turned about X, one with no track (its reference), one scaled, one
// turned by keys that are not unit.
const skeleton = Skeleton.fromDefinitions([
  { name: 'root', translation: [1, 2, 3] },
  { name: 'spine', parent: 'root', translation: [0, 5, 0] },
  { name: 'head', parent: 'spine', translation: [0, 3, 1], rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2] },
  { name: 'hand', parent: 'root', translation: [4, 0, 0] },
  { name: 'tail', parent: 'root', translation: [0, -1, 0] },
]);

/**
 * Three keys at 10 fps: the root from (0, 0, 0) to (10, 20, 30) and on to (10, 20, 60), turning
 * about Z by 0.6 then 2.4 rad more (a span of 1.2 rad, past the double-precision kernel's series);
 * the spine about X by 0.01 rad a key (the linear fallback); the hand's scale from 1 to 3; the
 * tail about Y by 0.2 rad a key, its keys twice unit length (renormalised).
 */
function makeClip(): Clip {
  const clip = new Clip({
    name: 'clip', interpolation: 'slerp', frameRate: 10, frameCount: 3,
    tracks: [
      { bone: 'root', translation: true, rotation: true, scale: false },
      { bone: 'spine', translation: false, rotation: true, scale: false },
      { bone: 'hand', translation: false, rotation: false, scale: true },
      { bone: 'tail', translation: false, rotation: true, scale: false },
    ],
  });
  const rootAngles = [0, 0.6, 3], rootTranslations = [[0, 0, 0], [10, 20, 30], [10, 20, 60]];
  for (let f = 0; f < 3; f++) {
    clip.translations.set(rootTranslations[f], f * 4 * 3);
    clip.scales.set([1, 1, 1, 1, 1, 1, 1 + f, 1 + f, 1 + f, 1, 1, 1], f * 4 * 3);
    quatFromAxisAngle(clip.rotations, f * 16, 0, 0, 1, rootAngles[f]);
    quatFromAxisAngle(clip.rotations, f * 16 + 4, 1, 0, 0, 0.01 * f);
    quatFromAxisAngle(clip.rotations, f * 16 + 12, 0, 1, 0, 0.2 * f);
    for (let k = 12; k < 16; k++) clip.rotations[f * 16 + k] *= 2;
  }
  return clip;
}

/** The clip bound to `skeleton` with an index, as a graph binds its clips (the kernel copies only those). */
const bindings = new WeakMap<Clip, ClipBinding>();
function bind(clip: Clip): ClipBinding {
  let binding = bindings.get(clip);
  if (binding === undefined) bindings.set(clip, binding = new ClipBinding(clip, skeleton, undefined, 0));
  return binding;
}

/** A single-precision kernel with two poses of `skeleton` side by side, and its first pose. */
function singleKernel(clip: Clip): { kernel: SamplingKernel; pose: Pose; next: Float64Array } {
  const binding = bind(clip);
  const kernel = SamplingKernel.create(skeleton, [binding], kernelPoseLengths(5, 2, false, false, 0, 0), 1 << 30, undefined, 'single')!;
  const rows = kernelArrays(kernel, 0);
  return { kernel, pose: new Pose(5, characterOutput(rows, 5, 0, false).local), next: rows.translations.subarray(15) };
}

function sampleAt(pose: Pose, clip: Clip, time: number): void {
  const cursor = new ClipCursor();
  cursor.time = time;
  sampleClipAt(pose, bind(clip), cursor);
}

/** Every number of a pose, in order. */
const numbers = (p: Pose): number[] => [...p.translations, ...p.rotations, ...p.scales];

describe("the sampling kernel with precision 'single'", () => {
  it('samples known answers to single precision, every number a float32, nothing past the pose written', () => {
    const clip = makeClip();
    const { kernel, pose, next } = singleKernel(clip);
    expect(kernel.precision).toBe('single');
    next.fill(7);
    sampleAt(pose, clip, 0.025); // a quarter of the way from key 0 to key 1
    const close = (actual: ArrayLike<number>, expected: number[], tolerance: number): void => {
      expected.forEach((e, i) => expect(Math.abs(actual[i] - e)).toBeLessThan(tolerance));
    };
    close(pose.translations.subarray(0, 3), [2.5, 5, 7.5], 1e-6);
    // 0.15 rad about Z: the quaternion (0, 0, sin 0.075, cos 0.075).
    close(pose.rotations.subarray(0, 4), [0, 0, Math.sin(0.075), Math.cos(0.075)], 1.5e-7);
    close(pose.rotations.subarray(4, 8), [Math.sin(0.00125), 0, 0, Math.cos(0.00125)], 1.5e-7);
    close(pose.rotations.subarray(8, 12), [0, 0, Math.SQRT1_2, Math.SQRT1_2], 1.5e-7); // the head's reference
    close(pose.scales.subarray(9, 12), [1.25, 1.25, 1.25], 1e-6);
    // Keys twice unit length: their dot product above 1 takes the linear fallback, renormalised.
    const lx = 0.75 + 0.25 * Math.cos(0.1), ly = 0.25 * Math.sin(0.1), length = Math.hypot(lx, ly);
    close(pose.rotations.subarray(16, 20), [0, ly / length, 0, lx / length], 1.5e-7);
    // Between keys 1 and 2, a span of 1.2 rad: 0.6 + 2.4 * 0.5 = 1.8 rad about Z, the translation halfway.
    sampleAt(pose, clip, 0.15);
    close(pose.rotations.subarray(0, 4), [0, 0, Math.sin(0.9), Math.cos(0.9)], 1.5e-7);
    close(pose.translations.subarray(0, 3), [10, 20, 45], 4e-6);
    for (const x of numbers(pose)) expect(Math.fround(x)).toBe(x);
    expect(Array.from(next)).toEqual(new Array(next.length).fill(7));
  });

  it("blends a sample into a pose as poseBlendTwo does (BlendTwo's one pass), to single precision", () => {
    const clip = makeClip(), binding = bind(clip);
    const { pose, next } = singleKernel(clip);
    next.fill(7);
    const cursor = new ClipCursor();
    cursor.time = 0;
    sampleClipAt(pose, binding, cursor);
    cursor.time = 0.1;
    sampleClipBlendInto(pose, binding, cursor, new Float64Array([0.5, 0.5]));
    // Halfway between key 0 and key 1 by a blend: the translation's mean, the rotation 0.3 rad about Z.
    [5, 10, 15].forEach((e, i) => expect(Math.abs(pose.translations[i] - e)).toBeLessThan(1e-6));
    [0, 0, Math.sin(0.15), Math.cos(0.15)].forEach((e, i) => expect(Math.abs(pose.rotations[i] - e)).toBeLessThan(1.5e-7));
    [1.5, 1.5, 1.5].forEach((e, i) => expect(Math.abs(pose.scales[9 + i] - e)).toBeLessThan(1e-6));
    for (const x of numbers(pose)) expect(Math.fround(x)).toBe(x);
    expect(Array.from(next)).toEqual(new Array(next.length).fill(7));
  });

  it('stays within a float32 rounding of the double-precision samples at every time and blend', () => {
    const clip = makeClip(), binding = bind(clip);
    const { pose } = singleKernel(clip);
    const exact = new Pose(5);
    const cursor = new ClipCursor();
    let worst = 0;
    for (let i = 0; i <= 200; i++) {
      cursor.time = (i / 200) * clip.duration;
      sampleClipAt(pose, binding, cursor);
      sampleClipAt(exact, binding, cursor);
      cursor.time = clip.duration - cursor.time;
      const weights = new Float64Array([1 - i / 200, i / 200]);
      sampleClipBlendInto(pose, binding, cursor, weights);
      sampleClipBlendInto(exact, binding, cursor, weights);
      numbers(pose).forEach((x, k) => { worst = Math.max(worst, Math.abs(x - numbers(exact)[k]) / Math.max(1, Math.abs(numbers(exact)[k]))); });
    }
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThan(1e-6);
  });

  it('composes component space in single precision, each character in its own lane, to a float32 rounding of the double pass', () => {
    // Seven characters (a group of four and one of three, so lanes past the last character are
    // filled), composed by two calls (three, then four from character 3); an eighth's rows must stay as they are.
    const count = 7;
    const kernel = SamplingKernel.create(skeleton, [], kernelPoseLengths(5, count + 1, true, false, 0, 0), 1 << 30, undefined, 'single')!;
    const rows = kernelArrays(kernel, 0);
    const locals = Array.from({ length: count }, (_, k) => {
      const pose = new Pose(5, characterOutput(rows, 5, k, false).local);
      pose.translations.set(skeleton.referencePose.translations);
      pose.rotations.set(skeleton.referencePose.rotations);
      pose.scales.set(skeleton.referencePose.scales);
      pose.translations.set([1 + k, 2, 3], 0);
      quatFromAxisAngle(pose.rotations, 0, 0, 0, 1, Math.PI / 2 + 0.1 * k); // the root about Z
      quatFromAxisAngle(pose.rotations, 4, 1, 0, 0, 0.3 * k); // the spine about X
      pose.scales.set([1, 1 + 0.25 * k, 1], 0); // the root stretched along Y
      return pose;
    });
    const untouched = characterOutput(rows, 5, count, true).component!;
    for (const a of [untouched.translations, untouched.rotations, untouched.scales]) a.fill(7);
    kernel.composeCharacters(rows, 0, 3);
    kernel.composeCharacters(rows, 3, count - 3);
    const exact = new ComponentPose(skeleton);
    let worstT = 0, worstR = 0;
    for (let k = 0; k < count; k++) {
      const component = characterOutput(rows, 5, k, true).component!;
      for (const a of [component.translations, component.rotations, component.scales]) for (const x of a) expect(Math.fround(x)).toBe(x);
      exact.setFromLocal(locals[k]);
      exact.ensureAllComponent();
      component.translations.forEach((x, i) => { worstT = Math.max(worstT, Math.abs(x - exact.translations[i])); });
      component.rotations.forEach((x, i) => { worstR = Math.max(worstR, Math.abs(x - exact.rotations[i])); });
      component.scales.forEach((x, i) => expect(Math.abs(x - exact.scales[i])).toBeLessThan(1e-6));
      // Known answers: the spine at the root plus the root's turn (pi/2 + 0.1k about Z) of (0, 5, 0)
      // stretched by s = 1 + 0.25k along Y; the head at the spine plus (0, 3s, 1) turned by the
      // spine's 0.3k about X, then by the root's turn.
      const angle = Math.PI / 2 + 0.1 * k, stretch = 1 + 0.25 * k, y = 5 * stretch;
      const spine = [1 + k - y * Math.sin(angle), 2 + y * Math.cos(angle), 3];
      spine.forEach((e, i) => expect(Math.abs(component.translations[3 + i] - e)).toBeLessThan(2e-6));
      const hy = 3 * stretch * Math.cos(0.3 * k) - Math.sin(0.3 * k), hz = 3 * stretch * Math.sin(0.3 * k) + Math.cos(0.3 * k);
      const head = [spine[0] - hy * Math.sin(angle), spine[1] + hy * Math.cos(angle), spine[2] + hz];
      head.forEach((e, i) => expect(Math.abs(component.translations[6 + i] - e)).toBeLessThan(4e-6));
    }
    expect(worstT).toBeGreaterThan(0);
    expect(worstT).toBeLessThan(4e-6);
    expect(worstR).toBeLessThan(2e-7);
    for (const a of [untouched.translations, untouched.rotations, untouched.scales]) expect(Array.from(a)).toEqual(new Array(a.length).fill(7));
  });

  it('rejects a precision it does not know, by name', () => {
    const graph = buildCrowdGraph('player');
    expect(() => graph.createInstances(2, { precision: 'half' as never })).toThrow(AnimGraphError);
    expect(() => graph.createInstances(2, { precision: 'half' as never })).toThrow(`a batch's precision is 'double' or 'single'; got "half"`);
    expect(graph.createInstances(2).precision).toBe('double');
  });

  it('allocates nothing per frame sampling and crossfading in single precision (plain Node process)', () => {
    const result = runProbe<Record<string, number>>('batch-single-allocation-probe.ts');
    expect(Object.keys(result)).toEqual(['player', 'blendComponent']);
    // A boxed number per character per frame would be 16 B or more times 40 characters.
    for (const bytes of Object.values(result)) expect(bytes).toBeLessThan(8);
  });

  it('gives the same numbers on every run', () => {
    const graph = buildCrowdGraph('blend');
    const phases = crowdPhases(20, 2);
    const [a, b] = [0, 1].map(() => createCrowdBatch(graph, 20, phases, true, 'single'));
    for (let f = 0; f < 90; f++) { a.update(1 / 60); b.update(1 / 60); }
    expect(a.precision).toBe('single');
    expect(Buffer.from(a.rotations.buffer, a.rotations.byteOffset, a.rotations.byteLength).equals(Buffer.from(b.rotations.buffer, b.rotations.byteOffset, b.rotations.byteLength))).toBe(true);
    expect(Array.from(a.componentTranslations)).toEqual(Array.from(b.componentTranslations));
  });
});

/** A crossfade of CMU subject 2's walk and run at weight `alpha`, each character from its own `phase`. */
function cmuCrossfade(): object {
  const clip = (file: string) => ({ source: `${CMU}${file}`, frames: [1, -1] });
  return {
    format: 'animgraph/1', name: 'CMU crossfade',
    skeleton: { bvh: `${CMU}002_01.bvh` },
    clips: { walk: clip('002_01.bvh'), run: clip('002_03.bvh') },
    parameters: { phase: { type: 'float', default: 0 }, alpha: { type: 'float', default: 0.5 } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk', startTime: { param: 'phase' } } },
      run: { type: 'SequencePlayer', properties: { clip: 'run', startTime: { param: 'phase' } } },
      mix: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: { param: 'alpha' } } },
    },
    output: 'mix',
  };
}

const COUNT = 6;
function startCharacters(batch: InstanceBatch): void {
  batch.instances.forEach((instance, i) => {
    instance.setParameter('phase', i * 0.37);
    instance.setParameter('alpha', i / (COUNT - 1));
    instance.reset();
  });
}

/** The rotation from q to p, in radians (q at `a` of one array, p at `a` of the other). */
function angleBetween(p: Float64Array, q: Float64Array, a: number): number {
  // The vector part of conj(q) * p, whose length is the sine of half the angle.
  const [px, py, pz, pw] = p.subarray(a, a + 4), [qx, qy, qz, qw] = q.subarray(a, a + 4);
  const x = qw * px - qx * pw - qy * pz + qz * py, y = qw * py + qx * pz - qy * pw - qz * px, z = qw * pz - qx * py + qy * px - qz * pw;
  return 2 * Math.asin(Math.min(1, Math.hypot(x, y, z)));
}

describeWithData('single precision on motion capture', () => {
  const dir = mkdtempSync(join(tmpdir(), 'animgraph-single-'));
  const file = join(dir, 'cmu-crossfade.json');
  writeFileSync(file, JSON.stringify(cmuCrossfade()));
  const crowds: Crowd[] = [];
  afterAll(async () => {
    await Promise.all(crowds.map((c) => c.close()));
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('is within 2e-4 cm and 5e-6 rad of double precision on the CMU walk and run crossfaded, component space included', () => {
    const graph: AnimGraph = loadGraphFile(file);
    const [double, single] = (['double', 'single'] as const).map((precision) => graph.createInstances(COUNT, { componentSpace: true, precision }));
    startCharacters(double);
    startCharacters(single);
    expect(single.precision).toBe('single');
    let cm = 0, localRad = 0, componentRad = 0;
    for (let frame = 0; frame < 240; frame++) {
      double.update(1 / 60);
      single.update(1 / 60);
      for (let i = 0; i < double.componentTranslations.length; i++) cm = Math.max(cm, Math.abs(double.componentTranslations[i] - single.componentTranslations[i]));
      for (let a = 0; a < double.rotations.length; a += 4) {
        localRad = Math.max(localRad, angleBetween(single.rotations, double.rotations, a));
        componentRad = Math.max(componentRad, angleBetween(single.componentRotations, double.componentRotations, a));
      }
    }
    // Positions of about 100 cm, whose float32 spacing is 7.6e-6 cm, sampled and composed in
    // float32 through chains of some ten bones; rotations to a float32's 6e-8 per component,
    // compounded down the chains. The component pass ran in single precision too: every number a float32.
    for (const a of [single.componentTranslations, single.componentRotations, single.componentScales]) expect(a.every((x) => Math.fround(x) === x)).toBe(true);
    expect(cm).toBeGreaterThan(1e-6);
    expect(cm).toBeLessThan(2e-4);
    expect(localRad).toBeGreaterThan(1e-8);
    expect(localRad).toBeLessThan(2e-6);
    expect(componentRad).toBeLessThan(5e-6);
  });

  it('gives a Crowd with a worker thread the same numbers as a batch, bit for bit', async () => {
    const crowd = await Crowd.create({ source: { file }, count: COUNT, workers: 1, componentSpace: true, precision: 'single' });
    crowds.push(crowd);
    expect(crowd.precision).toBe('single');
    const batch = loadGraphFile(file).createInstances(COUNT, { componentSpace: true, precision: 'single' });
    startCharacters(batch);
    for (let i = 0; i < COUNT; i++) {
      crowd.setParameter(i, 'phase', i * 0.37);
      crowd.setParameter(i, 'alpha', i / (COUNT - 1));
      crowd.reset(i);
    }
    for (let frame = 0; frame < 60; frame++) {
      crowd.update(1 / 60);
      batch.update(1 / 60);
    }
    expect(Array.from(crowd.rotations)).toEqual(Array.from(batch.rotations));
    expect(Array.from(crowd.translations)).toEqual(Array.from(batch.translations));
    expect(Array.from(crowd.componentTranslations)).toEqual(Array.from(batch.componentTranslations));
  });

  it('rejects a Crowd precision it does not know, by name', async () => {
    await expect(Crowd.create({ source: { file }, count: 2, workers: 0, precision: 'half' as never })).rejects.toThrow(`precision must be 'double' or 'single'; got "half"`);
  });
});
