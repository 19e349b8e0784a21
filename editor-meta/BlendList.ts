import type { BuiltInNodeMeta } from './types.ts';

export const BlendListMeta: BuiltInNodeMeta = {
  title: 'Blend Poses by int',
  category: 'Blends',
  summary: 'one of several poses chosen by index, crossfaded or inertialized.',
  description:
    'Chooses one of several poses by index and crossfades to it when the index changes. Switching to pose i blends '
    + 'over Blend Times[i] seconds along the Blend Curve from the weights the inputs had at the switch, so a switch in the middle '
    + 'of a blend does not pop. Out-of-range indices are clamped to the first or last pose rather than failing. Each '
    + 'input is updated with its share of the weight; inputs at zero weight are skipped. The first update starts on the '
    + 'chosen pose without blending.',
  pins: {
    poses: {
      title: 'Blend Poses',
      description: 'The poses to choose from, in index order (the first is index 0).',
    },
  },
  properties: {
    activeIndex: {
      title: 'Active Child Index',
      description:
        'Index of the pose to blend to. A bound value past the end selects the last pose and a negative one (or NaN) '
        + 'the first; fractions are truncated. Usually bound to an int parameter such as a gait or stance enum.',
    },
    blendTimes: {
      title: 'Blend Times',
      description:
        'Crossfade duration when switching to each pose. 0 switches instantly.',
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
        'A profile from the asset\'s blendProfiles: each bone crossfades at its own pace '
        + '(timeFactor 0.5: the bone arrives at half the blend time). Absent: every bone blends together. A switch in the '
        + 'middle of a profiled blend continues every bone from where it was.',
    },
    blendCurve: {
      title: 'Blend Curve',
      description:
        'The curve a crossfade follows over the blend time: one of Unreal\'s blend options (linear when absent, cubic, '
        + 'hermiteCubic, sinusoidal, quadratic/cubic/quartic/quinticInOut, circular and exp In/Out/InOut) or a custom '
        + 'curve, {"keys": [[t, v], ...]} or {"clip", "curve"} naming a clip\'s float curve (see StateMachine).',
    },
  },
  reference: `
Plays the chosen pose; when the choice changes, crossfades along \`blendCurve\` (linear unless set;
the curves are StateMachine's) over the blend time of the pose switched to, starting from the weights the inputs had, so a switch in
the middle of a blend does not pop. The first update starts on the chosen pose without a blend.
Out-of-range indices are clamped to the nearest pose. As in BlendTwo, an input whose absolute
weight is at or below 0.00001 is neither updated nor evaluated; the others' weights are
renormalised for the blend.

BlendList and BlendByBool take \`blendMode\`: \`crossfade\` (above) or \`inertial\`: switch
at once and ask the nearest Inertialization node below for a transition of the blend time (see
Inertialization). A graph with an inertial blend and no Inertialization node between it and the
output does not load (\`no-inertialization\`, naming both).

\`blendProfile\` names one of the asset's \`blendProfiles\` (timeFactor or weightFactor; see
docs/asset-format.md): a crossfade then moves each bone at its own pace, and the debug line ends
with \`Profile: <name>\`. A switch in the middle of such a blend continues each bone from its own
weight, so nothing pops. An input stays updated while any bone still uses it. In inertial mode the
profile shapes each bone's transition time instead (see Inertialization).

\`\`\`json
"blendProfiles": { "legsFirst": { "mode": "timeFactor", "branches": [{ "bone": "Spine", "scale": 1 }], "bones": { "Hips": 0.4 } } },
"gait": { "type": "BlendList", "inputs": { "poses": ["walk", "run"] },
  "properties": { "activeIndex": { "param": "gait" }, "blendTimes": [0.4, 0.4], "blendProfile": "legsFirst" } }
\`\`\`
`,
};
