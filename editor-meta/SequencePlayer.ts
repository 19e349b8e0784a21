import type { BuiltInNodeMeta } from './types.ts';

export const SequencePlayerMeta: BuiltInNodeMeta = {
  title: 'Sequence Player',
  category: 'Pose sources',
  summary: 'plays a clip at a rate, looping or holding at the end.',
  description:
    'Plays an animation clip: each update advances the play time by delta time × Play Rate and samples the clip '
    + 'there (linear translation and scale, slerp or nlerp rotation between keys, reference pose for bones without a track). '
    + 'With Loop on, the time wraps and a sequenceLooped event fires on each update that wraps (once, however many loops that update crosses; notifies fire in every loop crossed); with Loop off, the time holds on the '
    + 'last frame (the first when playing backwards) and sequenceEnded fires once per arrival. While its branch has zero '
    + 'weight the player is not updated, so it resumes from the same time when blended back in.',
  pins: {},
  properties: {
    clip: {
      title: 'Sequence',
      description: "The clip to play, declared in the asset's clips block.",
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
        "Play time when the node is initialised (the instance's start, or a state machine state entered anew), clamped "
        + "to the clip's duration; not when the node becomes relevant again.",
      unit: 's',
    },
    syncGroup: {
      title: 'Sync Group',
      description:
        'A name shared with other players and blend spaces to keep in step: the member of highest weight leads and the '
        + 'others take its position, between the same two sync markers when both clips have them, else at the same '
        + 'normalised time. Leave out to play independently.',
    },
    mirror: {
      title: 'Mirror',
      description:
        "On: plays the clip mirrored left to right by the asset's mirror table (its `mirror` block, or bone names that say "
        + 'their side), root motion included: sideways motion and turns change sign. The clip is mirrored once when the graph '
        + 'loads, so a mirrored player costs what any other does; use a Mirror node to switch mirroring while playing.',
    },
  },
  reference: `
Advances its play time by delta time × play rate (negative plays backwards) and samples the clip there: linear
translation and scale, slerp or nlerp rotation. Looping wraps (event \`sequenceLooped\`); otherwise
the time holds at the end (event \`sequenceEnded\`, once per arrival). A looping advance too large
for a double (a bound rate of 1e308 over a long frame) wraps by the delta time modulo one loop, so
the time stays in the clip. Debug: \`'walk' Play Time: 0.533\`.

With \`syncGroup\` (a name), the player is in a sync group (Unreal's): each frame the member with the
highest absolute weight in the frame before leads (the first member updated when none was updated
then) and advances by its own rate; every other member takes its position: the same fraction of the
way between the same two sync markers when both clips carry markers of those names (a clip's
\`syncMarkers\`, e.g. \`footL\`, \`footR\`), else the same normalised time (time / duration). Leadership
follows the weights one frame late because a follower updated before the leader must already take
the leader's new position; the phase never jumps, since a new leader goes on from where it was
following. A follower's root motion is that of the span it moved. Debug adds
\`Sync: locomotion (leader)\`.

\`\`\`json
"walk": { "type": "SequencePlayer", "properties": { "clip": "walk", "playRate": { "param": "speed" } } }
\`\`\`
`,
};
