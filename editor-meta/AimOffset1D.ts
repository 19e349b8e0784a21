import type { BuiltInNodeMeta } from './types.ts';

export const AimOffset1DMeta: BuiltInNodeMeta = {
  title: 'Aim Offset 1D',
  category: 'Blends',
  summary: 'a blend space of mesh-space additive clips along one axis (yaw) applied onto a base pose.',
  description:
    'Blends additive poses placed along one axis (aiming left to right, each minus the same straight-ahead pose) by an '
    + 'input, as Blend Space 1D blends clips, and adds the result onto the base pose in mesh space, scaled by Alpha.',
  pins: {
    base: { title: 'Base', description: 'The pose the offset is added to (locomotion, say).' },
  },
  properties: {
    samples: {
      title: 'Samples',
      description: 'Additive clips made in mesh space (`"additive": { "space": "mesh" }` in the asset\'s clips) and where they sit on the axis; no two at the same x.',
      item: {
        clip: { title: 'Animation', description: "A clip declared in the asset's clips block, marked additive in mesh space." },
        x: { title: 'X', description: 'The sample\'s coordinate on the axis (its yaw, say).' },
      },
    },
    x: { title: 'X', description: 'The input coordinate (yaw, say).' },
    smoothingTime: { title: 'Smoothing Time', description: 'Half-life of the input smoothing. 0 follows at once.', unit: 's' },
    alpha: {
      title: 'Alpha',
      description: 'How much of the offset: 0 = the base exactly, 1 = all of it. A bound value is clamped to the range each frame (NaN counts as 0).',
    },
    playRate: { title: 'Play Rate', description: 'Multiplier on delta time for the samples (single-frame samples do not move).', unit: '×' },
    loop: { title: 'Loop', description: 'Whether the samples loop (on) or hold at their ends (off).' },
  },
  reference: `
The samples are weighed as BlendSpace1D weighs its samples (the two around the input linearly, the first or last alone
outside them) and their blend is applied onto the base as AimOffset applies it (mesh space, at alpha; the samples
updated at the node's weight × alpha, and not at all at or below 0.00001).

Load errors: a sample clip that is not marked additive (\`not-additive\`, at \`samples[i].clip\`), or one made in local
space (\`space-mismatch\`, same path); otherwise as BlendSpace1D's (\`duplicate-sample\`, \`value-range\`).

Debug: \`X: -30.000 Leader: 'aimRight' Play Time: 0.000 Alpha: 100.0%\`; values as BlendSpace1D's and \`alpha\`.
`,
};
