import type { BuiltInNodeMeta } from './types.ts';

const bone = (what: string) => ({ title: what, description: `The ${what.toLowerCase()} bone.` });

export const StrideWarpingMeta: BuiltInNodeMeta = {
  title: 'Stride Warping',
  category: 'Skeletal controls',
  summary: 'lengthens or shortens each step to walk at any speed without foot sliding.',
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
    minRootMotionSpeed: { title: 'Min Root Motion Speed', description: 'Below this root-motion speed the scale is 1 (standing still has no stride to warp). 0: 1% of the leg length (thigh to calf to foot in the reference pose) per second, so the threshold fits a skeleton in centimetres or in metres.', unit: 'units/s' },
    rootMotionWindow: { title: 'Root Motion Window', description: "fromRootMotion mode: the root-motion speed of each clip played below is its mean over this much clip time around its play time; 0 (or more than the clip) takes the whole clip. A scale that followed the root's speed within each step would slide the feet.", unit: 's' },
    rootMotionSmoothingTime: { title: 'Root Motion Smoothing', description: 'fromRootMotion mode, for root motion from nodes that report no root-motion velocity (custom nodes): half-life of the average of the measured root-motion velocity.', unit: 's' },
    minScale: { title: 'Min Scale', description: 'Smallest stride scale used.' },
    maxScale: { title: 'Max Scale', description: 'Largest stride scale used.' },
    scaleSmoothingTime: { title: 'Scale Smoothing', description: 'Half-life with which the scale follows its target; 0 follows at once. Smoothing spreads a change of speed over a few frames: taken at once, a change from 1x to 1.5x jumps a planted foot by 8 to 13 cm.', unit: 's' },
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
    pelvisIterations: { title: 'Pelvis Iterations', description: 'Iterations of the pelvis adjustment.' },
    pelvisStiffness: { title: 'Pelvis Stiffness', description: 'Stiffness of the spring the pelvis adjustment moves through (ω = √(stiffness / mass)); 0 applies the adjustment at once. The default, 100, is ω = 10 rad/s: half way to a new target in 0.17 s.', unit: '1/s²' },
    pelvisDamping: { title: 'Pelvis Damping', description: "The spring's damping ratio (Unreal's critical damping factor): 1, Unreal's default, is critically damped (no overshoot); below 1 it overshoots, above it is slower." },
    pelvisMass: { title: 'Pelvis Mass', description: "The mass on the spring (Unreal's default, 1): heavier is slower, as a lower stiffness." },
    pelvisMaxSpeed: { title: 'Pelvis Max Speed', description: 'Cap on how fast the pelvis adjustment may change, in leg lengths per second (0: no cap), so no frame drops the pelvis by more than this allows.', unit: 'legs/s' },
    pelvisAlpha: { title: 'Pelvis Alpha', description: 'How much of the (smoothed) pelvis adjustment is applied.' },
    correctThighs: { title: 'Correct Thighs', description: 'Turn each thigh by the rotation between its FK and warped leg directions.' },
    clampLegLength: { title: 'Clamp Leg Length', description: 'Keep each foot target within the FK distance from its thigh.' },
    solveIk: { title: 'Solve Leg IK', description: 'Place each foot at its warped position with the built-in two-bone IK.' },
    alpha: { title: 'Alpha', description: 'Blend of the warped legs and pelvis over the input pose.' },
  },
  reference: `
Walks at any speed without foot sliding by
lengthening or shortening each step instead of changing the play rate (Unreal 5's
AnimationWarping, warping from the FK foot rather than an IK bone). Per frame: the stride
direction is made tangent to the floor; each FK foot's offset along it from its scale origin (the
thigh's gravity line meeting the floor plane through the foot, projected on the plane normal to
the stride direction) is multiplied by the scale, so heights are kept; the pelvis moves toward the
warped feet to keep each leg's FK length (\`pelvisIterations\` times, averaged, as Unreal), then
down until every *planted* foot is within reach, never raised. A foot is planted when its FK height
is within 5% of a leg length of the lowest it has recently been; a foot in the air is left to the
leg clamp, since lowering the pelvis for a swinging foot far ahead of a long stride
dips the whole body (up to 17 cm in a frame on the CMU run at 1.5x). The adjustment moves through
a spring, as Unreal's (\`PelvisAdjustmentInterp\`), so the pelvis eases down and up: a mass
(\`pelvisMass\`) on a spring (\`pelvisStiffness\`) with damping ratio \`pelvisDamping\`, solved
exactly over each frame's delta time (so the result does not depend on how time is cut into frames,
and is the same in every run); the first frame after the node starts or becomes relevant takes the
adjustment at once, so nothing pops. Damping 1 (critically damped) and mass 1 are Unreal's
defaults: the spring interpolator its stride warping uses is critically damped at a dampening ratio
of 1, and \`UKismetMathLibrary::VectorSpringInterp\` takes a critical damping factor and a mass of 1.
The stiffness, 100 (ω = 10 rad/s: half way to a new target in 0.17 s, within 1% of it in 0.66 s), is
this node's own. On the CMU walks sped up 1.25x and 1.5x, at 30 and 60 fps, the pelvis height's
largest second difference is 0.96x to 1.24x the input's, for drops of up to 14 cm (with
\`pelvisStiffness: 0\`, each frame's adjustment taken at once, up to 3x); the cost is at heel-off,
where a trailing foot that would need the pelvis lower rises up to 2.2 cm early. The
spring's speed is capped (\`pelvisMaxSpeed\`, in leg lengths per second; 0: no cap), and the
adjustment blended in by \`pelvisAlpha\` (Unreal's defaults to 0.5, keeping half of the input's
pelvis; 1 here, since planted feet need all of the drop to reach). Each
thigh turns by the rotation from its FK to its warped leg direction; the foot target is clamped
to the FK leg length and a built-in two-bone IK places the foot, keeping its FK orientation (so
BVH and glTF skeletons without IK bones work). The knee bends in the FK leg's plane, toward the
FK knee's side: a bent FK knee gives the direction, and the node learns it in the thigh's frame;
a straight one (bent less than about 6 degrees) or a hyperextended one, whose plane is a few
millimetres of noise, holds the learned direction (before any is learned, the stride direction),
so the bend never inverts or swings sideways when the warp bends a straight leg: on the CMU walks
started where a knee is straight, a warped knee bent by 15 to 24 degrees the way its input's
offset points would point up to 88 degrees off the way it bends; it stays within 22 degrees of
it. At scale 1 such a knee's few
millimetres of bend turn to that side (under 0.2 cm on the built-in walk); every other bone is the
input's. \`warpFeet\`, \`adjustPelvis\`, \`correctThighs\`,
\`clampLegLength\` and \`solveIk\` switch steps off; they and \`pelvisIterations\` are the node's
set-up, read once, and cannot be bound to a parameter (the loader reports \`not-bindable\`): every
other number is read every frame, bound or not. Bones: \`pelvisBone\` and \`left\`/\`right\`
\`Thigh\`/\`Calf\`/\`Foot\`; the legs' length in the reference pose gives the node its sense of scale.
\`mode: "manual"\` takes \`strideScale\` (clamped to \`minScale\`..\`maxScale\`, smoothed by
\`scaleSmoothingTime\`, a half-life, from the first frame's value) and \`strideDirection\`;
taken at once, a change of speed from 1x to 1.5x moves a
planted foot by 7 to 15 cm in one frame on the CMU walks, smoothed by 0.1 s under 1.5 cm a frame
at 60 fps, while most of a stance (0.3 to 0.6 s) still takes the new scale. \`mode:
"fromRootMotion"\` takes \`locomotionSpeed\`: the scale is that speed over the root-motion speed of
the branch below at full weight (1 below \`minRootMotionSpeed\`; 0 means 1% of a leg
length per second, so a skeleton in metres warps as one in centimetres), the direction is that
root motion's, and the root motion the branch reports is scaled to match (a sibling's under a
blend keeps its own), so the character moves at the locomotion speed. The speed is the branch's
reported root-motion velocity (see Root motion): each root-motion clip's mean over
\`rootMotionWindow\` seconds of clip time around its play time (0: the whole clip),
times the pace and share of weight it plays at, whether a SequencePlayer, a SequenceEvaluator or a
PoseSearchBlend plays it: the root's speed rises and falls within each step (±40% on the CMU slow
walk), a scale following it would slide the feet, and a running average of it still ripples by
±5% after seconds of settling; measured this way the scale is 1 from the first frame at the clip's
own speed (over a PoseSearchBlend too, where the average swung it between 1.03 and 1.39). Root
motion from nodes that report no velocity is measured from the branch's own report, averaged with
half-life \`rootMotionSmoothingTime\`. On the CMU walks, stance-phase foot travel scales by s to
within 1%, with heights kept to under 0.5 cm where the pelvis takes its adjustment at once
(\`pelvisStiffness: 0\`; with the spring, up to 2.2 cm at heel-off, as above;
\`tests/nodes/StrideWarping.test.ts\` prints the ratios).
Debug shows the scale, each foot's scale origin and the adjusted pelvis and the offset the node
moves it by (\`pelvisOffset\`, which \`animgraph plot\` draws in a panel of its own):

\`\`\`sh
npx animgraph run graphs/examples/cmu-stride-warping.json --seconds 3 --set speed=160@1 --debug text
\`\`\`

\`\`\`
frame 75 time 2.500
Output[output]<W:100.0%>
  StrideWarping[warp]<W:100.0%> (Alpha: 100.0% Scale: 1.485 CC_Base_L_Foot origin (1.3, -94.6, -0.3) CC_Base_R_Foot origin (-10.7, -91.8, -0.5) Pelvis (-0.3, -1.0, -1.3) offset (-0.3, -2.4, -1.3))
    SequencePlayer[walk]<W:100.0%> ('walk' Play Time: 2.500)
\`\`\`

The solver works without a node or graph, as ozz-animation's IK jobs do: \`StrideWarpingJob\`
(\`runtime/jobs/stride-warping.ts\`) takes component-space leg chains and settings as fields, and
\`run()\` writes the warped foot targets, knee poles and adjusted pelvis (or returns false, touching
nothing, when \`validate()\` finds one of the rules in its doc comment broken); what it carries
across frames (pelvis spring, planted-foot heights, learned knees) is a \`StrideWarpingState\` the
caller owns. One job serves many characters: set \`job.state\` to each one's before \`run()\` (the
node's instances in a graph share one job so); \`state.useNumbers(block, base)\` keeps a state's
numbers in a block of yours (a crowd's per-character rows; \`StrideWarpingState.numberCount(legs)\`
of them). The node is this job plus its settings, root motion and pose reads and writes.

<!-- docs-test: typecheck
declare const chains: Float64Array, thighRotations: Float64Array, pelvis: Float64Array;
declare const leftChainPositions: Float64Array, leftChainRotations: Float64Array;
-->
\`\`\`ts
import { StrideWarpingJob } from 'animgraph/nodes';

const job = new StrideWarpingJob(2); // buffers for two legs, and a state of its own
job.legPositions.set(chains); // per leg [thigh, calf, foot] xyz, component space
job.thighRotations.set(thighRotations); // per leg xyzw
job.pelvis.set(pelvis);
job.strideDirection.set([0, 0, 1]);
Object.assign(job, { strideScale: 1.3, deltaTime: 1 / 60, legLength: 85 });
if (job.run()) {
  // job.warpedPelvis, job.footTargets, job.kneePoles; then, per leg, on its chain once the
  // pelvis has moved: thigh correction, clamp and two-bone IK in place.
  job.solveLeg(0, leftChainPositions, leftChainRotations);
}
\`\`\`
`,
};
