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
      description: "The clip to sample, declared in the asset's clips block.",
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
Samples the clip at an explicit time (bind it to a parameter to scrub or drive a pose from
gameplay); clamps outside the clip, or wraps when \`loop\` is set. A clip with root motion reports
the motion from the previous frame's time to this one's (moving the time back walks the character
back); the first frame after the node becomes relevant reports none.

\`\`\`json
"aim": { "type": "SequenceEvaluator", "properties": { "clip": "aimSweep", "explicitTime": { "param": "aimTime" } } }
\`\`\`
`,
};
