import type { BuiltInNodeMeta } from './types.ts';

export const SlotMeta: BuiltInNodeMeta = {
  title: 'Slot',
  category: 'Blends',
  summary: "plays one-shot clips over its source on demand from code (`instance.playSlot`), optionally on a bone's branch only.",
  description:
    'Passes its source pose through until code plays a clip in it (instance.playSlot(name, clip, { blendIn, blendOut, playRate })): '
    + 'the clip blends in over the source, plays once and blends out before its end, by itself. With a filter bone, only that '
    + 'bone and its descendants take the clip (an upper-body one-shot over locomotion).',
  pins: {
    source: { title: 'Source', description: 'The pose shown while no clip plays, and under a clip as it blends in and out (outside the filter, always).' },
  },
  properties: {
    name: { title: 'Slot name', description: 'The name playSlot plays on (default: the node id). Several Slot nodes may share a name: playSlot plays on each.' },
    filterBone: { title: 'Filter bone', description: 'Only this bone and its descendants take the clip; left out, the whole pose does.' },
    filterDepth: {
      title: 'Blend depth',
      description: 'Bones over which the filter weight rises from the filter bone down (1/depth at the bone, 1 from depth − 1 bones below); 0 or 1: the whole branch at once.',
    },
  },
  reference: `
Unreal's slot node, named by \`name\` (default: the node id): code plays one-shot clips over the graph's pose with
\`instance.playSlot(name, clip, { blendIn = 0.2, blendOut = 0.2, playRate = 1 })\`, where \`clip\` is any
clip of the asset. The clip starts at 0 and plays once at \`playRate\` (above 0); its weight rises
linearly over \`blendIn\` seconds and falls linearly over its last \`blendOut\` seconds of play (so a
clip shorter than both never reaches 1); at its end it is gone and \`slotEnded(slot, nodeId, clip,
false)\` is emitted. A clip played while another plays goes on top, and the one below blends out
from its weight over the new clip's \`blendIn\` (\`slotEnded\` with \`interrupted\` true when it is gone;
a third clip drops the oldest at once). Every clip played ends once, with one \`slotEnded\`, emitted
after the slot has settled the call or update that ended it (both clips' ends in one update, the
dropped clip's after the new one is in place), so a listener may play another clip in the same
slot: chaining one-shots on \`interrupted\` false, or following a cut-short one.
\`instance.stopSlot(name, blendOut)\` blends out what plays; \`instance.isSlotPlaying(name)\` says
whether anything does. playSlot allocates nothing (each Slot has two preallocated players) when a
program's calls give options of one shape (the same fields) or none; V8 boxes a number it reads
from options of several shapes, about 16 bytes a number given. An unknown slot or clip
(\`unknown-name\`), or a play rate not above 0 (\`out-of-range\`), throws an \`AnimGraphError\`.

Weights: with the top clip at w1 and the one below at w0, the pose is the source blended toward the
lower clip by w0, then toward the top one by w1; the players' absolute weights (their notifies,
curves and root motion) are w1, w0 × (1 − w1) and, for the source, (1 − w0) × (1 − w1). The source
is not updated while its share is nil (its players pause, as under any blend).

With \`filterBone\`, each bone blends toward the clip by the clip's weight times the bone's filter
weight: 1 for the filter bone and its descendants (rising over \`filterDepth\` bones when above 1),
0 elsewhere, as Unreal's branch filters. The source then keeps its whole weight (its notifies fire
and its root motion counts in full), but its curves are scaled by its share, so the clip's curves
override them as its pose does. A Slot that is not relevant does not advance what it plays.

Debug line: \`'upperBody' 'wave' 50.0% Play Time: 0.250\` (the slot, its top clip, that clip's
weight and play time, then any clip blending out below it), or \`'upperBody' (source)\` when nothing
plays; \`values\` has \`slot\`, \`playing\`, \`clip\`, \`time\`, \`weight\`, \`blendingOut\`, \`previousClip\`,
\`previousWeight\` and \`sourceWeight\`.

\`\`\`json
"upperBody": { "type": "Slot", "inputs": { "source": "locomotion" }, "properties": { "filterBone": "spine_01", "filterDepth": 2 } }
\`\`\`

<!-- docs-test: typecheck
import type { AnimGraphInstance } from 'animgraph';
declare const character: AnimGraphInstance;
-->
\`\`\`ts
character.playSlot('upperBody', 'wave', { blendIn: 0.15, blendOut: 0.3 });
character.events.on('slotEnded', (slot, node, clip) => console.log(slot, clip, 'done'));
\`\`\`
`,
};
