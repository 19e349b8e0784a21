import type { BuiltInNodeMeta } from './types.ts';

export const BlendTwoMeta: BuiltInNodeMeta = {
  title: 'Blend',
  category: 'Blends',
  summary: 'A × (1 − alpha) + B × alpha.',
  description:
    'Blends two local-space poses by Alpha: 0 gives A, 1 gives B (linear translation and scale, normalised-linear '
    + 'rotation along the shorter arc). Each input is updated with its share of the branch weight; an input at zero '
    + 'weight is neither updated nor evaluated, so the players under it pause and their events stop.',
  pins: {
    A: { title: 'A', description: 'The pose at Alpha 0.' },
    B: { title: 'B', description: 'The pose at Alpha 1.' },
  },
  properties: {
    alpha: {
      title: 'Alpha',
      description:
        'Weight of B: 0 = all A, 0.5 = halfway, 1 = all B. A bound value is clamped to the range each frame '
        + '(NaN counts as 0).',
    },
  },
  reference: `
Output = A × (1 − alpha) + B × alpha. An input whose absolute weight (the blend's own weight × its share) is at or below 0.00001 is neither
updated nor evaluated, so under a 50% blend an alpha of 0.00002 already drops B. A bound alpha is
clamped to its range.

\`\`\`json
"lean": { "type": "BlendTwo", "inputs": { "A": "walk", "B": "run" }, "properties": { "alpha": { "param": "effort" } } }
\`\`\`
`,
};
