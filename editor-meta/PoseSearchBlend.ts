import type { NodeEditorMeta } from './types.ts';

export const PoseSearchBlendMeta: NodeEditorMeta = {
  type: 'PoseSearchBlend',
  title: 'Pose Search Blend',
  category: 'Pose sources',
  description:
    'Plays one of a list of clips, chosen by Motion. When Motion changes, it starts the new clip at the frame whose pose '
    + 'best matches the pose it has been outputting (bone rotations, and positions and velocities relative to the root '
    + 'and its heading, each weighted and normalised over the clips), then crossfades or inertializes into it, so the '
    + 'feet carry on instead of flailing. The database of frames is built once per graph (or read from a file written by '
    + '`animgraph index`) and searched exactly with a KD-tree. Debug shows the chosen frame, its cost, each channel\'s '
    + 'share of the cost and the runner-up frame.',
  pins: {},
  properties: {
    clips: {
      title: 'Clips',
      description: 'The clips to choose from, by name, in Motion order (the first is motion 0). At least one.',
    },
    motion: {
      title: 'Motion',
      description:
        'Index of the clip to play. Usually bound to an int parameter; each change searches the new clip for the best '
        + 'start frame and blends to it. An out-of-range value keeps the clip playing (clip 0 on the first frame), is shown '
        + 'in the debug line and raises a motionOutOfRange event once; back in range, it switches as usual.',
    },
    blendTime: {
      title: 'Blend Time',
      description:
        'Duration of the blend after a switch. Frames of a non-looping clip closer to its end than this are not '
        + 'considered as start frames. 0 switches at once.',
      unit: 's',
    },
    blendMode: {
      title: 'Blend Mode',
      description:
        'crossfade: blend from the old clip, which keeps playing, to the new one over the blend time. inertial: switch '
        + 'at once and let the difference from the last output pose decay over the blend time (one clip evaluated).',
    },
    loop: {
      title: 'Loop',
      description: 'Whether clips wrap at their end; otherwise they hold their last frame and cannot start within Blend Time of it.',
    },
    features: {
      title: 'Features',
      description:
        'The feature schema: channels rotations (local rotations, all bones by default), positions and velocities (listed '
        + 'bones relative to the root bone and its heading), each with a weight; normalize (divide each channel by its '
        + 'deviation over the clips, default true); sampleRate (database frames per second, default 30); rootBone; upAxis. '
        + 'Default: rotations of every bone with weight 1.',
    },
    database: {
      title: 'Database File',
      description:
        'Optional index file written by `animgraph index GRAPH --out FILE`, relative to the graph file, so a large library '
        + 'is indexed once. It must have been built from the same clips, skeleton and features: a stale file is a load error.',
    },
  },
};
