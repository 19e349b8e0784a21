import type { BuiltInNodeMeta } from './types.ts';

export const SequenceEvaluatorMeta: BuiltInNodeMeta = {
  title: 'Sequence Evaluator',
  category: 'Pose sources',
  summary: 'samples a clip at an explicit time (scrubbing, aim poses).',
  description:
    'Samples a clip at an explicit time instead of advancing it: the pose follows Explicit Time exactly, with no '
    + 'accumulated play time and no sequence events. Use it for scrubbing, aim and lean poses, or any pose driven by a '
    + 'gameplay value mapped to time. Times outside the clip are clamped to its ends, or wrapped when Loop is on.',
  pins: {},
  properties: {
    clip: {
      title: 'Sequence',
      description: "The clip to sample: a name declared in the asset's clips block. Required; not bindable.",
    },
    explicitTime: {
      title: 'Explicit Time',
      description: 'Time in the clip to sample, in seconds from its first frame. Usually bound to a float parameter.',
      unit: 's',
    },
    loop: {
      title: 'Loop',
      description:
        'Wrap times outside the clip into [0, duration) instead of clamping them to the first or last key; the last '
        + 'key and the first are one instant.',
    },
  },
  reference: `
**SequenceEvaluator** (\`clip\`, \`explicitTime\` = 0, \`loop\` = false). Samples the clip at an
explicit time (bind it to a parameter to scrub or drive a pose from gameplay); clamps outside the
clip, or wraps when \`loop\` is set.

\`\`\`json
"aim": { "type": "SequenceEvaluator", "properties": { "clip": "aimSweep", "explicitTime": { "param": "aimTime" } } }
\`\`\`
`,
};
