import { describe, expect, it } from 'vitest';
import { Clip, ClipBinding, clipLocalTime, sampleClip } from '../../runtime/clip.ts';
import { quatFromAxisAngle } from '../../runtime/math.ts';
import { Pose } from '../../runtime/pose.ts';
import { SAMPLE_CLIP_NAMES, sampleClip as builtinClip, sampleSkeleton } from '../../runtime/sample-data.ts';
import { Skeleton } from '../../runtime/skeleton.ts';
import { expectClose } from '../support/graphs.ts';

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
