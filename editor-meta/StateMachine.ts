import { DEFAULT_TRANSITION_DURATION } from '../nodes/StateMachine.ts';
import type { BuiltInNodeMeta } from './types.ts';

export const StateMachineMeta: BuiltInNodeMeta = {
  title: 'State Machine',
  category: 'Blends',
  summary: 'states as sub-graphs, transitions by rules on parameters and clip time, crossfaded or inertialized (example: `graphs/examples/sample-state-machine.json`).',
  description:
    'Named states, each a sub-graph of its own, and transitions between them with rules over parameters and clip '
    + 'times (Unreal\'s state machine). One state is active; a transition crossfades from the weights the states had, '
    + 'so one interrupted by another does not pop, or switches at once through an Inertialization node below. Only '
    + 'states with weight are updated; a state entered with no weight left starts over.',
  pins: {},
  properties: {
    entry: {
      title: 'Entry State',
      description: 'The state entered on the first update: a state with a pose, not a conduit.',
    },
    states: {
      title: 'States',
      description:
        'The states by name: each either a sub-graph ({"nodes": {...}, "output": "id"}, written as a graph\'s nodes, '
        + 'ids scoped to the state) or a conduit ({"conduit": true}), a rule-only state passed through within one update.',
    },
    transitions: {
      title: 'Transitions',
      description:
        'Each {"from", "to", "rule", "duration", "blend", "curve", "blendProfile", "priority", "allowReentry"}; "from": "*" is any '
        + 'state. Checked once per update from the active state, lowest priority first, any-state ones after the '
        + 'state\'s own; the first whose rule passes starts.',
    },
  },
  reference: `
Each state is a sub-graph with its own \`nodes\` and \`output\`, written and checked like a graph's (problems are reported at paths such as
\`$.nodes.sm.properties.states.walk.nodes.clip.properties.clip\`; at run time its node ids are scoped,
\`sm/walk/clip\`), or a conduit (\`{"conduit": true}\`).

*Transitions* \`{"from", "to", "rule", "duration" = ${DEFAULT_TRANSITION_DURATION}, "blend" = "crossfade", "curve" = "linear",
"blendProfile", "priority" = 0, "allowReentry" = false}\`. Once per update, after the states with weight are updated
(so rules see this frame's clip times), the active state's transitions are checked in order of
\`priority\` (lowest first, ties in asset order), then the any-state ones (\`"from": "*"\`); the first
whose rule passes starts. Rules:

- \`true\` / \`false\`;
- \`{"param": "speed", "op": ">", "value": 10}\`: \`op\` one of \`== != < <= > >=\` (default \`==\`);
  a bool parameter compares with \`true\`/\`false\` by \`==\`/\`!=\` (\`{"param": "jump"}\` is \`== true\`);
- \`{"timeRemaining": 0.1}\`: the state's most relevant clip (its SequencePlayer with the most weight)
  has at most 0.1 s left to its end; false in a state with no player;
- \`"atEnd"\`: the same with the transition's own duration (the blend ends as the clip does);
- \`{"and": [...]}\`, \`{"or": [...]}\`, \`{"not": rule}\`.

A transition into a conduit passes only if one of the conduit's own transitions passes in the same
update (conduits chain); the last leg's duration, blend and curve are used, and events name the
states at both ends. A transition into the active state is skipped unless \`allowReentry\`: then
the state restarts at once (a crossfade cannot fade a state into itself; an inertial one is smooth).
That keeps an any-state \`jump\` rule from restarting the jump every frame.

*Blending*. \`crossfade\` moves the states' weights from what they were to the target over
\`duration\`, linearly or by \`cubic\` (smoothstep) easing; a transition started during another
starts from the current weights, so it does not pop. The entered state takes weight from the next
update. A state entered with no weight is re-initialized (players restart); one still blending
out continues. \`inertial\` switches at once and asks the Inertialization node below for a
transition of \`duration\`; a machine with an inertial transition (or a state sub-graph with an
inertial blend) and no Inertialization node between it and the output does not load
(\`no-inertialization\`, at the transition's \`blend\`).

*Blend profiles*. \`"blendProfile": "legsFirst"\` names a timeFactor or weightFactor profile of the
asset's \`blendProfiles\` (docs/asset-format.md): a crossfade then moves each bone at its own pace
(timeFactor 0.5: the bone arrives at half the duration), and a transition that interrupts it, with
a profile or without, continues each bone from its own weight, so nothing pops. A state keeps
weight (and is updated) while any bone still uses it. On an inertial transition the profile gives
each bone its own transition time (see Inertialization).

*Events*: \`stateEntered(nodeId, state)\` (the entry state on the first update too),
\`stateExited(nodeId, state)\`, \`transitionStarted(nodeId, from, to, duration)\`, in the order
transitionStarted, stateExited, stateEntered.

*Load problems*, all reported at once: \`unknown-state\` (a transition's \`from\`/\`to\` or the
\`entry\`; a conduit as entry), \`unknown-parameter\` and \`parameter-type\` (a rule on a vec3, a bool
compared with a number or by \`<\`, a number compared with a bool) at the rule's path, \`schema\` for
a malformed rule, \`unknown-blend-profile\` and \`blend-profile-mode\` (a blendMask profile) at a
transition's \`blendProfile\`, and every problem inside the states' sub-graphs. A UseCachedPose
in a state may name a SaveCachedPose of the graph around the machine (see SaveCachedPose).

Debug line: \`State: walk Transition: idle -> walk 0.100 / 0.250\` (ending \`Profile: legsFirst\` when
the crossfade follows one); below it, one \`State\` line per
state with weight (marked \`(active)\`), over its sub-graph. Values: \`activeState\`,
\`transitioning\`, \`transitionFrom\`, \`transitionElapsed\`, \`transitionDuration\`, \`weights\` (per
state with a pose, in asset order; during a profiled crossfade, each state's largest bone weight,
normalised), \`transitionProfile\` (during a profiled crossfade).

\`\`\`json
"locomotion": { "type": "StateMachine", "properties": {
  "entry": "idle",
  "states": {
    "idle": { "nodes": { "clip": { "type": "SequencePlayer", "properties": { "clip": "idle" } } }, "output": "clip" },
    "walk": { "nodes": { "clip": { "type": "SequencePlayer", "properties": { "clip": "walk" } } }, "output": "clip" }
  },
  "transitions": [
    { "from": "idle", "to": "walk", "rule": { "param": "speed", "op": ">", "value": 10 }, "duration": 0.25 },
    { "from": "walk", "to": "idle", "rule": { "param": "speed", "op": "<=", "value": 10 }, "curve": "cubic" }
  ] } }
\`\`\`

See \`graphs/examples/sample-state-machine.json\` (idle/walk/run/jump on the built-in biped).
`,
};
