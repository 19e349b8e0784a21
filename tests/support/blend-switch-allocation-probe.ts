/**
 * Measures bytes allocated per frame by blend nodes whose active input switches every few frames
 * with ordinary (fractional) blend times, in a plain Node process, as allocation-probe.ts does for
 * held blends (see there why not inside vitest). Blend times like 0.2 are not small integers, so a
 * blend time or elapsed time that V8 boxes shows here; allocation-probe.ts holds its blends with
 * 1e6 and switches once, so it cannot see a switch's cost.
 * Prints one JSON line: { perFrame, perSwitch, windows, switches, nodes } (nodes: each blend's debug values at the end).
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
  parameters: {
    i: { type: 'int', default: 0 }, b: { type: 'bool', default: true }, a: { type: 'bool', default: true },
    j: { type: 'int', default: 0 }, fall: { type: 'float', default: 0.15 },
  },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.2 } },
    idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    run2: { type: 'SequencePlayer', properties: { clip: 'run' } },
    walk2: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 0.9 } },
    idle2: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    list: { type: 'BlendList', inputs: { poses: ['idle', 'walk', 'run'] }, properties: { activeIndex: { param: 'i' }, blendTimes: [0.2, 0.25, 0.15] } },
    // A literal and a bound blend time.
    bool: { type: 'BlendByBool', inputs: { True: 'run2', False: 'list' }, properties: { active: { param: 'b' }, trueBlendTime: 0.25, falseBlendTime: { param: 'fall' } } },
    ib: { type: 'InertialBlend', inputs: { A: 'bool', B: 'walk2' }, properties: { useA: { param: 'a' }, blendTime: 0.2 } },
    // A list in inertial mode asks the Inertialization node above it for each switch's transition.
    ilist: { type: 'BlendList', inputs: { poses: ['ib', 'idle2'] }, properties: { activeIndex: { param: 'j' }, blendTimes: [0.3, 0.15], blendMode: 'inertial' } },
    // A state machine's inertial transitions under the same node: requests of two nodes' making
    // read in one place (a number read from objects of two shapes there was boxed, 16 B a request).
    ism: {
      type: 'StateMachine',
      properties: {
        entry: 'w',
        states: { w: { nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p' }, r: { nodes: { p: { type: 'SequencePlayer', properties: { clip: 'run' } } }, output: 'p' } },
        transitions: [
          { from: 'w', to: 'r', rule: { param: 'i', op: '==', value: 2 }, duration: 0.35, blend: 'inertial' },
          { from: 'r', to: 'w', rule: { param: 'i', op: '!=', value: 2 }, duration: 0.4, blend: 'inertial' },
        ],
      },
    },
    mix: { type: 'BlendTwo', inputs: { A: 'ilist', B: 'ism' }, properties: { alpha: 0.5 } },
    inert: { type: 'Inertialization', inputs: { pose: 'mix' } },
  },
  output: 'inert',
}).createInstance();

const values = g.parameterValues;
const slots = { i: g.parameters.slotOf('i'), b: g.parameters.slotOf('b'), a: g.parameters.slotOf('a'), j: g.parameters.slotOf('j') };
g.update(0);
let frameIndex = 0;
let switches = 0;
const frame = () => {
  frameIndex++;
  // Switches come faster than the blends end, so some interrupt a blend under way.
  if (frameIndex % 5 === 0) { values[slots.i] = (values[slots.i] + 1) % 3; switches++; }
  if (frameIndex % 7 === 0) { values[slots.b] = values[slots.b] === 0 ? 1 : 0; switches++; }
  if (frameIndex % 11 === 0) { values[slots.a] = values[slots.a] === 0 ? 1 : 0; switches++; }
  if (frameIndex % 13 === 0) { values[slots.j] = values[slots.j] === 0 ? 1 : 0; switches++; }
  g.update(1 / 60);
  g.evaluate();
};
const { perFrame, windows } = bytesPerFrame(frame);
// Where the measuring stopped: the blends are seen mid-switch, so the probe did switch.
const seen: Record<string, unknown> = {};
const walk = (n: ReturnType<typeof g.gatherDebug>) => {
  if (n.values && !(n.id in seen)) seen[n.id] = n.values;
  for (const c of n.children) walk(c);
};
walk(g.gatherDebug());

// Bytes per switch at the rate the probe switched (about one every other frame).
const perSwitch = perFrame / (switches / frameIndex);

console.log(JSON.stringify({ perFrame, perSwitch, windows, switches, nodes: seen }));
