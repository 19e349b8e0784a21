import type { BuiltInNodeMeta } from './types.ts';

export const InertialBlendMeta: BuiltInNodeMeta = {
  title: 'Inertial Blend',
  category: 'Blends',
  summary: 'switches between two poses by inertialization instead of a crossfade.',
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
  reference: `
Switches between two poses without a crossfade (inertialization: Bollo, GDC 2018; Unreal 4.24+). Only the active input is
updated and evaluated. When \`useA\` changes, the node measures, per bone, the difference between
the pose it output last frame and the new input's pose (translation and scale as a direction and a
length, rotation as an axis and an angle the short way round) and that difference's velocity from
the pose before (rotation: the twist of the older pose about the same axis). The difference then
decays to zero along a quintic \`x(t)\` with \`x(0) = x0\`, \`x'(0) = v0\`, and zero value, velocity and
acceleration at \`t1\`, with the overshoot guards: a velocity moving away from the new pose is zeroed,
\`t1 = min(blendTime, -5 x0 / v0)\` when approaching, \`a0 >= 0\`. The switch frame is time 0 (it
repeats the last output pose); from \`blendTime\` on the output is exactly the new input. Switching
again mid-transition starts from the pose actually output, so nothing pops. No history (the first
frame) or \`blendTime <= 0\`: an instant switch. A transition longer than 1e6 s (a bound blend
time) is held to 1e6 s, and an offset whose curve would end within a microsecond (a velocity
measured over a 1e-90 s frame) is held until then and dropped, so no curve overflows. Events \`inertializationStarted(nodeId, duration)\` and
\`inertializationEnded(nodeId, duration, interrupted)\`. A transition costs one pose evaluation plus
the offsets, against two poses for a crossfade; but the offsets are several numbers per bone read
every frame, and BlendTwo blends a player's samples into its other input as it goes, so a
transition costs from a little less than a crossfade to nearly twice as much: 0.87× on the CMU
walk and run, 1.71× on random keys over 65 bones (\`bench/inertial.ts\`; see
[Performance](performance.md#the-figures-on-this-machine)).

\`\`\`json
"gait": { "type": "InertialBlend", "inputs": { "A": "run", "B": "walk" },
          "properties": { "useA": { "param": "running" }, "blendTime": 0.3 } }
\`\`\`

\`\`\`sh
npx animgraph run graphs/examples/sample-inertial.json --seconds 1.2 --set running=true@0.3 --set running=false@0.8 --debug text
\`\`\`

\`\`\`
frame 12 time 0.400
Output[output]<W:100.0%>
  InertialBlend[gait]<W:100.0%> ('Active' Time: 0.100 / 0.300 (33%) Input: A)
    SequencePlayer[run]<W:100.0%> ('run' Play Time: 0.133)
    SequencePlayer[walk]<W:0.0%> ('walk' Play Time: 0.267)
\`\`\`
`,
};
