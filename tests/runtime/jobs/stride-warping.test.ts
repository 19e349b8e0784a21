import { describe, expect, it } from 'vitest';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { StrideWarpingJob } from '../../../runtime/jobs/stride-warping.ts';
import { StrideWarpingState } from '../../../runtime/jobs/stride-warping-state.ts';
import { bipedInstance, expectClose } from '../../support/graphs.ts';

/**
 * One y-up leg at rest on a floor at y = 5: thigh (10, 85, 0), knee bent forward (10, 45, 15),
 * foot 20 ahead (10, 5, 20); pelvis (0, 90, 0); walking along +z.
 */
function oneLeg(): StrideWarpingJob {
  const job = new StrideWarpingJob(1);
  job.legPositions.set([10, 85, 0, 10, 45, 15, 10, 5, 20]);
  job.pelvis.set([0, 90, 0]);
  job.strideDirection.set([0, 0, 1]);
  job.strideScale = 1.5;
  job.legLength = 80;
  job.deltaTime = 1 / 30;
  return job;
}

describe('StrideWarpingState', () => {
  /** Everything the state keeps, read through its views. */
  const kept = (state: StrideWarpingState) => ({
    spring: [...state.spring.offset, ...state.spring.velocity, state.spring.started],
    legs: state.legs.map((l) => [l.lowestHeight, l.hasLowest, ...l.kneeAxis, l.kneeLearned]),
  });

  it('moves its numbers into another block with useNumbers, carrying them over, and the job runs on as before', () => {
    const moved = oneLeg(), stays = oneLeg();
    for (const job of [moved, stays]) { job.run(); job.run(); }
    const before = kept(moved.state);
    expect(before.spring[6]).toBe(true);
    expect(before.legs[0][5]).toBe(true); // a learned knee
    const block = new Float64Array(40).fill(7);
    moved.state.useNumbers(block, 5);
    expect(kept(moved.state)).toEqual(before);
    expect(block[4]).toBe(7); // nothing before its base is touched
    expect(block[5 + StrideWarpingState.numberCount(1)]).toBe(7); // nor after its numbers
    // The views look at the new block.
    moved.state.legs[0].kneeAxis[1] = 0.5;
    expect(block.includes(0.5)).toBe(true);
    moved.state.legs[0].kneeAxis[1] = stays.state.legs[0].kneeAxis[1];
    for (let f = 0; f < 5; f++) {
      for (const job of [moved, stays]) {
        job.legPositions[6 + 2] += 3;
        expect(job.run()).toBe(true);
      }
      expect(Array.from(moved.warpedPelvis)).toEqual(Array.from(stays.warpedPelvis));
      expect(Array.from(moved.kneePoles)).toEqual(Array.from(stays.kneePoles));
    }
    expect(kept(moved.state)).toEqual(kept(stays.state));
  });

  it('restart forgets the spring and the feet but keeps learned knees; reset forgets everything', () => {
    const job = oneLeg();
    job.run();
    const state = job.state, knee = Array.from(state.legs[0].kneeAxis);
    expect(state.legs[0].hasLowest).toBe(true);
    state.restart();
    expect(kept(state)).toEqual({ spring: [0, 0, 0, 0, 0, 0, false], legs: [[0, false, ...knee, true]] });
    expect(knee.some((x) => x !== 0)).toBe(true);
    state.reset();
    expect(kept(state)).toEqual({ spring: [0, 0, 0, 0, 0, 0, false], legs: [[0, false, 0, 0, 0, false]] });
  });
});

describe('StrideWarpingJob on hand-made legs', () => {
  it('scales the foot about the thigh\'s gravity line on its floor plane, keeping its height', () => {
    const job = oneLeg();
    job.adjustPelvis = false;
    expect(job.run()).toBe(true);
    // Plane origin (10, 5, 0): the foot is 20 ahead of it, 30 at 1.5x.
    expect(Array.from(job.scaleOrigins)).toEqual([10, 5, 0]);
    expect(Array.from(job.footTargets)).toEqual([10, 5, 30]);
    expect(job.legReach[0]).toBe(Math.sqrt(80 * 80 + 20 * 20));
    expect(job.pelvisReach[0]).toBe(Math.sqrt(10 * 10 + 85 * 85 + 20 * 20));
    expect(job.planted[0]).toBe(1); // its first frame: at its lowest
    // Pelvis step off: where it was.
    expect(Array.from(job.warpedPelvis)).toEqual([0, 90, 0]);
    expect(Array.from(job.pelvisOffset)).toEqual([0, 0, 0]);
  });

  it('bends the knee toward the FK knee\'s side of the hip-foot line, and learns it in the thigh\'s frame', () => {
    const job = oneLeg();
    job.run();
    // Hip-foot line (0, -4, 1) / sqrt(17); the knee's offset from it, (20 / 17) (0, 1, 4), normalised.
    expectClose(job.kneePoles, [0, 1 / Math.sqrt(17), 4 / Math.sqrt(17)], 1e-12);
    const leg = job.state.legs[0];
    expect(leg.kneeLearned).toBe(true);
    expectClose(leg.kneeAxis, job.kneePoles, 1e-12); // identity thigh rotation
    // Straighten the knee: the learned direction stands in, perpendicular to the new hip-foot line.
    job.legPositions.set([10, 85, 0, 10, 45, 0, 10, 5, 0]);
    job.run();
    expectClose(job.kneePoles, [0, 0, 1], 1e-12);
  });

  it('lowers the pelvis to the warped foot\'s FK distance, never raising it', () => {
    const job = oneLeg();
    job.pelvisStiffness = 0;
    job.run();
    const p = job.warpedPelvis, f = job.footTargets;
    const distance = Math.hypot(p[0] - f[0], p[1] - f[1], p[2] - f[2]);
    expect(distance).toBeCloseTo(job.pelvisReach[0], 9);
    expect(job.pelvisOffset[1]).toBeLessThan(0);
    expect(Array.from(job.pelvisOffset)).toEqual([p[0] - 0, p[1] - 90, p[2] - 0]);
    // pelvisAlpha 0: the adjustment is computed (and the spring goes on) but none of it applied.
    const none = oneLeg();
    none.pelvisAlpha = 0;
    none.run();
    expect(Array.from(none.warpedPelvis)).toEqual([0, 90, 0]);
    expect(none.state.spring.started).toBe(true);
  });

  it('warps nothing for a zero stride direction or one along the floor normal, or at scale 1 with no direction', () => {
    for (const direction of [[0, 0, 0], [0, 3, 0]]) {
      const job = oneLeg();
      job.strideDirection.set(direction);
      job.adjustPelvis = false;
      expect(job.run()).toBe(true);
      expect(Array.from(job.footTargets)).toEqual([10, 5, 20]);
      expect(Array.from(job.scaleOrigins)).toEqual([10, 5, 20]);
    }
  });

  it('leaves a collapsed leg (every bone on one point) where it is, with no knee pole', () => {
    const job = oneLeg();
    job.legPositions.set([10, 5, 20, 10, 5, 20, 10, 5, 20]);
    job.strideDirection.set([0, 0, 0]);
    expect(job.validate()).toBe(true);
    job.run();
    expect(Array.from(job.footTargets)).toEqual([10, 5, 20]);
    expect(Array.from(job.kneePoles)).toEqual([0, 0, 0]);
    expect(job.legReach[0]).toBe(0);
    const positions = job.legPositions.slice(0, 9), rotations = Float64Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1);
    job.solveLeg(0, positions, rotations);
    expect(Array.from(positions)).toEqual([10, 5, 20, 10, 5, 20, 10, 5, 20]);
  });

  it('solveLeg turns the thigh, clamps the target to the FK leg length and reaches it with the IK', () => {
    const job = oneLeg();
    job.adjustPelvis = false;
    job.run();
    const positions = job.legPositions.slice(0, 9), rotations = Float64Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1);
    job.solveLeg(0, positions, rotations);
    // The warped foot (10, 5, 30) is sqrt(80² + 30²) = 85.4 from the thigh, beyond the FK 82.5:
    // clamped onto that sphere along the thigh-target line.
    const reach = Math.sqrt(80 * 80 + 20 * 20), k = reach / Math.sqrt(80 * 80 + 30 * 30);
    expectClose(positions.subarray(6, 9), [10, 85 - 80 * k, 30 * k], 1e-9);
    expectClose(positions.subarray(0, 3), [10, 85, 0], 0);
    // Bone lengths kept; the foot keeps its rotation; the knee still bends forward.
    expect(Math.hypot(positions[3] - 10, positions[4] - 85, positions[5])).toBeCloseTo(Math.hypot(0, 40, 15), 9);
    expect(Math.hypot(positions[6] - positions[3], positions[7] - positions[4], positions[8] - positions[5])).toBeCloseTo(Math.hypot(0, 40, 5), 9);
    expect(Array.from(rotations.subarray(8, 12))).toEqual([0, 0, 0, 1]);
    // The knee in front of the thigh-foot line (its offset from the line points forward and up).
    const ly = positions[7] - 85, lz = positions[8], l = Math.hypot(ly, lz);
    const ky = positions[4] - 85, kz = positions[5], along = (ky * ly + kz * lz) / l;
    expect(kz - along * (lz / l)).toBeGreaterThan(1);
  });
});

describe('StrideWarpingJob rules', () => {
  const breaks: [string, (job: StrideWarpingJob) => void][] = [
    ['a fractional leg count', (j) => { j.legCount = 0.5; }],
    ['a negative leg count', (j) => { j.legCount = -1; }],
    ['more legs than the state', (j) => { j.state = new StrideWarpingState(0); }],
    ['short legPositions', (j) => { j.legPositions = new Float64Array(8); }],
    ['short thighRotations', (j) => { j.thighRotations = new Float64Array(3); }],
    ['short footTargets', (j) => { j.footTargets = new Float64Array(2); }],
    ['short kneePoles', (j) => { j.kneePoles = new Float64Array(2); }],
    ['short scaleOrigins', (j) => { j.scaleOrigins = new Float64Array(2); }],
    ['short legReach', (j) => { j.legReach = new Float64Array(0); }],
    ['short pelvisReach', (j) => { j.pelvisReach = new Float64Array(0); }],
    ['short planted', (j) => { j.planted = new Uint8Array(0); }],
    ['short pelvis', (j) => { j.pelvis = new Float64Array(2); }],
    ['short strideDirection', (j) => { j.strideDirection = new Float64Array(2); }],
    ['short floorNormal', (j) => { j.floorNormal = new Float64Array(2); }],
    ['short gravityDirection', (j) => { j.gravityDirection = new Float64Array(2); }],
    ['short warpedPelvis', (j) => { j.warpedPelvis = new Float64Array(2); }],
    ['short pelvisOffset', (j) => { j.pelvisOffset = new Float64Array(2); }],
    ['a NaN leg position', (j) => { j.legPositions[4] = NaN; }],
    ['an infinite thigh rotation', (j) => { j.thighRotations[0] = Infinity; }],
    ['a NaN pelvis', (j) => { j.pelvis[1] = NaN; }],
    ['an infinite stride direction', (j) => { j.strideDirection[2] = -Infinity; }],
    ['an unnormalised floor normal', (j) => { j.floorNormal.set([0, 2, 0]); }],
    ['a zero floor normal', (j) => { j.floorNormal.set([0, 0, 0]); }],
    ['an unnormalised gravity direction', (j) => { j.gravityDirection.set([0, -0.99, 0]); }],
    ['a negative stride scale', (j) => { j.strideScale = -0.5; }],
    ['a NaN stride scale', (j) => { j.strideScale = NaN; }],
    ['an infinite stride scale', (j) => { j.strideScale = Infinity; }],
    ['a negative delta time', (j) => { j.deltaTime = -1 / 30; }],
    ['an infinite delta time', (j) => { j.deltaTime = Infinity; }],
    ['a negative leg length', (j) => { j.legLength = -1; }],
    ['a NaN leg length', (j) => { j.legLength = NaN; }],
    ['no pelvis iterations', (j) => { j.pelvisIterations = 0; }],
    ['11 pelvis iterations', (j) => { j.pelvisIterations = 11; }],
    ['fractional pelvis iterations', (j) => { j.pelvisIterations = 2.5; }],
    ['a negative pelvis stiffness', (j) => { j.pelvisStiffness = -0.1; }],
    ['a NaN pelvis stiffness', (j) => { j.pelvisStiffness = NaN; }],
    ['a negative pelvis damping', (j) => { j.pelvisDamping = -0.1; }],
    ['an infinite pelvis damping', (j) => { j.pelvisDamping = Infinity; }],
    ['a NaN pelvis damping', (j) => { j.pelvisDamping = NaN; }],
    ['a zero pelvis mass', (j) => { j.pelvisMass = 0; }],
    ['an infinite pelvis mass', (j) => { j.pelvisMass = Infinity; }],
    ['a negative pelvis speed cap', (j) => { j.pelvisMaxSpeed = -1; }],
    ['a pelvisAlpha below 0', (j) => { j.pelvisAlpha = -0.01; }],
    ['a pelvisAlpha above 1', (j) => { j.pelvisAlpha = 1.01; }],
  ];

  it('the hand-made job is valid, with the edge values the rules allow', () => {
    const job = oneLeg();
    expect(job.validate()).toBe(true);
    Object.assign(job, { strideScale: 0, deltaTime: 0, legLength: 0, pelvisIterations: 10, pelvisStiffness: Infinity, pelvisDamping: 0, pelvisMass: 1e-300, pelvisMaxSpeed: Infinity, pelvisAlpha: 0 });
    expect(job.validate()).toBe(true);
    expect(new StrideWarpingJob(0).run()).toBe(true);
  });

  it.each(breaks)('refuses %s: run() returns false, outputs and state untouched', (_, breakIt) => {
    const job = oneLeg();
    job.run(); // a frame of state: a learned knee, a started spring
    const buffers = [job.footTargets, job.kneePoles, job.legReach, job.pelvisReach, job.scaleOrigins, job.planted, job.warpedPelvis, job.pelvisOffset];
    const outputs = () => buffers.map((a) => Array.from(a));
    const kept = job.state;
    const state = () => JSON.stringify({ spring: [...kept.spring.offset, ...kept.spring.velocity, kept.spring.started], legs: kept.legs.map((l) => [l.lowestHeight, l.hasLowest, ...l.kneeAxis, l.kneeLearned]) });
    const before = { outputs: outputs(), state: state() };
    breakIt(job);
    expect(job.validate()).toBe(false);
    expect(job.run()).toBe(false);
    expect(outputs()).toEqual(before.outputs);
    expect(state()).toEqual(before.state);
  });
});

describe('StrideWarpingJob without a node gives the node\'s numbers', () => {
  it('on the biped\'s walk, frame by frame: scale origins and pelvis exactly, legs to 1e-6', () => {
    const legs = [['thigh_l', 'calf_l', 'foot_l'], ['thigh_r', 'calf_r', 'foot_r']];
    const properties = {
      strideScale: 1.3, pelvisBone: 'pelvis', leftThigh: 'thigh_l', leftCalf: 'calf_l', leftFoot: 'foot_l',
      rightThigh: 'thigh_r', rightCalf: 'calf_r', rightFoot: 'foot_r',
    };
    const warped = bipedInstance({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, w: { type: 'StrideWarping', inputs: { pose: 'walk' }, properties } }, 'w');
    const plain = bipedInstance({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'walk');
    const skeleton = plain.skeleton;
    const bones = legs.map((leg) => leg.map((name) => skeleton.indexOf(name)));
    const pelvis = skeleton.indexOf('pelvis');
    // The node's sense of scale: the mean reference-pose leg length.
    const reference = new ComponentPose(skeleton);
    reference.setFromLocal(skeleton.referencePose);
    reference.ensureAllComponent();
    const at = (pose: ComponentPose, bone: number) => Array.from(pose.translations.subarray(bone * 3, bone * 3 + 3));
    const distance = (a: number[], b: number[]) => Math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2);
    const legLength = bones.reduce((sum, [t, c, f]) => sum + distance(at(reference, t), at(reference, c)) + distance(at(reference, c), at(reference, f)), 0) / 2;

    // Defaults of the node (pelvis settings), and the state the job carries.
    const job = new StrideWarpingJob(2);
    Object.assign(job, { strideScale: 1.3, legLength, pelvisStiffness: 100, pelvisDamping: 1, pelvisMass: 1, pelvisMaxSpeed: 0.5, pelvisAlpha: 1, pelvisIterations: 3 });
    job.strideDirection.set([0, 0, 1]);
    const dt = 1 / 30;
    let worst = 0;
    for (let frame = 0; frame < 45; frame++) {
      const step = frame === 0 ? 0 : dt;
      warped.update(step);
      plain.update(step);
      const fk = plain.componentPose(), out = warped.componentPose();
      job.deltaTime = step;
      job.pelvis.set(fk.translations.subarray(pelvis * 3, pelvis * 3 + 3));
      bones.forEach((leg, i) => {
        leg.forEach((bone, b) => job.legPositions.set(fk.translations.subarray(bone * 3, bone * 3 + 3), i * 9 + b * 3));
        job.thighRotations.set(fk.rotations.subarray(leg[0] * 4, leg[0] * 4 + 4), i * 4);
      });
      expect(job.run()).toBe(true);
      const debug = warped.gatherDebug().children[0].values!;
      expect(debug.strideScale).toBe(1.3);
      expect(Array.from(job.warpedPelvis)).toEqual(debug.pelvis);
      expect(Array.from(job.pelvisOffset)).toEqual(debug.pelvisOffset);
      expect(Array.from(job.scaleOrigins.subarray(0, 3))).toEqual(debug['scaleOrigin.foot_l']);
      expect(Array.from(job.scaleOrigins.subarray(3, 6))).toEqual(debug['scaleOrigin.foot_r']);
      expectClose(at(out, pelvis), job.warpedPelvis, 1e-9);
      // The legs, in arrays: the FK chain moved with the pelvis, then solveLeg.
      bones.forEach((leg, i) => {
        const positions = new Float64Array(9), rotations = new Float64Array(12);
        leg.forEach((bone, b) => {
          for (let k = 0; k < 3; k++) positions[b * 3 + k] = fk.translations[bone * 3 + k] + job.pelvisOffset[k];
          rotations.set(fk.rotations.subarray(bone * 4, bone * 4 + 4), b * 4);
        });
        job.solveLeg(i, positions, rotations);
        leg.forEach((bone, b) => {
          expectClose(at(out, bone), positions.subarray(b * 3, b * 3 + 3), 1e-6);
          worst = Math.max(worst, distance(at(out, bone), Array.from(positions.subarray(b * 3, b * 3 + 3))));
          const q = out.rotations.subarray(bone * 4, bone * 4 + 4), r = rotations.subarray(b * 4, b * 4 + 4);
          const dot = Math.abs(q[0] * r[0] + q[1] * r[1] + q[2] * r[2] + q[3] * r[3]);
          expect(dot).toBeGreaterThan(1 - 1e-12);
        });
      });
    }
    // The warp did something: the node's feet are not the FK feet.
    expect(worst).toBeLessThan(1e-6);
    expect(Math.abs(job.pelvisOffset[1])).toBeGreaterThan(0.1);
  });
});
