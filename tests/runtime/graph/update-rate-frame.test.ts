import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutputType } from '../../../nodes/index.ts';
import { BlendTwoType } from '../../../nodes/BlendTwo.ts';
import { SequencePlayerType } from '../../../nodes/SequencePlayer.ts';
import { Clip } from '../../../runtime/core/clip.ts';
import { quatFromAxisAngle } from '../../../runtime/core/math.ts';
import { Pose, poseBlendTwo } from '../../../runtime/core/pose.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { UPDATE_RATE } from '../../../runtime/graph/frame-layout.ts';
import { AnimGraph } from '../../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import { InstanceBatch } from '../../../runtime/graph/instance-batch.ts';
import type { Interpolation } from '../../../runtime/graph/interpolation.ts';
import { AHEAD, PENDING_MOTION, UPDATE_RATE_NUMBERS, WEIGHTS } from '../../../runtime/graph/update-rate.ts';
import { SamplingKernel } from '../../../runtime/kernel/sampling-kernel.ts';
import { rateWalkGraph } from '../../support/crowd-graphs.ts';

const DT = 1 / 60;

/**
 * Three bones: 'arm' turns and moves (keys 1 s apart) in both clips; in 'scaled' it also grows
 * from scale 1 to (1.5, 2, 0.5) over its 2 s, the others have no scale tracks (scale 1). BlendTwo
 * 'mix' weighs 'scaled' by the parameter 'scaled' (0: every scale exactly 1).
 */
function scaleGraph(): AnimGraph {
  const skeleton = Skeleton.fromDefinitions([
    { name: 'root', parent: null, translation: [0, 0, 0] },
    { name: 'arm', parent: 'root', translation: [0, 10, 0] },
    { name: 'hand', parent: 'arm', translation: [0, 5, 0] },
  ]);
  const clip = (name: string, scaled: boolean): Clip => {
    const c = new Clip({
      name, frameRate: 1, frameCount: 3, interpolation: 'slerp',
      tracks: [{ bone: 'arm', translation: true, rotation: true, scale: scaled }],
    });
    c.translations.set([0, 10, 0, 3, 10, 1, 1, 12, -2]);
    for (let k = 0; k < 3; k++) quatFromAxisAngle(c.rotations, k * 4, 0.3, 1, scaled ? 0.2 : -0.1, (scaled ? 0.7 : 0.4) * k);
    if (scaled) c.scales.set([1, 1, 1, 1.25, 1.5, 0.75, 1.5, 2, 0.5]);
    return c;
  };
  return new AnimGraph({
    name: 'scales', skeleton, parameters: { scaled: { type: 'float', default: 0 } },
    clips: new Map([['plain', clip('plain', false)], ['scaled', clip('scaled', true)]]),
    nodes: [
      { id: 'plain', nodeType: SequencePlayerType, properties: { clip: 'plain', playRate: 0.9, loop: true }, inputs: {} },
      { id: 'scaled', nodeType: SequencePlayerType, properties: { clip: 'scaled', playRate: 1.1, loop: true }, inputs: {} },
      { id: 'mix', nodeType: BlendTwoType, properties: { alpha: { param: 'scaled' } }, inputs: { A: 'plain', B: 'scaled' } },
      { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'mix' } },
    ],
  });
}

/** An instance's interpolation state (internal: the two evaluated poses an interpolated frame blends). */
function interpolationOf(instance: AnimGraphInstance): Interpolation {
  return (instance as unknown as { interpolation: Interpolation }).interpolation;
}

/** A copy of `pose` in arrays of its own (so that pose operations on it run in JavaScript). */
function ownCopy(pose: Pose): Pose {
  const copy = new Pose(pose.boneCount);
  copy.translations.set(pose.translations);
  copy.rotations.set(pose.rotations);
  copy.scales.set(pose.scales);
  return copy;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an update-rate frame's work", () => {
  it('keeps the clock and the held-back root motion in the character\'s frame numbers, its row of the kernel memory', () => {
    const graph = rateWalkGraph();
    const batch = new InstanceBatch(graph, 3);
    const [a, b, c] = batch.instances;
    b.setUpdateRate(4, 0);
    c.setUpdateRate(4, 2);
    for (let f = 0; f < 6; f++) batch.update(DT);
    const row = (i: number): Float64Array => batch.instances[i].frameNumbers.subarray(
      batch.instances[i].frameNumbersAt + UPDATE_RATE, batch.instances[i].frameNumbersAt + UPDATE_RATE + UPDATE_RATE_NUMBERS,
    );
    // The rows are the kernel's: one array for the batch, a row per character.
    expect(b.frameNumbers).toBe(a.frameNumbers);
    expect(b.frameNumbersAt).toBe(graph.frameNumberCount);
    // Rate 4, evaluated at the 3rd frame looking 3 frames ahead: three frames shown since, one to go.
    expect(row(1)[AHEAD]).toBe(b.lookAhead);
    expect(row(1)[AHEAD]).toBeCloseTo(DT, 12);
    expect(row(1)[WEIGHTS]).toBeCloseTo(0.25, 12);
    expect(row(1)[WEIGHTS + 1]).toBeCloseTo(0.75, 12);
    // The walk turns (root motion heading, its 4th number): this frame reported half of what the
    // graph's update had left to report (one frame shown of the two to the target's time), the
    // other half is held back in the row.
    const heldHeading = row(1)[PENDING_MOTION + 3], reported = batch.rootMotion[4 + 3];
    expect(reported).toBeGreaterThan(0.005);
    expect(heldHeading / reported).toBeCloseTo(1, 12);
    expect(row(2)[AHEAD]).toBe(c.lookAhead);
    expect(row(2)[AHEAD]).toBeGreaterThan(0);
    // Character 0 at full rate: its update-rate numbers never written (the clock starts when a rate goes above 1).
    expect([...row(0)]).toEqual(new Array(UPDATE_RATE_NUMBERS).fill(0));
  });

  it('a skipped frame updates no node and samples nothing: one kernel blend per interpolating character, one copy where it shows the target', () => {
    const batch = new InstanceBatch(rateWalkGraph(), 8);
    for (const instance of batch.instances) instance.setUpdateRate(4, 0);
    for (let f = 0; f < 8; f++) batch.update(DT);
    const sample = vi.spyOn(SamplingKernel.prototype, 'sample');
    // An interpolation blends by its poses' addresses (blendAt); the graph's own blends go through blend.
    const blend = vi.spyOn(SamplingKernel.prototype, 'blendAt');
    const copy = vi.spyOn(SamplingKernel.prototype, 'copyAt');
    const evaluated: number[] = [];
    for (let f = 0; f < 12; f++) {
      const updates = batch.instances.map((i) => i.updateCounter);
      sample.mockClear(); blend.mockClear(); copy.mockClear();
      batch.update(DT);
      const updated = batch.instances.filter((i, k) => i.updateCounter !== updates[k]).length;
      // Every character shows one pose a frame: blended, or the target copied where the display reaches its time.
      expect(blend.mock.calls.length + copy.mock.calls.length).toBe(8);
      if (updated === 0) {
        expect(sample).not.toHaveBeenCalled();
      } else {
        // One phase: the whole crowd is evaluated on the same frame, two clips sampled per character (BlendTwo of walk and run).
        expect(updated).toBe(8);
        expect(sample.mock.calls.length).toBeGreaterThanOrEqual(8);
        evaluated.push(f);
      }
    }
    // One frame in four evaluates.
    expect(evaluated.length).toBe(3);
    expect(evaluated[1] - evaluated[0]).toBe(4);
    expect(evaluated[2] - evaluated[1]).toBe(4);
  });
  it('an evaluation frame after a frame that showed the target as it is blends from the output in place (the previous pose to the bit)', () => {
    const batch = new InstanceBatch(rateWalkGraph(), 4);
    batch.instances.forEach((instance, i) => instance.setUpdateRate(i < 2 ? 4 : 2, i));
    for (let f = 0; f < 7; f++) batch.update(DT);
    const blend = vi.spyOn(SamplingKernel.prototype, 'blendAt');
    const copy = vi.spyOn(SamplingKernel.prototype, 'copyAt');
    // Whether each character showed its target as it is (a copy) the frame before.
    const copied = batch.instances.map(() => false);
    let inPlace = 0, afterBlend = 0, later = 0;
    // Frame -1 only finds out what each character showed.
    for (let f = -1; f < 16; f++) {
      const updates = batch.instances.map((i) => i.updateCounter);
      blend.mockClear();
      copy.mockClear();
      batch.update(DT);
      batch.instances.forEach((instance, k) => {
        const output = interpolationAddresses(instance);
        const calls = blend.mock.calls.filter((c) => c[0] === output);
        if (f >= 0 && instance.updateCounter !== updates[k]) {
          expect(calls.length).toBe(1);
          if (copied[k]) {
            // The output showed the target, which is now the previous pose: read there, in place.
            expect(calls[0].slice(3, 6)).toEqual(calls[0].slice(0, 3));
            inPlace++;
          } else {
            // (The display's time ended a rounding short of the target's: a blend at a weight just under 1 showed it.)
            expect(calls[0][3]).not.toBe(output);
            afterBlend++;
          }
        } else if (f >= 0) {
          for (const c of calls) expect(c[3]).not.toBe(output);
          later += calls.length;
        }
        copied[k] = copy.mock.calls.some((c) => c[0] === output);
      });
    }
    expect(inPlace).toBeGreaterThanOrEqual(8);
    expect(afterBlend).toBeGreaterThanOrEqual(4);
    expect(later).toBeGreaterThanOrEqual(8);
  });

  it('a held character evaluates straight into its output rows: no copy and no blend on any frame, nothing at all on a skipped one', () => {
    const batch = new InstanceBatch(rateWalkGraph(), 8);
    for (const instance of batch.instances) instance.setUpdateRate(4, 0, { interpolate: false });
    for (let f = 0; f < 8; f++) batch.update(DT);
    const sample = vi.spyOn(SamplingKernel.prototype, 'sample');
    const blendAt = vi.spyOn(SamplingKernel.prototype, 'blendAt');
    const copy = vi.spyOn(SamplingKernel.prototype, 'copyAt');
    let evaluations = 0;
    for (let f = 0; f < 12; f++) {
      const updates = batch.instances.map((i) => i.updateCounter);
      const shown = Array.from(batch.rotations);
      sample.mockClear(); blendAt.mockClear(); copy.mockClear();
      batch.update(DT);
      const updated = batch.instances.filter((i, k) => i.updateCounter !== updates[k]).length;
      // Before held frames evaluated into the output they evaluated into the target pose and copied it: 8 copies.
      expect(copy).not.toHaveBeenCalled();
      expect(blendAt).not.toHaveBeenCalled();
      if (updated === 0) {
        expect(sample).not.toHaveBeenCalled();
        expect(Array.from(batch.rotations)).toEqual(shown);
      } else {
        expect(updated).toBe(8);
        expect(sample.mock.calls.length).toBeGreaterThanOrEqual(8);
        expect(Array.from(batch.rotations)).not.toEqual(shown);
        evaluations++;
      }
    }
    expect(evaluations).toBe(3);
  });
});

describe('update-rate interpolation of unit scales', () => {
  it('blends scales of exactly 1 at the clock\'s weights (1 - alpha, alpha) to exactly 1, the fact the kernel relies on to leave them out', () => {
    // (1 - a) rounds for a below 0.5; the sum with a must still round to 1. Edge values, then many.
    const alphas = [0, 1, 0.5, Number.MIN_VALUE, 2 ** -53, 2 ** -52, 1e-300, 0.1, 1 / 3, 0.5 - 2 ** -54, 0.5 + 2 ** -53, 1 - 2 ** -53, 2 / 3];
    let seed = 7;
    for (let i = 0; i < 200000; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const a = seed / 2 ** 32;
      // Spread over the exponents too: a, a^4, a^16 (small weights, where 1 - a rounds most).
      alphas.push(a, a ** 4, a ** 16);
    }
    let notOne = 0;
    for (const a of alphas) if ((1 - a) * 1 + a * 1 !== 1) notOne++;
    expect(notOne).toBe(0);
    // Weights of another form need not: 1 - 2^-53 (the double below 1) and 1.5 * 2^-52.
    expect((1 - 2 ** -53) * 1 + 1.5 * 2 ** -52 * 1).toBeGreaterThan(1);
  });

  it('a rate-2 character in the kernel shows, between its evaluations, the blend of its two evaluated poses to the bit, scales 1 or not', () => {
    const graph = scaleGraph();
    const batch = new InstanceBatch(graph, 2);
    expect(batch.wasm).toBe(true);
    const [unit, scaled] = batch.instances;
    scaled.setParameter('scaled', 0.6);
    for (const instance of batch.instances) instance.setUpdateRate(2, 0);
    const blendAt = vi.spyOn(SamplingKernel.prototype, 'blendAt');
    let blended = 0;
    for (let f = 0; f < 24; f++) {
      batch.update(DT);
      for (const instance of [unit, scaled]) {
        const interpolation = interpolationOf(instance), w = instance.frameNumbers[instance.frameNumbersAt + UPDATE_RATE + WEIGHTS + 1];
        if (w === 1 || f < 3) continue;
        // The documented blend: translations and scales lerped, rotations nlerped in one
        // hemisphere (poseBlendTwo), at weights 1 - alpha and alpha; here alpha is 1/2.
        expect(w).toBe(0.5);
        const want = poseBlendTwo(new Pose(3), ownCopy(interpolation.previous), ownCopy(interpolation.target), new Float64Array([1 - w, w]));
        const shown = instance.evaluate();
        expect(Array.from(shown.translations)).toEqual(Array.from(want.translations));
        expect(Array.from(shown.rotations)).toEqual(Array.from(want.rotations));
        expect(Array.from(shown.scales)).toEqual(Array.from(want.scales));
        blended++;
      }
    }
    expect(blended).toBeGreaterThan(16);
    // Every scale 1 for `unit` (its scales left out once its output's are 1), not for `scaled`.
    expect(Array.from(unit.evaluate().scales)).toEqual(new Array(9).fill(1));
    expect(scaled.evaluate().scales[3]).toBeGreaterThan(1.01);
    const unitCalls = blendAt.mock.calls.filter((c) => c[0] === interpolationAddresses(unit)), scaledCalls = blendAt.mock.calls.filter((c) => c[0] === interpolationAddresses(scaled));
    expect(unitCalls.length).toBeGreaterThan(8);
    // Its first blend wrote the output's scales (the graph had written them); every later one left them out.
    expect(unitCalls.slice(1).every((c) => c[10] === 0)).toBe(true);
    expect(scaledCalls.every((c) => c[10] === 1)).toBe(true);
  });

  it('keeps the scales right when they go from 1 to others and back, frames of uneven length, rates changing: rates 2 to 4 in the kernel match instances alone bit for bit', () => {
    const graph = scaleGraph();
    const count = 8;
    const batch = new InstanceBatch(graph, count);
    const alone = Array.from({ length: count }, () => graph.createInstance());
    const rate = (i: number, f: number): number => 2 + ((i + (f >> 4)) % 3);
    for (let i = 0; i < count; i++) {
      batch.instances[i].setUpdateRate(rate(i, 0), i);
      alone[i].setUpdateRate(rate(i, 0), i);
    }
    const n = graph.skeleton.boneCount;
    let seed = 11;
    const random = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const weights = new Float64Array(count);
    let unitFrames = 0, scaledFrames = 0;
    for (let f = 0; f < 600; f++) {
      // Each character switches between scales of 1 (weight 0) and others now and then; some
      // frames are long, which brings an evaluation before the display reaches the target (the
      // next interval then starts from a blend); every 16 frames the rates change part way
      // through intervals.
      const dt = random() < 0.3 ? (1.5 + Math.floor(random() * 3)) * DT : DT;
      for (let i = 0; i < count; i++) {
        if (random() < 0.2) weights[i] = weights[i] === 0 ? 0.3 + 0.5 * random() : 0;
        batch.instances[i].setParameter('scaled', weights[i]);
        alone[i].setParameter('scaled', weights[i]);
        if (f % 16 === 0) {
          batch.instances[i].setUpdateRate(rate(i, f), i);
          alone[i].setUpdateRate(rate(i, f), i);
        }
      }
      batch.update(dt);
      alone.forEach((g, i) => {
        g.update(dt);
        const mine = g.evaluate();
        expect(Array.from(batch.translations.subarray(i * n * 3, (i + 1) * n * 3))).toEqual(Array.from(mine.translations));
        expect(Array.from(batch.rotations.subarray(i * n * 4, (i + 1) * n * 4))).toEqual(Array.from(mine.rotations));
        expect(Array.from(batch.scales.subarray(i * n * 3, (i + 1) * n * 3))).toEqual(Array.from(mine.scales));
        if (mine.scales.every((v) => v === 1)) unitFrames++;
        else scaledFrames++;
      });
    }
    expect(unitFrames).toBeGreaterThan(1000);
    expect(scaledFrames).toBeGreaterThan(1000);
  });
});

/** The output translations' address an instance's interpolation blends into (blendAt's first argument). */
function interpolationAddresses(instance: AnimGraphInstance): number {
  return (interpolationOf(instance) as unknown as { outputT: number }).outputT;
}
