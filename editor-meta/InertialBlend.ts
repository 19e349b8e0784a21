import type { NodeEditorMeta } from './types.ts';

export const InertialBlendMeta: NodeEditorMeta = {
  type: 'InertialBlend',
  title: 'Inertial Blend',
  category: 'Blends',
  description:
    'Switches between two poses by a bool without crossfading: at a switch the output takes the new pose at once and '
    + 'the difference from the last output pose decays to zero over Blend Time along a quintic that starts with the '
    + "old pose's velocity (inertialization, Bollo GDC 2018). Only the active input is updated and evaluated, so a "
    + 'transition costs one pose instead of two. Switching again mid-transition starts a new one from the pose '
    + 'actually output; the very first frame starts on the chosen input without a blend.',
  pins: {
    A: { title: 'A', description: 'The pose used while Use A is true.' },
    B: { title: 'B', description: 'The pose used while Use A is false.' },
  },
  properties: {
    useA: { title: 'Use A', description: 'Which input to play. Usually bound to a bool parameter; each change starts a transition.' },
    blendTime: {
      title: 'Blend Time',
      description: 'Longest duration of a transition. Shorter when the old pose was already moving fast toward the new one; 0 switches without a blend.',
      unit: 's',
    },
  },
};
