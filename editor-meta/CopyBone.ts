import type { BuiltInNodeMeta } from './types.ts';

export const CopyBoneMeta: BuiltInNodeMeta = {
  title: 'Copy Bone',
  category: 'Skeletal controls',
  summary: "copies a bone's component-space transform onto another bone.",
  description:
    "Copies the component-space translation, rotation and/or scale of Source Bone onto Target Bone; the target's "
    + 'children follow it. Works in component space: a local-space input is '
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
      description: 'The skeleton bone whose component-space transform is read.',
    },
    targetBone: {
      title: 'Target Bone',
      description: 'The skeleton bone that receives the transform; its children move with it.',
    },
    copyTranslation: {
      title: 'Copy Translation',
      description:
        "Copy the source bone's component-space position. Moving a bone onto another usually stretches the limb it "
        + 'belongs to.',
    },
    copyRotation: {
      title: 'Copy Rotation',
      description: "Copy the source bone's component-space rotation.",
    },
    copyScale: {
      title: 'Copy Scale',
      description: "Copy the source bone's component-space scale.",
    },
    alpha: {
      title: 'Alpha',
      description:
        'Strength of the control: 0 leaves the input untouched and skips the work, 1 applies the copy fully; in between, '
        + 'translation and scale are lerped and rotation nlerped (on the shorter arc) in component space. A bound value is '
        + 'clamped to the range each frame.',
    },
  },
  reference: `
Like every skeletal control, CopyBone blends its result into the pose by alpha (normalised-linear
rotation on the shorter arc, linear translation and scale). Debug: \`Alpha: 100.0% hand_l -> hand_r\`.

\`\`\`json
"mirrorHand": { "type": "CopyBone", "inputs": { "pose": "locomotion" },
                "properties": { "sourceBone": "hand_l", "targetBone": "hand_r", "copyTranslation": true, "alpha": { "param": "mirror" } } }
\`\`\`
`,
};
