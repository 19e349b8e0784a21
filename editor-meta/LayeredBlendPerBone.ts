import type { BuiltInNodeMeta } from './types.ts';

export const LayeredBlendPerBoneMeta: BuiltInNodeMeta = {
  title: 'Layered blend per bone',
  category: 'Blends',
  summary: 'layers over a base pose, each on the bones its branch filters or mask select (an upper body over locomotion), in local or mesh space.',
  description:
    'A base pose with layers over it, each driving only the bones its mask selects: an upper body aiming or waving over '
    + 'the legs\' locomotion. A mask is branch filters (a bone and a blend depth, as Unreal\'s) or explicit per-bone weights. '
    + 'Each bone of a layer blends by its mask weight times the layer\'s weight; layers apply in order, a later one winning '
    + 'where masks overlap. Rotations blend in local space, or in mesh (component) space so the layer keeps its '
    + 'orientation in the world over a moving base.',
  pins: {
    base: {
      title: 'Base Pose',
      description: 'The pose every bone starts from and keeps where no layer reaches (locomotion, usually). Updated with this node\'s full weight.',
    },
    layers: {
      title: 'Blend Poses',
      description: 'One pose per layer, in the order of the Layers property (same count). A layer at zero weight is neither updated nor evaluated.',
    },
  },
  properties: {
    layers: {
      title: 'Layers',
      description: 'The layers, each with a mask (filters, mask or blendProfile, exactly one) and a weight, in the order of the Blend Poses pins.',
      item: {
        filters: {
          title: 'Branch Filters',
          description:
            'Bones the layer drives, each with everything below it: [{ bone, depth }]. Blend depth 0 (or 1) gives the whole '
            + 'branch full weight; depth N ramps it over N levels (1/N at the bone, 2/N below, ... 1). A negative depth takes '
            + 'weight away the same way (-1 removes the branch). Filters add in order, clamped to [0, 1].',
        },
        mask: {
          title: 'Bone Mask',
          description:
            'Explicit per-bone weights, { bone: weight } in [0, 1]; a bone not named takes its parent\'s weight (0 at a root), '
            + 'so naming the spine covers the upper body.',
        },
        blendProfile: {
          title: 'Blend Profile',
          description:
            'The name of a blendMask profile of the asset\'s blendProfiles: its per-bone alphas are the layer\'s mask (bones it '
            + 'does not set: 0), so several layers and nodes can share one mask.',
        },
        weight: {
          title: 'Blend Weight',
          description: 'The layer\'s weight, multiplied into every bone\'s mask weight; usually bound to a float parameter. A bound value is clamped to its range.',
        },
      },
    },
    meshSpaceRotationBlend: {
      title: 'Mesh Space Rotation Blend',
      description:
        'Blend rotations in component space: a layered bone takes the layer\'s orientation relative to the character, not '
        + 'relative to its parent in the base. Translations and scales always blend in local space.',
    },
  },
  reference: `
Unreal's Layered blend per bone: the \`layers\` input has one pose per item of the \`layers\`
property. Each layer's per-bone weights come from its mask, built once when the graph is bound (never
per frame):

- \`filters\`: Unreal's branch filters, \`[{ "bone": "spine_01", "depth": 2 }]\`. A filter adds
  (level + 1) / depth to the bone \`level\` steps below its bone, clamped to [0, 1]: depth 0 or 1
  gives the whole branch weight 1, depth 2 gives the bone 0.5 and everything below 1, depth 3
  ramps 1/3, 2/3, 1. A negative depth removes weight the same way, and filters apply in order, so
  \`[{ "bone": "spine_02" }, { "bone": "neck", "depth": -1 }]\` is the upper body without the head.
- \`mask\`: explicit weights, \`{ "spine_01": 1, "neck": 0.5 }\`; a bone not named takes its parent's
  weight (a root not named: 0).
- \`blendProfile\`: the name of a \`blendMask\` profile of the asset's \`blendProfiles\`
  (docs/asset-format.md), \`"blendProfile": "upperBody"\`: its per-bone alphas, bones it does not
  set at 0, are the mask; a profile of another mode is \`blend-profile-mode\`.

Per bone, each layer in order blends the result so far toward its pose by mask weight × layer
weight (translations and scales linearly, rotations by normalised lerp on the shorter arc), so a
later layer wins where masks overlap and weights never sum above 1. With
\`meshSpaceRotationBlend\`, rotations blend in component space (Unreal's bMeshSpaceRotationBlend):
the layer's component rotation is blended into the base's and made local again under the blended
parent; a bone the mask leaves out below a blended one keeps the base's component rotation.

The base is updated with this node's weight; each layer with this node's weight times the layer's
(clamped to its range); a layer at or below the relevance threshold is neither updated nor
evaluated. Root motion is blended by each layer's weight on the skeleton's first bone, so a layer
that leaves the root out adds none (Unreal's default, blending root motion by the root bone).

Load errors, all at once at their JSON paths: a bone a filter or mask names that the skeleton
lacks (\`unknown-bone\` at \`layers[i].filters[j].bone\` or \`layers[i].mask.<bone>\`), a layer count
that differs from the linked layer poses, a layer with more than one of \`filters\`, \`mask\` and
\`blendProfile\` or none (\`schema\`), an undeclared profile (\`unknown-blend-profile\`) or one that is
not a blendMask (\`blend-profile-mode\`) at \`layers[i].blendProfile\`, a mask weight outside [0, 1] or a fractional depth (\`schema\`).

Debug line: each layer's weight, \`(skipped)\` for a layer not updated, and the rotation space:

\`\`\`
LayeredBlendPerBone[upperBodyLayer]<W:100.0%> (Layers: 100.0% Mesh Space Rotations)
  SequencePlayer[walk]<W:100.0%> ('walk' Play Time: 0.533)
  SequencePlayer[run]<W:100.0%> ('run' Play Time: 0.533)
\`\`\`

Example (graphs/examples/cmu-upper-body.json): the walk's legs with the run's upper body from the
waist up, its weight bound to a parameter:

\`\`\`json
"upperBodyLayer": {
  "type": "LayeredBlendPerBone",
  "inputs": { "base": "walk", "layers": ["run"] },
  "properties": {
    "layers": [{ "filters": [{ "bone": "CC_Base_Waist", "depth": 2 }], "weight": { "param": "upperBody" } }],
    "meshSpaceRotationBlend": true
  }
}
\`\`\`

The masks are built by \`runtime/core/bone-mask.ts\` (\`boneMaskWeights\`, \`boneMaskProblems\`), which other
nodes can use for their own per-bone weights.
`,
};
