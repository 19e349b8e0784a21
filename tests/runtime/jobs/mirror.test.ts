import { describe, expect, it } from 'vitest';
import { boneRole, boneSide, mirroredName, mirrorPartners } from '../../../runtime/core/bone-names.ts';
import { clipFramePose } from '../../../runtime/core/additive.ts';
import { Clip, ClipBinding } from '../../../runtime/core/clip.ts';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { quatFromAxisAngle } from '../../../runtime/core/math.ts';
import { mirrorClip, mirrorPose, mirrorTable } from '../../../runtime/core/mirror.ts';
import { Pose } from '../../../runtime/core/pose.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { loadBvh } from '../../../runtime/import/bvh.ts';
import { gltfRig, readGltf } from '../../../runtime/import/gltf.ts';
import { sampleClip, sampleSkeleton } from '../../../runtime/import/sample-data.ts';
import { extractRootMotion } from '../../../runtime/jobs/root-motion.ts';
import { describeWithData, readShared, SHARED_DATA } from '../../support/shared-data.ts';
import { readFileSync } from 'node:fs';

describe('bone-name conventions', () => {
  it('swaps sides in every convention, and only there', () => {
    const cases: [string, string][] = [
      ['mixamorig:LeftUpLeg', 'mixamorig:RightUpLeg'], ['LeftHandThumb1', 'RightHandThumb1'], ['thigh_l', 'thigh_r'],
      ['clavicle_r', 'clavicle_l'], ['Foot.L', 'Foot.R'], ['UpperArm.R', 'UpperArm.L'], ['CC_Base_L_Thigh', 'CC_Base_R_Thigh'],
      ['lShldr', 'rShldr'], ['Bip01 L Thigh', 'Bip01 R Thigh'], ['DEF-thigh.L', 'DEF-thigh.R'],
      ['Hips', 'Hips'], ['RL_BoneRoot', 'RL_BoneRoot'], ['Leg', 'Leg'], ['Ring1.L', 'Ring1.R'], ['pelvis', 'pelvis'],
    ];
    for (const [name, mirrored] of cases) {
      expect(mirroredName(name), name).toBe(mirrored);
      expect(mirroredName(mirrored), mirrored).toBe(name);
    }
  });

  it('reads sides and roles across conventions', () => {
    const roles: [string, string | null][] = [
      ['mixamorig:LeftUpLeg', 'thigh.L'], ['mixamorig:LeftLeg', 'calf.L'], ['mixamorig:LeftArm', 'upperarm.L'],
      ['mixamorig:LeftForeArm', 'forearm.L'], ['mixamorig:LeftShoulder', 'clavicle.L'], ['mixamorig:LeftHandIndex2', 'index2.L'],
      ['LeftUpLeg', 'thigh.L'], ['RightToeBase', 'toe.R'], ['thigh_l', 'thigh.L'], ['calf_r', 'calf.R'], ['ball_l', 'toe.L'],
      ['upperarm_r', 'upperarm.R'], ['lowerarm_l', 'forearm.L'], ['thumb_01_l', 'thumb1.L'], ['CC_Base_L_Upperarm', 'upperarm.L'],
      ['CC_Base_R_Calf', 'calf.R'], ['lShldr', 'upperarm.L'], ['rFoot', 'foot.R'], ['UpperLeg.L', 'thigh.L'], ['LowerArm.R', 'forearm.R'],
      ['Palm2.L', 'hand.L'], ['Neck', 'neck'], ['head', 'head'], ['Hips', 'pelvis'],
      // Helpers and names of no role.
      ['CC_Base_L_ThighTwist01', 'thigh.L'], ['CC_Base_L_KneeShareBone', null], ['PoleTarget.L', null], ['Bone', null], ['Abdomen', null],
      // A sided role without a side, or a centre role with one, is no role.
      ['Thigh', null], ['Head.L', null],
    ];
    for (const [name, role] of roles) expect(boneRole(name)?.role ?? null, name).toBe(role);
    // A twist bone ranks after the bone itself.
    expect(boneRole('CC_Base_L_ThighTwist01')!.rank).toBeGreaterThan(boneRole('CC_Base_L_Thigh')!.rank);
    expect(boneSide('LeftArm')).toBe('left');
    expect(boneSide('thigh_r')).toBe('right');
    expect(boneSide('spine_01')).toBe('center');
  });

  it('pairs bones by name, and pairs given by hand replace them', () => {
    const sk = Skeleton.fromDefinitions([
      { name: 'root' }, { name: 'a_l', parent: 'root' }, { name: 'a_r', parent: 'root' }, { name: 'b', parent: 'root' }, { name: 'c', parent: 'root' },
    ]);
    expect(Array.from(mirrorPartners(sk))).toEqual([0, 2, 1, 3, 4]);
    expect(Array.from(mirrorPartners(sk, [['a_l', 'b']]))).toEqual([0, 3, 2, 1, 4]);
    expect(Array.from(mirrorPartners(sk, [['b', 'c']]))).toEqual([0, 2, 1, 4, 3]);
  });
});

describe('mirroring a pose: known answers', () => {
  const skeleton = sampleSkeleton(); // Y up, facing +Z, left at +X, rest rotations the identity
  const table = mirrorTable(skeleton);

  it('finds the plane x = 0 and no corrections on the symmetric biped', () => {
    expect(table.axis).toBe(0);
    expect(table.correctedCount).toBe(0);
    expect(skeleton.boneNames[table.partner[skeleton.indexOf('hand_l')]]).toBe('hand_r');
    expect(table.partner[skeleton.indexOf('pelvis')]).toBe(skeleton.indexOf('pelvis'));
  });

  it('a left arm raised 40° about z becomes the right arm raised 40° the other way, the spine turned about y turns back', () => {
    const pose = new Pose(skeleton.boneCount);
    pose.translations.set(skeleton.referencePose.translations);
    const upper = skeleton.indexOf('upperarm_l'), right = skeleton.indexOf('upperarm_r'), spine = skeleton.indexOf('spine_01');
    quatFromAxisAngle(pose.rotations, upper * 4, 0, 0, 1, 0.7);
    quatFromAxisAngle(pose.rotations, spine * 4, 0, 1, 0, 0.3);
    pose.translations[skeleton.indexOf('pelvis') * 3] = 5;
    mirrorPose(pose, table);
    const expected = new Float64Array(8);
    quatFromAxisAngle(expected, 0, 0, 0, 1, -0.7);
    quatFromAxisAngle(expected, 4, 0, 1, 0, -0.3);
    // Compared as numbers (a zero's sign is the reflection's business).
    const values = (a: Float64Array, at: number) => Array.from(a.subarray(at, at + 4), (v) => v + 0);
    expect(values(pose.rotations, right * 4)).toEqual(values(expected, 0));
    expect(values(pose.rotations, upper * 4)).toEqual([0, 0, 0, 1]);
    expect(values(pose.rotations, spine * 4)).toEqual(values(expected, 4));
    expect(pose.translations[skeleton.indexOf('pelvis') * 3]).toBe(-5);
    // The arms' reference offsets swapped and reflected: the same numbers on a symmetric rig.
    expect(pose.translations[upper * 3]).toBe(skeleton.referencePose.translations[upper * 3]);
  });

  it('the mirrored reference pose is the reference pose, and component positions reflect (x → −x) to rounding', () => {
    const clip = sampleClip('walk');
    const binding = new ClipBinding(clip, skeleton);
    const pose = clipFramePose(new Pose(skeleton.boneCount), binding, 7);
    const mirrored = clipFramePose(new Pose(skeleton.boneCount), binding, 7);
    mirrorPose(mirrored, table);
    const a = new ComponentPose(skeleton), b = new ComponentPose(skeleton);
    a.setFromLocal(pose); a.ensureAllComponent();
    b.setFromLocal(mirrored); b.ensureAllComponent();
    for (let bone = 0; bone < skeleton.boneCount; bone++) {
      const p = table.partner[bone];
      expect(b.translations[bone * 3]).toBeCloseTo(-a.translations[p * 3], 9);
      expect(b.translations[bone * 3 + 1]).toBeCloseTo(a.translations[p * 3 + 1], 9);
      expect(b.translations[bone * 3 + 2]).toBeCloseTo(a.translations[p * 3 + 2], 9);
    }
  });

  it('a corrected rig (left bones rolled 90° more than a mirror of the right) still mirrors its reference pose onto itself', () => {
    const q = new Float64Array(8);
    quatFromAxisAngle(q, 0, 0, 1, 0, Math.PI / 2);
    quatFromAxisAngle(q, 4, 1, 0, 0, 0.25);
    const sk = Skeleton.fromDefinitions([
      { name: 'hips' },
      { name: 'arm_l', parent: 'hips', translation: [10, 0, 0], rotation: [q[0], q[1], q[2], q[3]] },
      { name: 'arm_r', parent: 'hips', translation: [-10, 0, 0] },
      { name: 'hand_l', parent: 'arm_l', translation: [0, 0, 20], rotation: [q[4], q[5], q[6], q[7]] },
      { name: 'hand_r', parent: 'arm_r', translation: [-20, 0, 0] },
    ]);
    const t = mirrorTable(sk);
    expect(t.correctedCount).toBe(4);
    const pose = new Pose(sk.boneCount);
    pose.translations.set(sk.referencePose.translations);
    pose.rotations.set(sk.referencePose.rotations);
    mirrorPose(pose, t);
    for (let i = 0; i < pose.rotations.length; i += 4) {
      const dot = pose.rotations[i] * sk.referencePose.rotations[i] + pose.rotations[i + 1] * sk.referencePose.rotations[i + 1]
        + pose.rotations[i + 2] * sk.referencePose.rotations[i + 2] + pose.rotations[i + 3] * sk.referencePose.rotations[i + 3];
      expect(Math.abs(dot)).toBeCloseTo(1, 12);
    }
    for (let i = 0; i < pose.translations.length; i++) expect(pose.translations[i]).toBeCloseTo(sk.referencePose.translations[i], 12);
  });

  it('root motion of a mirrored clip is mirrored: sideways motion and turns change sign', () => {
    const sk = Skeleton.fromDefinitions([{ name: 'root' }, { name: 'hips', parent: 'root', translation: [0, 90, 0] }]);
    const frames = 11;
    const clip = new Clip({ name: 'arc', frameRate: 10, frameCount: frames, tracks: [{ bone: 'hips', translation: true, rotation: true, scale: false }] });
    for (let f = 0; f < frames; f++) {
      clip.translations.set([3 * f, 90, 10 * f], f * 3);
      quatFromAxisAngle(clip.rotations, f * 4, 0, 1, 0, 0.05 * f);
    }
    const plain = extractRootMotion(clip.sliceFrames(0), 'hips');
    const mirrored = extractRootMotion(mirrorClip(clip, sk, mirrorTable(sk, { plane: 'x' })), 'hips');
    for (let f = 0; f < frames; f++) {
      expect(mirrored.translations[f * 3]).toBeCloseTo(-plain.translations[f * 3], 12);
      expect(mirrored.translations[f * 3 + 2]).toBeCloseTo(plain.translations[f * 3 + 2], 12);
      expect(mirrored.headings[f]).toBeCloseTo(-plain.headings[f], 12);
    }
    expect(plain.headings[frames - 1]).toBeCloseTo(0.5, 12);
  });
});

describeWithData('mirroring real data', () => {
  it('CMU 002_01: mirroring every frame twice gives back the very same numbers (bit for bit)', () => {
    const { skeleton, clip } = loadBvh(readShared('bvh/cmu/002_01.bvh'), 'walk');
    const table = mirrorTable(skeleton);
    expect(table.axis).toBe(0);
    expect(table.correctedCount).toBe(0);
    let pairs = 0;
    for (let b = 0; b < skeleton.boneCount; b++) if (table.partner[b] > b) pairs++;
    expect(pairs).toBe(42);
    const binding = new ClipBinding(clip, skeleton);
    const pose = new Pose(skeleton.boneCount), twice = new Pose(skeleton.boneCount);
    let changed = 0;
    for (let f = 0; f < clip.frameCount; f++) {
      clipFramePose(pose, binding, f);
      clipFramePose(twice, binding, f);
      mirrorPose(twice, table);
      for (let i = 0; i < pose.rotations.length; i++) if (twice.rotations[i] !== pose.rotations[i]) changed++;
      mirrorPose(twice, table);
      for (const [a, b] of [[pose.translations, twice.translations], [pose.rotations, twice.rotations], [pose.scales, twice.scales]]) {
        for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) throw new Error(`frame ${f}: value ${i} is ${b[i]}, was ${a[i]}`);
      }
    }
    expect(changed).toBeGreaterThan(clip.frameCount * 100); // mirroring once did change the poses
  });

  it('CMU 002_01: the mirrored walk steps with the other foot (component positions reflected)', () => {
    const { skeleton, clip } = loadBvh(readShared('bvh/cmu/002_01.bvh'), 'walk');
    const table = mirrorTable(skeleton);
    const mirrored = mirrorClip(clip, skeleton, table);
    const a = new ComponentPose(skeleton), b = new ComponentPose(skeleton);
    const left = skeleton.indexOf('CC_Base_L_Foot'), right = skeleton.indexOf('CC_Base_R_Foot');
    let worst = 0;
    for (let f = 0; f < clip.frameCount; f += 10) {
      a.setFromLocal(clipFramePose(new Pose(skeleton.boneCount), new ClipBinding(clip, skeleton), f)); a.ensureAllComponent();
      b.setFromLocal(clipFramePose(new Pose(skeleton.boneCount), new ClipBinding(mirrored, skeleton), f)); b.ensureAllComponent();
      worst = Math.max(worst, Math.abs(b.translations[right * 3] + a.translations[left * 3]), Math.abs(b.translations[right * 3 + 1] - a.translations[left * 3 + 1]),
        Math.abs(b.translations[right * 3 + 2] - a.translations[left * 3 + 2]));
    }
    // The capture's left and right bone offsets differ by up to a few millimetres: a mirrored foot lands where the
    // left foot was, to the asymmetry of the performer's skeleton.
    expect(worst).toBeLessThan(2);
  });

  it('RobotExpressive: corrected bones keep the mirrored reference pose; mirroring twice returns the pose to 1e-12', () => {
    const doc = readGltf(new Uint8Array(readFileSync(`${SHARED_DATA}gltf/RobotExpressive.glb`)));
    const rig = gltfRig(doc, 0);
    const skeleton = rig.skeleton;
    const table = mirrorTable(skeleton);
    expect(table.axis).toBe(0);
    expect(table.correctedCount).toBeGreaterThan(0);
    const pose = new Pose(skeleton.boneCount);
    pose.translations.set(skeleton.referencePose.translations);
    pose.rotations.set(skeleton.referencePose.rotations);
    pose.scales.set(skeleton.referencePose.scales);
    mirrorPose(pose, table);
    const ref = new ComponentPose(skeleton), mir = new ComponentPose(skeleton);
    ref.setFromLocal(skeleton.referencePose); ref.ensureAllComponent();
    mir.setFromLocal(pose); mir.ensureAllComponent();
    let worstRotation = 0;
    for (let b = 0; b < skeleton.boneCount; b++) {
      let dot = 0;
      for (let k = 0; k < 4; k++) dot += ref.rotations[b * 4 + k] * mir.rotations[b * 4 + k];
      worstRotation = Math.max(worstRotation, 2 * Math.acos(Math.min(1, Math.abs(dot))));
    }
    // Corrections closer than 2.8e-5 rad to none are not made.
    expect(worstRotation).toBeLessThan(3e-5);
    mirrorPose(pose, table);
    for (let i = 0; i < pose.rotations.length; i++) expect(Math.abs(pose.rotations[i] - skeleton.referencePose.rotations[i])).toBeLessThan(1e-12);
    for (let i = 0; i < pose.translations.length; i++) expect(Math.abs(pose.translations[i] - skeleton.referencePose.translations[i])).toBeLessThan(1e-12);
  });
});
