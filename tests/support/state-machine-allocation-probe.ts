/**
 * Measures bytes allocated per frame by StateMachines whose states switch every few frames, in a
 * plain Node process (see allocation-probe.ts for why not inside vitest): crossfaded transitions
 * (linear and cubic, interrupting each other), any-state and conduit transitions, time-remaining
 * and at-end rules, a state machine nested in a state (re-initialized on each entry), a skeletal
 * control in a state (likewise), a re-entry
 * and inertial transitions under an Inertialization node, with listeners on the three state machine
 * events (which then emit strings, no numbers). With the argument `slow`, the parameters change ten
 * times less often, from the 20,000th frame, nothing listens, and `transitions` counts the outer
 * machine's changes of state.
 * Prints one JSON line: { perFrame, windows, transitions, states }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const player = (clip: string, extra: Record<string, unknown> = {}) => ({ nodes: { p: { type: 'SequencePlayer', properties: { clip, ...extra } } }, output: 'p' });
const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
  parameters: { speed: { type: 'float', default: 0 }, jump: { type: 'bool', default: false }, mode: { type: 'int', default: 0 } },
  nodes: {
    sm: {
      type: 'StateMachine',
      properties: {
        entry: 'idle',
        states: {
          idle: player('idle'),
          // A machine nested in a state, re-initialized each time walk is entered from no weight.
          walk: {
            nodes: {
              gait: {
                type: 'StateMachine',
                properties: {
                  entry: 'w',
                  states: { w: player('walk'), r: player('run') },
                  transitions: [
                    { from: 'w', to: 'r', rule: { param: 'mode', op: '>=', value: 2 }, duration: 0.1 },
                    { from: 'r', to: 'w', rule: { param: 'mode', op: '<', value: 2 }, duration: 0.1 },
                  ],
                },
              },
            },
            output: 'gait',
          },
          // A skeletal control in a state: re-initialized on each entry, and blended by alpha.
          run: {
            nodes: {
              a: { type: 'SequencePlayer', properties: { clip: 'run' } }, b: { type: 'SequencePlayer', properties: { clip: 'walk' } },
              mix: { type: 'BlendTwo', inputs: { A: 'a', B: 'b' }, properties: { alpha: 0.3 } },
              copy: { type: 'CopyBone', inputs: { pose: 'mix' }, properties: { sourceBone: 'hand_r', targetBone: 'head', alpha: 0.5 } },
            },
            output: 'copy',
          },
          jump: player('run', { loop: false, playRate: 3 }),
          land: { conduit: true },
        },
        transitions: [
          { from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10.5 }, duration: 0.23 },
          { from: 'walk', to: 'idle', rule: { param: 'speed', op: '<=', value: 10.5 }, duration: 0.17, curve: 'cubic' },
          { from: 'walk', to: 'run', rule: { and: [{ param: 'speed', op: '>', value: 250.5 }, { not: { param: 'mode', op: '==', value: 3 } }] }, duration: 0.21 },
          { from: 'run', to: 'walk', rule: { or: [{ param: 'speed', op: '<', value: 250.5 }, { timeRemaining: 0.05 }] }, duration: 0.19, curve: 'cubic' },
          { from: '*', to: 'jump', rule: { param: 'jump' }, duration: 0.11 },
          { from: 'jump', to: 'land', rule: 'atEnd', duration: 0.13 },
          { from: 'land', to: 'idle', rule: { param: 'speed', op: '<=', value: 10.5 }, duration: 0.15 },
          { from: 'land', to: 'walk', rule: true, duration: 0.15 },
        ],
      },
    },
    inner: {
      type: 'StateMachine',
      properties: {
        entry: 'a',
        states: { a: player('walk'), b: player('run') },
        transitions: [
          { from: 'a', to: 'b', rule: { param: 'mode', op: '>=', value: 2 }, duration: 0.27, blend: 'inertial' },
          { from: 'b', to: 'a', rule: { param: 'mode', op: '<', value: 2 }, duration: 0.13, blend: 'inertial' },
          { from: 'b', to: 'b', rule: { param: 'mode', op: '==', value: 3 }, duration: 0.09, blend: 'inertial', allowReentry: true },
        ],
      },
    },
    mix: { type: 'BlendTwo', inputs: { A: 'sm', B: 'inner' }, properties: { alpha: 0.5 } },
    inert: { type: 'Inertialization', inputs: { pose: 'mix' } },
  },
  output: 'inert',
}).createInstance();

// `slow`: the parameters change ten times less often and nothing listens, as for one character
// switching now and then, whose switch code stays cold (run with --no-concurrent-recompilation).
const slow = process.argv[2] === 'slow';
const every = slow ? 10 : 1;
let transitions = 0;
const states: string[] = [];
if (!slow) {
  g.events.on('transitionStarted', () => { transitions++; });
  g.events.on('stateEntered', () => {});
  g.events.on('stateExited', () => {});
}
// Slow, the outer machine's changes of state are counted by reading it (a listener would box the duration).
const outer = (g as unknown as { builtNodes: { id: string; activeState?: string }[] }).builtNodes.find((n) => n.id === 'sm')!;
let lastState = '';
const values = g.parameterValues;
const slots = { speed: g.parameters.slotOf('speed'), jump: g.parameters.slotOf('jump'), mode: g.parameters.slotOf('mode') };
const speeds = [0, 100, 300, 100, 0, 300];
g.update(0);
let frameIndex = 0;
const frame = () => {
  frameIndex++;
  if (frameIndex % (7 * every) === 0) values[slots.speed] = speeds[(frameIndex / (7 * every)) % speeds.length];
  values[slots.jump] = frameIndex % (53 * every) < 2 ? 1 : 0;
  if (frameIndex % (11 * every) === 0) values[slots.mode] = (values[slots.mode] + 1) % 4;
  g.update(1 / 60);
  g.evaluate();
  if (slow && outer.activeState !== lastState) {
    lastState = outer.activeState!;
    transitions++;
  }
};
const { perFrame, windows } = slow ? bytesPerFrame(frame, { warmup: 20000, windows: 3, frames: 6400 }) : bytesPerFrame(frame, { untilFloor: true });
const debug = g.gatherDebug().children[0].children[0];
for (const machine of debug.children) states.push(String(machine.values?.activeState));
console.log(JSON.stringify({ perFrame, windows, transitions, frames: frameIndex, states }));
