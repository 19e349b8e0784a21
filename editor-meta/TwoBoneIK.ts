import type { BuiltInNodeMeta } from './types.ts';

export const TwoBoneIKMeta: BuiltInNodeMeta = {
  title: 'Two Bone IK',
  category: 'Skeletal controls',
  summary: "Unreal's Two Bone IK: a foot or hand reaches for a target.",
  description:
    "Bends a three-bone chain (End Bone, its parent and its grandparent: foot, calf, thigh) so the end bone reaches a "
    + "target in component space, as Unreal's Two Bone IK. The upper bone stays where it is and bone lengths are kept; "
    + 'the middle joint bends in the plane through the upper bone and the target that the hint chooses. Targets beyond '
    + 'reach straighten the chain toward them (optionally stretching it first). Each bone turns by the smallest rotation '
    + 'that points it at its child, so twist is kept; the bones\' children follow. Alpha blends the result over the input. '
    + 'If a bone is missing from the skeleton the pose passes through.',
  pins: {
    pose: {
      title: 'Component Pose',
      description: 'The pose to modify, read in component space (a local-space node linked here is converted).',
    },
  },
  properties: {
    endBone: {
      title: 'End Bone',
      description:
        "The bone that reaches for the target (Unreal's IK Bone, e.g. a foot or hand). Its parent is the middle "
        + 'joint and its grandparent the upper bone of the chain; the loader rejects a bone without both.',
    },
    targetMode: {
      title: 'Target Mode',
      description:
        "Where the target comes from: 'vector' uses Target as a component-space position; 'bone' uses Target Bone's "
        + 'component-space position, offset by Target in that bone\'s space.',
    },
    target: {
      title: 'Target',
      description:
        "In 'vector' mode, the component-space position the end bone reaches for (bind it to a vec3 parameter to drive it "
        + "from gameplay). In 'bone' mode, an offset in Target Bone's space (zero: the bone's own position).",
      unit: 'units',
    },
    targetBone: {
      title: 'Target Bone',
      description:
        "The bone whose component-space transform gives the target in 'bone' mode (an IK foot bone, a weapon socket "
        + "bone). Required in 'bone' mode, ignored otherwise.",
    },
    hintMode: {
      title: 'Hint Mode',
      description:
        "How the bend plane is chosen. 'none': keep the input pose's bend (the joint keeps pointing where it pointed "
        + "relative to the limb; a straight input chain bends toward the side it came from). 'position': the joint "
        + "bends toward Hint, a component-space position (Unreal's Joint Target). 'direction': the joint bends along "
        + 'Hint, a component-space direction (a pole vector). A hint parallel to the reach direction, or zero, falls '
        + "back to 'none'.",
    },
    hint: {
      title: 'Hint',
      description:
        "The joint target (a component-space position) in 'position' mode, or the pole direction in 'direction' mode; "
        + "unused in 'none' mode. Bindable to a vec3 parameter.",
    },
    keepEndRotation: {
      title: 'Keep End Rotation',
      description:
        "On (as Unreal): the end bone keeps its input component-space rotation, so a foot stays level "
        + 'however the leg bends. Off: it keeps its rotation relative to the middle bone and turns with it.',
    },
    allowStretch: {
      title: 'Allow Stretch',
      description:
        'Let the bones lengthen toward targets beyond reach, by moving the middle and end bones (no bone is scaled), '
        + 'as set by Start Stretch Ratio and Max Stretch Scale.',
    },
    startStretchRatio: {
      title: 'Start Stretch Ratio',
      description:
        'Target distance / chain length at which stretching starts (1: only beyond full extension; below 1 the chain '
        + 'starts lengthening while still bent, which softens the snap to straight).',
      unit: '×',
    },
    maxStretchScale: {
      title: 'Max Stretch Scale',
      description:
        'The largest bone-length scale: the scale rises linearly from 1 at Start Stretch Ratio to this at a reach ratio '
        + 'equal to it, and holds beyond: at a Start Stretch Ratio of 1, targets up to this × the chain length are reached exactly.',
      unit: '×',
    },
    alpha: {
      title: 'Alpha',
      description:
        'Strength of the control: 0 leaves the input untouched and skips the work, 1 applies the IK fully; in between, '
        + 'each bone\'s component-space translation is lerped and rotation nlerped toward the solution. A bound value is '
        + 'clamped to the range each frame.',
    },
  },
  reference: `
Unreal's Two Bone IK: \`endBone\` (a foot), its parent (the calf) and grandparent (the thigh) reach for a
component-space target, \`target\` itself in \`vector\` mode (bind it to a vec3 parameter), or in
\`bone\` mode \`targetBone\`'s position offset by \`target\` in that bone's space. The thigh stays put
and bone lengths are kept; the knee bends by the law of cosines in the plane the hint chooses:
toward the \`hint\` position in \`position\` mode (Unreal's joint target) or along the \`hint\`
direction in \`direction\` mode (a pole vector). With \`none\`, or a hint parallel to the reach, the
input's bend is kept, carried along with the leg's swing (a straight input leg bends toward the
side it came from). Each bone turns by the smallest rotation, so twist is kept; the foot keeps
its component-space rotation unless \`keepEndRotation\` is off (then it turns with the calf).
Targets beyond reach straighten the chain toward them; with \`allowStretch\` the calf and foot move
out (no bone is scaled) from \`startStretchRatio\` × the chain length up to \`maxStretchScale\`
(bound values clamped to their ranges). A target or hint beyond ±1e9 on an axis
(a vec3 parameter may hold any finite numbers) is moved toward the origin along its direction to
that bound, where it is out of reach all the same. Targets on the thigh, zero-length bones and straight chains without a hint are defined and never
give NaN (each case is documented in \`runtime/jobs/two-bone-ik.ts\`, whose \`solveTwoBoneIK\` works
without a node). The loader rejects an \`endBone\` without a grandparent and \`bone\` mode without
\`targetBone\`. Debug: \`Alpha: 100.0% thigh_l > calf_l > foot_l -> target\`, with \`values\`
\`target\`, \`reachError\` and \`stretch\`.

\`\`\`json
"footIk": { "type": "TwoBoneIK", "inputs": { "pose": "walk" },
            "properties": { "endBone": "foot_l", "target": { "param": "footTarget" }, "hintMode": "direction", "hint": [0, 0, 1] } }
\`\`\`
`,
};
