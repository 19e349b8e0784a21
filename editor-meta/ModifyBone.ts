import type { BuiltInNodeMeta } from './types.ts';

const SPACES =
  "'component': in component space. 'parent': in the parent bone's space (the bone's local transform; the root's is "
  + "component space). 'bone': in the bone's own space, relative to its transform in the input pose.";

export const ModifyBoneMeta: BuiltInNodeMeta = {
  title: 'Transform (Modify) Bone',
  category: 'Skeletal controls',
  summary: "Unreal's Transform (Modify) Bone: sets or adds to a bone's translation, rotation and scale.",
  description:
    "Changes one bone's scale, rotation and translation (in that order), each ignored, added to or replaced, in "
    + "component space, its parent's space or its own; the bone's children follow it. Alpha blends the result over the "
    + 'input. If the bone is missing from the skeleton, or every mode is ignore, the pose passes through.',
  pins: {
    pose: {
      title: 'Component Pose',
      description: 'The pose to modify, read in component space (a local-space node linked here is converted).',
    },
  },
  properties: {
    bone: { title: 'Bone to Modify', description: 'The bone whose transform changes; its children move with it.' },
    translation: { title: 'Translation', description: 'The translation added or set, in Translation Space. Bindable to a vec3 parameter.', unit: 'units' },
    translationMode: { title: 'Translation Mode', description: "'ignore': keep the translation. 'additive': add Translation to it. 'replace': set it to Translation." },
    translationSpace: { title: 'Translation Space', description: SPACES },
    rotation: {
      title: 'Rotation',
      description: 'Euler angles in degrees [x, y, z], the rotation Rx·Ry·Rz (three.js\'s XYZ order), in Rotation Space. Bindable to a vec3 parameter.',
      unit: '°',
    },
    rotationMode: { title: 'Rotation Mode', description: "'ignore': keep the rotation. 'additive': apply Rotation after it (Rotation × rotation). 'replace': set it to Rotation." },
    rotationSpace: { title: 'Rotation Space', description: SPACES },
    scale: { title: 'Scale', description: 'The scale multiplied in or set, per axis, in Scale Space. Bindable to a vec3 parameter.', unit: '×' },
    scaleMode: { title: 'Scale Mode', description: "'ignore': keep the scale. 'additive': multiply it by Scale. 'replace': set it to Scale." },
    scaleSpace: { title: 'Scale Space', description: SPACES },
    alpha: {
      title: 'Alpha',
      description:
        'Strength of the control: 0 leaves the input untouched and skips the work, 1 applies the change fully; in between, '
        + "the bone's component-space translation and scale are lerped and rotation nlerped toward the result.",
    },
  },
  reference: `
Unreal's Transform (Modify) Bone. The bone's component-space transform is changed channel by
channel, scale first, then rotation, then translation (Unreal's order), each in its own space: the
transform is expressed in that space, the channel set (\`replace\`) or combined (\`additive\`:
translation added, rotation applied after, \`rotation × current\`, scale multiplied per axis), and
the transform taken back to component space. \`parent\` space is the bone's local transform
(relative to its parent's component transform; the root's is component space); \`bone\` space is
relative to the bone's own component transform in the input pose, so \`additive\` and \`replace\`
agree there for a channel applied alone, and a rotation in bone space turns the bone about its own
axes. Unreal's world space has no counterpart (the runtime knows no world). The rotation is Euler
angles in degrees, \`[x, y, z]\`, the quaternion Rx·Ry·Rz (three.js's default \`XYZ\` order).
A translation beyond ±1e9 or a scale beyond ±1e6 on an axis (a vec3 parameter may hold any finite
numbers) is held to that bound, so that the bone's children stay finite.
Debug: \`Alpha: 100.0% head\`.

\`\`\`json
"nod": { "type": "ModifyBone", "inputs": { "pose": "walk" },
         "properties": { "bone": "head", "rotation": { "param": "headTurn" }, "rotationMode": "additive", "rotationSpace": "bone" } }
\`\`\`
`,
};
