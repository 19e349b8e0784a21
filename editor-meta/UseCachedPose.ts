import type { BuiltInNodeMeta } from './types.ts';

export const UseCachedPoseMeta: BuiltInNodeMeta = {
  title: 'Use Cached Pose',
  category: 'Cached poses',
  summary: 'the pose of the SaveCachedPose its `cache` names.',
  description:
    'The pose of a SaveCachedPose, shared with its other uses: its weight asks the cache to update its branch (once per '
    + 'frame, at the largest weight asked), and it reads the pose the cache evaluated once.',
  pins: {},
  properties: {
    cache: {
      title: 'Cached Pose',
      description: 'The cache whose pose this reads. Several uses may name one cache.',
    },
  },
  reference: `
A pose source reading the pose cached by the [SaveCachedPose](#savecachedpose) it names: its update records its absolute
weight with the cache (which updates its branch once, after the graph update, at the largest such
weight), and its evaluation copies the cache's pose (evaluated once per frame), or blends from it
with no copy under a blend. A use under a blend at zero weight is not updated and asks nothing.
In a StateMachine state, \`cache\` names a SaveCachedPose of the state or of a graph around the
machine, the nearest first (see SaveCachedPose).
Debug: \`Cache: locomotion\`, with the cached branch below it for the cache's first use, and
\`Cache: locomotion (shown under upper)\` for the others; value \`cache\`.

\`\`\`json
"upper": { "type": "UseCachedPose", "properties": { "cache": "locomotion" } }
\`\`\`
`,
};
