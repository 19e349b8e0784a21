import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../../host/files.ts';
import { loadBvh } from '../../../runtime/import/bvh.ts';
import { Pose } from '../../../runtime/core/pose.ts';
import { sampleSkeleton } from '../../../runtime/import/sample-data.ts';
import { Skeleton, SkeletonError } from '../../../runtime/core/skeleton.ts';
import { axisAngle, gaitBvh, writeGait } from '../../support/gait-bvh.ts';
import { CMU, describeWithData, SHARED_DATA } from '../../support/shared-data.ts';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { gltfRig, readGltf } from '../../../runtime/import/gltf.ts';

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

  it('measures bones in component space: a root scaled by 100 over bones a hundredth as long (a glTF armature) has the same legs', () => {
    const biped = sampleSkeleton();
    const scaled = new Pose(biped.boneCount);
    scaled.translations.set(biped.referencePose.translations);
    scaled.rotations.set(biped.referencePose.rotations);
    scaled.scales.set(biped.referencePose.scales);
    const root = biped.parents.indexOf(-1);
    for (let b = 0; b < biped.boneCount; b++) for (let k = 0; k < 3; k++) {
      if (b === root) scaled.scales[b * 3 + k] *= 100;
      else scaled.translations[b * 3 + k] /= 100;
    }
    // Local lengths alone gave 0.83 here, a hundredth of the biped's.
    expect(new Skeleton(biped.boneNames, biped.parents, scaled).legLength / biped.legLength).toBeCloseTo(1, 12);
    // A non-uniform scale stretches lengths along its axis only: a chain along x doubled, one along y not.
    const pose = new Pose(3);
    pose.rotations.set([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
    pose.scales.fill(1);
    pose.scales[0] = 2;
    pose.translations.set([0, 0, 0, 1, 0, 0, 0, 3, 0]);
    expect(new Skeleton(['root', 'x', 'y'], [-1, 0, 0], pose).legLength).toBeCloseTo(0.38 * (2 + 3), 12);
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

  it('sizes RobotExpressive (a glTF armature scaled by 100 over bones in hundredths) by its posed legs, not a hundredth of them', () => {
    const skeleton = gltfRig(readGltf(readFileSync(`${SHARED_DATA}gltf/RobotExpressive.glb`), { source: 'RobotExpressive.glb' }), 0).skeleton;
    const posed = new ComponentPose(skeleton);
    posed.setFromLocal(skeleton.referencePose);
    posed.ensureAllComponent();
    const at = (name: string) => posed.translations.subarray(skeleton.indexOf(name) * 3, skeleton.indexOf(name) * 3 + 3);
    const along = (a: string, b: string) => Math.hypot(at(a)[0] - at(b)[0], at(a)[1] - at(b)[1], at(a)[2] - at(b)[2]);
    const leg = along('UpperLeg.L', 'LowerLeg.L') + along('LowerLeg.L', 'Foot.L');
    expect(leg).toBeCloseTo(1.539, 3);
    // The estimate assumes human proportions (0.38 of the span); the robot's long arms make its span
    // longer for its legs than a person's, so it reads 2.0 legs. Local lengths alone read 0.02.
    expect(skeleton.legLength / leg).toBeGreaterThan(1.5);
    expect(skeleton.legLength / leg).toBeLessThan(2.5);
  });
});
