import type { NodeEditorMeta } from './types.ts';

export const BendRollHelperMeta: NodeEditorMeta = {
  type: 'BendRollHelper',
  title: 'Bend Roll Helper',
  category: 'Skeletal controls',
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
      description: 'The helper bones to drive, at least one; each target bone may appear once per node.',
      item: {
        source: {
          title: 'Source Bone',
          description: 'The joint whose local rotation is split into bend and roll. Required; not bindable.',
        },
        target: {
          title: 'Target Bone',
          description:
            'The helper bone whose local rotation is set (often a helper bone of the asset, parented like the source). '
            + 'Its reference rotation is replaced, so give it the rotation the source has at rest. Required; not bindable.',
        },
        axis: {
          title: 'Joint Axis',
          description:
            "The joint's axis in the source bone's local space: the direction along the limb, about which the roll "
            + 'turns (for BVH skeletons, the direction of the child joint\'s offset). Any length but zero; default +X.',
        },
        bendWeight: {
          title: 'Bend Weight',
          description:
            'How much of the bend the target follows: 1 all of it, 0 none, negative the mirror. In [-1, 1]; a bound value is clamped.',
        },
        rollWeight: {
          title: 'Roll Weight',
          description:
            'How much of the roll (twist about the axis) the target follows: 1 all of it, 0 none, negative the opposite way. '
            + 'In [-1, 1]; a bound value is clamped. The roll is taken the short way round, in [-180, 180] degrees.',
        },
        order: {
          title: 'Order',
          description:
            "The order the weighted parts apply in. rollBend (bend × roll, the default): the roll first, then the bend, as the "
            + "source itself is split, so weights 1 and 1 reproduce the source and the target's axis follows the bent joint. "
            + "bendRoll (roll × bend): the bend first, then the roll about the parent's axis.",
        },
      },
    },
    alpha: {
      title: 'Alpha',
      description:
        'Strength of the control: 0 leaves the input untouched and skips the work, 1 applies the helpers fully; in between, '
        + 'each target rotation is blended from its input toward the result. Clamped to [0, 1].',
    },
  },
};
