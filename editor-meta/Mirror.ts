import type { BuiltInNodeMeta } from './types.ts';

export const MirrorMeta: BuiltInNodeMeta = {
  title: 'Mirror',
  category: 'Blends',
  summary: 'swaps left and right: the pose mirrored across the skeleton\'s mirror plane, root motion too.',
  description:
    'Mirrors its input: each bone takes its mirror partner\'s transform reflected across the mirror plane (Foot.L takes '
    + 'Foot.R\'s, a bone on the plane its own), so a left-foot-first walk becomes a right-foot-first one. The partners and '
    + 'the plane come from the asset\'s `mirror` block, or from the bone names and the reference pose. The root motion '
    + 'its branch reports is mirrored with the pose.',
  pins: {
    pose: { title: 'Pose', description: 'The pose to mirror.' },
  },
  properties: {
    mirror: {
      title: 'Mirror',
      description: 'Whether to mirror this frame; false passes the pose and root motion through unchanged. Bind it to a bool parameter to mirror on demand.',
    },
  },
  reference: `
The mirror of a bone is its partner's local transform reflected (for the plane x = 0: translation x negated, rotation
(x, y, z, w) → (x, −y, −z, w)), so mirroring twice gives back the same numbers exactly on a rig whose left and right
bones' axes mirror each other (a BVH capture). On a rig whose bones' axes do not (most glTF characters), a correction per
bone read from the reference pose keeps the mirrored reference pose the reference pose; mirroring twice then returns
the pose to rounding. Root motion: the component along the plane's normal and the turn change sign (the plane is taken
to be vertical). It allocates nothing per frame. Debug: \`Mirrored\` or \`Off\`. See docs/asset-format.md, "Mirroring",
for the table, and \`mirror: true\` on a clip for mirroring once at load instead of every frame.

\`\`\`json
"mirrored": { "type": "Mirror", "inputs": { "pose": "walk" }, "properties": { "mirror": { "param": "leftFootFirst" } } }
\`\`\`
`,
};
