import { afterEach, describe, expect, it, vi } from 'vitest';
import { UPDATE_RATE } from '../../../runtime/graph/frame-layout.ts';
import { InstanceBatch } from '../../../runtime/graph/instance-batch.ts';
import { AHEAD, PENDING_MOTION, UPDATE_RATE_NUMBERS, WEIGHTS } from '../../../runtime/graph/update-rate.ts';
import { SamplingKernel } from '../../../runtime/kernel/sampling-kernel.ts';
import { rateWalkGraph } from '../../support/crowd-graphs.ts';

const DT = 1 / 60;

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
