import { chainIKPins, chainIKPropertyDocs } from './chain-ik-docs.ts';
import type { BuiltInNodeMeta } from './types.ts';

export const FABRIKMeta: BuiltInNodeMeta = {
  title: 'FABRIK',
  category: 'Skeletal controls',
  summary: "Unreal's FABRIK: a chain from a root bone to a tip bone reaches for a target.",
  description:
    'Moves the chain of bones from Root Bone down to Tip Bone so the tip reaches a target in component space, by forward '
    + 'and backward reaching (FABRIK), keeping every bone length; each bone turns by the smallest rotation, so twist is '
    + "kept. The bones' other children follow them. Alpha blends the result over the input. If a bone is missing from "
    + 'the skeleton the pose passes through.',
  pins: chainIKPins,
  properties: chainIKPropertyDocs,
  reference: `
Unreal's FABRIK (Aristidou and Lasenby's forward and backward reaching IK) on the chain from
\`rootBone\` down to \`tipBone\` (any number of bones, each the parent of the next; the loader
rejects a \`tipBone\` not below \`rootBone\`). The root stays where it is and every bone keeps its
length. A target farther from the root than the chain's length straightens the chain toward it.
Otherwise, unless the tip is already within \`precision\`, the tip is put on the target and the
joints between are moved alternately from the tip and from the root, until the tip's parent is
within \`precision\` of the tip bone's length from the target or \`maxIterations\` run out; the tip
is then placed at its length from its parent toward the target. Each bone but the tip then turns by
the smallest rotation taking its old direction to its child to the new one; the tip turns as
\`tipRotation\` says (by default it keeps its component-space rotation, as Unreal's node). A
target beyond ±1e9 on an axis is moved toward the origin along its direction to that bound. The
solver is \`solveFabrik\` in \`runtime/jobs/chain-ik.ts\`. Debug: \`Alpha: 100.0% upperarm_l ..
hand_l -> target\`, with \`values\` \`target\`, \`reachError\` (tip to target) and \`iterations\`.

\`\`\`json
"reach": { "type": "FABRIK", "inputs": { "pose": "idle" },
           "properties": { "rootBone": "clavicle_l", "tipBone": "hand_l", "target": { "param": "handTarget" }, "precision": 0.1 } }
\`\`\`
`,
};
