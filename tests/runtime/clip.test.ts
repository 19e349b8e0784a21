import { describe, expect, it } from 'vitest';
import { Clip, ClipBinding, ClipCursor, clipLocalTime, sampleClip, sampleClipAt, sampleClipBlendInto } from '../../runtime/clip.ts';
import { quatFromAxisAngle, quatSlerp } from '../../runtime/math.ts';
import { loadBvh } from '../../runtime/bvh.ts';
import { Pose, poseBlendTwo } from '../../runtime/pose.ts';
import { mulberry32 } from '../../bench/crowd-cases.ts';
import { SAMPLE_CLIP_NAMES, sampleClip as builtinClip, sampleSkeleton } from '../../runtime/sample-data.ts';
import { Skeleton } from '../../runtime/skeleton.ts';
import { expectClose } from '../support/graphs.ts';
import { describeWithData, hasSharedData, readShared } from '../support/shared-data.ts';

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
    expect(() => clip().sliceFrames(2, 1)).toThrow(RangeError);
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
    // Keys rounded to single precision (as a glTF file stores them) are further off: renormalised.
    const rounded = clip();
    rounded.rotations.set(Float32Array.from(rounded.rotations));
    rounded.rotations[7] *= 1 + 1e-6;
    rounded.rotationSpans();
    expect(rounded.unitRotationKeys).toBe(false);
    const q = sampleClip(new Pose(2), new ClipBinding(rounded, skeleton), 0.125, false).rotations;
    expect(Math.abs(q[0] ** 2 + q[1] ** 2 + q[2] ** 2 + q[3] ** 2 - 1)).toBeLessThan(1e-15);
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
