import type { NodeEditorMeta } from './types.ts';

export const SequencePlayerMeta: NodeEditorMeta = {
  type: 'SequencePlayer',
  title: 'Sequence Player',
  category: 'Pose sources',
  description:
    'Plays an animation clip: each update advances the play time by delta time × Play Rate and samples the clip '
    + 'there (linear translation and scale, slerp or nlerp rotation between keys, reference pose for bones without a track). '
    + 'With Loop on, the time wraps and a sequenceLooped event fires on every wrap; with Loop off, the time holds on the '
    + 'last frame (the first when playing backwards) and sequenceEnded fires once per arrival. While its branch has zero '
    + 'weight the player is not updated, so it resumes from the same time when blended back in.',
  pins: {},
  properties: {
    clip: {
      title: 'Sequence',
      description: "The clip to play: a name declared in the asset's clips block. Required; not bindable.",
    },
    playRate: {
      title: 'Play Rate',
      description:
        'Multiplier on delta time: 1 plays at authored speed, 2 twice as fast, 0 freezes the pose, negative values play '
        + 'backwards. Bind it to a speed parameter to match stride to movement speed.',
      unit: '×',
    },
    loop: {
      title: 'Loop',
      description:
        'On: the play time wraps past either end, emitting sequenceLooped; the last key and the first are treated as one '
        + 'instant, so author cycles whose first and last frames match. Off: the time holds at the end and sequenceEnded '
        + 'fires once each time it arrives there.',
    },
    startTime: {
      title: 'Start Time',
      description:
        "Play time when the graph instance is initialised, clamped to the clip's duration. Read once at "
        + 'initialisation, not when the node becomes relevant again.',
      unit: 's',
    },
  },
  reference: `
**SequencePlayer** (\`clip\`, \`playRate\` = 1, \`loop\` = true, \`startTime\` = 0). Advances its play
time by delta time × play rate (negative plays backwards) and samples the clip there: linear
translation and scale, slerp or nlerp rotation. Looping wraps (event \`sequenceLooped\`); otherwise
the time holds at the end (event \`sequenceEnded\`, once per arrival). A looping advance too large
for a double (a bound rate of 1e308 over a long frame) wraps by the delta time modulo one loop, so
the time stays in the clip. Debug: \`'walk' Play Time: 0.533\`.

\`\`\`json
"walk": { "type": "SequencePlayer", "properties": { "clip": "walk", "playRate": { "param": "speed" } } }
\`\`\`
`,
};
