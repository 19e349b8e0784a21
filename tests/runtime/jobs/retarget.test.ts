import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { autoBoneMap, boneRoles } from '../../../runtime/core/bone-names.ts';
import { clipFramePose } from '../../../runtime/core/additive.ts';
import { Clip, ClipBinding } from '../../../runtime/core/clip.ts';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { quatFromAxisAngle, quatMultiply, quatRotateVec3 } from '../../../runtime/core/math.ts';
import { Pose } from '../../../runtime/core/pose.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { loadBvh } from '../../../runtime/import/bvh.ts';
import { gltfRig, readGltf } from '../../../runtime/import/gltf.ts';
import { RetargetPlan, retargetClip } from '../../../runtime/jobs/retarget.ts';
import { describeWithData, readShared, SHARED_DATA } from '../../support/shared-data.ts';

type V3 = [number, number, number];
const sub = (a: ArrayLike<number>, i: number, b: ArrayLike<number>, j: number): V3 => [a[i * 3] - b[j * 3], a[i * 3 + 1] - b[j * 3 + 1], a[i * 3 + 2] - b[j * 3 + 2]];
const norm = (v: V3) => Math.hypot(v[0], v[1], v[2]);
const angle = (a: V3, b: V3) => Math.atan2(norm([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
const rotate = (q: ArrayLike<number>, v: V3): V3 => Array.from(quatRotateVec3(new Float64Array(3), 0, Float64Array.from(q), 0, Float64Array.from(v), 0)) as V3;
const conj = (q: ArrayLike<number>, o = 0) => Float64Array.of(-q[o], -q[o + 1], -q[o + 2], q[o + 3]);
const mul = (a: Float64Array, b: Float64Array) => quatMultiply(new Float64Array(4), 0, a, 0, b, 0);

function composed(skeleton: Skeleton, pose: Pose): ComponentPose {
  const cs = new ComponentPose(skeleton);
  cs.setFromLocal(pose);
  cs.ensureAllComponent();
  return cs;
}

// A T-pose source (every rest rotation the identity) and an A-pose target of other proportions whose
// bones carry arbitrary rest rotations, as glTF rigs do: each bone's translation is written in its
// parent's rotated frame so that the target's reference pose stands with its arms 45° down.
function sourceSkeleton(): Skeleton {
  return Skeleton.fromDefinitions([
    { name: 'Hips', translation: [0, 100, 0] },
    { name: 'Spine', parent: 'Hips', translation: [0, 20, 0] },
    { name: 'Neck', parent: 'Spine', translation: [0, 30, 0] },
    { name: 'LeftArm', parent: 'Spine', translation: [20, 25, 0] },
    { name: 'LeftForeArm', parent: 'LeftArm', translation: [30, 0, 0] },
    { name: 'LeftHand', parent: 'LeftForeArm', translation: [25, 0, 0] },
    { name: 'LeftUpLeg', parent: 'Hips', translation: [10, -5, 0] },
    { name: 'LeftLeg', parent: 'LeftUpLeg', translation: [0, -45, 0] },
    { name: 'LeftFoot', parent: 'LeftLeg', translation: [0, -45, 0] },
    { name: 'RightUpLeg', parent: 'Hips', translation: [-10, -5, 0] },
    { name: 'RightLeg', parent: 'RightUpLeg', translation: [0, -45, 0] },
    { name: 'RightFoot', parent: 'RightLeg', translation: [0, -45, 0] },
  ]);
}

function targetSkeleton(): Skeleton {
  const q = (x: number, y: number, z: number, a: number): [number, number, number, number] => {
    const out = quatFromAxisAngle(new Float64Array(4), 0, x, y, z, a);
    return [out[0], out[1], out[2], out[3]];
  };
  // Component-space rest rotation of each bone and its position; local = parent⁻¹ · own.
  const bones: { name: string; parent: string | null; cs: [number, number, number, number]; at: V3 }[] = [
    { name: 'pelvis', parent: null, cs: q(1, 0, 0, -Math.PI / 2), at: [0, 50, 0] },
    { name: 'spine_01', parent: 'pelvis', cs: q(0, 1, 0, 0.4), at: [0, 60, 0] },
    { name: 'neck_01', parent: 'spine_01', cs: q(0, 0, 1, 0.2), at: [0, 75, 0] },
    { name: 'upperarm_l', parent: 'spine_01', cs: q(0, 0, 1, -Math.PI / 4), at: [8, 72, 0] },
    { name: 'lowerarm_l', parent: 'upperarm_l', cs: q(1, 0, 0, 1), at: [8 + 12 * Math.SQRT1_2, 72 - 12 * Math.SQRT1_2, 0] },
    { name: 'hand_l', parent: 'lowerarm_l', cs: q(0, 1, 0, 2), at: [8 + 22 * Math.SQRT1_2, 72 - 22 * Math.SQRT1_2, 0] },
    { name: 'thigh_l', parent: 'pelvis', cs: q(0, 0, 1, Math.PI), at: [6, 47, 0] },
    { name: 'calf_l', parent: 'thigh_l', cs: q(0, 0, 1, Math.PI), at: [6, 27, 0] },
    { name: 'foot_l', parent: 'calf_l', cs: q(1, 1, 0, 0.5), at: [6, 7, 0] },
    { name: 'thigh_r', parent: 'pelvis', cs: q(0, 1, 0, 1), at: [-6, 47, 0] },
    { name: 'calf_r', parent: 'thigh_r', cs: q(0, 1, 0, 1), at: [-6, 27, 0] },
    { name: 'foot_r', parent: 'calf_r', cs: q(0, 0, 1, 0.1), at: [-6, 7, 0] },
  ];
  const cs = new Map(bones.map((b) => [b.name, b]));
  return Skeleton.fromDefinitions(bones.map((b) => {
    if (b.parent === null) return { name: b.name, translation: b.at, rotation: b.cs };
    const p = cs.get(b.parent)!;
    const inv = conj(p.cs);
    const rot = mul(inv, Float64Array.from(b.cs));
    const t = rotate(inv, [b.at[0] - p.at[0], b.at[1] - p.at[1], b.at[2] - p.at[2]]);
    return { name: b.name, parent: b.parent, translation: t, rotation: [rot[0], rot[1], rot[2], rot[3]] };
  }));
}

describe('retargeting: known answers', () => {
  const source = sourceSkeleton(), target = targetSkeleton();

  it('matches Mixamo-style names to mannequin-style names, pelvis and spine by structure', () => {
    const map = autoBoneMap(source, target);
    const named = Object.fromEntries(target.boneNames.map((n, i) => [n, map[i] >= 0 ? source.boneNames[map[i]] : null]));
    expect(named).toEqual({
      pelvis: 'Hips', spine_01: 'Spine', neck_01: 'Neck', upperarm_l: 'LeftArm', lowerarm_l: 'LeftForeArm', hand_l: 'LeftHand',
      thigh_l: 'LeftUpLeg', calf_l: 'LeftLeg', foot_l: 'LeftFoot', thigh_r: 'RightUpLeg', calf_r: 'RightLeg', foot_r: 'RightFoot',
    });
    expect(boneRoles(source).get('spine')).toEqual([source.indexOf('Spine')]);
  });

  it('a T-pose source arm raised 90° raises the A-pose target arm 90° (45° above level), lengths kept exactly', () => {
    const frames = 2;
    const clip = new Clip({ name: 'raise', frameRate: 1, frameCount: frames, tracks: [
      { bone: 'LeftArm', translation: false, rotation: true, scale: false },
      { bone: 'LeftUpLeg', translation: false, rotation: true, scale: false },
      { bone: 'Hips', translation: true, rotation: false, scale: false },
    ] });
    // Frame 1: the arm up (90° about z), the left leg forward (−40° about x), the hips 10 forward and 4 down.
    quatFromAxisAngle(clip.rotations, 3 * 4, 0, 0, 1, Math.PI / 2);
    quatFromAxisAngle(clip.rotations, 4 * 4, 1, 0, 0, -0.7);
    clip.translations.set([0, 100, 0], 2 * 3);
    clip.translations.set([0, 96, 10], 5 * 3);
    const { clip: out, info } = retargetClip(clip, source, target);
    // Hip heights above each reference's lowest bone: 100 - 5 = 95 and 50 - 7 = 43.
    expect(info.scale).toBeCloseTo(43 / 95, 14);
    expect(Array.from(info.alignment)).toEqual([0, 0, 0, 1]);
    const binding = new ClipBinding(out, target);
    const rest = composed(target, clipFramePose(new Pose(target.boneCount), binding, 0));
    const moved = composed(target, clipFramePose(new Pose(target.boneCount), binding, 1));
    const ref = composed(target, target.referencePose);
    // Frame 0 is each skeleton's reference: the target stands in its own reference pose.
    for (let i = 0; i < ref.translations.length; i++) expect(rest.translations[i]).toBeCloseTo(ref.translations[i], 12);
    const bone = (n: string) => target.indexOf(n);
    // The forearm was 45° below level: turned 90° up about z, it points 45° above.
    const arm = sub(moved.translations, bone('lowerarm_l'), moved.translations, bone('upperarm_l'));
    expect(arm[0] / norm(arm)).toBeCloseTo(Math.SQRT1_2, 12);
    expect(arm[1] / norm(arm)).toBeCloseTo(Math.SQRT1_2, 12);
    expect(norm(arm)).toBeCloseTo(12, 12);
    // The thigh pointed down: turned −0.7 rad about x, it points forward and down.
    const leg = sub(moved.translations, bone('calf_l'), moved.translations, bone('thigh_l'));
    expect(leg[1] / norm(leg)).toBeCloseTo(-Math.cos(0.7), 12);
    expect(leg[2] / norm(leg)).toBeCloseTo(Math.sin(0.7), 12);
    // The pelvis moved by the source's displacement times 43/95.
    expect(moved.translations[bone('pelvis') * 3 + 1]).toBeCloseTo(50 - 4 * 43 / 95, 12);
    expect(moved.translations[bone('pelvis') * 3 + 2]).toBeCloseTo(10 * 43 / 95, 12);
    // Every bone but the pelvis keeps its reference local translation, bit for bit.
    for (let b = 1; b < target.boneCount; b++) {
      for (let k = 0; k < 3; k++) expect(out.translations[(target.boneCount + b) * 3 + k]).toBe(target.referencePose.translations[b * 3 + k]);
    }
  });

  it('a source facing +x with z up drives a target facing +z with y up (the alignment)', () => {
    // The source turned: z up, left at -y (facing +x).
    const turned = Skeleton.fromDefinitions([
      { name: 'Hips', translation: [0, 0, 100] },
      { name: 'Neck', parent: 'Hips', translation: [0, 0, 50] },
      { name: 'LeftUpLeg', parent: 'Hips', translation: [0, 10, -5] },
      { name: 'LeftLeg', parent: 'LeftUpLeg', translation: [0, 0, -45] },
      { name: 'RightUpLeg', parent: 'Hips', translation: [0, -10, -5] },
      { name: 'RightLeg', parent: 'RightUpLeg', translation: [0, 0, -45] },
    ]);
    const clip = new Clip({ name: 'step', frameRate: 1, frameCount: 1, tracks: [{ bone: 'LeftUpLeg', translation: false, rotation: true, scale: false }] });
    // The leg swung forward (toward +x): about the source's lateral axis y by −0.5.
    quatFromAxisAngle(clip.rotations, 0, 0, 1, 0, -0.5);
    const { clip: out, info } = retargetClip(clip, turned, target);
    expect(info.sourceUp).toEqual([2, 1]);
    expect(info.targetUp).toEqual([1, 1]);
    const moved = composed(target, clipFramePose(new Pose(target.boneCount), new ClipBinding(out, target), 0));
    const leg = sub(moved.translations, target.indexOf('calf_l'), moved.translations, target.indexOf('thigh_l'));
    // Forward on the target is +z.
    expect(leg[2] / norm(leg)).toBeCloseTo(Math.sin(0.5), 12);
    expect(leg[1] / norm(leg)).toBeCloseTo(-Math.cos(0.5), 12);
  });

  it('with the hand pass, the hand lands where the scaled source puts it (to 1e-9), the arm\'s lengths kept exactly', () => {
    // Frame 1: the source's elbow bent 90° up (about z): its hand moves from (75, 145) to (50, 170).
    const clip = new Clip({ name: 'bend', frameRate: 1, frameCount: 2, tracks: [
      { bone: 'LeftForeArm', translation: false, rotation: true, scale: false },
      { bone: 'Hips', translation: true, rotation: false, scale: false },
    ] });
    quatFromAxisAngle(clip.rotations, 2 * 4, 0, 0, 1, Math.PI / 2);
    clip.translations.set([0, 100, 0], 0);
    clip.translations.set([0, 100, 0], 3 * 3);
    const hand = target.indexOf('hand_l');
    // The goal: the target's shoulder (8, 72) plus the source hand's offset from its shoulder, (30, 25),
    // scaled by the arms' lengths, 22/55: (20, 82), 15.6 from the shoulder, within the arm's reach of 12 ± 10.
    const goal: V3 = [8 + 30 * 0.4, 72 + 25 * 0.4, 0];
    const handAt = (hands: boolean) => {
      const { clip: out, info } = retargetClip(clip, source, target, { hands });
      const pose = composed(target, clipFramePose(new Pose(target.boneCount), new ClipBinding(out, target), 1));
      return { out, info, miss: norm(sub(pose.translations, hand, Float64Array.from(goal), 0)), pose };
    };
    const plain = handAt(false), reached = handAt(true);
    expect(reached.info.arms.map((arm) => arm.map((b) => target.boneNames[b]).join('>'))).toEqual(['upperarm_l>lowerarm_l>hand_l']);
    expect(plain.info.arms).toEqual([]);
    // Without the pass the target's elbow bends as the source's and the hand lands elsewhere (the arms' proportions differ).
    expect(plain.miss).toBeGreaterThan(1);
    expect(reached.miss).toBeLessThan(1e-9);
    // Every bone but the pelvis keeps its reference local translation, bit for bit: the arm bends, it does not stretch.
    const n = target.boneCount;
    for (let b = 1; b < n; b++) {
      for (let k = 0; k < 3; k++) expect(reached.out.translations[(n + b) * 3 + k]).toBe(target.referencePose.translations[b * 3 + k]);
    }
    // The hand keeps the rotation the source gives it (the pass turns the upper arm and forearm only).
    const r = (p: ComponentPose) => Array.from(p.rotations.subarray(hand * 4, hand * 4 + 4));
    r(reached.pose).forEach((x, i) => expect(x).toBeCloseTo(r(plain.pose)[i], 12));
  });

  it('refuses a map that matches nothing, and a map of the wrong length', () => {
    expect(() => new RetargetPlan(source, target, { map: new Int32Array(target.boneCount).fill(-1) })).toThrow(/nothing to retarget/);
    expect(() => new RetargetPlan(source, target, { map: new Int32Array(3) })).toThrow(/one entry per target bone/);
  });
});

/**
 * Planted-foot slide: the foot's mean horizontal travel per frame, over the frames where it and the
 * frame before are `planted`, in the positions' units times `unitsToCm`.
 */
function footSlide(planted: boolean[], positions: V3[], upAxis: number, unitsToCm: number): { slide: number; frames: number } {
  let total = 0, frames = 0;
  for (let f = 1; f < planted.length; f++) {
    if (!planted[f] || !planted[f - 1]) continue;
    const d = sub(positions[f], 0, positions[f - 1], 0);
    d[upAxis] = 0;
    total += norm(d);
    frames++;
  }
  return { slide: frames > 0 ? (total / frames) * unitsToCm : 0, frames };
}

describeWithData('retargeting the CMU slow walk (007_04, T-pose frame 0) onto RobotExpressive', () => {
  const { skeleton: source, clip: whole } = loadBvh(readShared('bvh/cmu/007_04.bvh'), 'walk');
  const robot = gltfRig(readGltf(new Uint8Array(readFileSync(`${SHARED_DATA}gltf/RobotExpressive.glb`))), 0).skeleton;
  const reference = clipFramePose(new Pose(source.boneCount), new ClipBinding(whole, source), 0);
  const clip = whole.sliceFrames(1);
  const { clip: out, info } = retargetClip(clip, source, robot, { sourceReference: reference });
  const sourceRef = composed(source, reference);
  const targetRef = composed(robot, robot.referencePose);
  const sourceBinding = new ClipBinding(clip, source), targetBinding = new ClipBinding(out, robot);
  const sourcePoses = Array.from({ length: clip.frameCount }, (_, f) => composed(source, clipFramePose(new Pose(source.boneCount), sourceBinding, f)));
  const targetPoses = Array.from({ length: clip.frameCount }, (_, f) => composed(robot, clipFramePose(new Pose(robot.boneCount), targetBinding, f)));
  const bone = (n: string) => robot.indexOf(n);

  it('maps the limbs, spine and pelvis by name; scales by the hip heights; the capture faces the robot\'s way', () => {
    const named = (t: string) => source.boneNames[info.map[bone(t)]];
    expect(named('Body')).toBe('CC_Base_Pelvis');
    expect(named('UpperLeg.L')).toBe('CC_Base_L_Thigh');
    expect(named('LowerArm.R')).toBe('CC_Base_R_Forearm');
    expect(named('Foot.R')).toBe('CC_Base_R_Foot');
    expect(named('Palm2.L')).toBe('CC_Base_L_Hand');
    expect(named('Torso')).toBe('CC_Base_Spine02');
    expect(info.map[bone('PoleTarget.L')]).toBe(-1);
    expect(robot.boneNames[info.root]).toBe('Body');
    // The pelvis's height above the lowest bone of each reference pose: 1.347 robot units and 99.8 cm.
    const height = (cs: ComponentPose, count: number, b: number) => {
      let lowest = Infinity;
      for (let i = 0; i < count; i++) lowest = Math.min(lowest, cs.translations[i * 3 + 1]);
      return cs.translations[b * 3 + 1] - lowest;
    };
    expect(info.scale).toBeCloseTo(height(targetRef, robot.boneCount, bone('Body')) / height(sourceRef, source.boneCount, source.indexOf('CC_Base_Pelvis')), 14);
    expect(info.scale).toBeCloseTo(0.013493, 6);
    // Both face +z with y up: the alignment is within 0.5° of none.
    expect(2 * Math.acos(Math.min(1, Math.abs(info.alignment[3])))).toBeLessThan(0.5 * Math.PI / 180);
  });

  it("keeps the robot's bone lengths exactly: every bone but the pelvis and the followers keeps its reference offset", () => {
    const n = robot.boneCount, ref = robot.referencePose.translations;
    // The feet hang from the robot's root and follow the lower legs; its thumbs hang from the forearms and follow the hands.
    const followers = robot.boneNames.filter((_, b) => info.anchors[b] >= 0).map((name, i) => `${name}>${robot.boneNames[info.anchors[robot.indexOf(name)]]}`);
    expect(followers).toEqual(['Foot.L>LowerLeg.L', 'Thumb.L>Palm2.L', 'Thumb.R>Palm2.R', 'Foot.R>LowerLeg.R']);
    let kept = 0, placed = 0;
    for (let f = 0; f < out.frameCount; f++) {
      for (let b = 0; b < n; b++) {
        if (b === info.root || info.anchors[b] >= 0) continue;
        placed++;
        if (out.translations[(f * n + b) * 3] === ref[b * 3] && out.translations[(f * n + b) * 3 + 1] === ref[b * 3 + 1] && out.translations[(f * n + b) * 3 + 2] === ref[b * 3 + 2]) kept++;
      }
    }
    expect(placed).toBe(out.frameCount * (n - 5));
    expect(kept).toBe(placed);
    // A follower keeps its reference distance from the bone it follows.
    for (let b = 0; b < n; b++) {
      const a = info.anchors[b];
      if (a < 0) continue;
      const rest = norm(sub(targetRef.translations, b, targetRef.translations, a));
      for (const pose of targetPoses) expect(Math.abs(norm(sub(pose.translations, b, pose.translations, a)) - rest)).toBeLessThan(1e-12);
    }
  });

  it("turns each limb in component space as the capture's limb turns from its T-pose (to 1e-9 rad)", () => {
    // For each mapped limb bone and the bone it reaches (child or follower): the target's direction is its
    // reference direction turned by A · (C_s · C_s,ref⁻¹) · A⁻¹, the source bone's change from its reference.
    const limbs: [string, string][] = [];
    for (const s of ['L', 'R']) limbs.push([`UpperLeg.${s}`, `LowerLeg.${s}`], [`LowerLeg.${s}`, `Foot.${s}`], [`UpperArm.${s}`, `LowerArm.${s}`], [`LowerArm.${s}`, `Palm2.${s}`]);
    const A = info.alignment;
    let worst = 0, moved = 0;
    for (let f = 0; f < clip.frameCount; f += 4) {
      for (const [from, to] of limbs) {
        const b = bone(from), s = info.map[b];
        const change = mul(mul(A, mul(Float64Array.from(sourcePoses[f].rotations.subarray(s * 4, s * 4 + 4)), conj(sourceRef.rotations, s * 4))), conj(A));
        const expected = rotate(change, sub(targetRef.translations, bone(to), targetRef.translations, b));
        const actual = sub(targetPoses[f].translations, bone(to), targetPoses[f].translations, b);
        worst = Math.max(worst, angle(expected, actual));
        moved = Math.max(moved, angle(actual, sub(targetRef.translations, bone(to), targetRef.translations, b)));
      }
    }
    expect(worst).toBeLessThan(1e-9);
    expect(moved).toBeGreaterThan(0.5); // the limbs did swing
  });

  it("legs follow the capture: each thigh keeps, every frame, the angle to the capture's thigh it had in the references (to 1e-9 rad)", () => {
    // The robot's reference thighs lean 22° forward (knees bent) where the capture's T-pose legs are straight.
    const thighAngle = (t: ComponentPose, s: ComponentPose, side: string) => {
      const thigh = source.indexOf(`CC_Base_${side}_Thigh`), calf = source.indexOf(`CC_Base_${side}_Calf`);
      return angle(sub(t.translations, bone(`LowerLeg.${side}`), t.translations, bone(`UpperLeg.${side}`)),
        rotate(info.alignment, sub(s.translations, calf, s.translations, thigh)));
    };
    let worst = 0;
    for (const side of ['L', 'R']) {
      const rest = thighAngle(targetRef, sourceRef, side);
      expect(rest * 180 / Math.PI).toBeGreaterThan(15);
      for (let f = 0; f < clip.frameCount; f += 4) worst = Math.max(worst, Math.abs(thighAngle(targetPoses[f], sourcePoses[f], side) - rest));
    }
    expect(worst).toBeLessThan(1e-9);
  });

  it("reports planted-foot slide on the robot next to the capture's", () => {
    const report: string[] = [];
    const at = (p: ComponentPose, b: number): V3 => [p.translations[b * 3], p.translations[b * 3 + 1], p.translations[b * 3 + 2]];
    for (const s of ['L', 'R']) {
      const sf = source.indexOf(`CC_Base_${s}_Foot`), tf = bone(`Foot.${s}`);
      // Planted: the capture's ankle within 3 cm of its lowest over the take.
      const heights = sourcePoses.map((p) => p.translations[sf * 3 + 1]);
      const lowest = Math.min(...heights);
      const planted = heights.map((h) => h - lowest <= 3);
      const src = footSlide(planted, sourcePoses.map((p) => at(p, sf)), 1, 1);
      const tgt = footSlide(planted, targetPoses.map((p) => at(p, tf)), 1, 1 / info.scale);
      report.push(`foot ${s}: capture ${src.slide.toFixed(2)} cm per planted frame; robot ${(tgt.slide * info.scale * 100).toFixed(2)} robot-cm `
        + `= ${tgt.slide.toFixed(2)} capture-cm at the hip-height scale ${info.scale.toFixed(6)} (${src.frames} planted frames)`);
      expect(src.frames).toBeGreaterThan(20);
      expect(src.slide).toBeLessThan(1);
      // Rotations carry over, proportions do not: the robot's planted feet slide, a few capture-centimetres per frame at most.
      expect(tgt.slide).toBeGreaterThan(src.slide);
      expect(tgt.slide).toBeLessThan(2 * src.slide + 0.5);
    }
    console.log(report.join('\n'));
  });

  it('with the foot pass, each foot reaches where the scaled capture puts it, and slides only as the capture does', () => {
    const { clip: ik, info: ikInfo } = retargetClip(clip, source, robot, { sourceReference: reference, feet: true });
    expect(ikInfo.legs.map((leg) => leg.map((b) => robot.boneNames[b]).join('>'))).toEqual(['UpperLeg.L>LowerLeg.L>Foot.L', 'UpperLeg.R>LowerLeg.R>Foot.R']);
    const binding = new ClipBinding(ik, robot);
    const poses = Array.from({ length: ik.frameCount }, (_, f) => composed(robot, clipFramePose(new Pose(robot.boneCount), binding, f)));
    const report: string[] = [];
    let worstReach = 0, reached = 0;
    for (const s of ['L', 'R']) {
      const sf = source.indexOf(`CC_Base_${s}_Foot`), tf = bone(`Foot.${s}`);
      const goal = (f: number): V3 => {
        const d = rotate(info.alignment, sub(sourcePoses[f].translations, sf, sourceRef.translations, sf).map((x) => x * info.scale) as V3);
        return [targetRef.translations[tf * 3] + d[0], targetRef.translations[tf * 3 + 1] + d[1], targetRef.translations[tf * 3 + 2] + d[2]];
      };
      for (let f = 0; f < ik.frameCount; f++) {
        const miss = norm(sub(poses[f].translations, tf, Float64Array.from(goal(f)), 0));
        if (miss < 1e-9) reached++;
        worstReach = Math.max(worstReach, miss);
      }
      const heights = sourcePoses.map((p) => p.translations[sf * 3 + 1]);
      const lowest = Math.min(...heights);
      const planted = heights.map((h) => h - lowest <= 3);
      const at = (p: ComponentPose, b: number): V3 => [p.translations[b * 3], p.translations[b * 3 + 1], p.translations[b * 3 + 2]];
      const src = footSlide(planted, sourcePoses.map((p) => at(p, sf)), 1, 1);
      const tgt = footSlide(planted, poses.map((p) => at(p, tf)), 1, 1 / info.scale);
      report.push(`foot ${s} with the foot pass: capture ${src.slide.toFixed(2)} cm, robot ${tgt.slide.toFixed(2)} capture-cm per planted frame`);
      // Where every planted frame's foot was reached, the robot's slide is the capture's, scaled.
      expect(tgt.slide).toBeCloseTo(src.slide, 6);
    }
    console.log(report.join('\n'), `\nfeet reached on ${reached} of ${2 * ik.frameCount} frames; farthest miss ${worstReach.toFixed(4)} robot units`);
    expect(reached).toBeGreaterThan(1.9 * ik.frameCount);
  });

  it('with the hand pass, each hand reaches where the scaled capture puts it, the arms\' lengths kept', () => {
    const { clip: ik, info: ikInfo } = retargetClip(clip, source, robot, { sourceReference: reference, hands: true });
    // The robot's hand is its first palm (its three palms hang from the forearm side by side).
    expect(ikInfo.arms.map((arm) => arm.map((b) => robot.boneNames[b]).join('>'))).toEqual(['UpperArm.L>LowerArm.L>Palm1.L', 'UpperArm.R>LowerArm.R>Palm1.R']);
    expect(ikInfo.legs).toEqual([]);
    const binding = new ClipBinding(ik, robot);
    const poses = Array.from({ length: ik.frameCount }, (_, f) => composed(robot, clipFramePose(new Pose(robot.boneCount), binding, f)));
    let reached = 0, worst = 0, plainWorst = 0;
    for (const s of ['L', 'R']) {
      const sh = source.indexOf(`CC_Base_${s}_Hand`), th = bone(`Palm1.${s}`);
      const su = source.indexOf(`CC_Base_${s}_Upperarm`), sf = source.indexOf(`CC_Base_${s}_Forearm`), tu = bone(`UpperArm.${s}`), tf = bone(`LowerArm.${s}`);
      const length = (cs: ComponentPose, a: number, b: number, c: number) => norm(sub(cs.translations, b, cs.translations, a)) + norm(sub(cs.translations, c, cs.translations, b));
      const armScale = length(targetRef, tu, tf, th) / length(sourceRef, su, sf, sh);
      for (let f = 0; f < ik.frameCount; f++) {
        // The robot's shoulder plus the capture's hand offset from its shoulder, scaled by the arms' lengths.
        const d = rotate(info.alignment, sub(sourcePoses[f].translations, sh, sourcePoses[f].translations, su).map((x) => x * armScale) as V3);
        const goal = Float64Array.from([0, 1, 2].map((k) => poses[f].translations[tu * 3 + k] + d[k]));
        const miss = norm(sub(poses[f].translations, th, goal, 0));
        if (miss < 1e-9) reached++;
        worst = Math.max(worst, miss);
        plainWorst = Math.max(plainWorst, norm(sub(targetPoses[f].translations, th, goal, 0)));
      }
    }
    console.log(`hands reached on ${reached} of ${2 * ik.frameCount} frames; farthest miss ${worst.toExponential(2)} robot units (${plainWorst.toFixed(4)} without the pass)`);
    // The capture's arms swing at its sides, its elbows a little bent: within reach of the robot's arms.
    expect(reached).toBe(2 * ik.frameCount);
    expect(plainWorst).toBeGreaterThan(0.01);
    // Lengths: every bone but the pelvis and the followers keeps its reference local translation, bit for bit.
    const n = robot.boneCount, ref = robot.referencePose.translations;
    for (let f = 0; f < ik.frameCount; f++) {
      for (let b = 0; b < n; b++) {
        if (b === info.root || info.anchors[b] >= 0) continue;
        for (let k = 0; k < 3; k++) if (ik.translations[(f * n + b) * 3 + k] !== ref[b * 3 + k]) throw new Error(`${robot.boneNames[b]} moved at frame ${f}`);
      }
    }
  });
});
