import type { BuiltInNodeMeta } from './types.ts';

export const MakeAdditiveMeta: BuiltInNodeMeta = {
  title: 'Make Additive',
  category: 'Blends',
  summary: "a pose minus a reference pose (the skeleton's or a clip frame), local or mesh space.",
  description:
    'Turns a pose into an additive one: each bone\'s delta from a reference pose (the skeleton\'s, or a frame of a clip), '
    + 'in local or mesh space. Feed it to Apply Additive\'s Additive pin.',
  pins: {
    pose: { title: 'Pose', description: 'The pose whose difference from the reference becomes the additive.' },
  },
  properties: {
    reference: {
      title: 'Reference',
      description:
        '"skeleton" (default): the skeleton\'s reference pose; or { "clip": name, "frame": n }: frame n of a clip as authored '
        + '(a negative frame counts from the end, -1 = last).',
    },
    space: {
      title: 'Space',
      description:
        'local: rotation deltas relative to each bone\'s parent; mesh: rotation deltas in component space, so they turn a bone about '
        + 'the character\'s axes whatever its parents do. Apply Additive must use the same space.',
    },
  },
  reference: `
Outputs, per bone, the input minus the reference: translation T − Tref, rotation R · Rref⁻¹, scale S / Sref (0 where
the reference scale is 0). In mesh space the rotations are first composed down the hierarchy (component-space rotations,
as Unreal's mesh-space additives; translations and scales stay local). The reference is built once when the graph
loads; a reference clip marked additive is read as authored. A reference frame outside the clip is a load error at
\`properties.reference.frame\`, an unknown clip one at \`properties.reference.clip\`.

Debug line: \`Reference: 'run' frame 0 (local)\`; values \`reference\`, \`space\`.

\`\`\`json
"runDelta": { "type": "MakeAdditive", "inputs": { "pose": "run" }, "properties": { "reference": { "clip": "run", "frame": 0 } } }
\`\`\`
`,
};
