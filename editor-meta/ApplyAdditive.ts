import type { BuiltInNodeMeta } from './types.ts';

export const ApplyAdditiveMeta: BuiltInNodeMeta = {
  title: 'Apply Additive',
  category: 'Blends',
  summary: 'base + alpha × additive (from MakeAdditive or a clip marked additive).',
  description:
    'Adds an additive pose (from Make Additive, or a player of a clip marked additive) onto a base pose, scaled by Alpha: '
    + 'a lean, a breathing layer, an aim offset on top of locomotion.',
  pins: {
    base: { title: 'Base', description: 'The pose the additive is added to.' },
    additive: { title: 'Additive', description: 'An additive pose: Make Additive, or a player of a clip marked "additive" in the asset (a load error otherwise).' },
  },
  properties: {
    alpha: {
      title: 'Alpha',
      description: 'How much of the additive: 0 = the base exactly, 1 = all of it. A bound value is clamped to the range each frame (NaN counts as 0).',
    },
    space: {
      title: 'Space',
      description: 'local: rotation deltas turn each bone relative to its parent; mesh: in component space. Must match the additive\'s space.',
    },
    rotationBlend: {
      title: 'Rotation Blend',
      description:
        'How a partial alpha scales each rotation delta from the identity: nlerp (as Unreal does) or slerp (alpha × the '
        + 'delta\'s angle about its axis). The two agree at alpha 0, 0.5 and 1.',
    },
  },
  reference: `
Per bone: T = Tbase + alpha × ΔT; R = nlerp(identity, ΔR, alpha) · Rbase, nlerp(identity, ΔR, alpha) being
normalize((1 − alpha) · identity + alpha · ΔR) with ΔR in the identity's hemisphere (the delta on the left, as Unreal's
FTransform::BlendFromIdentityAndAccumulate); S = Sbase × (1 + alpha × (ΔS − 1)). Above alpha 1 − 0.00001 the whole
delta applies. In mesh space the base's rotations are composed to component space, each turned by its delta there, and
brought back to local space. So base + (pose − base) = pose.

\`"rotationBlend": "slerp"\` scales each delta by slerp instead (alpha × its angle, about its axis). The two agree at
alpha 0, 0.5 and 1 and nowhere else between: on CMU subject 2's run as an additive over its walk (the run's delta from the
walk's first frame, alpha 0.1 to 0.9) they differ by up to 0.020 rad in a bone's local rotation and 0.94 cm in a bone's
component-space position in local space, and by up to 0.050 rad and 2.56 cm in mesh space.

The base is updated at the node's weight, the additive branch at the node's weight × alpha; at or below 0.00001 the
additive branch is neither updated nor evaluated (alpha 0 gives the base bit for bit). Root motion reported by the
additive branch is dropped: an additive moves bones, not the character.

Load errors: the \`additive\` input linked to a node that does not produce an additive pose (\`not-additive\`, at
\`nodes.<id>.inputs.additive\`); an additive of the other space (\`space-mismatch\`, same path).

Debug line: \`Alpha: 50.0% (local)\`; values \`alpha\`, \`space\`.

\`\`\`json
"lean": { "type": "ApplyAdditive", "inputs": { "base": "walk", "additive": "runDelta" }, "properties": { "alpha": { "param": "lean" } } }
\`\`\`
`,
};
