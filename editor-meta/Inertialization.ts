import type { NodeEditorMeta } from './types.ts';

export const InertializationMeta: NodeEditorMeta = {
  type: 'Inertialization',
  title: 'Inertialization',
  category: 'Blends',
  description:
    'Inertializes the transitions requested above it: a Blend Poses by bool or by int in inertial blend mode switches '
    + 'instantly and asks the nearest Inertialization node below it for a transition of its blend time. Requests in '
    + 'one frame merge by the shortest duration; a request that interrupts a running transition has the time still '
    + 'owed (the deficit, shown in brackets in the debug line) subtracted from its duration.',
  pins: {
    pose: { title: 'Source', description: 'The branch whose switches are inertialized.' },
  },
  properties: {},
};
