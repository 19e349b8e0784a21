import type { BuiltInNodeMeta } from './types.ts';

export const AimOffsetLookAtMeta: BuiltInNodeMeta = {
  title: 'Aim Offset Look At',
  category: 'Blends',
  summary: 'an Aim Offset whose yaw and pitch are measured from a source socket to a target point (example: `graphs/examples/sample-aim-look-at.json`).',
  description:
    'An Aim Offset driven by a point to look at: each frame the source socket (a bone of the base pose and an offset in its '
    + 'space) and its aim axis are taken to component space, and the direction from the socket to the target gives the yaw '
    + 'and pitch at which the samples are weighed.',
  pins: {
    base: { title: 'Base', description: 'The pose the offset is added to; the socket is measured on it.' },
  },
  properties: {
    samples: {
      title: 'Samples',
      description: 'Additive clips made in mesh space, placed at their yaw (x) and pitch (y) in degrees: not all on one line, no two at the same point.',
      item: {
        clip: { title: 'Animation', description: "A clip declared in the asset's clips block, marked additive in mesh space." },
        x: { title: 'Yaw', description: 'The sample\'s yaw in degrees, counter-clockwise about the up axis (positive to the character\'s left).' },
        y: { title: 'Pitch', description: 'The sample\'s pitch in degrees, positive up.' },
      },
    },
    target: { title: 'Target', description: 'The point to look at, in component space (the character\'s own frame), usually bound to a vec3 parameter.' },
    sourceBone: { title: 'Source Bone', description: 'The bone the look is measured from (the head, say).' },
    socketOffset: { title: 'Socket Offset', description: 'The socket\'s place in the source bone\'s space (between the eyes, say).' },
    sourceAxis: { title: 'Source Axis', description: 'The direction the socket looks along, in the source bone\'s space.' },
    up: { title: 'Up', description: 'The component-space up axis yaw turns about: y or z.' },
    alpha: {
      title: 'Alpha',
      description: 'How much of the offset: 0 = the base exactly, 1 = all of it. A bound value is clamped to the range each frame (NaN counts as 0).',
    },
    playRate: { title: 'Play Rate', description: 'Multiplier on delta time for the samples (single-frame samples do not move).', unit: '×' },
    loop: { title: 'Loop', description: 'Whether the samples loop (on) or hold at their ends (off).' },
  },
  reference: `
Each evaluate, after the base: the socket's component-space position and aim axis are composed from the base pose
(the look is measured before the offset turns the bone, as Unreal's Aim Offset Look At measures it). With d the
direction from the socket to the target and f the aim axis, yaw = heading(d) − heading(f), wrapped to ±180 degrees,
headings counter-clockwise about the up axis, and pitch = elevation(d) − elevation(f). These are the blend space's
coordinates (no smoothing): the samples are weighed there as AimOffset weighs them and applied as it applies them. A
target at the socket, or one that is not finite, keeps the last yaw and pitch measured (0 and 0 from the node's start).

Load errors: as AimOffset's, and an unknown source bone (\`unknown-bone\`).

The update, which leads the samples' playback and fires their notifies, weighs them at the previous evaluate's look.

Debug: as AimOffset's; \`coordinates\` are the yaw and pitch measured at the last evaluate.
`,
};
