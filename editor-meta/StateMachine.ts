import { MAX_ACTIVE_TRANSITIONS, DEFAULT_TRANSITION_DURATION } from '../nodes/StateMachine.ts';
import type { BuiltInNodeMeta } from './types.ts';

export const StateMachineMeta: BuiltInNodeMeta = {
  title: 'State Machine',
  category: 'Blends',
  summary: 'states as sub-graphs, transitions by rules on parameters and clip time, crossfaded or inertialized (example: `graphs/examples/sample-state-machine.json`).',
  description:
    'Named states, each a sub-graph of its own, and transitions between them with rules over parameters and clip '
    + 'times (Unreal\'s state machine). One state is active. Rules are checked at the start of each update, and up to '
    + 'Max Transitions Per Frame transitions are followed in it; a transition takes weight in the update its rule passes. '
    + 'Crossfades stack: one interrupted by another keeps advancing beneath it, so nothing pops; one back into a state '
    + 'that still has weight is shortened to the share that state has left to gain. Inertial transitions switch at once '
    + 'through an Inertialization node below. Only states with weight are updated; a state entered with no weight left '
    + 'starts over.',
  pins: {},
  properties: {
    entry: {
      title: 'Entry State',
      description: 'The state entered on the first update: a state with a pose, not a conduit.',
    },
    maxTransitionsPerFrame: {
      title: 'Max Transitions Per Frame',
      description:
        'How many transitions one update may follow (Unreal\'s MaxTransitionsPerFrame): idle to walk to run with both '
        + 'rules true takes both in one update at 3, two updates at 1.',
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
        + 'state. Checked at the start of each update from the active state, lowest priority first, any-state ones after '
        + 'the state\'s own; the first whose rule passes starts, and the new state\'s are checked in turn. "curve" is one '
        + 'of Unreal\'s blend curves or a custom one (see below).',
    },
  },
  reference: `
Each state is a sub-graph with its own \`nodes\` and \`output\`, written and checked like a graph's (problems are reported at paths such as
\`$.nodes.sm.properties.states.walk.nodes.clip.properties.clip\`; at run time its node ids are scoped,
\`sm/walk/clip\`), or a conduit (\`{"conduit": true}\`).

*Transitions* \`{"from", "to", "rule", "duration" = ${DEFAULT_TRANSITION_DURATION}, "blend" = "crossfade", "curve" = "linear",
"blendProfile", "priority" = 0, "allowReentry" = false}\`. At the start of each update, before
the states are updated (so rules see the previous update's clip times, as Unreal's do), the active
state's transitions are checked in order of \`priority\` (lowest first, ties in asset order), then
the any-state ones (\`"from": "*"\`); the first whose rule passes starts, and the state it enters is
checked in turn, up to \`maxTransitionsPerFrame\` transitions (default 3) in one update. Then every
transition under way advances by the update's time, the ones just started included, and the
states with weight are updated: a transition of duration D has dt / D of its blend (along its
curve) in the update its rule passes, as a BlendList switching on the same parameter change does. Rules:

- \`true\` / \`false\`;
- \`{"param": "speed", "op": ">", "value": 10}\`: \`op\` one of \`== != < <= > >=\` (default \`==\`);
  a bool parameter compares with \`true\`/\`false\` by \`==\`/\`!=\` (\`{"param": "jump"}\` is \`== true\`);
- \`{"timeRemaining": 0.1}\`: the state's most relevant clip (its SequencePlayer with the most weight
  at its last update) has at most 0.1 s left to its end; false in a state with no player, or one
  entered in this update;
- \`"atEnd"\`: the same with the transition's own duration (the blend ends as the clip does);
- \`{"and": [...]}\`, \`{"or": [...]}\`, \`{"not": rule}\`.

A transition into a conduit passes only if one of the conduit's own transitions passes in the same
update (conduits chain); the last leg's duration, blend and curve are used, and events name the
states at both ends. A transition into the active state is skipped unless \`allowReentry\`: then
the state restarts at once (a crossfade cannot fade a state into itself; an inertial one is smooth).
That keeps an any-state \`jump\` rule from restarting the jump every frame.

*Blending*. \`crossfade\` blends into the entered state over \`duration\` along its \`curve\`.
Crossfades stack as Unreal's active transitions do: each keeps its own clock, and one started
during another blends from the pose the older ones give while they keep advancing beneath it
(nothing freezes, nothing pops). The weights fold the stack from the oldest: W = W × (1 − α) + α
on the entered state, α the transition's curve at elapsed / duration. When a transition completes,
it and every older one are dropped. At most ${MAX_ACTIVE_TRANSITIONS} run at once: a further one
holds the oldest where it is. A transition into a state that still has weight w lasts
duration × (1 − w) (walk at 0.74 re-entered over 0.25 s takes 0.065 s), and, for \`hermiteCubic\`,
duration × c(1 − w) with Unreal's cubic c(f) = 4/3 f³ − 2 f² + 5/3 f. A state entered with no weight
is re-initialized (players restart); one still blending out continues. \`inertial\` switches at
once and asks the Inertialization node below for a
transition of \`duration\`; a machine with an inertial transition (or a state sub-graph with an
inertial blend) and no Inertialization node between it and the output does not load
(\`no-inertialization\`, at the transition's \`blend\`).

*Curves* (Unreal's blend options, runtime/core/blend-curve.ts), of the linear progress p:
\`linear\`; \`cubic\` and \`hermiteCubic\`, 3p² − 2p³; \`sinusoidal\`, (sin(πp − π/2) + 1) / 2;
\`quadraticInOut\`, \`cubicInOut\`, \`quarticInOut\`, \`quinticInOut\`, (2p)ⁿ / 2 below ½ and
1 − (2 − 2p)ⁿ / 2 above; \`circularIn\`, 1 − √(1 − p²); \`circularOut\`, √(1 − (p − 1)²);
\`circularInOut\`; \`expIn\`, 2^(10(p − 1)); \`expOut\`, 1 − 2^(−10p); \`expInOut\`. A custom curve is
\`{"keys": [[t, v], ...]}\` (times increasing) or \`{"clip": "walk", "curve": "blendIn"}\`, one of a
clip's float \`curves\`: read from its first key's time to its last over the blend, linear between
keys, its value clamped to [0, 1]. BlendList, BlendByBool take the same as \`blendCurve\`.

*Blend profiles*. \`"blendProfile": "legsFirst"\` names a timeFactor or weightFactor profile of the
asset's \`blendProfiles\` (docs/asset-format.md): a crossfade then moves each bone at its own pace
(timeFactor 0.5: the bone arrives at half the duration), and a transition that interrupts it, with
a profile or without, blends over each bone's own weight while the profiled one goes on, so nothing
pops. A state keeps
weight (and is updated) while any bone still uses it. On an inertial transition the profile gives
each bone its own transition time (see Inertialization).

*Events*: \`stateEntered(nodeId, state)\` (the entry state on the first update too),
\`stateExited(nodeId, state)\`, \`transitionStarted(nodeId, from, to, duration)\`, in the order
transitionStarted, stateExited, stateEntered.

*Load problems*, all reported at once: \`unknown-state\` (a transition's \`from\`/\`to\` or the
\`entry\`; a conduit as entry), \`unknown-parameter\` and \`parameter-type\` (a rule on a vec3, a bool
compared with a number or by \`<\`, a number compared with a bool) at the rule's path, \`schema\` for
a malformed rule, \`unknown-blend-profile\` and \`blend-profile-mode\` (a blendMask profile) at a
transition's \`blendProfile\`, \`schema\` for an unknown curve name or custom keys whose times do not
increase and \`unknown-clip\` for a curve's clip at the transition's \`curve\` (a clip without the
curve named: \`schema\` at \`curve.curve\`, when the graph is bound), and every problem inside the
states' sub-graphs. A UseCachedPose
in a state may name a SaveCachedPose of the graph around the machine (see SaveCachedPose).

Debug line: \`State: walk Transition: idle -> walk 0.100 / 0.250\` for the newest transition (its
duration as shortened for a state with weight; then \`(over 1 more)\` while older ones run beneath
it, and \`Profile: legsFirst\` when it follows one); below it, one \`State\` line per
state with weight (marked \`(active)\`), over its sub-graph. Values: \`activeState\`,
\`transitioning\`, \`transitionFrom\`, \`transitionElapsed\`, \`transitionDuration\` (the newest
transition's), \`activeTransitions\`, \`weights\` (per
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
