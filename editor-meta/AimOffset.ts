import type { BuiltInNodeMeta } from './types.ts';

export const AimOffsetMeta: BuiltInNodeMeta = {
  title: 'Aim Offset',
  category: 'Blends',
  summary: 'a blend space of mesh-space additive clips (yaw × pitch) applied onto a base pose (example: `graphs/examples/sample-aim-offset.json`).',
  description:
    'Blends additive poses placed on a plane (aiming left, right, up and down, each minus the same straight-ahead pose) '
    + 'by two inputs, as Blend Space blends clips, and adds the result onto the base pose in mesh space, scaled by Alpha: '
    + 'the spine and head turn about the character\'s own axes whatever the locomotion below does.',
  pins: {
    base: { title: 'Base', description: 'The pose the offset is added to (locomotion, say).' },
  },
  properties: {
    samples: {
      title: 'Samples',
      description: 'Additive clips made in mesh space (`"additive": { "space": "mesh" }` in the asset\'s clips) and where they sit on the plane: not all on one line, no two at the same point.',
      item: {
        clip: { title: 'Animation', description: "A clip declared in the asset's clips block, marked additive in mesh space." },
        x: { title: 'X', description: 'The sample\'s horizontal coordinate (its yaw, say).' },
        y: { title: 'Y', description: 'The sample\'s vertical coordinate (its pitch, say).' },
      },
    },
    x: { title: 'X', description: 'The horizontal input coordinate (yaw, say).' },
    y: { title: 'Y', description: 'The vertical input coordinate (pitch, say).' },
    xSmoothingTime: { title: 'X Smoothing Time', description: 'Half-life of the smoothing of x. 0 follows at once.', unit: 's' },
    ySmoothingTime: { title: 'Y Smoothing Time', description: 'Half-life of the smoothing of y. 0 follows at once.', unit: 's' },
    alpha: {
      title: 'Alpha',
      description: 'How much of the offset: 0 = the base exactly, 1 = all of it. A bound value is clamped to the range each frame (NaN counts as 0).',
    },
    playRate: { title: 'Play Rate', description: 'Multiplier on delta time for the samples (single-frame samples do not move).', unit: '×' },
    loop: { title: 'Loop', description: 'Whether the samples loop (on) or hold at their ends (off).' },
  },
  reference: `
A sample is usually one frame of an aim pose made additive against the straight-ahead pose in the asset's clips:
\`"aimLeft": { "source": "builtin:aim", "frames": [1, 1], "additive": { "reference": { "clip": "aimPoses", "frame": 0 }, "space": "mesh" } }\`
(\`graphs/examples/sample-aim-offset.json\` places the nine poses of the built-in \`aim\` clip, on the sample biped, at yaw ±60 and pitch ±40 degrees).

The samples are weighed as BlendSpace2D weighs its samples (triangulated at load in coordinates scaled to the unit
square; barycentric weights inside a triangle, the nearest point of the outline outside), and play in step as
BlendSpace2D's do. Their blend, an additive pose, is applied onto the base as ApplyAdditive applies a mesh-space
additive: per bone, T = Tbase + alpha × ΔT, S = Sbase × (1 + alpha × (ΔS − 1)), and the base's component-space
rotation turned by slerp(identity, ΔR, alpha) on the left, then brought back to local space. An input exactly on a
sample gives that sample's additive applied onto the base.

The base is updated at the node's weight, the samples at the node's weight × alpha; at or below 0.00001 the samples are
neither updated nor evaluated (alpha 0 gives the base bit for bit). Root motion reported by the samples is dropped.

Load errors: a sample clip that is not marked additive (\`not-additive\`, at \`samples[i].clip\`), or one made in local
space (\`space-mismatch\`, same path); otherwise as BlendSpace2D's (\`duplicate-sample\`, \`collinear-samples\`,
\`value-range\`).

Debug: \`X: -30.000 Y: -10.000 Leader: 'aimRight' Play Time: 0.000 Alpha: 100.0%\`; values as BlendSpace2D's and
\`alpha\`.

\`\`\`json
"aim": { "type": "AimOffset", "inputs": { "base": "locomotion" }, "properties": {
  "x": { "param": "yaw" }, "y": { "param": "pitch" },
  "samples": [ { "clip": "aimCenter", "x": 0, "y": 0 }, { "clip": "aimLeft", "x": 60, "y": 0 }, { "clip": "aimUp", "x": 0, "y": 40 } ] } }
\`\`\`
`,
};
