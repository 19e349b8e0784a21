import { chainIKPins, chainIKPropertyDocs } from './chain-ik-docs.ts';
import type { BuiltInNodeMeta } from './types.ts';

export const CCDIKMeta: BuiltInNodeMeta = {
  title: 'CCDIK',
  category: 'Skeletal controls',
  summary: "Unreal's CCDIK: a chain reaches for a target by cyclic coordinate descent, with per-joint limits.",
  description:
    'Turns the joints of the chain from Root Bone down to Tip Bone one at a time, each pointing the tip toward a target in '
    + "component space (cyclic coordinate descent), keeping every bone length; each joint's total turn may be limited. "
    + "The bones' other children follow them. Alpha blends the result over the input. If a bone is missing from the "
    + 'skeleton the pose passes through.',
  pins: chainIKPins,
  properties: {
    ...chainIKPropertyDocs,
    startFromTail: {
      title: 'Start From Tail',
      description: "Turn the joints from the tip's parent toward the root in each iteration (Unreal's bStartFromTail); off: from the root down.",
    },
    enableRotationLimits: {
      title: 'Enable Rotation Limits',
      description: "Hold each joint's total turn in one solve to its limit (Rotation Limit, or its entry in Joint Limits).",
    },
    rotationLimit: { title: 'Rotation Limit', description: 'The limit of every joint Joint Limits does not name.', unit: '°' },
    jointLimits: {
      title: 'Joint Limits',
      description: "Limits of single joints (Unreal's RotationLimitPerJoints), each a bone of the chain other than the tip, named once.",
      item: {
        bone: { title: 'Bone', description: 'A bone of the chain from Root Bone to the tip\'s parent.' },
        limit: { title: 'Limit', description: 'The most this joint turns in one solve.', unit: '°' },
      },
    },
  },
  reference: `
Unreal's CCDIK on the chain from \`rootBone\` down to \`tipBone\` (the loader rejects a \`tipBone\`
not below \`rootBone\`). In each iteration every joint, from the tip's parent up to the root
(\`startFromTail\`, the default) or from the root down, turns the rest of the chain about itself by
the smallest rotation that points its direction to the tip at the target, until the tip is within
\`precision\` of the target or \`maxIterations\` run out. Rotations keep every bone length. With
\`enableRotationLimits\`, a joint's turns in one solve add up to at most its limit
(\`jointLimits\`, else \`rotationLimit\`), so a limited chain may stop short of a target it could
otherwise reach. Unlike Unreal's solver the root bone turns too (Unreal's leaves it out). The tip
turns with its parent by default (\`keepLocal\`, as Unreal's node). A target out of reach leaves the
chain pointing at it as far as the joints turn. The solver is \`solveCCDIK\` in
\`runtime/jobs/chain-ik.ts\`. Debug as [FABRIK](#fabrik).

\`\`\`json
"tail": { "type": "CCDIK", "inputs": { "pose": "idle" },
          "properties": { "rootBone": "spine_01", "tipBone": "head", "target": { "param": "lookTarget" },
                          "enableRotationLimits": true, "rotationLimit": 20, "jointLimits": [{ "bone": "neck", "limit": 45 }] } }
\`\`\`
`,
};
