import type { BuiltInNodeMeta } from './types.ts';

export const SlotMeta: BuiltInNodeMeta = {
  title: 'Slot',
  category: 'Blends',
  summary: "plays one-shot clips and montages over its source on demand from code (`instance.playSlot`, `instance.playMontage`), optionally on a bone's branch only.",
  description:
    'Passes its source pose through until code plays a clip in it (instance.playSlot(name, clip, { blendIn, blendOut, playRate })): '
    + 'the clip blends in over the source, plays once and blends out before its end, by itself. With a filter bone, only that '
    + 'bone and its descendants take the clip (an upper-body one-shot over locomotion). It plays the asset\'s montages the same way '
    + '(instance.playMontage(name, { section, rate })): clips cut into linked sections, with notifies and blend curves.',
  pins: {
    source: { title: 'Source', description: 'The pose shown while no clip plays, and under a clip as it blends in and out (outside the filter, always).' },
  },
  properties: {
    name: { title: 'Slot name', description: 'The name playSlot plays on, and montages name as their `slot` (default: the node id). Several Slot nodes may share a name: each shows the one play of the name.' },
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
whether anything does. playSlot allocates nothing (each slot name has two preallocated players)
when a program's calls give options of one shape (the same fields) or none; V8 boxes a number it
reads from options of several shapes, about 16 bytes a number given. An unknown slot or clip
(\`unknown-name\`), or a play rate not above 0 (\`out-of-range\`), throws an \`AnimGraphError\`.

Weights: with the top clip at w1 and the one below at w0, the pose is the source blended toward the
lower clip by w0, then toward the top one by w1; their shares of the Slot are w1, w0 × (1 − w1)
and, for the source, (1 − w0) × (1 − w1). Curves and root motion count at those shares times the
Slot's weight in the graph; a clip's notifies fire at its share alone (the clip on top: its own
blend weight, as Unreal's montages fire theirs), whatever the weight of the Slots that show it.
The source is not updated while its share is nil (its players pause, as under any blend).

With \`filterBone\`, each bone blends toward the clip by the clip's weight times the bone's filter
weight: 1 for the filter bone and its descendants (rising over \`filterDepth\` bones when above 1),
0 elsewhere, as Unreal's branch filters. The source then keeps its whole weight (its notifies fire
and its root motion counts in full), but its curves are scaled by its share, so the clip's curves
override them as its pose does.

What is played on a slot name belongs to the instance, as Unreal's montage instances belong to the
anim instance: one play per name, shared by every Slot of that name (\`DefaultSlot\` in several
states of a state machine, an upper-body Slot under a layered blend beside a full-body one). Every
Slot of the name shows the same clips at the same times and weights, each over its own source and
by its own filter, and adds their root motion and curves by its own weight in the graph; the play
moves on once per update and fires each of its events once, naming the name's first Slot in the
order \`instance.nodes\` lists them, every node after those it links to (the \`nodeId\` of
\`slotEnded\`, the montage events and the clips' notifies).

It goes on whether or not a Slot of the name is updated, as Unreal's montages advance whichever
slot nodes are relevant: the first Slot of the name an update reaches moves it on, and the others
the update reaches show it as it is. In an update that reaches none (their branches have no
weight: a state not active, a BlendList input not chosen, a layer at 0), its clips and montages
move on by the update's delta time once the rest of the graph is updated: their sections and links,
blends in and out, notifies, ends and events, as when a Slot is updated. Such an update adds none
of their root motion or curves, since their pose is in nobody's output. Entering a state again
keeps what its Slots show, so the state shows a montage where it has got to; the instance's
\`reset()\` stops everything, with \`montageBlendingOut\` (a montage not yet blending out),
\`montageEnded\` and \`slotEnded\`, all interrupted, once per play.

**Montages** (Unreal's anim montages) are the asset's top-level \`montages\` (see
docs/asset-format.md, "Montages"): a clip cut into named sections, each linked to the section
played after it, with notifies of their own. \`instance.playMontage(name, { section, rate })\` plays
one on its \`slot\` (every Slot of that name shows it), as a clip played there, from the start of
\`section\` (default the first) at \`rate\` times the montage's own rate. When a section ends, its \`next\` section plays from
its start (a section linked to itself loops); a section linked to none ends the montage. Its weight
rises over its \`blendIn\` time along the blend-in curve; with \`enableAutoBlendOut\` (the default)
it falls along the blend-out curve over what is left of the last section once that is no more than
the \`blendOut\` time, reaching 0 at its end; without, the montage holds its last pose until
stopped. What played in the slot blends out over the montage's \`blendIn\`, as do the montages of
its \`group\` playing in other slots. \`jumpToSection(section, montage?)\` moves a montage playing
(not blending out) to a section's start at once; \`setNextSection(from, to, montage?)\` relinks a
section for this play (\`to\` null: the montage ends after it); \`stopMontage(blendOut?, montage?)\`
blends out along the blend-out curve over \`blendOut\` (default the montage's); without a montage
named, these act on every montage playing. \`isMontagePlaying\`, \`montagePosition\` (clip time, -1 for
none) and \`currentMontageSection\` read the montage playing and not blending out.

Events, in the order they happen, each once (\`nodeId\` the slot's first Slot, see above):
\`montageStarted(montage, nodeId)\`; \`montageSectionChanged(montage, nodeId, section, previous)\`
at each section change, by link or jump; \`montageNotify(name, montage,
nodeId, branchingPoint)\` for each notify crossed, in time order; \`montageBlendingOut(montage,
nodeId, interrupted)\` and \`montageEnded(montage, nodeId, interrupted)\`, \`interrupted\` true when
stopped or played over. A branching point stops the frame's move at its time while its listeners
run, so a jumpToSection there plays the rest of the frame from the section jumped to; other
notifies fire once the frame's move has passed them, so a jump from their listeners takes effect
from where the move had got to. A notify on a boundary between a section and the one after
it in time fires once. Root motion, the clip's notifies and its curves come from the spans of clip
time the frame played, section by section: across a section change, the root motion is the part of
the section left plus the part of the section entered, never the clip's motion between them. A frame
plays at most 16 spans (a short section looping under a long frame): the rest of its time is
dropped. A montage plays on while no Slot of its slot is updated (see above), its position,
sections, notifies and end at the times they have in a Slot that is.
Playing, jumping, relinking and stopping allocate nothing per frame; playMontage and stopMontage
box the numbers they read (some 200 bytes a call). Unknown montages and sections
(\`unknown-name\`), options of the wrong type (\`invalid-argument\`) and a rate not above 0
(\`out-of-range\`) throw an \`AnimGraphError\` before anything changes.

Debug line: \`'upperBody' 'wave' 50.0% Play Time: 0.250\` (the slot, its top clip, that clip's
weight and play time, then any clip blending out below it), or \`'upperBody' (source)\` when nothing
plays, the same on every Slot of the name; \`values\` has \`slot\`, \`playing\`, \`clip\`, \`montage\`
and \`section\` (for a montage), \`time\`, \`weight\`, \`blendingOut\`, \`previousClip\`,
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
// graphs/examples/sample-montage.json: its strike section loops until the combo window's listener jumps out.
character.events.on('montageNotify', (name) => {
  if (name === 'comboWindow') character.jumpToSection('recover');
});
character.playMontage('combo', { section: 'windup', rate: 1.2 });
\`\`\`
`,
};
