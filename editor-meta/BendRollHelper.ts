import type { BuiltInNodeMeta } from './types.ts';

export const BendRollHelperMeta: BuiltInNodeMeta = {
  title: 'Bend Roll Helper',
  category: 'Skeletal controls',
  summary: "helper bones that follow a joint's bend and roll with separate weights.",
  description:
    "Drives helper bones (armour, corrective bones) from a joint's rotation with separate weights for its bend and its roll. "
    + "Per helper, the source bone's local rotation is split about the joint axis into bend (the shortest rotation taking the "
    + 'axis to where the joint points it) and roll (the rest: a twist about the axis). Each part is scaled by its weight, the '
    + "two are composed in the helper's order and the result becomes the target's local rotation; the target keeps its "
    + 'translation and scale, and its children follow. Alpha blends the targets from their input rotations toward the result. '
    + 'Each helper reads the input pose (chain two nodes for a helper that follows another). Debug shows each helper\'s '
    + 'bend and roll angles in degrees.',
  pins: {
    pose: {
      title: 'Pose',
      description: 'The pose to modify, in local space (a component-space node linked here is converted).',
    },
  },
  properties: {
    helpers: {
      title: 'Helpers',
      description: 'The helper bones to drive; each target bone may appear once per node.',
      item: {
        source: {
          title: 'Source Bone',
          description: 'The joint whose local rotation is split into bend and roll.',
        },
        target: {
          title: 'Target Bone',
          description:
            'The helper bone whose local rotation is set (often a helper bone of the asset, parented like the source). '
            + 'Its reference rotation is replaced, so give it the rotation the source has at rest.',
        },
        axis: {
          title: 'Joint Axis',
          description:
            "The joint's axis in the source bone's local space: the direction along the limb, about which the roll "
            + 'turns (for BVH skeletons, the direction of the child joint\'s offset). Any length but zero.',
        },
        bendWeight: {
          title: 'Bend Weight',
          description:
            'How much of the bend the target follows: 1 all of it, 0 none, negative the mirror. A bound value is clamped to the range.',
        },
        rollWeight: {
          title: 'Roll Weight',
          description:
            'How much of the roll (twist about the axis) the target follows: 1 all of it, 0 none, negative the opposite way. '
            + 'A bound value is clamped to the range. The roll is taken the short way round, in [-180, 180] degrees.',
        },
        order: {
          title: 'Order',
          description:
            "The order the weighted parts apply in. rollBend (bend × roll): the roll first, then the bend, as the "
            + "source itself is split, so weights 1 and 1 reproduce the source and the target's axis follows the bent joint. "
            + "bendRoll (roll × bend): the bend first, then the roll about the parent's axis.",
        },
      },
    },
    alpha: {
      title: 'Alpha',
      description:
        'Strength of the control: 0 leaves the input untouched and skips the work, 1 applies the helpers fully; in between, '
        + 'each target rotation is blended from its input toward the result. A bound value is clamped to the range.',
    },
  },
  reference: `
It reads and writes local rotations only, so it costs no conversion to component space. Helper
bones that follow a joint's bend and roll with separate weights (riggers' bend-and-roll helper bones; Unity's
twist correction): shoulder armour that bends with the arm but turns with a quarter of its twist,
a forearm guard that takes half the wrist's twist and none of its bend. Per helper, the source
bone's local rotation q is split about \`axis\`, the joint axis in the source's local space (any
length but zero): bend = the shortest rotation taking \`axis\` to q·axis, roll = inverse(bend) × q,
a twist about \`axis\` in [−180°, 180°]. Each part's angle is scaled by its weight (a bound value
clamped to the range), the parts are composed (\`rollBend\`: bend × roll, as the
source itself is split, so weights 1 and 1 give the source back and the target's axis follows the
bent joint; \`bendRoll\`: roll × bend, the roll turning about the parent's axis after the bend), and
the product becomes the target's local rotation: its translation and scale are kept, its
reference rotation replaced. Alpha blends each target from its input rotation toward the result.
When q turns the axis exactly onto its opposite, the shortest rotation is not unique: the node
then takes no roll and the whole rotation as the bend (a half turn about q's own axis, which is
perpendicular to \`axis\`), the limit of pure bends toward that case. Nothing switches branch near
it, so the output is continuous on every path that does not land exactly on that case (tested on
a path circling it at 1e-4 rad); on the case itself a rotation that also rolls has no split that
is the limit from every side, so there the output differs from that of rotations approaching it
from other sides, except with both weights 0 or with the whole bend (weight 1 or −1, a half turn
either way) and the whole roll in the order's sense (roll weight 1 with \`rollBend\`, −1 with
\`bendRoll\`). Equal weights do not help otherwise: approached from five sides, weights 0.5 and 0.5
give outputs up to 74.5° apart, 0.25 and 0.25 54°, 1 and 1 with \`bendRoll\` 160°
(\`quatSwingTwist\` in \`runtime/core/math.ts\`; \`tests/nodes/BendRollHelper.test.ts\`). Every helper reads the
node's input pose (chain a second node for a helper that follows another helper), and a bone is
the target of at most one helper per node. Debug: \`Alpha: 100.0% CC_Base_L_Upperarm ->
L_ShoulderArmour (Bend: 97.9° Roll: 18.3°)\` per helper, with \`values\` \`bend\` and \`roll\` in degrees
and the weights in use. \`graphs/examples/cmu-armour.json\` adds both helper bones to the CMU walk;
over the whole clip the armour's twist about the arm axis is 0.25 × the arm's, its bend the arm's,
and no frame moves it more than the arm's own bend and weighted twist moved
(\`tests/nodes/BendRollHelper.test.ts\`).

\`\`\`json
"armour": { "type": "BendRollHelper", "inputs": { "pose": "walk" }, "properties": { "helpers": [
  { "source": "CC_Base_L_Upperarm", "target": "L_ShoulderArmour", "axis": [-0.83, 25.19, -0.24], "bendWeight": 1, "rollWeight": 0.25 },
  { "source": "CC_Base_L_Hand", "target": "L_ForearmGuard", "axis": [-0.68, 25.7, -0.29], "bendWeight": 0, "rollWeight": { "param": "guardRoll" } }
] } }
\`\`\`
`,
};
