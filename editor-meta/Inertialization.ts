import type { BuiltInNodeMeta } from './types.ts';

export const InertializationMeta: BuiltInNodeMeta = {
  title: 'Inertialization',
  category: 'Blends',
  summary: 'inertializes the switches that inertial blends above it request.',
  description:
    'Inertializes the transitions requested above it: a Blend Poses by bool or by int in inertial blend mode, or a state '
    + 'machine\'s inertial transition, switches instantly and asks the nearest Inertialization node below it for a '
    + 'transition of its blend time. Requests in '
    + 'one frame merge by the shortest duration; a request that interrupts a running transition has the time still '
    + 'owed (the deficit, shown in brackets in the debug line) subtracted from its duration.',
  pins: {
    pose: { title: 'Source', description: 'The branch whose switches are inertialized.' },
  },
  properties: {},
  reference: `
Unreal's design: it takes transitions requested by the blends above it (BlendByBool/BlendList in
\`inertial\` mode, StateMachine transitions with \`"blend": "inertial"\`) and inertializes its own output the same way.
Requests in one frame merge by the shortest duration. A request that interrupts a running
transition records the time still owed (the deficit, shown in brackets); while a deficit is
outstanding it is subtracted from new requests, so thrashing requests cannot keep the pose
"melting"; it is paid down by delta time and cleared when a transition completes.

\`\`\`json
"gait": { "type": "BlendList", "inputs": { "poses": ["idle", "walk", "run"] },
          "properties": { "activeIndex": { "param": "gait" }, "blendTimes": 0.3, "blendMode": "inertial" } },
"smooth": { "type": "Inertialization", "inputs": { "pose": "gait" } }
\`\`\`
Debug: \`Inertialization[smooth]<W:100.0%> ('Active' Time: 0.120 / 0.300 (40%) [0.000])\`.

*Per-bone time*: a request from a BlendList or a state machine transition with a \`blendProfile\`
gives each bone its own share of the duration: timeFactor, duration × scale (0: the bone takes the
new pose at once); weightFactor, duration / scale (Unreal's per-bone blend durations; a scale of 0
keeps the duration). The transition lasts until the slowest bone has settled, and the debug line
ends with \`Profile: <name>\` while it runs (value \`blendProfile\`). Merged requests keep the
profile of the shortest.
`,
};
