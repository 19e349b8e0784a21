import type { ComponentPose } from '../core/component-pose.ts';
import { quatMultiply, quatRotateVec3 } from '../core/math.ts';
import { clampToReach, solveStrideLegIK, thighCorrection, type StrideWarpingJob } from './stride-warping.ts';

/**
 * A stride warp on a component-space pose (what the StrideWarping node runs): the job's inputs read
 * from the pose, and its results written back with steps 4 and 5 done on the pose's own bones, so
 * that the bones between the pelvis and the thighs move with the pelvis. `bones` holds each leg's
 * thigh, calf and foot (3 a leg); `fkFootRotations` each foot's FK rotation (4 a leg), which the IK
 * keeps. Nothing here allocates.
 */

/** Which of steps 4 and 5 run on the pose (the node's set-up). */
export interface StrideLegSteps {
  readonly correctThighs: boolean;
  readonly clampLegLength: boolean;
  readonly solveIk: boolean;
}

/** Fills `job`'s FK inputs from `pose`: the pelvis, each leg's chain and thigh rotation, and each foot's rotation into fkFootRotations. */
export function readStrideLegs(job: StrideWarpingJob, pose: ComponentPose, pelvis: number, bones: Int32Array, fkFootRotations: Float64Array): void {
  const legs = job.legCount, chains = job.legPositions;
  pose.ensureComponent(pelvis);
  for (let k = 0; k < 3; k++) job.pelvis[k] = pose.translations[pelvis * 3 + k];
  for (let i = 0; i < legs; i++) {
    const foot = bones[i * 3 + 2];
    for (let b = 0; b < 3; b++) {
      const bone = bones[i * 3 + b];
      pose.ensureComponent(bone);
      for (let k = 0; k < 3; k++) chains[i * 9 + b * 3 + k] = pose.translations[bone * 3 + k];
    }
    for (let k = 0; k < 4; k++) {
      fkFootRotations[i * 4 + k] = pose.rotations[foot * 4 + k];
      job.thighRotations[i * 4 + k] = pose.rotations[bones[i * 3] * 4 + k];
    }
  }
}

/**
 * Writes `job`'s last run into `pose`: the pelvis moved to warpedPelvis, then, per leg, on the pose
 * as the moved pelvis left it, the thigh correction and the IK to the warped foot (`steps`).
 */
export function writeStrideLegs(
  job: StrideWarpingJob, pose: ComponentPose, pelvis: number, bones: Int32Array, fkFootRotations: Float64Array, steps: StrideLegSteps,
): void {
  loadBone(pose, pelvis);
  for (let k = 0; k < 3; k++) xf.t[k] = job.warpedPelvis[k];
  pose.setComponent(pelvis, xf.t, xf.r, xf.s, 0);
  const legs = job.legCount;
  for (let i = 0; i < legs; i++) {
    const thigh = bones[i * 3], calf = bones[i * 3 + 1], foot = bones[i * 3 + 2];
    pose.ensureComponent(thigh);
    pose.ensureComponent(foot);
    for (let k = 0; k < 3; k++) {
      hip[k] = pose.translations[thigh * 3 + k];
      footTarget[k] = job.footTargets[i * 3 + k];
      kneePole[k] = job.kneePoles[i * 3 + k];
    }
    if (steps.correctThighs) {
      for (let k = 0; k < 3; k++) footPosition[k] = pose.translations[foot * 3 + k];
      if (thighCorrection(correction, hip, footPosition, footTarget, job.floorNormal)) {
        loadBone(pose, thigh);
        quatMultiply(xf.r, 0, correction, 0, xf.r, 0);
        pose.setComponent(thigh, xf.t, xf.r, xf.s, 0);
        // The knee's bend direction turns with the thigh.
        quatRotateVec3(kneePole, 0, correction, 0, kneePole, 0);
      }
    }
    if (steps.clampLegLength) clampToReach(footTarget, hip, job.legReach, i);
    if (steps.solveIk) solveLeg(pose, thigh, calf, foot, fkFootRotations, i * 4);
  }
}

/** A bone's component transform being edited: read with loadBone, write back with setComponent(bone, xf.t, xf.r, xf.s, 0). */
const xf = { t: new Float64Array(3), r: new Float64Array(4), s: new Float64Array(3) };

function loadBone(pose: ComponentPose, bone: number): void {
  pose.ensureComponent(bone);
  for (let k = 0; k < 3; k++) {
    xf.t[k] = pose.translations[bone * 3 + k];
    xf.s[k] = pose.scales[bone * 3 + k];
  }
  for (let k = 0; k < 4; k++) xf.r[k] = pose.rotations[bone * 4 + k];
}

// Per-frame scratch for steps 4 and 5 (nodes never run concurrently).
const hip = new Float64Array(3), footPosition = new Float64Array(3), footTarget = new Float64Array(3), kneePole = new Float64Array(3);
const correction = new Float64Array(4);
// The leg chain [thigh, calf, foot] for the two-bone solver.
const chainPositions = new Float64Array(9);
const chainRotations = new Float64Array(12);

/** Solves a leg toward footTarget, the knee toward kneePole, and writes the three bones back (children follow). */
function solveLeg(pose: ComponentPose, upper: number, middle: number, end: number, footRotation: Float64Array, fo: number): void {
  pose.ensureComponent(upper);
  pose.ensureComponent(middle);
  pose.ensureComponent(end);
  for (let k = 0; k < 3; k++) {
    chainPositions[k] = pose.translations[upper * 3 + k];
    chainPositions[3 + k] = pose.translations[middle * 3 + k];
    chainPositions[6 + k] = pose.translations[end * 3 + k];
  }
  for (let k = 0; k < 4; k++) {
    chainRotations[k] = pose.rotations[upper * 4 + k];
    chainRotations[4 + k] = pose.rotations[middle * 4 + k];
    // The foot's input rotation, not its current one: the thigh correction has turned it with the leg.
    chainRotations[8 + k] = footRotation[fo + k];
  }
  solveStrideLegIK(chainPositions, chainRotations, footTarget, kneePole);
  writeBone(pose, upper, 0);
  writeBone(pose, middle, 1);
  writeBone(pose, end, 2);
}

function writeBone(pose: ComponentPose, bone: number, index: number): void {
  loadBone(pose, bone);
  for (let k = 0; k < 3; k++) xf.t[k] = chainPositions[index * 3 + k];
  for (let k = 0; k < 4; k++) xf.r[k] = chainRotations[index * 4 + k];
  pose.setComponent(bone, xf.t, xf.r, xf.s, 0);
}
