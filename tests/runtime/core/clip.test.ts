import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { Clip, ClipBinding } from '../../../runtime/core/clip.ts';
import { ClipCursor, clipLocalTime, sampleClip, sampleClipAt, sampleClipBlendInto, SLERP_SERIES_MAX_ANGLE } from '../../../runtime/core/sampling.ts';
import { quatFromAxisAngle, quatSlerp } from '../../../runtime/core/math.ts';
import { loadBvh } from '../../../runtime/import/bvh.ts';
import { Pose, poseBlendTwo } from '../../../runtime/core/pose.ts';
import { mulberry32 } from '../../../bench/crowd-cases.ts';
import { SAMPLE_CLIP_NAMES, sampleClip as builtinClip, sampleSkeleton } from '../../../runtime/import/sample-data.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { expectClose } from '../../support/graphs.ts';
import { expectAnimGraphError } from '../../support/errors.ts';
import { CMU, describeWithData, hasSharedData, readShared } from '../../support/shared-data.ts';

// One bone, three keys at 10 fps: x = 0, 10, 40; rotation 0, 90, 180 degrees about Y.
const skeleton = Skeleton.fromDefinitions([{ name: 'root', translation: [1, 2, 3] }, { name: 'tip', parent: 'root', translation: [0, 5, 0] }]);
function clip(interpolation: 'slerp' | 'nlerp' = 'slerp'): Clip {
  const c = new Clip({ name: 'c', frameRate: 10, frameCount: 3, tracks: [{ bone: 'root', translation: true, rotation: true, scale: false }, { bone: 'absent', translation: true, rotation: false, scale: false }], interpolation });
  [0, 10, 40].forEach((x, f) => { c.translations[f * 6] = x; });
  [0, 90, 180].forEach((deg, f) => quatFromAxisAngle(c.rotations, f * 8, 0, 1, 0, (deg * Math.PI) / 180));
  return c;
}

describe('clip sampling', () => {
  const binding = new ClipBinding(clip(), skeleton);

  it('interpolates translation linearly and rotation spherically between keys', () => {
    const pose = sampleClip(new Pose(2), binding, 0.125, false); // 1/4 of the way from key 1 to key 2
    expect(pose.translations[0]).toBeCloseTo(17.5, 12);
    expect(2 * Math.atan2(pose.rotations[1], pose.rotations[3])).toBeCloseTo((112.5 * Math.PI) / 180, 12);
    // nlerp is close to slerp but not equal at this angle.
    const n = sampleClip(new Pose(2), new ClipBinding(clip('nlerp'), skeleton), 0.125, false);
    const angle = 2 * Math.atan2(n.rotations[1], n.rotations[3]);
    expect(Math.abs(angle - (112.5 * Math.PI) / 180)).toBeGreaterThan(1e-3);
    expect(Math.abs(angle - (112.5 * Math.PI) / 180)).toBeLessThan(0.05);
  });

  it('keeps the reference pose for bones without a track and reports tracks the skeleton lacks', () => {
    const pose = sampleClip(new Pose(2), binding, 0.1, false);
    expectClose(pose.translations.subarray(3, 6), [0, 5, 0], 0);
    expect(binding.unmatchedTracks).toEqual(['absent']);
  });

  it('clamps without looping and wraps with looping (the last key is the first instant)', () => {
    expect(clipLocalTime(binding.clip, 0.5, false)).toBe(0.2);
    expect(clipLocalTime(binding.clip, -1, false)).toBe(0);
    expect(clipLocalTime(binding.clip, 0.25, true)).toBeCloseTo(0.05, 12);
    expect(clipLocalTime(binding.clip, -0.05, true)).toBeCloseTo(0.15, 12);
    expect(sampleClip(new Pose(2), binding, 0.25, true).translations[0]).toBeCloseTo(5, 9);
  });

  it('slices a frame range, negative last counting from the end', () => {
    const sliced = clip().sliceFrames(1, -1);
    expect([sliced.frameCount, sliced.duration]).toEqual([2, 0.1]);
    expect(sliced.translations[0]).toBe(10);
    expectAnimGraphError(() => clip().sliceFrames(2, 1), 'out-of-range', "clip 'c' has frames 0..2; cannot take 2..1");
  });
});

describe('unit keys and blending while sampling', () => {
  it('skips renormalising a slerp only when every rotation key is unit to rounding', () => {
    const unit = clip();
    unit.rotationSpans();
    expect(unit.unitRotationKeys).toBe(true);
    const pose = sampleClip(new Pose(2), new ClipBinding(unit, skeleton), 0.125, false);
    const r = pose.rotations;
    expect(Math.abs(r[0] ** 2 + r[1] ** 2 + r[2] ** 2 + r[3] ** 2 - 1)).toBeLessThan(1e-15);
    // Keys rounded to single precision (as a glTF file stores them) are normalised once, in double
    // precision, before the first sample: then they sample as unit keys do, without renormalising.
    const rounded = clip();
    rounded.rotations.set(Float32Array.from(rounded.rotations));
    rounded.rotations[7] *= 1 + 1e-6;
    const stored = Float64Array.from(rounded.rotations);
    rounded.rotationSpans();
    expect(rounded.unitRotationKeys).toBe(true);
    for (let i = 0; i < stored.length; i += 4) {
      const len = Math.hypot(stored[i], stored[i + 1], stored[i + 2], stored[i + 3]);
      for (let k = 0; k < 4; k++) expect(rounded.rotations[i + k]).toBeCloseTo(stored[i + k] / len, 15);
    }
    expect(rounded.rotations[7]).not.toBe(stored[7]);
    const q = sampleClip(new Pose(2), new ClipBinding(rounded, skeleton), 0.125, false).rotations;
    expect(Math.abs(q[0] ** 2 + q[1] ** 2 + q[2] ** 2 + q[3] ** 2 - 1)).toBeLessThan(1e-15);
    // A key of another length (here 2) is no rounding: it is kept, and every sample renormalised.
    const long = clip();
    long.rotations[4] *= 2; long.rotations[5] *= 2; long.rotations[6] *= 2; long.rotations[7] *= 2;
    const longKey = Array.from(long.rotations.subarray(4, 8));
    long.rotationSpans();
    expect(long.unitRotationKeys).toBe(false);
    expect(Array.from(long.rotations.subarray(4, 8))).toEqual(longKey);
    const l = sampleClip(new Pose(2), new ClipBinding(long, skeleton), 0.125, false).rotations;
    expect(Math.abs(l[0] ** 2 + l[1] ** 2 + l[2] ** 2 + l[3] ** 2 - 1)).toBeLessThan(1e-15);
  });

  it('blends a sample into a pose with exactly the numbers of sampling it alone and calling poseBlendTwo', () => {
    const rig = sampleSkeleton();
    for (const name of SAMPLE_CLIP_NAMES) {
      for (const interpolation of ['slerp', 'nlerp'] as const) {
        const source = builtinClip(name);
        const b = new ClipBinding(new Clip({ name, interpolation, frameRate: source.frameRate, frameCount: source.frameCount, tracks: source.tracks, translations: source.translations, rotations: source.rotations, scales: source.scales }), rig);
        const random = mulberry32(7);
        const cursor = new ClipCursor();
        for (let k = 0; k < 40; k++) {
          // Any pose to blend into, the far hemisphere included; times between keys, on keys, at the wrap.
          const base = new Pose(rig.boneCount);
          for (let i = 0; i < base.translations.length; i++) base.translations[i] = random() * 20 - 10;
          for (let i = 0; i < base.rotations.length; i += 4) quatFromAxisAngle(base.rotations, i, 0.6, 0.8, 0, random() * 12 - 6);
          cursor.time = k === 0 ? b.clip.duration : k === 1 ? 0 : k < 4 ? b.clip.duration - 1e-4 : random() * 3 - 0.5;
          cursor.looping = k % 3 !== 0;
          const weights = Float64Array.of(k === 5 ? 1 : 0.3 + random() * 0.4, 0);
          weights[1] = 1 - weights[0];
          const alone = sampleClipAt(new Pose(rig.boneCount), b, cursor);
          const expected = poseBlendTwo(new Pose(rig.boneCount), base, alone, weights);
          const fused = sampleClipBlendInto(base, b, cursor, weights);
          expect(Array.from(fused.translations)).toEqual(Array.from(expected.translations));
          expect(Array.from(fused.rotations)).toEqual(Array.from(expected.rotations));
          expect(Array.from(fused.scales)).toEqual(Array.from(expected.scales));
        }
      }
    }
  });
});

/**
 * The documented bound of the series sines (see SLERP_SERIES_MAX_ANGLE): the weights' relative error
 * ε = φ^10 / 11! / (1 − φ² / 6) at the largest arc φ; components and length within ε / cos(φ / 2),
 * the rotation within tan(φ / 2) · ε rad; plus a few roundings.
 */
const SERIES_PHI = SLERP_SERIES_MAX_ANGLE;
const SERIES_EPS = SERIES_PHI ** 10 / 39916800 / (1 - SERIES_PHI ** 2 / 6);
const SERIES_COMPONENT_BOUND = SERIES_EPS / Math.cos(SERIES_PHI / 2) + 2e-15;
const SERIES_ANGLE_BOUND = Math.tan(SERIES_PHI / 2) * SERIES_EPS + 2e-15;

/** How far the sample q[o..] is from the exact slerp e: largest component, length and rotation angle. */
function slerpError(q: Float64Array, o: number, e: Float64Array, worst: { component: number; length: number; angle: number }): void {
  let len2 = 0;
  for (let i = 0; i < 4; i++) {
    worst.component = Math.max(worst.component, Math.abs(q[o + i] - e[i]));
    len2 += q[o + i] ** 2;
  }
  worst.length = Math.max(worst.length, Math.abs(Math.sqrt(len2) - 1));
  // The rotation from the sample to e: conjugate(q) * e, its angle 2 atan2(|xyz|, |w|) (precise when small).
  const ax = -q[o], ay = -q[o + 1], az = -q[o + 2], aw = q[o + 3];
  const rx = aw * e[0] + ax * e[3] + ay * e[2] - az * e[1];
  const ry = aw * e[1] - ax * e[2] + ay * e[3] + az * e[0];
  const rz = aw * e[2] + ax * e[1] - ay * e[0] + az * e[3];
  const rw = aw * e[3] - ax * e[0] - ay * e[1] - az * e[2];
  worst.angle = Math.max(worst.angle, 2 * Math.atan2(Math.hypot(rx, ry, rz), Math.abs(rw)));
}

describe('slerp sines from their series', () => {
  // One bone whose consecutive keys (1 fps) are `arcs` apart (quaternion arcs: half the rotation) about a fixed axis.
  function arcClip(arcs: readonly number[]): Clip {
    const c = new Clip({ name: 'arcs', frameRate: 1, frameCount: arcs.length + 1, tracks: [{ bone: 'root', translation: false, rotation: true, scale: false }] });
    let angle = 0.3;
    for (let f = 0; f <= arcs.length; f++) {
      quatFromAxisAngle(c.rotations, f * 4, 0.48, 0.6, 0.64, angle * 2);
      angle += arcs[f] ?? 0;
    }
    return c;
  }

  it('stays within the documented bound of exact slerp for spans up to SLERP_SERIES_MAX_ANGLE, and takes Math.sin above', () => {
    const below: number[] = [], above = [0.3501, 0.36, 0.5, 1, 1.5];
    for (let i = 1; i <= 70; i++) below.push(i * 0.005); // 0.005 ... 0.35
    const c = arcClip([...below, ...above]);
    const binding = new ClipBinding(c, skeleton);
    const spans = c.rotationSpans();
    expect(c.unitRotationKeys).toBe(true);
    const pose = new Pose(2), cursor = new ClipCursor(), exact = new Float64Array(4);
    const series = { component: 0, length: 0, angle: 0 }, sines = { component: 0, length: 0, angle: 0 };
    for (let f = 0; f + 1 < c.frameCount; f++) {
      const arc = f < below.length ? below[f] : above[f - below.length];
      // The spans know the arc (up to the rounding of the keys).
      if (spans[f * 2] !== 0) expect(spans[f * 2]).toBeCloseTo(arc, 12);
      for (let k = 1; k < 200; k++) {
        cursor.time = f + k / 200;
        sampleClipAt(pose, binding, cursor);
        quatSlerp(exact, 0, c.rotations, f * 4, c.rotations, (f + 1) * 4, cursor.time - f);
        // By the arc the spans computed from the keys (0.35 comes out as 0.34999999999999976).
        slerpError(pose.rotations, 0, exact, spans[f * 2] <= SLERP_SERIES_MAX_ANGLE ? series : sines);
      }
    }
    console.log(`series sines, arcs 0.005-0.35 rad: max ${series.component.toExponential(2)} per component (bound ${SERIES_COMPONENT_BOUND.toExponential(2)}), `
      + `${series.length.toExponential(2)} off unit length, ${series.angle.toExponential(2)} rad (bound ${SERIES_ANGLE_BOUND.toExponential(2)}); `
      + `Math.sin above: ${sines.component.toExponential(2)} per component, ${sines.angle.toExponential(2)} rad`);
    expect(series.component).toBeLessThan(SERIES_COMPONENT_BOUND);
    expect(series.length).toBeLessThan(SERIES_COMPONENT_BOUND);
    expect(series.angle).toBeLessThan(SERIES_ANGLE_BOUND);
    // The bound is not loose: the arc of 0.35 comes near it.
    expect(series.component).toBeGreaterThan(SERIES_COMPONENT_BOUND / 2);
    // Above the largest arc: Math.sin, exact to rounding (the series would be 2.5e-11 off at 0.5, 3e-6 at 1.5).
    expect(sines.component).toBeLessThan(1e-15);
    expect(sines.angle).toBeLessThan(1e-15);
  });
});

describeWithData('slerp sines from their series on the CMU captures', () => {
  it('stay within the documented bound of exact slerp on every span of every capture', () => {
    const worst = { component: 0, length: 0, angle: 0 };
    let spansTotal = 0, seriesSpans = 0, linearSpans = 0;
    const exact = new Float64Array(4);
    for (const file of readdirSync(CMU).filter((f) => f.endsWith('.bvh')).sort()) {
      const { skeleton: rig, clip } = loadBvh(readShared(`bvh/cmu/${file}`), file);
      const binding = new ClipBinding(clip, rig);
      const spans = clip.rotationSpans();
      expect(clip.unitRotationKeys).toBe(true);
      const n = clip.tracks.length;
      const pose = new Pose(rig.boneCount), cursor = new ClipCursor();
      for (let frame = 0; frame + 1 < clip.frameCount; frame++) {
        for (let t = 0; t < n; t++) {
          if (!clip.tracks[t].rotation) continue;
          const angle = spans[(frame * n + t) * 2];
          spansTotal++;
          if (angle === 0) linearSpans++;
          else if (angle <= SLERP_SERIES_MAX_ANGLE) seriesSpans++;
        }
        for (const k of [1, 2, 3, 4, 5, 6, 7]) {
          cursor.time = (frame + k / 8) / clip.frameRate;
          sampleClipAt(pose, binding, cursor);
          // The sampler's own fraction, recomputed as it does from the time.
          const f = cursor.time * clip.frameRate - frame;
          for (let bone = 0; bone < rig.boneCount; bone++) {
            const t = binding.rotationTrack[bone];
            if (t < 0) continue;
            quatSlerp(exact, 0, clip.rotations, (frame * n + t) * 4, clip.rotations, ((frame + 1) * n + t) * 4, f);
            slerpError(pose.rotations, bone * 4, exact, worst);
          }
        }
      }
    }
    console.log(`CMU captures, ${spansTotal} spans: ${(100 * seriesSpans / spansTotal).toFixed(1)}% take the series sines, `
      + `${(100 * linearSpans / spansTotal).toFixed(1)}% quatSlerp's linear fallback (arc below 0.0316), the rest Math.sin; `
      + `max ${worst.component.toExponential(2)} per component, ${worst.length.toExponential(2)} off unit length, ${worst.angle.toExponential(2)} rad from quatSlerp`);
    expect(seriesSpans).toBeGreaterThan(0);
    expect(worst.component).toBeLessThan(SERIES_COMPONENT_BOUND);
    expect(worst.length).toBeLessThan(SERIES_COMPONENT_BOUND);
    expect(worst.angle).toBeLessThan(SERIES_ANGLE_BOUND);
  });
});

describeWithData('unrenormalised slerp on the CMU captures', () => {
  it('stays within 1e-15 of the renormalised slerp and of unit length', () => {
    // Against a 40-digit slerp of these keys the unrenormalised samples were within 4.0e-16 per
    // component (renormalised: 2.6e-16); here the cheaper check against quatSlerp.
    const { skeleton: rig, clip: walk } = loadBvh(hasSharedData ? readShared('bvh/cmu/002_01.bvh') : '', 'walk');
    const binding = new ClipBinding(walk, rig);
    walk.rotationSpans();
    expect(walk.unitRotationKeys).toBe(true);
    const random = mulberry32(3);
    const cursor = new ClipCursor();
    const pose = new Pose(rig.boneCount);
    const exact = new Float64Array(4);
    const n = walk.tracks.length;
    let worst = 0, worstLength = 0, slerped = 0;
    for (let k = 0; k < 200; k++) {
      const frame = Math.floor(random() * (walk.frameCount - 1)), alpha = 0.01 + random() * 0.98;
      cursor.time = (frame + alpha) / walk.frameRate;
      cursor.looping = false;
      sampleClipAt(pose, binding, cursor);
      for (let bone = 0; bone < rig.boneCount; bone++) {
        const t = binding.rotationTrack[bone];
        if (t < 0) continue;
        if (walk.rotationSpans()[(frame * n + t) * 2] !== 0) slerped++;
        // The sampler's own fraction, recomputed as it does from the time.
        const f = cursor.time * walk.frameRate - frame;
        quatSlerp(exact, 0, walk.rotations, (frame * n + t) * 4, walk.rotations, ((frame + 1) * n + t) * 4, f);
        let len2 = 0;
        for (let i = 0; i < 4; i++) {
          worst = Math.max(worst, Math.abs(pose.rotations[bone * 4 + i] - exact[i]));
          len2 += pose.rotations[bone * 4 + i] ** 2;
        }
        worstLength = Math.max(worstLength, Math.abs(Math.sqrt(len2) - 1));
      }
    }
    // At 60 fps most consecutive keys are close enough for the linear fallback, renormalised as before.
    expect(slerped).toBeGreaterThan(300);
    expect(worst).toBeLessThan(1e-15);
    expect(worstLength).toBeLessThan(1e-15);
  });
});

describe('built-in sample data', () => {
  it('is a valid 22-bone biped whose clips loop without a seam and move the legs', () => {
    const s = sampleSkeleton();
    expect(s.boneCount).toBe(22);
    for (const name of SAMPLE_CLIP_NAMES) {
      const c = builtinClip(name);
      const n = c.tracks.length;
      const last = (c.frameCount - 1) * n;
      expectClose(c.rotations.subarray(last * 4, (last + n) * 4), c.rotations.subarray(0, n * 4), 1e-12);
    }
    const walk = builtinClip('walk');
    const thigh = s.indexOf('thigh_l');
    const quarter = Math.round((walk.frameCount - 1) / 4);
    const swing = Math.abs(walk.rotations[(quarter * walk.tracks.length + thigh) * 4] - walk.rotations[thigh * 4]);
    expect(swing).toBeGreaterThan(0.1);
  });
});
