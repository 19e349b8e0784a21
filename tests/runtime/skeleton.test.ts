import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../host/files.ts';
import { loadBvh } from '../../runtime/bvh.ts';
import { Pose } from '../../runtime/pose.ts';
import { sampleSkeleton } from '../../runtime/sample-data.ts';
import { Skeleton, SkeletonError } from '../../runtime/skeleton.ts';
import { axisAngle, gaitBvh, writeGait } from '../support/gait-bvh.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';

const gait = (unit: number, reference = axisAngle([1, 0.3, 0.5], 1.2)) => gaitBvh({
  order: 'ZXY', up: 'y', unit, headingDeg: 30, pitchDeg: 15, rollDeg: 8, strides: 1, framesPerStride: 10, fps: 100, speed: 3, reference,
});

describe('skeleton size and units', () => {
  it('estimates the leg length from bone lengths alone, in the skeleton\'s units', () => {
    // The hand-made gait's legs are 0.88 m hip to ankle; its span, foot to foot, is 1.98 m.
    const metres = loadBvh(gait(1).text, 'g').skeleton;
    const centimetres = loadBvh(gait(100).text, 'g').skeleton;
    expect(metres.legLength).toBeCloseTo(0.38 * (0.88 * 2 + 2 * Math.hypot(0.1, 0.05)), 12);
    expect(centimetres.legLength / metres.legLength).toBeCloseTo(100, 9);
    // The rig rotation changes the rest pose, not the bone lengths.
    expect(loadBvh(gait(1, [0, 0, 0, 1]).text, 'g').skeleton.legLength).toBeCloseTo(metres.legLength, 12);
    // The built-in biped: thigh to ankle 85 cm.
    expect(sampleSkeleton().legLength).toBeCloseTo(83, 0);
  });

  it('falls back to 0.9 m when the bones have no length, and keeps its size when helper bones are added', () => {
    const single = loadBvh('HIERARCHY\nROOT hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0\n', 'one').skeleton;
    expect(single.legLength).toBe(90);
    expect(single.withUnits('m').legLength).toBe(0.9);
    const biped = sampleSkeleton();
    const armed = biped.withExtraBones([{ name: 'sword_tip', parent: 'hand_r', translation: [-120, 0, 0] }]);
    expect(armed.legLength).toBe(biped.legLength);
  });

  it('reads the units the asset declares, centimetres by default', () => {
    const file = writeGait(gait(1));
    const asset = (units?: unknown) => ({
      format: 'animgraph/1', ...(units === undefined ? {} : { units }), skeleton: { bvh: file },
      helperBones: [{ name: 'prop', parent: 'Head', translation: [0, 0.2, 0] }],
      clips: { g: { source: file } }, nodes: { p: { type: 'SequencePlayer', properties: { clip: 'g' } } }, output: 'p',
    });
    const inMetres = loadGraphAsset(asset('m')).skeleton;
    expect([inMetres.units, inMetres.metresPerUnit, inMetres.indexOf('prop')]).toEqual(['m', 1, 9]);
    expect(inMetres.legLength).toBeCloseTo(0.38 * 1.98, 2);
    const byDefault = loadGraphAsset(asset()).skeleton;
    expect([byDefault.units, byDefault.metresPerUnit]).toEqual(['cm', 0.01]);
    const wrong = checkGraphAsset(asset('mm'));
    expect(!wrong.ok && wrong.problems.map((p) => [p.path, p.code])).toEqual([['$.units', 'schema']]);
  });
});

describe('skeleton reference pose', () => {
  it('refuses a reference translation, rotation or scale that is not finite, every bone at once (a bone without a track samples it each frame)', () => {
    const pose = new Pose(3);
    pose.rotations.set([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
    pose.scales.fill(1);
    pose.translations[1] = Number.NaN;
    pose.rotations[8 + 3] = Number.POSITIVE_INFINITY;
    pose.scales[3] = Number.NEGATIVE_INFINITY;
    let error: unknown;
    try {
      new Skeleton(['root', 'spine', 'head'], [-1, 0, 1], pose);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SkeletonError);
    expect((error as SkeletonError).problems).toEqual([
      { bone: 0, message: "bone 'root': reference translation (0, NaN, 0) is not finite" },
      { bone: 1, message: "bone 'spine': reference scale (-Infinity, 1, 1) is not finite" },
      { bone: 2, message: "bone 'head': reference rotation (0, 0, 0, Infinity) is not finite" },
    ]);
    pose.translations[1] = 0;
    pose.rotations[8 + 3] = 1;
    pose.scales[3] = 1e300; // finite: a skeleton of its own may hold it (the asset loader bounds it, at 1e15)
    expect(new Skeleton(['root', 'spine', 'head'], [-1, 0, 1], pose).referencePose.scales[3]).toBe(1e300);
  });
});

describeWithData('skeleton size of the CMU captures', () => {
  it('is within 5% of the hip-to-ankle length', () => {
    // CMU subject 2: thigh 47.67 cm and calf 49.82 cm along the bones.
    const skeleton = loadBvh(readFileSync(`${CMU}002_01.bvh`, 'utf8'), 'walk').skeleton;
    expect(Math.abs(skeleton.legLength / 97.5 - 1)).toBeLessThan(0.05);
  });
});
