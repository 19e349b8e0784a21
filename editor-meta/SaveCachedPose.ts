import type { BuiltInNodeMeta } from './types.ts';

export const SaveCachedPoseMeta: BuiltInNodeMeta = {
  title: 'Save Cached Pose',
  category: 'Cached poses',
  summary: "shares its branch's pose between several uses: updated once per frame at the largest weight a use asks for, evaluated once.",
  description:
    'Caches the pose of its input branch so that several UseCachedPose nodes share it: the branch is updated once per '
    + 'frame, at the largest weight any use asks for, and evaluated once. No input links to it; each use names its id.',
  pins: {
    pose: { title: 'Pose', description: 'The branch to cache: updated and evaluated once per frame, however many uses read it.' },
  },
  properties: {},
  reference: `
The graph's only way to share a branch: an
ordinary node still feeds one input (\`shared-link\`), but any number of
[UseCachedPose](#usecachedpose) nodes may name a SaveCachedPose by its node id in their \`cache\`
property. Nothing links to the SaveCachedPose itself (\`not-linkable\`, as an input or as the
\`output\`).

- **Update**: each use that is updated (its absolute weight above 0.00001) records its weight with
  the cache; after the whole graph update, the cached branch is updated once, with the largest of
  those weights (and that use's inertialization provider), as Unreal's SaveCachedPose does after
  the graph update. A branch no use updated this frame is not updated (weight 0). Updating after the
  graph, not at the first use, means a use at a tiny weight never makes the branch drop a blend
  input that a heavier use needs.
- **Root motion** of the cached branch counts once per use at that use's weight, summed (as if each
  use played its own copy): two uses at 50% give the branch's root motion once, in full. It joins
  the graph's root motion directly, so the nodes between a use and the output do not see it (a
  StrideWarping above a use warps no cached root motion; put it inside the cached branch).
- **Events** (\`sequenceLooped\`, ...) of the cached branch fire once per frame, not once per use.
- **Evaluate**: the branch is evaluated once per frame, at the first use evaluated, into a pose
  owned by this node (sized at bind); each use copies it, or blends from it with no copy.
- **In state machines**: a use inside a [StateMachine](#statemachine) state may name a cache of
  its own state or of any graph around its machine (the state first, then outward), as Unreal's
  states use the cached poses of the graph around them. The branch is still updated once per frame
  at the largest use weight (a state's use asks at the state's weight) and evaluated once. A
  state's sub-graph is re-initialized when the state is entered with no weight; a cache of the
  graph around it is not (its clips play on from where they were), while a cache of the state's
  own graph restarts with it.
- **Debug**: the cached branch appears once, under its first use in the cache's own graph (in the
  order the loader builds the graph: the first reached from the output; for a cache used only from
  states, its first use), as \`Uses: upperBody, lowerBody\`, with values
  \`uses\`, \`useWeights\` (each use's weight this frame) and \`useWeightSum\`; the other uses show
  \`Cache: locomotion (shown under upperBody)\`.
- **Load errors**: a use naming an unknown node (\`dangling-link\`) or a node of another type
  (\`wrong-node-type\`), at its \`cache\`; a use inside its own cache's branch (\`cycle\`, at the
  use's \`cache\`, also through a state: a cache whose branch holds the machine whose state uses
  it); the depth limit (500, \`too-deep\`) counts each cache below each of its uses. A
  SaveCachedPose that no use reached from the output names is allowed and ignored, like any other
  node the output does not reach (still checked).

\`\`\`json
"locomotion": { "type": "SaveCachedPose", "inputs": { "pose": "gaits" } },
"upper": { "type": "UseCachedPose", "properties": { "cache": "locomotion" } },
"lower": { "type": "UseCachedPose", "properties": { "cache": "locomotion" } }
\`\`\`
`,
};
