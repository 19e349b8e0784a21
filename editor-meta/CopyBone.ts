import type { BuiltInNodeMeta } from './types.ts';

export const CopyBoneMeta: BuiltInNodeMeta = {
  title: 'Copy Bone',
  category: 'Skeletal controls',
  summary: "copies a bone's component-space transform onto another bone.",
  description:
    "Copies the component-space translation, rotation and/or scale of Source Bone onto Target Bone; the target's "
    + 'children follow it. By default only rotation is copied. Works in component space: a local-space input is '
    + 'converted on the way in and the result converted back downstream. Alpha blends the copied transform over the '
    + 'input pose. If either bone is missing from the skeleton, or no channel is selected, the pose passes through.',
  pins: {
    pose: {
      title: 'Component Pose',
      description: 'The pose to modify, read in component space (a local-space node linked here is converted).',
    },
  },
  properties: {
    sourceBone: {
      title: 'Source Bone',
      description: 'The skeleton bone whose component-space transform is read. Required; not bindable.',
    },
    targetBone: {
      title: 'Target Bone',
      description: 'The skeleton bone that receives the transform; its children move with it. Required; not bindable.',
    },
    copyTranslation: {
      title: 'Copy Translation',
      description:
        "Copy the source bone's component-space position. Off by default: moving a bone onto another usually "
        + 'stretches the limb it belongs to.',
    },
    copyRotation: {
      title: 'Copy Rotation',
      description: "Copy the source bone's component-space rotation (on by default).",
    },
    copyScale: {
      title: 'Copy Scale',
      description: "Copy the source bone's component-space scale.",
    },
    alpha: {
      title: 'Alpha',
      description:
        'Strength of the control: 0 leaves the input untouched and skips the work, 1 applies the copy fully; in between, '
        + 'translation and scale are lerped and rotation slerped in component space. Clamped to [0, 1].',
    },
  },
  reference: `
**CopyBone** (component space; input \`pose\`; \`sourceBone\`, \`targetBone\`; \`copyTranslation\` = false,
\`copyRotation\` = true, \`copyScale\` = false; \`alpha\` = 1). Copies the source bone's component-space
transform parts onto the target bone; the target's children follow. Like every skeletal control
it blends its result into the pose by alpha (normalised-linear rotation, linear translation and
scale). Debug: \`Alpha: 100.0% hand_l -> hand_r\`.

\`\`\`json
"mirrorHand": { "type": "CopyBone", "inputs": { "pose": "locomotion" },
                "properties": { "sourceBone": "hand_l", "targetBone": "hand_r", "copyTranslation": true, "alpha": { "param": "mirror" } } }
\`\`\`
`,
};
