import type { BuiltInNodeMeta } from './types.ts';

/**
 * Documented for the editor's graph view only: assets never declare an Output node (the type name is
 * reserved); the loader adds it on top of the node named by the asset's top-level `output`.
 */
export const OutputMeta: BuiltInNodeMeta = {
  title: 'Output Pose',
  category: 'Output',
  summary: "the graph's final pose, added by the loader on top of the node named by `output`.",
  description:
    "The graph's final local-space pose and the root of every instance; updates and evaluation start here. In an asset "
    + "it is the top-level `output` field, which names the node to link to it.",
  pins: {
    pose: {
      title: 'Result',
      description: 'The pose the graph produces. A component-space node linked here is converted back to local space.',
    },
  },
  properties: {},
  reference: `
**Output** is added by the loader on top of the node named by \`output\`.
`,
};
