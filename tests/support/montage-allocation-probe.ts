/**
 * Bytes per frame of montages, in a plain Node process (see allocation-probe.ts): a montage whose
 * middle section links to itself, so that it changes section every 0.3 s (steady state is a
 * section jump every 18 frames), with notifies and a branching point in the loop, root motion, and
 * a filtered Slot under a state machine (its name's montage shown by a second Slot, in the state
 * entered), and a montage in a Slot of the machine's state left after its first 0.25 s, which plays
 * on unseen (`unseenSections` counts its section changes).
 * `perFrameLoop`: the loop alone; `perFrameCalls`: with jumpToSection every 20 frames,
 * setNextSection, stopMontage and playMontage every 200 (after the first play of each Slot, which
 * makes its montage clock). Prints one JSON line:
 * { perFrameLoop, perFrameCalls, sections, unseenSections, moved }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const graph = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: {
    idle: { source: 'builtin:idle' },
    walk: { source: 'builtin:walk', rootMotion: true },
    run: { source: 'builtin:run', rootMotion: true, curves: { arms: [[0, 1], [0.7, 0]] }, notifies: [{ name: 'stride', time: 0.35 }] },
  },
  parameters: { speed: { type: 'float', default: 100 } },
  montages: {
    combo: {
      clip: 'walk', slot: 'upper', blendIn: { time: 0.2, curve: 'cubic' }, blendOut: { time: 0.3, curve: 'sinusoidal' },
      sections: [{ name: 'start', start: 0 }, { name: 'loop', start: 0.3, next: 'loop' }, { name: 'end', start: 0.6 }],
      notifies: [{ name: 'step', time: 0.45 }, { name: 'cancel', time: 0.5, branchingPoint: true }],
    },
    dash: {
      clip: 'run', slot: 'full', rate: 1.2,
      sections: [{ name: 'a', start: 0, next: 'c' }, { name: 'b', start: 0.2 }, { name: 'c', start: 0.4, next: 'a' }],
    },
    aside: {
      clip: 'run', slot: 'aside', group: 'Aside', blendIn: 0.1,
      sections: [{ name: 'a', start: 0 }, { name: 'b', start: 0.2, next: 'b' }],
      notifies: [{ name: 'tick', time: 0.3 }],
    },
  },
  nodes: {
    locomotion: {
      type: 'StateMachine',
      properties: {
        entry: 'idle',
        states: {
          idle: {
            nodes: {
              clip: { type: 'SequencePlayer', properties: { clip: 'idle' } },
              aside: { type: 'Slot', inputs: { source: 'clip' }, properties: { name: 'aside' } },
            },
            output: 'aside',
          },
          // A second Slot of the name 'upper': the montage on it shows here too, moved on once a frame.
          walk: {
            nodes: {
              clip: { type: 'SequencePlayer', properties: { clip: 'walk' } },
              upperToo: { type: 'Slot', inputs: { source: 'clip' }, properties: { name: 'upper' } },
            },
            output: 'upperToo',
          },
        },
        transitions: [
          { from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.25 },
          { from: 'walk', to: 'idle', rule: { param: 'speed', op: '<=', value: 10 }, duration: 0.25 },
        ],
      },
    },
    upper: { type: 'Slot', inputs: { source: 'locomotion' }, properties: { name: 'upper', filterBone: 'spine_01' } },
    full: { type: 'Slot', inputs: { source: 'upper' }, properties: { name: 'full' } },
  },
  output: 'full',
});

const g = graph.createInstance();
let sections = 0, unseenSections = 0, moved = 0;
g.events.on('montageSectionChanged', (montage) => {
  sections++;
  if (montage === 'aside') unseenSections++;
});
g.playMontage('combo');
g.playMontage('dash');
g.playMontage('aside');
const frame = () => {
  g.update(1 / 60);
  g.evaluate();
  moved += Math.abs(g.rootMotion[0]) + Math.abs(g.rootMotion[2]);
};
const loop = bytesPerFrame(frame);
const sectionsLoop = sections, unseenLoop = unseenSections;

g.events.removeAllListeners();
const options = { section: 'loop', rate: 1.1 };
let n = 0;
const calls = bytesPerFrame(() => {
  if (n % 20 === 0) g.jumpToSection(n % 40 === 0 ? 'start' : 'loop', 'combo');
  if (n % 200 === 50) g.setNextSection('loop', 'end', 'combo');
  if (n % 200 === 100) g.stopMontage(0.1);
  if (n % 200 === 150) {
    g.playMontage('combo', options);
    g.playMontage('dash');
    g.playMontage('aside');
  }
  n++;
  frame();
});
console.log(JSON.stringify({ perFrameLoop: loop.perFrame, perFrameCalls: calls.perFrame, sections: sectionsLoop, unseenSections: unseenLoop, moved }));
