import type { BuiltInNodeMeta } from './types.ts';

export const BlendByBoolMeta: BuiltInNodeMeta = {
  title: 'Blend Poses by bool',
  category: 'Blends',
  summary: 'two poses chosen by a bool, crossfaded or inertialized.',
  description:
    'Chooses between two poses by a bool and crossfades when the choice changes: True while Active Value is true, '
    + 'False otherwise. The crossfade is linear from the weights the inputs had at the switch, so flipping the bool '
    + 'mid-blend does not pop; the first update starts on the chosen pose without blending. Only inputs with weight are '
    + 'updated.',
  pins: {
    True: { title: 'True Pose', description: 'The pose used while Active Value is true.' },
    False: { title: 'False Pose', description: 'The pose used while Active Value is false.' },
  },
  properties: {
    active: {
      title: 'Active Value',
      description: 'Which pose to blend to. Usually bound to a bool parameter such as isCrouching.',
    },
    trueBlendTime: {
      title: 'True Blend Time',
      description: 'Crossfade duration when switching to the True pose; 0 switches instantly.',
      unit: 's',
    },
    falseBlendTime: {
      title: 'False Blend Time',
      description: 'Crossfade duration when switching to the False pose; 0 switches instantly.',
      unit: 's',
    },
    blendMode: {
      title: 'Blend Mode',
      description:
        'crossfade: blend the poses over the blend time (both are evaluated meanwhile). inertial: switch at once and '
        + 'ask the Inertialization node below for a transition of the blend time (one pose evaluated); the graph must '
        + 'have one between this node and the output.',
    },
    blendProfile: {
      title: 'Blend Profile',
      description:
        'A profile from the asset\'s blendProfiles: each bone blends at its own pace, as in BlendList. Absent: every '
        + 'bone blends together.',
    },
    blendCurve: {
      title: 'Blend Curve',
      description: 'The curve a crossfade follows, as in BlendList (linear when absent).',
    },
  },
  reference: `
BlendList with two poses chosen by a bool; each direction has its own blend time, read every frame.
It takes \`blendMode\`, \`blendProfile\` and \`blendCurve\` as BlendList does (see [BlendList](#blendlist)).

\`\`\`json
"gait": { "type": "BlendByBool", "inputs": { "True": "run", "False": "walk" },
          "properties": { "active": { "param": "running" }, "trueBlendTime": 0.3, "falseBlendTime": 0.4 } }
\`\`\`
`,
};
