import type { BuiltInNodeMeta } from './types.ts';

export const PoseSnapshotMeta: BuiltInNodeMeta = {
  title: 'Pose Snapshot',
  category: 'Pose sources',
  summary: "Unreal's Pose Snapshot: the pose code saved with `savePoseSnapshot`.",
  description:
    'Outputs the pose the instance saved under Snapshot Name (AnimGraphInstance.savePoseSnapshot), a pose source to '
    + 'blend from like any other: snapshot a ragdoll\'s pose, then blend from it to a getup clip. Until the first save, '
    + "the skeleton's reference pose.",
  pins: {},
  properties: {
    snapshotName: {
      title: 'Snapshot Name',
      description: "The name code saves the pose under (`instance.savePoseSnapshot(name)`); left out, the node's id.",
    },
  },
  reference: `
Unreal's Pose Snapshot: a pose source whose pose is the one the instance saved under
\`snapshotName\` by \`instance.savePoseSnapshot(name)\` (see [the API](api.md)): the pose
\`evaluate\` last returned, bit for bit. Saving again overwrites it; the node outputs the new pose
from its next evaluation. Before any save it outputs the skeleton's reference pose. The snapshot's
storage is made with the instance for every name its PoseSnapshot nodes read, so saving allocates
nothing; snapshots outlast \`reset()\`. Several nodes may read one name.
Debug: \`Snapshot: ragdoll\`, value \`snapshot\`.

The getup-from-ragdoll pattern: save the ragdoll's pose when the character lands, then blend from
the snapshot to the getup clip.

\`\`\`json
"ragdoll": { "type": "PoseSnapshot", "properties": { "snapshotName": "ragdoll" } },
"getup":   { "type": "SequencePlayer", "properties": { "clip": "getup", "loop": false } },
"blend":   { "type": "BlendTwo", "inputs": { "A": "ragdoll", "B": "getup" }, "properties": { "alpha": { "param": "getupBlend" } } }
\`\`\`

<!-- docs-test: typecheck
import type { AnimGraphInstance } from 'animgraph';
declare const instance: AnimGraphInstance;
-->
\`\`\`ts
instance.savePoseSnapshot('ragdoll'); // when the ragdoll comes to rest
\`\`\`
`,
};
