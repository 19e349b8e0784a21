import type { NodeEditorMeta } from './types.ts';

const bone = (what: string) => ({ title: what, description: `The ${what.toLowerCase()} bone.` });

export const StrideWarpingMeta: NodeEditorMeta = {
  type: 'StrideWarping',
  title: 'Stride Warping',
  category: 'Skeletal controls',
  description:
    'Lengthens or shortens each step instead of changing the play rate, so a walk can match any speed without foot '
    + "sliding. Each FK foot's offset along the stride direction from its scale origin (the thigh's gravity line on the "
    + 'floor) is scaled; the pelvis is lowered so the planted legs still reach; the thighs turn toward the new feet; and a '
    + 'built-in two-bone IK plants them, the foot keeping its FK orientation and the knee bending toward its FK side. In '
    + 'fromRootMotion mode the scale and direction come from the locomotion speed and the root motion the branch below '
    + "reports, and that root motion (not a sibling's under a blend) is scaled to match.",
  pins: { pose: { title: 'Component Pose', description: 'The locomotion pose to warp.' } },
  properties: {
    mode: { title: 'Mode', description: 'manual: scale and direction from the properties. fromRootMotion: from the locomotion speed and the root motion below.' },
    strideScale: { title: 'Stride Scale', description: 'Manual mode: how much longer the steps are (1 keeps them). Clamped to Min/Max Scale.' },
    strideDirection: { title: 'Stride Direction', description: 'Manual mode (and fromRootMotion below the minimum speed): the direction of travel in component space; made tangent to the floor.' },
    locomotionSpeed: { title: 'Locomotion Speed', description: 'fromRootMotion mode: the speed the character should move at, in skeleton units per second.', unit: 'units/s' },
    minRootMotionSpeed: { title: 'Min Root Motion Speed', description: 'Below this root-motion speed the scale is 1 (standing still has no stride to warp). 0 (the default): 1% of the leg length (thigh to calf to foot in the reference pose) per second, so the threshold fits a skeleton in centimetres or in metres.', unit: 'units/s' },
    rootMotionWindow: { title: 'Root Motion Window', description: "fromRootMotion mode: the root-motion speed of each clip played below is its mean over this much clip time around its play time; 0 (or more than the clip) takes the whole clip. A scale that followed the root's speed within each step would slide the feet.", unit: 's' },
    rootMotionSmoothingTime: { title: 'Root Motion Smoothing', description: 'fromRootMotion mode, for root motion from nodes that report no root-motion velocity (custom nodes): half-life of the average of the measured root-motion velocity.', unit: 's' },
    minScale: { title: 'Min Scale', description: 'Smallest stride scale used.' },
    maxScale: { title: 'Max Scale', description: 'Largest stride scale used.' },
    scaleSmoothingTime: { title: 'Scale Smoothing', description: 'Half-life with which the scale follows its target; 0 follows at once. The default, 0.1 s, spreads a change of speed over a few frames: taken at once, a change from 1x to 1.5x jumps a planted foot by 8 to 13 cm.', unit: 's' },
    floorNormal: { title: 'Floor Normal', description: 'Up direction of the floor in component space.' },
    gravityDirection: { title: 'Gravity Direction', description: 'Down direction in component space; the thighs are projected to the floor along it.' },
    pelvisBone: bone('Pelvis'),
    leftThigh: bone('Left Thigh'),
    leftCalf: bone('Left Calf'),
    leftFoot: bone('Left Foot'),
    rightThigh: bone('Right Thigh'),
    rightCalf: bone('Right Calf'),
    rightFoot: bone('Right Foot'),
    warpFeet: { title: 'Warp Feet', description: 'Scale each foot about its scale origin; off, the later steps see the FK feet (debugging).' },
    adjustPelvis: { title: 'Adjust Pelvis', description: 'Lower the pelvis so each leg keeps its FK length to its warped foot (averaged over the feet), and every planted foot can reach.' },
    pelvisIterations: { title: 'Pelvis Iterations', description: 'Iterations of the pelvis adjustment (1 to 10).' },
    pelvisSmoothingTime: { title: 'Pelvis Smoothing', description: "Half-life of the critically damped spring that smooths the pelvis adjustment (the first frame takes it at once); 0 applies it at once. The default, 0.14 s, is about Unreal's spring.", unit: 's' },
    pelvisMaxSpeed: { title: 'Pelvis Max Speed', description: 'Cap on how fast the pelvis adjustment may change, in leg lengths per second (0: no cap), so no frame drops the pelvis by more than this allows.', unit: 'legs/s' },
    pelvisAlpha: { title: 'Pelvis Alpha', description: 'How much of the (smoothed) pelvis adjustment is applied.' },
    correctThighs: { title: 'Correct Thighs', description: 'Turn each thigh by the rotation between its FK and warped leg directions.' },
    clampLegLength: { title: 'Clamp Leg Length', description: 'Keep each foot target within the FK distance from its thigh.' },
    solveIk: { title: 'Solve Leg IK', description: 'Place each foot at its warped position with the built-in two-bone IK.' },
    alpha: { title: 'Alpha', description: 'Blend of the warped legs and pelvis over the input pose.' },
  },
};
