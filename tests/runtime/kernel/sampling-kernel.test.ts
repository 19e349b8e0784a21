import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildCrowdGraph, crowdPhases, mulberry32, startAtPhases } from '../../../bench/crowd-cases.ts';
import { BlendTwoType } from '../../../nodes/BlendTwo.ts';
import { OutputType } from '../../../nodes/index.ts';
import { SequencePlayerType } from '../../../nodes/SequencePlayer.ts';
import { loadGraphFile } from '../../../host/files.ts';
import { Clip, type RotationInterpolation } from '../../../runtime/core/clip.ts';
import { ClipCursor, sampleClipBlendInto } from '../../../runtime/core/sampling.ts';
import { AnimGraph } from '../../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import type { CompiledNode } from '../../../runtime/graph/definition.ts';
import { quatFromAxisAngle, quatMultiply } from '../../../runtime/core/math.ts';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { CURVE_STRIDE, PoseInertializer } from '../../../runtime/jobs/inertialization.ts';
import { kernelPosePool } from '../../../runtime/graph/instance-batch.ts';
import { unitScales } from '../../../runtime/graph/interpolation.ts';
import { Pose, poseAccumulate, poseBlendTwo, poseNormalizeRotations, poseScaleInto } from '../../../runtime/core/pose.ts';
import { SamplingKernel, samplingKernelAvailable } from '../../../runtime/kernel/sampling-kernel.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { skinAffine, skinFromLocal } from '../../../three/binding.ts';
import { expectRowsLikeAlone } from '../../support/batch-rows.ts';
import { describeWithData } from '../../support/shared-data.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** A hierarchy drawn from `shares` (one per bone, in [0, 1)): bone i's parent among the bones before it, or none. */
function randomHierarchy(shares: readonly number[]): Skeleton {
  return Skeleton.fromDefinitions(shares.map((share, i) => {
    const parent = Math.min(Math.floor(share * (i + 1)), i) - 1;
    return { name: `b${i}`, parent: parent >= 0 ? `b${parent}` : undefined };
  }));
}

/** Slots for the bones whose share is under 0.7, in reverse bone order, and affine inverse bind matrices from `next`. */
function randomSlots(shares: readonly number[], next: () => number): { slotOf: Int32Array; count: number; inverses: Float64Array } {
  const slotOf = new Int32Array(shares.length).fill(-1);
  let count = 0;
  for (let b = shares.length - 1; b >= 0; b--) if (shares[b] < 0.7) slotOf[b] = count++;
  const inverses = new Float64Array(count * 16);
  for (let i = 0; i < inverses.length; i++) inverses[i] = (i & 3) === 3 ? ((i & 15) === 15 ? 1 : 0) : next();
  return { slotOf, count, inverses };
}

/**
 * A random case for local skinning: the hierarchy of `shares`, a skinning kernel for it, a local pose
 * (translations and rotations from `next`, scales from `scale`), randomSlots, and the kernel's root
 * matrix (affine) from `next`, drawn in that order.
 */
function randomLocalSkin(shares: readonly number[], next: () => number, scale: () => number) {
  const bones = randomHierarchy(shares), kernel = SamplingKernel.forSkinning(bones)!, local = new Pose(shares.length);
  for (const array of [local.translations, local.rotations]) for (let i = 0; i < array.length; i++) array[i] = next();
  for (let i = 0; i < local.scales.length; i++) local.scales[i] = scale();
  const slots = randomSlots(shares, next);
  for (let i = 0; i < 16; i++) kernel.skinRoot[i] = (i & 3) === 3 ? (i === 15 ? 1 : 0) : next();
  return { bones, kernel, local, ...slots };
}
const example = (name: string) => fileURLToPath(new URL(`../../../graphs/examples/${name}`, import.meta.url));

// Four bones: a scaled root (every attribute animated), a child animated in rotation only, one
// with no track (the reference pose), and one whose scale alone is animated.
const skeleton = Skeleton.fromDefinitions([
  { name: 'root', translation: [1, 2, 3], scale: [2, 1, 0.5] },
  { name: 'spine', parent: 'root', translation: [0, 5, 0], rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2] },
  { name: 'head', parent: 'spine', translation: [0, 3, 1] },
  { name: 'hand', parent: 'root', translation: [4, 0, 0] },
]);

/**
 * Five keys at 10 fps, chosen so that each rotation path of sampling runs: the root turns about Y
 * by 0, 0.01, 0.4 and 2.4 rad between keys (the linear fallback, the sines' series, Math.sin) and
 * its last key is in the other hemisphere; the spine's keys are not unit when `unitKeys` is false.
 */
function makeClip(name: string, interpolation: RotationInterpolation = 'slerp', unitKeys = true): Clip {
  const clip = new Clip({
    name, interpolation, frameRate: 10, frameCount: 5,
    tracks: [
      { bone: 'root', translation: true, rotation: true, scale: true },
      { bone: 'spine', translation: false, rotation: true, scale: false },
      { bone: 'hand', translation: false, rotation: false, scale: true },
    ],
  });
  const angles = [0, 0, 0.01, 0.41, 2.81];
  for (let f = 0; f < 5; f++) {
    const t = f * 3 * 3, r = f * 3 * 4;
    clip.translations.set([f, 2 * f * f, -f], t);
    clip.scales.set([1 + f / 10, 1, 1 - f / 20], t);
    clip.scales.set([1, 1 + f / 5, 1], t + 6);
    quatFromAxisAngle(clip.rotations, r, 0, 1, 0, angles[f]);
    if (f === 4) for (let k = 0; k < 4; k++) clip.rotations[r + k] = -clip.rotations[r + k];
    quatFromAxisAngle(clip.rotations, r + 4, 1, 0, 0, 0.3 * f);
    if (!unitKeys) for (let k = 4; k < 8; k++) clip.rotations[r + k] *= 1.001 + f / 100;
  }
  return clip;
}

function makeGraph(clips: Clip[], blend: boolean, loop: boolean, alpha = 0.3): AnimGraph {
  const player = (id: string, clip: string): CompiledNode => ({ id, nodeType: SequencePlayerType, properties: { clip, playRate: 1, loop }, inputs: {} });
  const nodes: CompiledNode[] = blend
    ? [player('a', clips[0].name), player('b', clips[1].name), { id: 'blend', nodeType: BlendTwoType, properties: { alpha }, inputs: { A: 'a', B: 'b' } }]
    : [player('a', clips[0].name)];
  nodes.push({ id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: blend ? 'blend' : 'a' } });
  return new AnimGraph({ name: 'kernel', skeleton, parameters: {}, clips: new Map(clips.map((c) => [c.name, c])), nodes });
}

/**
 * One rotation track's keys for randomClip: a random first key, then each key the last turned by
 * an arc drawn to land in every path of sampling (the linear fallback below 0.0316, the sines'
 * series up to 0.35, Math.sin beyond, up to a half turn), taken in either hemisphere.
 */
const rotationKeys = fc.record({
  axes: fc.array(fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true })), { minLength: 6, maxLength: 6 }),
  arcs: fc.array(fc.oneof(
    fc.constantFrom(0, 1e-300, 1e-9, 0.0316, 0.0317, 0.35, 0.35000000000000003, Math.PI / 4, Math.PI / 2 - 1e-12),
    fc.double({ min: 0, max: 0.04, noNaN: true }), fc.double({ min: 0.3, max: 0.4, noNaN: true }), fc.double({ min: 0, max: Math.PI / 2, noNaN: true }),
  ), { minLength: 5, maxLength: 5 }),
  flips: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
});

/** A clip of 2 to 6 keys at a random rate, its values random (huge, tiny and negative included), its rotations' keys unit or not. */
const randomClip = fc.record({
  frameCount: fc.integer({ min: 2, max: 6 }),
  frameRate: fc.constantFrom(10, 24, 29.97, 60, 7.5),
  values: fc.array(fc.oneof(fc.double({ min: -10, max: 10, noNaN: true }), fc.constantFrom(0, -0, 1e15, -1e15, -1e-300, 5e-324, 123456.789)), { minLength: 36, maxLength: 36 }),
  root: rotationKeys,
  spine: rotationKeys,
  unitKeys: fc.boolean(),
  stretch: fc.double({ min: 0.5, max: 2, noNaN: true }),
});

function buildRandomClip(name: string, c: typeof randomClip extends fc.Arbitrary<infer T> ? T : never): Clip {
  const clip = new Clip({
    name, interpolation: 'slerp', frameRate: c.frameRate, frameCount: c.frameCount,
    tracks: [
      { bone: 'root', translation: true, rotation: true, scale: true },
      { bone: 'spine', translation: false, rotation: true, scale: false },
      { bone: 'hand', translation: false, rotation: false, scale: true },
    ],
  });
  const turn = new Float64Array(4);
  for (let f = 0; f < c.frameCount; f++) {
    const t = f * 9, r = f * 12;
    for (let k = 0; k < 9; k++) {
      clip.translations[t + k] = c.values[(f * 9 + k) % 36];
      clip.scales[t + k] = c.values[(f * 9 + k + 13) % 36];
    }
    [c.root, c.spine].forEach((keys, track) => {
      const at = r + track * 4, [x, y, z] = keys.axes[f];
      const length = Math.hypot(x, y, z);
      const [ax, ay, az] = length > 1e-3 ? [x / length, y / length, z / length] : [0, 1, 0];
      if (f === 0) quatFromAxisAngle(clip.rotations, at, ax, ay, az, 2 * keys.arcs[4]);
      else {
        // The last key turned by the arc (half the rotation angle) about this key's axis.
        quatFromAxisAngle(turn, 0, ax, ay, az, 2 * keys.arcs[f - 1]);
        quatMultiply(clip.rotations, at, clip.rotations, at - 12, turn, 0);
      }
    });
  }
  // Hemispheres and stretches after the chain is built, so the arcs stay what was drawn.
  for (let f = 0; f < c.frameCount; f++) {
    for (let track = 0; track < 2; track++) {
      const keys = track === 0 ? c.root : c.spine, at = f * 12 + track * 4;
      const factor = (keys.flips[f] ? -1 : 1) * (c.unitKeys || track === 0 ? 1 : c.stretch);
      for (let k = 0; k < 4; k++) clip.rotations[at + k] *= factor;
    }
  }
  return clip;
}

/** A chain of n bones b0 .. b(n - 1), each one unit above its parent. */
function chainSkeleton(n: number): Skeleton {
  return Skeleton.fromDefinitions(Array.from({ length: n }, (_, i) => ({ name: `b${i}`, parent: i > 0 ? `b${i - 1}` : undefined, translation: [0, 1, 0] })));
}

/** Character c's rows of local translations, rotations and scales, composed by ComponentPose in JavaScript. */
function composedAlone(bones: Skeleton, rows: { translations: Float64Array; rotations: Float64Array; scales: Float64Array }, c: number): ComponentPose {
  const n = bones.boneCount, local = new Pose(n);
  local.translations.set(rows.translations.subarray(c * n * 3, (c + 1) * n * 3));
  local.rotations.set(rows.rotations.subarray(c * n * 4, (c + 1) * n * 4));
  local.scales.set(rows.scales.subarray(c * n * 3, (c + 1) * n * 3));
  const pose = new ComponentPose(bones, { local });
  pose.ensureAllComponent();
  return pose;
}

/**
 * Two inertializers of n bones with a pose each: one with its numbers (`block`) and pose in a
 * kernel's memory, one with numbers of its own (`own`, which a test writes and copies to `block`).
 */
function inertializerPair(n: number) {
  const count = PoseInertializer.numberCount(n);
  const kernel = SamplingKernel.create(chainSkeleton(n), [], [n * 3, n * 4, n * 3, count])!;
  const [kt, kr, ks, block] = kernel.poseArrays;
  const [viaKernel, viaJs] = [new PoseInertializer(n), new PoseInertializer(n)];
  const own = new Float64Array(count);
  viaKernel.useNumbers(block, 0);
  viaJs.useNumbers(own, 0);
  return { inKernel: new Pose(n, { translations: kt, rotations: kr, scales: ks }), alone: new Pose(n), viaKernel, viaJs, own, block };
}

/** Delta times that land on keys (alpha 0), between them, past the end (wrap or clamp) and on 0. */
const STEPS = [0, 0.05, 0.05, 0.0125, 0.1, 0.1, 0.0375, 0.1, 0.05, 0, 0.033, 0.1, 0.2, 0.07];

/** A batch of two characters (in the kernel) and two instances of their own, run side by side. */
function runBoth(graph: AnimGraph): { batch: ReturnType<AnimGraph['createInstances']>; alone: AnimGraphInstance[] } {
  const batch = graph.createInstances(2, { componentSpace: true });
  const alone = [graph.createInstance(), graph.createInstance()];
  for (const dt of STEPS) {
    batch.update(dt);
    for (const instance of alone) {
      instance.update(dt);
      instance.evaluate();
    }
    expectRowsLikeAlone(batch, alone);
  }
  return { batch, alone };
}

describe('sampling kernel (WebAssembly SIMD)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is the module assembled from runtime/kernel/wasm/sampling.wat (npm run build:wasm after editing it)', () => {
    const check = spawnSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    expect(check.stdout).toContain('is up to date');
    expect(check.status).toBe(0);
  });

  it('runs on this engine, and an InstanceBatch puts its poses in its memory unless told not to', () => {
    expect(samplingKernelAvailable()).toBe(true);
    const graph = makeGraph([makeClip('a')], false, true);
    const batch = graph.createInstances(2);
    expect(batch.wasm).toBe(true);
    expect(batch.instances[0].evaluate().kernel).not.toBeNull();
    expect(graph.createInstances(2, { wasm: false }).wasm).toBe(false);
    expect(graph.createInstance().evaluate().kernel).toBeNull();
    expect(new Pose(4).kernel).toBeNull();
  });

  it('samples every path bit-identically to JavaScript: keys, fallback, series, Math.sin, wrap, clamp, blend, component space', () => {
    const sample = vi.spyOn(SamplingKernel.prototype, 'sample');
    const compose = vi.spyOn(SamplingKernel.prototype, 'compose');
    const composeAll = vi.spyOn(SamplingKernel.prototype, 'composeCharacters');
    for (const loop of [true, false]) {
      runBoth(makeGraph([makeClip('a')], false, loop));
      runBoth(makeGraph([makeClip('a'), makeClip('b', 'slerp', false)], true, loop));
    }
    // The kernel really ran, for single samples and blends, and composed component space.
    expect(sample.mock.results.filter((r) => r.value === true).length).toBeGreaterThan(100);
    expect(sample.mock.calls.some((args) => args[4] === true)).toBe(true);
    expect(composeAll.mock.calls.some((args) => args[2] === 2)).toBe(true);
    // A batch's character run on its own (update, evaluate, componentPose) composes alone, the same.
    const graph = makeGraph([makeClip('a'), makeClip('b', 'slerp', false)], true, false);
    const batch = graph.createInstances(3, { componentSpace: true });
    const alone = graph.createInstance();
    for (const dt of STEPS) {
      for (const instance of [batch.instances[1], alone]) {
        instance.update(dt);
        instance.evaluate();
      }
      const mine = batch.instances[1].componentPose(), theirs = alone.componentPose();
      expect(Array.from(mine.rotations)).toEqual(Array.from(theirs.rotations));
      expect(Array.from(mine.translations)).toEqual(Array.from(theirs.translations));
      expect(Array.from(mine.scales)).toEqual(Array.from(theirs.scales));
      expect(mine.rotations.buffer).toBe(batch.componentRotations.buffer);
    }
    expect(compose).toHaveBeenCalled();
  });

  it('gives known answers: the root half way between keys 2 and 3 turns 0.21 rad, the blend weighs 0.7 and 0.3', () => {
    const graph = makeGraph([makeClip('a'), makeClip('b')], true, true);
    const batch = graph.createInstances(1);
    batch.update(0.25); // half way between keys 2 (0.01 rad) and 3 (0.41 rad), both clips
    const q = batch.rotations;
    expect(2 * Math.atan2(q[1], q[3])).toBeCloseTo(0.21, 12);
    // Translation lerp of [2, 8, -2] and [3, 18, -3]; both clips alike, so the blend keeps it.
    [2.5, 13, -2.5].forEach((v, i) => expect(batch.translations[i]).toBeCloseTo(v, 12));
    // The head has no track: its reference translation (blended with itself: to rounding).
    [0, 3, 1].forEach((v, i) => expect(batch.translations[6 + i]).toBeCloseTo(v, 14));
  });

  it('samples random clips, times and blend weights bit-identically to JavaScript (property)', () => {
    const sample = vi.spyOn(SamplingKernel.prototype, 'sample');
    let kernelSamples = 0;
    fc.assert(fc.property(
      randomClip, randomClip, fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 1, 1e-6)), fc.boolean(),
      fc.array(fc.oneof(fc.double({ min: 0, max: 0.4, noNaN: true }), fc.constantFrom(0, 1 / 60, 0.1, 1e-9)), { minLength: 1, maxLength: 12 }),
      (a, b, alpha, loop, steps) => {
        const graph = makeGraph([buildRandomClip('a', a), buildRandomClip('b', b)], true, loop, alpha);
        const batch = graph.createInstances(2, { componentSpace: true });
        const alone = [graph.createInstance(), graph.createInstance()];
        sample.mockClear();
        for (const dt of steps) {
          batch.update(dt);
          for (const instance of alone) instance.update(dt);
          expectRowsLikeAlone(batch, alone);
        }
        kernelSamples += sample.mock.results.filter((r) => r.value === true).length;
      },
    ), { seed: 18_000_018, numRuns: 150 });
    // The kernel took most of the samples (not a property that passes by never running it).
    expect(kernelSamples).toBeGreaterThan(500);
  });

  it('samples random clips into random poses by any blend weights, degenerate rotations included, as JavaScript does, bit for bit (property)', () => {
    const value = fc.oneof(fc.double({ min: -2, max: 2, noNaN: true }), fc.constantFrom(0, -0, 1e-170, 1e200, 5e-324));
    const weight = fc.oneof(fc.double({ min: -0.5, max: 1.5, noNaN: true }), fc.constantFrom(0, 1, 0.5));
    const sample = vi.spyOn(SamplingKernel.prototype, 'sample');
    let inKernel = 0;
    fc.assert(fc.property(
      randomClip, fc.double({ min: -1, max: 2, noNaN: true }), fc.boolean(), fc.tuple(weight, weight), fc.array(value, { minLength: 40, maxLength: 40 }),
      (c, time, looping, weights, values) => {
        const graph = makeGraph([buildRandomClip('a', c)], false, true);
        const binding = graph.clipBindings.get('a')!;
        const kernel = graph.createInstances(1).instances[0].evaluate().kernel as SamplingKernel;
        const mine = kernelPosePool(kernel, 4, 0).acquire(), theirs = new Pose(4);
        expect(mine.kernel).toBe(kernel);
        for (const pose of [mine, theirs]) {
          pose.translations.set(values.slice(0, 12));
          pose.rotations.set(values.slice(12, 28));
          pose.scales.set(values.slice(28));
        }
        const cursor = new ClipCursor();
        cursor.time = time;
        cursor.looping = looping;
        const w = Float64Array.from(weights);
        sample.mockClear();
        sampleClipBlendInto(mine, binding, cursor, w);
        sampleClipBlendInto(theirs, binding, cursor, w);
        if (sample.mock.results.some((r) => r.value === true)) inKernel++;
        for (const key of ['translations', 'rotations', 'scales'] as const) expect(Array.from(mine[key])).toEqual(Array.from(theirs[key]));
      },
    ), { seed: 18_000_022, numRuns: 200 });
    expect(inKernel).toBeGreaterThan(100);
  });

  it('leaves nlerp clips, and bindings it has no copy of, to JavaScript', () => {
    const sample = vi.spyOn(SamplingKernel.prototype, 'sample');
    runBoth(makeGraph([makeClip('n', 'nlerp')], false, true));
    expect(sample).not.toHaveBeenCalled();
    const graph = makeGraph([makeClip('a')], false, true);
    const kernel = graph.createInstances(1).instances[0].evaluate().kernel as SamplingKernel;
    const other = makeGraph([makeClip('a')], false, true).clipBindings.get('a')!;
    const pose = graph.createInstances(1).instances[0].evaluate();
    expect(kernel.sample(pose, other, 0, 3, false, false)).toBe(false);
  });

  it('declines memory past its limit (the batch then keeps ordinary arrays), and copies clips only within their budget', () => {
    const graph = makeGraph([makeClip('a'), makeClip('b')], true, true);
    const [a, b] = [...graph.clipBindings.values()];
    expect(SamplingKernel.create(skeleton, [a, b], [1000, 1000], 4096)).toBeNull();
    const all = SamplingKernel.create(skeleton, [a, b], [1000, 1000])!;
    // A budget for one clip's copy: the second samples in JavaScript (sample says so), the first in the kernel.
    const one = SamplingKernel.create(skeleton, [a, b], [1000, 1000], 1 << 30, 1500)!;
    expect(all.byteLength).toBe(one.byteLength); // both one page here; the copies differ, not the page count
    const poseIn = (k: SamplingKernel) => new Pose(4, { translations: k.poseArrays[0].subarray(0, 12), rotations: k.poseArrays[1].subarray(0, 16), scales: k.poseArrays[0].subarray(12, 24) });
    const [mine, theirs] = [poseIn(one), poseIn(all)];
    expect(one.sample(mine, a, 0, 3, false, false)).toBe(true);
    expect(one.sample(mine, b, 0, 3, false, false)).toBe(false);
    expect(all.sample(theirs, b, 0, 3, false, false)).toBe(true);
  });

  it('gives nodes temporaries in the kernel first (a batch pose pool), ordinary poses past them', () => {
    const graph = makeGraph([makeClip('a'), makeClip('b')], true, true);
    const kernel = graph.createInstances(1).instances[0].evaluate().kernel as SamplingKernel;
    const pool = kernelPosePool(kernel, 4, 0);
    const taken = Array.from({ length: 6 }, () => pool.acquire());
    expect(taken.map((p) => p.kernel !== null)).toEqual([true, true, true, true, false, false]);
    expect(pool.size).toBe(2);
    // Released in any order, the kernel's come back out first.
    for (const pose of [...taken].reverse()) pool.release(pose);
    expect(pool.acquire().kernel).toBe(kernel);
    expect(new Set(Array.from({ length: 3 }, () => pool.acquire())).size).toBe(3);
    expect(pool.acquire().kernel).toBeNull();
    expect(pool.size).toBe(2);
  });

  it('matches instances alone where nodes sample into temporaries: a layered blend, state-machine transitions, inertial blends', () => {
    const sample = vi.spyOn(SamplingKernel.prototype, 'sample');
    const inertialize = vi.spyOn(SamplingKernel.prototype, 'inertialize');
    const layer = vi.spyOn(SamplingKernel.prototype, 'layer');
    for (const kind of ['layered', 'statemachine', 'inertial'] as const) {
      const graph = buildCrowdGraph(kind);
      const batch = graph.createInstances(4, { componentSpace: true });
      const alone = [0, 1, 2, 3].map(() => graph.createInstance());
      const phases = crowdPhases(4, 2);
      [...batch.instances, ...alone].forEach((instance, i) => startAtPhases(instance, phases, i % 4));
      for (let frame = 0; frame < 80; frame++) {
        [...batch.instances, ...alone].forEach((instance, i) => {
          const c = i % 4; // the character: batch member and instance alone alike
          if ((frame + c) % 20 === 0) instance.setParameter(kind === 'inertial' ? 'useA' : 'motion', kind === 'inertial' ? frame % 40 === 0 : ((frame + c) / 20) & 1);
        });
        batch.update(1 / 60);
        for (const instance of alone) {
          instance.update(1 / 60);
          instance.evaluate(); // as the batch does every frame (an inertial blend captures the pose it shows)
        }
      }
      expectRowsLikeAlone(batch, alone);
      // Some samples went into temporaries in the kernel: the pool's poses, after the characters' rows.
      const rows = batch.translations;
      const intoTemporaries = sample.mock.calls.filter(([pose]) => pose.translations.buffer === rows.buffer && pose.translationsAddress >= rows.byteOffset + rows.byteLength);
      if (kind === 'layered') expect(intoTemporaries.length).toBeGreaterThan(0);
      // The layer's blend over the base ran in the kernel too (LayeredBlendPerBone.blendLocal).
      if (kind === 'layered') expect(layer).toHaveBeenCalled();
      layer.mockClear();
      // The inertial blend's offsets were applied in the kernel (its numbers in the character's row of the kernel's memory).
      if (kind === 'inertial') expect(inertialize).toHaveBeenCalled();
      else expect(inertialize).not.toHaveBeenCalled();
      sample.mockClear();
      inertialize.mockClear();
    }
  });

  it('blends poses in its memory as poseBlendTwo does in JavaScript, bit for bit, out aliasing an input or not', () => {
    const graph = makeGraph([makeClip('a'), makeClip('b', 'slerp', false)], true, true);
    const kernel = graph.createInstances(1).instances[0].evaluate().kernel as SamplingKernel;
    const pool = kernelPosePool(kernel, 4, 0);
    const [a, b, out] = [pool.acquire(), pool.acquire(), pool.acquire()];
    const [ja, jb, jout] = [new Pose(4), new Pose(4), new Pose(4)];
    const random = mulberry32(7);
    for (const [k, j] of [[a, ja], [b, jb]] as const) {
      for (const key of ['translations', 'rotations', 'scales'] as const) {
        for (let i = 0; i < k[key].length; i++) k[key][i] = j[key][i] = random() * 4 - 2;
      }
    }
    a.rotations.fill(0, 4, 8); ja.rotations.fill(0, 4, 8); // a zero-length rotation: identity
    const blend = vi.spyOn(SamplingKernel.prototype, 'blend');
    for (const weights of [[0.7, 0.3], [0, 1], [1, 0], [0.25, 0.75]]) {
      const w = Float64Array.from(weights);
      poseBlendTwo(out, a, b, w);
      poseBlendTwo(jout, ja, jb, w);
      for (const key of ['translations', 'rotations', 'scales'] as const) expect(Array.from(out[key])).toEqual(Array.from(jout[key]));
      poseBlendTwo(a, a, b, w); // in place
      poseBlendTwo(ja, ja, jb, w);
      for (const key of ['translations', 'rotations', 'scales'] as const) expect(Array.from(a[key])).toEqual(Array.from(ja[key]));
    }
    expect(blend).toHaveBeenCalledTimes(8);
    expect(Array.from(out.rotations.subarray(4, 8))).not.toEqual([0, 0, 0, 1]); // b's rotation, normalised
  });

  it('blends rotations two bones to a vector, each lane taking its own branch: known answers, bit for bit with JavaScript', () => {
    // Five bones: pairs (0, 1) and (2, 3), bone 4 alone. Each pair mixes a bone that takes quatNormalize's
    // identity (zero length, a squared length past the largest double) with one that does not, and the
    // hemisphere test flips b in one lane only.
    const n = 5;
    const kernel = SamplingKernel.create(chainSkeleton(n), [], Array.from({ length: 9 }, (_, k) => n * (k % 3 === 1 ? 4 : 3)))!;
    const arrays = kernel.poseArrays;
    const [a, b, out] = [0, 1, 2].map((p) => new Pose(n, { translations: arrays[p * 3], rotations: arrays[p * 3 + 1], scales: arrays[p * 3 + 2] }));
    const [ja, jb, jout] = [new Pose(n), new Pose(n), new Pose(n)];
    const s = Math.SQRT1_2;
    const aRotations = [0, 0, 0, 0, /**/ 0, 0, s, s, /**/ 1e200, 1e200, 1e200, 1e200, /**/ 0, 0, 0, 1, /**/ 1, 0, 0, 0];
    const bRotations = [0, 0, 0, 0, /**/ 0, 0, -s, -s, /**/ 1e200, 1e200, 1e200, 1e200, /**/ 0, 0, s, s, /**/ 0, 1, 0, 0];
    for (const [pose, rotations] of [[a, aRotations], [ja, aRotations], [b, bRotations], [jb, bRotations]] as const) pose.rotations.set(rotations);
    const blend = vi.spyOn(SamplingKernel.prototype, 'blend');
    const w = Float64Array.of(0.75, 0.25);
    poseBlendTwo(out, a, b, w);
    poseBlendTwo(jout, ja, jb, w);
    expect(blend).toHaveBeenCalledTimes(1);
    blend.mockRestore();
    expect(Array.from(out.rotations)).toEqual(Array.from(jout.rotations));
    const bone = (i: number) => Array.from(out.rotations.subarray(i * 4, i * 4 + 4));
    expect(bone(0)).toEqual([0, 0, 0, 1]); // zero length: the identity
    expect(bone(1)).toEqual([0, 0, s, s].map((v) => expect.closeTo(v, 15))); // b flipped into a's hemisphere: the same rotation
    expect(bone(2)).toEqual([0, 0, 0, 1]); // overflowing length: the identity
    const quarter = [0, 0, 0.25 * s, 0.75 + 0.25 * s], length = Math.hypot(...quarter);
    expect(bone(3)).toEqual(quarter.map((v) => expect.closeTo(v / length, 15))); // a quarter of the way to b, no flip
    expect(bone(4)).toEqual([0.75, 0.25, 0, 0].map((v) => expect.closeTo(v / Math.hypot(0.75, 0.25), 15))); // the odd bone alone
  });

  it('tells scales all exactly 1 as unitScales does, and copies a pose with or without its scales', () => {
    for (const n of [1, 2, 3, 5]) {
      const kernel = SamplingKernel.create(chainSkeleton(n), [], [n * 3, n * 4, n * 3, n * 3, n * 4, n * 3])!;
      const [st, sr, ss, ot, or, os] = kernel.poseArrays;
      const address = ss.byteOffset;
      ss.fill(1);
      expect(kernel.unitScalesAt(address, n)).toBe(1);
      // One value off anywhere (the pairs' lanes and the odd last value): 0, as unitScales says.
      for (let i = 0; i < n * 3; i++) {
        for (const value of [1 + Number.EPSILON, 0.9999999999999999, -1, 0, NaN, Infinity]) {
          ss.fill(1);
          ss[i] = value;
          expect(kernel.unitScalesAt(address, n)).toBe(0);
          expect(unitScales(ss)).toBe(false);
        }
      }
      ss.fill(1);
      // Only n bones are read: a value past them does not count.
      expect(kernel.unitScalesAt(address, n - 1 > 0 ? n - 1 : 0)).toBe(1);
      const random = mulberry32(n);
      for (const array of [st, sr, ss]) for (let i = 0; i < array.length; i++) array[i] = random();
      os.fill(7);
      kernel.copyAt(ot.byteOffset, or.byteOffset, os.byteOffset, st.byteOffset, sr.byteOffset, ss.byteOffset, n, 0);
      expect([Array.from(ot), Array.from(or), Array.from(os)]).toEqual([Array.from(st), Array.from(sr), new Array(n * 3).fill(7)]);
      kernel.copyAt(ot.byteOffset, or.byteOffset, os.byteOffset, st.byteOffset, sr.byteOffset, ss.byteOffset, n, 1);
      expect(Array.from(os)).toEqual(Array.from(ss));
    }
  });

  it('composes any number of characters two to a vector, as ComponentPose does in JavaScript, bit for bit, degenerate rotations included', () => {
    const most = 17, n = skeleton.boneCount;
    const kernel = SamplingKernel.create(skeleton, [], [most * n * 3, most * n * 4, most * n * 3, most * n * 3, most * n * 4, most * n * 3])!;
    const [translations, rotations, scales, componentTranslations, componentRotations, componentScales] = kernel.poseArrays;
    const arrays = { translations, rotations, scales, componentTranslations, componentRotations, componentScales };
    const random = mulberry32(11);
    for (const array of [translations, rotations, scales]) for (let i = 0; i < array.length; i++) array[i] = random() * 4 - 2;
    rotations.fill(0, 1 * n * 4 + 4, 1 * n * 4 + 8); // character 1's spine: a zero-length rotation, so the identity
    rotations.fill(1e200, 2 * n * 4 + 4, 2 * n * 4 + 8); // character 2's: a squared length past the largest double, the identity too
    rotations.fill(1e-7, 5 * n * 4 + 4, 5 * n * 4 + 8); // character 5's: squared length 4e-14, under quatNormalize's 1e-12
    scales.fill(0, 3 * n * 3, 3 * n * 3 + 3); // character 3's root scaled to nothing
    const expected = (c: number): ComponentPose => composedAlone(skeleton, { translations, rotations, scales }, c);
    // Every count from 1 to 17 (whole groups of eight, pairs, and an odd one left) from two first rows.
    for (const first of [0, 3]) {
      for (let count = 1; first + count <= most; count++) {
        for (const array of [componentTranslations, componentRotations, componentScales]) array.fill(7);
        kernel.composeCharacters(arrays, first, count);
        for (let c = 0; c < most; c++) {
          const inside = c >= first && c < first + count;
          const theirs = inside ? expected(c) : null;
          for (const [mine, width, key] of [[componentTranslations, 3, 'translations'], [componentRotations, 4, 'rotations'], [componentScales, 3, 'scales']] as const) {
            const row = Array.from(mine.subarray(c * n * width, (c + 1) * n * width));
            // Rows outside the range are left as they were.
            expect(row).toEqual(theirs === null ? new Array(n * width).fill(7) : Array.from(theirs[key]));
          }
        }
      }
    }
    kernel.composeCharacters(arrays, 0, most);
    const [one, two, five] = [1, 2, 5].map((c) => Array.from(componentRotations.subarray(c * n * 4 + 4, c * n * 4 + 8)));
    expect([one, two, five]).toEqual([[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1]]);
    expect(Array.from(componentScales.subarray(3 * n * 3 + 3, 3 * n * 3 + 6), Math.abs)).toEqual([0, 0, 0]); // the root's 0 times the spine's scale
  });

  it('composes random hierarchies of random poses as ComponentPose does, bit for bit (property)', () => {
    const value = fc.oneof(fc.double({ min: -3, max: 3, noNaN: true }), fc.constantFrom(0, -0, 1e-170, 1e-7, 1e200, -1e200, 5e-324));
    const compose = vi.spyOn(SamplingKernel.prototype, 'composeCharacters');
    fc.assert(fc.property(
      // Each bone's parent as a share of the bones before it (0: a root of its own), then the characters' values.
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 9 }), fc.integer({ min: 1, max: 10 }), fc.array(value, { minLength: 900, maxLength: 900 }),
      (shares, count, values) => {
        const n = shares.length, bones = randomHierarchy(shares);
        const kernel = SamplingKernel.create(bones, [], [count * n * 3, count * n * 4, count * n * 3, count * n * 3, count * n * 4, count * n * 3])!;
        const [translations, rotations, scales, componentTranslations, componentRotations, componentScales] = kernel.poseArrays;
        let at = 0;
        for (const array of [translations, rotations, scales]) for (let i = 0; i < array.length; i++) array[i] = values[at++ % values.length];
        kernel.composeCharacters({ translations, rotations, scales, componentTranslations, componentRotations, componentScales }, 0, count);
        for (let c = 0; c < count; c++) {
          const theirs = composedAlone(bones, { translations, rotations, scales }, c);
          expect(Array.from(componentTranslations.subarray(c * n * 3, (c + 1) * n * 3))).toEqual(Array.from(theirs.translations));
          expect(Array.from(componentRotations.subarray(c * n * 4, (c + 1) * n * 4))).toEqual(Array.from(theirs.rotations));
          expect(Array.from(componentScales.subarray(c * n * 3, (c + 1) * n * 3))).toEqual(Array.from(theirs.scales));
        }
      },
    ), { seed: 18_000_021, numRuns: 200 });
    expect(compose).toHaveBeenCalledTimes(200);
    compose.mockRestore();
  });

  it("skins slots from a component pose: known answers, odd counts and slots in any order, shapes kept by identity", () => {
    const n = skeleton.boneCount;
    const kernel = SamplingKernel.create(skeleton, [], [n * 3, n * 4, n * 3])!;
    const [t, r, s] = kernel.poseArrays;
    // Bone 1: at (1, 2, 3), half a turn about z (an exact quaternion), scaled (2, 1, 0.5); bone 3: the identity at (0, 0, 5).
    r.set([0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
    s.fill(1);
    t.set([1, 2, 3], 3); s.set([2, 1, 0.5], 3); t.set([0, 0, 5], 9);
    // Root: moved by (10, 0, 0). Slot 0's inverse bind matrix moves by (0, -1, 0); slot 1's is the identity.
    const slots = Int32Array.from([3, 1]), inverses = new Float64Array(32);
    inverses.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1]);
    inverses.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 16);
    kernel.skinRoot.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 0, 0, 1]);
    const shape = kernel.skinShape(slots, inverses);
    expect(shape).toBeGreaterThanOrEqual(0);
    expect(kernel.skinShape(slots, inverses)).toBe(shape); // the same arrays: the same shape
    const out = new Float32Array(48).fill(7);
    const unsigned = (a: Float32Array): number[] => Array.from(a, (v) => v + 0); // -0 as 0: the known answers' signs of zero are the arithmetic's
    kernel.skin(shape, t.byteOffset, r.byteOffset, s.byteOffset, out);
    expect(unsigned(out.subarray(0, 16))).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, -1, 5, 1]);
    expect(unsigned(out.subarray(16, 32))).toEqual([-2, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0.5, 0, 11, 2, 3, 1]);
    expect(Array.from(out.subarray(32))).toEqual(new Array(16).fill(7)); // past the slots: untouched
    // An odd count (its last lane a copy of its last slot), then three slots in another order.
    const one = kernel.skinShape(Int32Array.from([1]), inverses.slice(16));
    kernel.skin(one, t.byteOffset, r.byteOffset, s.byteOffset, out.fill(7));
    expect(unsigned(out.subarray(0, 16))).toEqual([-2, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0.5, 0, 11, 2, 3, 1]);
    expect(out[16]).toBe(7);
    const three = kernel.skinShape(Int32Array.from([1, 3, 0]), new Float64Array([...inverses.slice(16), ...inverses.slice(0, 16), ...inverses.slice(16)]));
    kernel.skin(three, t.byteOffset, r.byteOffset, s.byteOffset, out.fill(7));
    expect(unsigned(out.subarray(0, 16))).toEqual([-2, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0.5, 0, 11, 2, 3, 1]);
    expect(unsigned(out.subarray(16, 32))).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, -1, 5, 1]);
    expect(unsigned(out.subarray(32, 48))).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 0, 0, 1]); // bone 0 at the origin, under the root
    // Four shapes a thread: a fifth is refused (its caller skins in JavaScript), as are slots past the skeleton's bones.
    expect(new Set([shape, one, three, kernel.skinShape(Int32Array.from([2]), inverses.slice(16))]).size).toBe(4);
    expect(kernel.skinShape(Int32Array.from([0]), inverses.slice(16))).toBe(-1);
    const fresh = SamplingKernel.create(skeleton, [], [n * 3, n * 4, n * 3])!;
    expect(fresh.skinShape(Int32Array.from([0, 1, 2, 3, 0]), new Float64Array(80))).toBe(-1); // more slots than bones
    expect(fresh.skinShape(Int32Array.from([4]), new Float64Array(16))).toBe(-1); // no bone 4
    // The sums in skinAffine's order: a root whose first row is (1e17, -1e17, 1) times a column of ones is
    // (1e17 - 1e17) + 1 = 1, where 1e17 + (-1e17 + 1) would be 0.
    const [ft, fr, fs] = fresh.poseArrays;
    fr.set([0, 0, 0, 1]);
    fs.set([1, 1, 1]);
    fresh.skinRoot.set([1e17, 0, 0, 0, -1e17, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1]);
    const ones = new Float64Array([1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    fresh.skin(fresh.skinShape(Int32Array.from([0]), ones), ft.byteOffset, fr.byteOffset, fs.byteOffset, out);
    expect(Array.from(out.subarray(0, 3))).toEqual([1, 1, 1]);
  });

  it('skins random poses, roots and inverse bind matrices as the three.js binding does in JavaScript, bit for bit (property)', () => {
    // Magnitudes far apart, and terms that cancel (1e17 - 1e17 + 1 is 1 or 0 by the order of the sums),
    // so that sums taken in another order than skinAffine's would give other float32 numbers.
    const value = fc.oneof(fc.double({ min: -3, max: 3, noNaN: true }), fc.constantFrom(0, -0, 1, -1, 0.5, 1e17, -1e17, 1e-7, 1e200, 5e-324));
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 9 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 9, maxLength: 9 }), fc.array(value, { minLength: 600, maxLength: 600 }),
      (n, order, values) => {
        const bones = Skeleton.fromDefinitions(Array.from({ length: n }, (_, i) => ({ name: `b${i}`, parent: i > 0 ? `b${i - 1}` : undefined })));
        const kernel = SamplingKernel.create(bones, [], [n * 3, n * 4, n * 3])!;
        const [t, r, s] = kernel.poseArrays;
        let at = 0;
        const next = (): number => values[at++ % values.length];
        for (const array of [t, r, s]) for (let i = 0; i < array.length; i++) array[i] = next();
        // Every bone in one slot at most, in an order drawn from `order`; some bones in none.
        const slots = Int32Array.from(Array.from({ length: n }, (_, i) => i).sort((a, b) => order[a] - order[b]).slice(0, Math.max(1, Math.ceil(order[0] * n))));
        const inverses = new Float64Array(slots.length * 16);
        for (let i = 0; i < inverses.length; i++) inverses[i] = (i & 3) === 3 ? ((i & 15) === 15 ? 1 : 0) : next();
        for (let i = 0; i < 16; i++) kernel.skinRoot[i] = (i & 3) === 3 ? (i === 15 ? 1 : 0) : next();
        const mine = new Float32Array(slots.length * 16), theirs = new Float32Array(slots.length * 16);
        kernel.skin(kernel.skinShape(slots, inverses), t.byteOffset, r.byteOffset, s.byteOffset, mine);
        for (let i = 0; i < slots.length; i++) theirs.set([0, 0, 0, 1], i * 16 + 12); // the last row, which skinAffine writes and skin leaves
        for (let i = 0; i < slots.length; i++) { theirs[i * 16 + 3] = 0; theirs[i * 16 + 7] = 0; theirs[i * 16 + 11] = 0; }
        skinAffine(slots, inverses, { translations: t, rotations: r, scales: s }, kernel.skinRoot, theirs);
        expect(Array.from(mine)).toEqual(Array.from(theirs));
      },
    ), { seed: 18_000_043, numRuns: 200 });
  });

  it('skins a local pose down the hierarchy, two bones to a vector: known answers, bones without a slot, shapes kept by identity', () => {
    // The test skeleton: root (0), spine (1) under it, head (2) under spine, hand (3) under root.
    const n = skeleton.boneCount;
    const kernel = SamplingKernel.forSkinning(skeleton)!;
    expect(SamplingKernel.create(skeleton, [], [])!.skinLocalShape(Int32Array.from([0, -1, -1, -1]), new Float64Array(16))).toBe(-1); // a batch's kernel: skin alone
    const local = new Pose(n);
    // Root at (1, 2, 3) scaled (2, 2, 2); spine half a turn about z at (0, 1, 0); head at (1, 0, 0), no
    // slot; hand at (0, 0, 1) with a rotation of length 2 (normalised on the way); root matrix: moved by (10, 0, 0).
    local.translations.set([1, 2, 3, 0, 1, 0, 1, 0, 0, 0, 0, 1]);
    local.rotations.set([0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 2]);
    local.scales.set([2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    kernel.skinRoot.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 0, 0, 1]);
    const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    const slotOf = Int32Array.from([2, 0, -1, 1]), inverses = new Float64Array([...identity, ...identity, ...identity]);
    inverses[12] = -1; // slot 0 (the spine): moved by (-1, 0, 0)
    const shape = kernel.skinLocalShape(slotOf, inverses);
    expect(kernel.skinLocalShape(slotOf, inverses)).toBe(shape);
    const out = new Float32Array(64).fill(7);
    kernel.skinLocal(shape, local, out);
    const unsigned = (a: Float32Array): number[] => Array.from(a, (v) => v + 0);
    // The spine: the root's 2 × half a turn, at 10 + 1, 2 + 2, 3, then moved by -1 along its own x (-2 in the world).
    expect(unsigned(out.subarray(0, 16))).toEqual([-2, 0, 0, 0, 0, -2, 0, 0, 0, 0, 2, 0, 13, 4, 3, 1]);
    expect(unsigned(out.subarray(16, 32))).toEqual([2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 11, 2, 5, 1]); // the hand
    expect(unsigned(out.subarray(32, 48))).toEqual([2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 11, 2, 3, 1]); // the root
    expect(Array.from(out.subarray(48))).toEqual(new Array(16).fill(7)); // past the slots: untouched
    // A JavaScript pose's arrays and a degenerate rotation (the identity), as skinFromLocal takes them.
    const twin = new Float32Array(48);
    for (const q of [[0, 0, 0, 0], [Number.NaN, 0, 0, 1], [1e200, 0, 0, 1]]) {
      local.rotations.set(q, 4);
      kernel.skinLocal(shape, local, out);
      skinFromLocal(skeleton.parents, local, kernel.skinRoot, slotOf, inverses, twin);
      expect(Array.from(out.subarray(0, 48))).toEqual(Array.from(twin));
      expect(unsigned(out.subarray(0, 3))).toEqual([2, 0, 0]);
    }
    // One slot per bone at most, and no more slots than bones; four shapes a thread.
    expect(kernel.skinLocalShape(Int32Array.from([0, 0, -1, -1]), new Float64Array(16))).toBe(-1);
    expect(kernel.skinLocalShape(Int32Array.from([0, -1, -1]), new Float64Array(16))).toBe(-1);
    for (let k = 0; k < 3; k++) expect(kernel.skinLocalShape(Int32Array.from([0, -1, -1, -1]), new Float64Array(16))).toBeGreaterThan(shape);
    expect(kernel.skinLocalShape(Int32Array.from([0, -1, -1, -1]), new Float64Array(16))).toBe(-1);
  });

  it('skins random local poses of random hierarchies as the three.js binding does in JavaScript, bit for bit (property)', () => {
    const value = fc.oneof(fc.double({ min: -3, max: 3, noNaN: true }), fc.constantFrom(0, -0, 1, -1, 0.5, 1e17, -1e17, 1e-7, 1e200, 5e-324));
    fc.assert(fc.property(
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 11 }), fc.array(value, { minLength: 400, maxLength: 400 }),
      (shares, values) => {
        let at = 0;
        const next = (): number => values[at++ % values.length];
        const { bones, kernel, local, slotOf, count, inverses } = randomLocalSkin(shares, next, next);
        const shape = kernel.skinLocalShape(slotOf, inverses);
        if (count === 0) return;
        const mine = new Float32Array(count * 16), theirs = new Float32Array(count * 16);
        kernel.skinLocal(shape, local, mine);
        skinFromLocal(bones.parents, local, kernel.skinRoot, slotOf, inverses, theirs);
        expect(Array.from(mine)).toEqual(Array.from(theirs));
      },
    ), { seed: 18_000_044, numRuns: 200 });
  });

  it('skins a local pose in single precision (skinLocalSingle): exact where float32 is, bones without a slot, shapes kept by identity', () => {
    // skinLocal's known case (every number a small integer or a power of two: float32 arithmetic is
    // exact there), a fifth bone so that the four-bone groups of rotations end on a partial one.
    const bones = Skeleton.fromDefinitions([...skeleton.boneNames.map((name, b) => ({ name, parent: b > 0 ? skeleton.boneNames[skeleton.parents[b]] : undefined })), { name: 'tail', parent: 'head' }]);
    const n = bones.boneCount;
    const kernel = SamplingKernel.forSkinning(bones)!;
    expect(SamplingKernel.create(bones, [], [])!.skinLocalSingleShape(Int32Array.from([0, -1, -1, -1, -1]), new Float64Array(16))).toBe(-1); // a batch's kernel
    const local = new Pose(n);
    // Root at (1, 2, 3) scaled (2, 2, 4); spine a quarter turn about z (a rotation of length √2) at (0, 1, 0);
    // head at (1, 0, 0) scaled (1, 2, 1), no slot; hand a half turn about x of length 2; tail under the head.
    local.translations.set([1, 2, 3, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 3, -1]);
    local.rotations.set([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1, 0, 1]);
    local.scales.set([2, 2, 4, 1, 1, 1, 1, 2, 1, 1, 1, 1, 4, 1, 0.5]);
    kernel.skinRoot.set([0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 10, 0, -2, 1]); // a quarter turn about z, moved
    const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    const slotOf = Int32Array.from([2, 0, -1, 1, 3]), inverses = new Float64Array([...identity, ...identity, ...identity, ...identity]);
    inverses.set([-1, 0.5, 2], 12); // slot 0 (the spine): moved
    inverses.set([0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, 3, 0, 0, 1], 48); // slot 3 (the tail): turned and moved
    const single = kernel.skinLocalSingleShape(slotOf, inverses), double = kernel.skinLocalShape(slotOf, inverses);
    expect(kernel.skinLocalSingleShape(slotOf, inverses)).toBe(single);
    const out = new Float32Array(80).fill(7), twin = new Float32Array(80).fill(7);
    kernel.skinLocalSingle(single, local, out);
    kernel.skinLocal(double, local, twin);
    const unsigned = (a: Float32Array): number[] => Array.from(a, (v) => v + 0);
    expect(unsigned(out)).toEqual(unsigned(twin));
    // The root: the root matrix's quarter turn × scale 2, 2, 4, at (10 - 2, 1, -2 + 3).
    expect(unsigned(out.subarray(32, 48))).toEqual([0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 4, 0, 8, 1, 1, 1]);
    expect(Array.from(out.subarray(64))).toEqual(new Array(16).fill(7)); // past the slots: untouched
    // A degenerate rotation (zero, NaN, beyond float32) is the identity, as in skinLocal.
    for (const q of [[0, 0, 0, 0], [Number.NaN, 0, 0, 1], [1e200, 0, 0, 1], [1e-7, 0, 0, 0]]) {
      local.rotations.set(q, 4);
      kernel.skinLocalSingle(single, local, out);
      kernel.skinLocal(double, local, twin);
      expect(unsigned(out.subarray(0, 64))).toEqual(unsigned(twin.subarray(0, 64)));
      expect(unsigned(out.subarray(0, 3))).toEqual([0, 2, 0]);
    }
    // One slot per bone at most, no more slots than bones; four shapes a thread, apart from skinLocal's.
    expect(kernel.skinLocalSingleShape(Int32Array.from([0, 0, -1, -1, -1]), new Float64Array(16))).toBe(-1);
    expect(kernel.skinLocalSingleShape(Int32Array.from([0, -1, -1, -1]), new Float64Array(16))).toBe(-1);
    for (let k = 0; k < 3; k++) expect(kernel.skinLocalSingleShape(Int32Array.from([0, -1, -1, -1, -1]), new Float64Array(16))).toBeGreaterThan(single);
    expect(kernel.skinLocalSingleShape(Int32Array.from([0, -1, -1, -1, -1]), new Float64Array(16))).toBe(-1);
    expect(kernel.skinLocalShape(Int32Array.from([0, -1, -1, -1, -1]), new Float64Array(16))).toBeGreaterThan(double);
  });

  it('skins random local poses of random hierarchies in single precision within a float32 rounding of skinFromLocal (property)', () => {
    // Each matrix's numbers against the double path's, relative to the matrix's largest: float32's
    // rounding along a chain of up to 11 bones: 4.7e-7 at worst in these 300 runs, bounded at 1e-6 (a
    // float32's half ulp is 6e-8 of a number; a wrong parent or a missed scale is off by far more).
    let worst = 0;
    fc.assert(fc.property(
      // Numbers drawn uniformly (fast-check's doubles lean to 0 and the bounds, which hide a missed scale).
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 11 }), fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      (shares, seed) => {
        const random = mulberry32(seed);
        const next = (): number => random() * 6 - 3;
        const { bones, kernel, local, slotOf, count, inverses } = randomLocalSkin(shares, next, () => 0.5 + Math.abs(next()) / 2); // scales 0.5 to 2
        const shape = kernel.skinLocalSingleShape(slotOf, inverses);
        if (count === 0) return;
        const mine = new Float32Array(count * 16), theirs = new Float32Array(count * 16);
        kernel.skinLocalSingle(shape, local, mine);
        skinFromLocal(bones.parents, local, kernel.skinRoot, slotOf, inverses, theirs);
        for (let m = 0; m < count; m++) {
          let largest = 0;
          for (let e = 0; e < 16; e++) largest = Math.max(largest, Math.abs(theirs[m * 16 + e]));
          for (let e = 0; e < 16; e++) worst = Math.max(worst, Math.abs(mine[m * 16 + e] - theirs[m * 16 + e]) / Math.max(1, largest));
        }
        expect(mine.every(Number.isFinite)).toBe(true);
      },
    ), { seed: 18_000_045, numRuns: 300 });
    expect(worst).toBeLessThan(1e-6);
    expect(worst).toBeGreaterThan(0); // float32 after all
  });

  it('sums poses in its memory as poseScaleInto, poseAccumulate and poseNormalizeRotations do in JavaScript, bit for bit', () => {
    // Five bones (15 translations and scales: a pair loop and an odd last value), three poses in the
    // kernel and their twins of their own; one rotation of zero length, one in the other hemisphere.
    const n = 5;
    const kernel = SamplingKernel.create(chainSkeleton(n), [], Array.from({ length: 9 }, (_, k) => n * (k % 3 === 1 ? 4 : 3)))!;
    const a = kernel.poseArrays;
    const inKernel = [0, 1, 2].map((p) => new Pose(n, { translations: a[p * 3], rotations: a[p * 3 + 1], scales: a[p * 3 + 2] }));
    const alone = [0, 1, 2].map(() => new Pose(n));
    expect(inKernel.every((p) => p.kernel === kernel)).toBe(true);
    const random = mulberry32(5);
    for (let p = 0; p < 3; p++) {
      for (const key of ['translations', 'rotations', 'scales'] as const) {
        for (let i = 0; i < alone[p][key].length; i++) inKernel[p][key][i] = alone[p][key][i] = random() * 4 - 2;
      }
    }
    for (const poses of [inKernel, alone]) {
      poses[1].rotations.fill(0, 4, 8); // with weights summing to 0 there: the identity after normalising
      for (let k = 0; k < 4; k++) poses[2].rotations[8 + k] = -poses[0].rotations[8 + k]; // the other hemisphere
    }
    const spies = (['scale', 'accumulate', 'normalize'] as const).map((name) => vi.spyOn(SamplingKernel.prototype, name));
    for (const weights of [[0.6, 0.3, 0.1], [0, 1, 0], [1, 0, 0.5], [0.25, 0.25, 0.5]]) {
      const w = Float64Array.from(weights);
      for (const poses of [inKernel, alone]) {
        poseScaleInto(poses[0], poses[0], w, 0); // in place: out = out * w0
        poseAccumulate(poses[0], poses[1], w, 1);
        poseAccumulate(poses[0], poses[2], w, 2);
        poseNormalizeRotations(poses[0]);
      }
      for (const key of ['translations', 'rotations', 'scales'] as const) expect(Array.from(inKernel[0][key])).toEqual(Array.from(alone[0][key]));
      // Into another pose too (out not the source).
      poseScaleInto(inKernel[1], inKernel[2], w, 2);
      poseScaleInto(alone[1], alone[2], w, 2);
      for (const key of ['translations', 'rotations', 'scales'] as const) expect(Array.from(inKernel[1][key])).toEqual(Array.from(alone[1][key]));
    }
    expect(spies.map((spy) => spy.mock.calls.length)).toEqual([8, 8, 4]);
    for (const spy of spies) spy.mockRestore();
    // A known answer: the other-hemisphere rotation of bone 2 adds up with bone 2 of pose 0 rather than cancelling.
    expect(Math.hypot(...alone[0].rotations.subarray(8, 12))).toBeCloseTo(1, 12);
  });

  it('blends and sums random poses by random weights as the JavaScript pose functions do, bit for bit (property)', () => {
    const spies = (['blend', 'scale', 'accumulate', 'normalize'] as const).map((name) => vi.spyOn(SamplingKernel.prototype, name));
    // Four bones and five: the pair loops over translations and scales end even, and with one value left.
    for (const n of [4, 5]) {
      const kernel = SamplingKernel.create(chainSkeleton(n), [], Array.from({ length: 9 }, (_, k) => n * (k % 3 === 1 ? 4 : 3)))!;
      const a = kernel.poseArrays;
      const inKernel = [0, 1, 2].map((p) => new Pose(n, { translations: a[p * 3], rotations: a[p * 3 + 1], scales: a[p * 3 + 2] }));
      const alone = [0, 1, 2].map(() => new Pose(n));
      // Components of every size, zero and overflowing included (a blend's length then overflows: the identity).
      const value = fc.oneof(fc.double({ min: -2, max: 2, noNaN: true }), fc.constantFrom(0, -0, 1e-170, 1e200, -1e200, 5e-324));
      const pose = fc.array(value, { minLength: n * 10, maxLength: n * 10 });
      const weight = fc.oneof(fc.double({ min: -0.5, max: 1.5, noNaN: true }), fc.constantFrom(0, 1, 0.5, 1e-300));
      const expectSame = (p: number): void => {
        for (const key of ['translations', 'rotations', 'scales'] as const) expect(Array.from(inKernel[p][key])).toEqual(Array.from(alone[p][key]));
      };
      fc.assert(fc.property(fc.array(pose, { minLength: 3, maxLength: 3 }), fc.array(weight, { minLength: 3, maxLength: 3 }), fc.nat(n - 1), (values, weights, opposite) => {
        for (const poses of [inKernel, alone]) {
          poses.forEach((p, i) => {
            p.translations.set(values[i].slice(0, n * 3));
            p.rotations.set(values[i].slice(n * 3, n * 7));
            p.scales.set(values[i].slice(n * 7));
          });
          // One bone of pose 1 in the other hemisphere from pose 0's (the sign rule).
          for (let k = 0; k < 4; k++) poses[1].rotations[opposite * 4 + k] = -poses[0].rotations[opposite * 4 + k];
        }
        const w = Float64Array.from(weights);
        poseBlendTwo(inKernel[2], inKernel[0], inKernel[1], w);
        poseBlendTwo(alone[2], alone[0], alone[1], w);
        expectSame(2);
        for (const poses of [inKernel, alone]) {
          poseScaleInto(poses[0], poses[0], w, 0);
          poseAccumulate(poses[0], poses[1], w, 1);
          poseAccumulate(poses[0], poses[2], w, 2);
          poseNormalizeRotations(poses[0]);
        }
        expectSame(0);
      }), { seed: 18_000_020 + n, numRuns: 200 });
    }
    expect(spies.map((spy) => spy.mock.calls.length)).toEqual([400, 400, 800, 400]);
    for (const spy of spies) spy.mockRestore();
  });

  it('blends a layer over a pose bone by bone by the weights written to it, known answers for each branch', () => {
    const n = 5;
    const kernel = SamplingKernel.create(chainSkeleton(n), [], [n * 3, n * 4, n * 3, n * 3, n * 4, n * 3])!;
    const a = kernel.poseArrays;
    const [out, layer] = [0, 1].map((p) => new Pose(n, { translations: a[p * 3], rotations: a[p * 3 + 1], scales: a[p * 3 + 2] }));
    const q = (x: number, y: number, z: number, w: number) => { const l = Math.hypot(x, y, z, w); return [x / l, y / l, z / l, w / l]; };
    out.rotations.set([...q(1, 2, 3, 4), ...q(0.1, 0, 0, 1), ...q(0, 1, 0, 1), 0, 0, 0, 0, ...q(0, 0, 1, 1)]);
    layer.rotations.set([...q(4, 3, 2, 1), ...q(0, 0.1, 0, 1), ...q(0, -1, 0, -1), 0, 0, 0, 0, ...q(1, 0, 0, 1)]);
    out.translations.set(Array.from({ length: n * 3 }, (_, i) => i));
    layer.translations.set(Array.from({ length: n * 3 }, (_, i) => 100 + i));
    out.scales.fill(1);
    layer.scales.fill(3);
    const before = { t: Array.from(out.translations), r: Array.from(out.rotations) };
    // bone 0: weight 0 (left as it is); 1: 0.25; 2: 0.5 over its own negation (the other hemisphere:
    // it stays itself); 3: zero rotations (the identity); 4: NaN (left as it is).
    kernel.boneWeights.set([0, 0.25, 0.5, 1, Number.NaN]);
    kernel.layer(out, layer);
    expect(Array.from(out.translations.subarray(0, 3))).toEqual(before.t.slice(0, 3));
    expect(Array.from(out.rotations.subarray(0, 4))).toEqual(before.r.slice(0, 4));
    expect(out.translations[3]).toBe(3 * 0.75 + 103 * 0.25);
    expect(out.scales[3]).toBe(1 * 0.75 + 3 * 0.25);
    expect(Math.hypot(...out.rotations.subarray(4, 8))).toBeCloseTo(1, 15);
    for (let k = 0; k < 4; k++) expect(out.rotations[8 + k]).toBeCloseTo(before.r[8 + k], 15);
    expect(Array.from(out.rotations.subarray(12, 16))).toEqual([0, 0, 0, 1]);
    expect(out.translations[9]).toBe(109); // weight 1: the layer's
    expect(Array.from(out.rotations.subarray(16, 20))).toEqual(before.r.slice(16, 20));
    expect(out.scales[14]).toBe(1);
  });

  it('copies a pose within its memory by address (copyPose), touching nothing around it', () => {
    const n = 3;
    const kernel = SamplingKernel.create(skeleton, [], [n * 10 + 2, n * 10 + 2])!;
    const [a, b] = kernel.poseArrays;
    const view = (row: Float64Array, at: number) => new Pose(n, { translations: row.subarray(at, at + n * 3), rotations: row.subarray(at + n * 3, at + n * 7), scales: row.subarray(at + n * 7, at + n * 10) });
    const source = view(a, 1), out = view(b, 1);
    a.set(Array.from({ length: a.length }, (_, i) => i + 0.25));
    b.fill(-1);
    kernel.copyPose(out, source);
    expect(Array.from(b.subarray(1, 1 + n * 10))).toEqual(Array.from(a.subarray(1, 1 + n * 10)));
    expect([b[0], b[n * 10 + 1]]).toEqual([-1, -1]);
  });

  it('applies inertialization offsets in its memory as PoseInertializer does in JavaScript, bit for bit, every branch', () => {
    // Five bones, numbers written by hand in the inertializer's documented layout: [0, 8) powers,
    // then per bone translation directions, rotation axes, scale directions (3 each), the three
    // curves (CURVE_STRIDE each) and the live flags.
    const n = 5;
    const { inKernel, alone, viaKernel, viaJs, own, block } = inertializerPair(n);
    const random = mulberry32(11);
    const td = 8, ra = td + n * 3, sd = ra + n * 3, tc = sd + n * 3, rc = tc + n * CURVE_STRIDE, sc = rc + n * CURVE_STRIDE, live = sc + n * CURVE_STRIDE;
    // Unit directions and axes, as start() fits them.
    for (let i = td; i < tc; i += 3) {
      const v = [random() * 2 - 1, random() * 2 - 1, random() * 2 - 1], len = Math.hypot(...v);
      own.set(v.map((x) => x / len), i);
    }
    for (let bone = 0; bone < n; bone++) {
      for (const c of [tc, rc, sc]) {
        const o = c + bone * CURVE_STRIDE;
        own.set([random() - 0.5, random() - 0.5, random() - 0.5, 0.5, random() - 0.5, random() - 0.5, random() - 0.5], o);
      }
    }
    // bone 0: every curve; 1: rotation only, 4.5 rad (a quarter of it past pi/4: Math.sin and Math.cos);
    // 2: nothing live; 3: translation and rotation whose curves ended (t1 before the elapsed time);
    // 4: rotation and scale on a pose rotation of length 2 (the full normalisation), then of length 0 (the identity).
    own.set([7, 2, 0, 3, 6], live);
    own[rc + 1 * CURVE_STRIDE] = 4.5;
    own[tc + 3 * CURVE_STRIDE + 3] = 0.05;
    own[rc + 3 * CURVE_STRIDE + 3] = 0.05;
    block.set(own);
    for (const inertializer of [viaKernel, viaJs]) inertializer.clock.set([0.1, 1]);
    const inertialize = vi.spyOn(SamplingKernel.prototype, 'inertialize');
    for (const rotationScale of [2, 0]) {
      for (const key of ['translations', 'rotations', 'scales'] as const) {
        for (let i = 0; i < alone[key].length; i++) inKernel[key][i] = alone[key][i] = random() * 2 - 1;
      }
      for (const pose of [inKernel, alone]) {
        for (let b = 0; b < n; b++) {
          const o = b * 4, len = Math.hypot(...pose.rotations.subarray(o, o + 4));
          // Bone 0 just off unit (the Newton step moves it), bone 4 far off or zero.
          for (let k = 0; k < 4; k++) pose.rotations[o + k] *= (b === 4 ? rotationScale : b === 0 ? 1 + 1e-9 : 1) / len;
        }
      }
      const before = Array.from(alone.rotations);
      viaKernel.apply(inKernel);
      viaJs.apply(alone);
      for (const key of ['translations', 'rotations', 'scales'] as const) expect(Array.from(inKernel[key])).toEqual(Array.from(alone[key]));
      // The branches did what they say: bone 2 untouched, bones 0 and 4's rotations unit (or the identity).
      expect(Array.from(alone.rotations.subarray(8, 12))).toEqual(before.slice(8, 12));
      expect(Math.abs(Math.hypot(...alone.rotations.subarray(0, 4)) - 1)).toBeLessThan(1e-15);
      expect(Math.hypot(...alone.rotations.subarray(16, 20))).toBeCloseTo(1, 14);
      if (rotationScale === 0) expect(Array.from(alone.rotations.subarray(16, 20))).toEqual([0, 0, 0, 1]);
    }
    expect(inertialize).toHaveBeenCalledTimes(2);
    inertialize.mockRestore();
  });

  it('applies random inertialization offsets to random poses as PoseInertializer does in JavaScript, bit for bit (property)', () => {
    const n = 6;
    const { inKernel, alone, viaKernel, viaJs, own, block } = inertializerPair(n);
    const td = 8, tc = td + n * 9, live = tc + n * 3 * CURVE_STRIDE;
    const small = fc.double({ min: -3, max: 3, noNaN: true });
    // A curve: x0 (a rotation's up to a few turns: its sine and cosine through every branch), v0,
    // a0, t1 (0 included: the curve has ended), A, B, C.
    const curve = fc.tuple(
      fc.oneof(small, fc.double({ min: -20, max: 20, noNaN: true }), fc.constantFrom(0, Math.PI / 4, -Math.PI / 4, Math.PI, 1e-300)),
      small, small, fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), fc.constant(0)), small, small, small,
    );
    const bone = fc.record({
      vectors: fc.array(fc.tuple(small, small, small), { minLength: 3, maxLength: 3 }),
      curves: fc.array(curve, { minLength: 3, maxLength: 3 }),
      live: fc.integer({ min: 0, max: 7 }),
      translation: fc.tuple(small, small, small),
      rotation: fc.tuple(small, small, small, small),
      // The pose's rotation length: unit, just off it, far off, tiny or zero.
      length: fc.constantFrom(1, 1 + 1e-9, 1 - 1e-12, 2, 1e-8, 1e-200, 0, 1e150),
      scale: fc.tuple(small, small, small),
    });
    const inertialize = vi.spyOn(SamplingKernel.prototype, 'inertialize');
    fc.assert(fc.property(fc.array(bone, { minLength: n, maxLength: n }), fc.double({ min: 0, max: 2.5, noNaN: true }), fc.double({ min: 0.01, max: 3, noNaN: true }),
      (bones, elapsed, duration) => {
        own.fill(0);
        bones.forEach((b, i) => {
          b.vectors.forEach((v, k) => {
            // Unit directions and axes, as start() fits them (a zero vector: the x axis).
            const len = Math.hypot(...v);
            own.set(len > 1e-6 ? v.map((x) => x / len) : [1, 0, 0], td + k * n * 3 + i * 3);
          });
          b.curves.forEach((c, k) => own.set(c, tc + (k * n + i) * CURVE_STRIDE));
          own[live + i] = b.live;
          alone.translations.set(b.translation, i * 3);
          alone.scales.set(b.scale, i * 3);
          const len = Math.hypot(...b.rotation) || 1;
          alone.rotations.set(b.rotation.map((x) => (x / len) * b.length), i * 4);
        });
        block.set(own);
        for (const key of ['translations', 'rotations', 'scales'] as const) inKernel[key].set(alone[key]);
        for (const inertializer of [viaKernel, viaJs]) inertializer.clock.set([elapsed, duration]);
        viaKernel.apply(inKernel);
        viaJs.apply(alone);
        for (const key of ['translations', 'rotations', 'scales'] as const) expect(Array.from(inKernel[key])).toEqual(Array.from(alone[key]));
      },
    ), { seed: 18_000_019, numRuns: 300 });
    // The kernel ran for the runs whose clock was still going (elapsed below the duration).
    expect(inertialize.mock.calls.length).toBeGreaterThan(100);
    inertialize.mockRestore();
  });

  it('runs characters below full rate in the kernel too: interpolation poses in its memory, the same poses as alone', () => {
    // An interpolation calls the kernel's blend by its poses' addresses.
    const blend = vi.spyOn(SamplingKernel.prototype, 'blendAt');
    const graph = buildCrowdGraph('blend');
    const batch = graph.createInstances(6, { componentSpace: true });
    const alone = Array.from({ length: 6 }, () => graph.createInstance());
    const phases = crowdPhases(6, 2);
    [batch.instances, alone].forEach((group) => group.forEach((instance, i) => {
      startAtPhases(instance, phases, i);
      instance.setUpdateRate([1, 2, 4][i % 3], i, { interpolate: i !== 5 });
    }));
    for (let frame = 0; frame < 40; frame++) {
      if (frame === 20) for (const group of [batch.instances, alone]) group[2].setUpdateRate(1);
      batch.update(1 / 60);
      for (const instance of alone) {
        instance.update(1 / 60);
        instance.evaluate();
      }
    }
    expectRowsLikeAlone(batch, alone);
    expect(blend).toHaveBeenCalled();
    // The interpolation poses are rows of the kernel's memory.
    const target = (batch.instances[1] as unknown as { interpolation: { target: Pose } }).interpolation.target;
    expect(target.kernel).not.toBeNull();
    const without = graph.createInstances(6, { componentSpace: true, updateRates: false });
    // The memory grows by whole 64 KiB pages: 60 characters' interpolation poses (624 KB) take several.
    const sixty = graph.createInstances(60, { componentSpace: true }), sixtyWithout = graph.createInstances(60, { componentSpace: true, updateRates: false });
    expect(sixty.wasmMemoryBytes - sixtyWithout.wasmMemoryBytes).toBeGreaterThanOrEqual(9 * 65536);
    without.instances[1].setUpdateRate(2);
    expect((without.instances[1] as unknown as { interpolation: { target: Pose } }).interpolation.target.kernel).toBeNull();
  });

  it('shares a memory between threads only for the same graph (a Crowd), each thread with its own scratch', () => {
    const graph = makeGraph([makeClip('a')], false, true);
    const lengths = [2 * 4 * 3, 2 * 4 * 4, 2 * 4 * 3, 0, 0, 0];
    const main = SamplingKernel.createShared(skeleton, [...graph.clipBindings.values()], lengths, 3)!;
    expect(main.buffer).toBeInstanceOf(SharedArrayBuffer);
    // Another copy of the same graph (as a worker builds it) attaches; its numbers are its own.
    const copy = makeGraph([makeClip('a')], false, true);
    const worker = SamplingKernel.attachShared(main.memory, skeleton, [...copy.clipBindings.values()], lengths, 3, 2)!;
    expect(worker).not.toBeNull();
    expect(worker.numbers.byteOffset).not.toBe(main.numbers.byteOffset);
    // A graph whose clip differs, other pose arrays or a thread out of range do not.
    const other = makeGraph([makeClip('a', 'slerp', false)], false, true);
    expect(SamplingKernel.attachShared(main.memory, skeleton, [...other.clipBindings.values()], lengths, 3, 1)).toBeNull();
    expect(SamplingKernel.attachShared(main.memory, skeleton, [...copy.clipBindings.values()], [1e6, 0, 0, 0, 0, 0], 3, 1)).toBeNull();
    expect(SamplingKernel.attachShared(main.memory, skeleton, [...copy.clipBindings.values()], lengths, 3, 3)).toBeNull();
  });

  it('matches instances of their own on the locomotion example (crossfades between gaits; 11 characters: a group of eight and a partial one)', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const count = 11;
    const batch = graph.createInstances(count, { componentSpace: true });
    const alone = Array.from({ length: count }, () => graph.createInstance());
    expect(batch.wasm).toBe(true);
    for (let frame = 0; frame < 90; frame++) {
      [...batch.instances, ...alone].forEach((instance, i) => {
        if (frame % 20 === 0) instance.setParameter('gait', ((i % count) + frame / 20) % 3);
      });
      batch.update(1 / 60);
      for (const instance of alone) {
        instance.update(1 / 60);
        instance.evaluate();
      }
    }
    expectRowsLikeAlone(batch, alone);
  });

  describeWithData('on motion capture', () => {
    it('matches instances of their own on the CMU walk/run graph, in the kernel', () => {
      const sample = vi.spyOn(SamplingKernel.prototype, 'sample');
      const graph = loadGraphFile(example('cmu-locomotion.json'));
      const batch = graph.createInstances(3, { componentSpace: true });
      const alone = [0, 1, 2].map(() => graph.createInstance());
      for (let frame = 0; frame < 120; frame++) {
        [...batch.instances, ...alone].forEach((instance, i) => instance.setParameter('speed', [100, 150, 300][(i + (frame >> 5)) % 3]));
        batch.update(1 / 60);
        for (const instance of alone) {
          instance.update(1 / 60);
          instance.evaluate();
        }
      }
      expectRowsLikeAlone(batch, alone);
      expect(sample.mock.results.filter((r) => r.value === true).length).toBeGreaterThan(100);
    });
  });
});
