/**
 * Measures bytes allocated per frame by blends following blend profiles, switching every few
 * frames (so profiled crossfades are interrupted mid-way), in a plain Node process as the other
 * probes do (see allocation-probe.ts): a crossfading BlendList with a timeFactor profile, one with
 * a weightFactor profile and the cubic-free linear fade, a StateMachine with profiled and plain
 * transitions, an inertial BlendList whose requests carry a profile, and a LayeredBlendPerBone
 * layer masked by a blendMask profile.
 * Prints one JSON line: { perFrame, windows, switches, frames, nodes } (nodes: debug values at the end).
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const player = (clip: string, playRate = 1) => ({ nodes: { p: { type: 'SequencePlayer', properties: { clip, playRate } } }, output: 'p' });
const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
  parameters: { i: { type: 'int', default: 0 }, j: { type: 'int', default: 0 }, speed: { type: 'float', default: 0 }, k: { type: 'int', default: 0 } },
  blendProfiles: {
    legsFirst: { mode: 'timeFactor', branches: [{ bone: 'pelvis', scale: 0.4 }, { bone: 'spine_01', scale: 1 }], bones: { head: 0 } },
    armsLead: { mode: 'weightFactor', branches: [{ bone: 'clavicle_l', scale: 3 }, { bone: 'clavicle_r', scale: 0.3 }] },
    upper: { mode: 'blendMask', filters: [{ bone: 'spine_01', depth: 2 }] },
  },
  nodes: {
    idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.2 } },
    list: { type: 'BlendList', inputs: { poses: ['idle', 'walk', 'run'] }, properties: { activeIndex: { param: 'i' }, blendTimes: [0.2, 0.25, 0.15], blendProfile: 'legsFirst' } },
    idle2: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    run2: { type: 'SequencePlayer', properties: { clip: 'run' } },
    wlist: { type: 'BlendList', inputs: { poses: ['idle2', 'run2'] }, properties: { activeIndex: { param: 'j' }, blendTimes: [0.3, 0.2], blendProfile: 'armsLead' } },
    sm: {
      type: 'StateMachine',
      properties: {
        entry: 'idle',
        states: { idle: player('idle'), walk: player('walk', 0.9), run: player('run') },
        transitions: [
          { from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.3, blendProfile: 'legsFirst', curve: 'cubic' },
          { from: 'walk', to: 'run', rule: { param: 'speed', op: '>', value: 100 }, duration: 0.2, blendProfile: 'armsLead' },
          { from: '*', to: 'idle', rule: { param: 'speed', op: '<=', value: 10 }, duration: 0.25 },
        ],
      },
    },
    layered: { type: 'LayeredBlendPerBone', inputs: { base: 'list', layers: ['wlist'] }, properties: { layers: [{ blendProfile: 'upper', weight: 0.8 }] } },
    mix: { type: 'BlendTwo', inputs: { A: 'layered', B: 'sm' }, properties: { alpha: 0.5 } },
    walk3: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    ilist: { type: 'BlendList', inputs: { poses: ['mix', 'walk3'] }, properties: { activeIndex: { param: 'k' }, blendTimes: [0.3, 0.2], blendMode: 'inertial', blendProfile: 'legsFirst' } },
    inert: { type: 'Inertialization', inputs: { pose: 'ilist' } },
  },
  output: 'inert',
}).createInstance();

const values = g.parameterValues;
const slots = { i: g.parameters.slotOf('i'), j: g.parameters.slotOf('j'), speed: g.parameters.slotOf('speed'), k: g.parameters.slotOf('k') };
const speeds = [0, 50, 200, 50];
g.update(0);
let frames = 0;
let switches = 0;
const frame = () => {
  frames++;
  // Switches come faster than the blends end, so profiled fades are interrupted under way.
  if (frames % 5 === 0) { values[slots.i] = (values[slots.i] + 1) % 3; switches++; }
  if (frames % 7 === 0) { values[slots.j] = values[slots.j] === 0 ? 1 : 0; switches++; }
  if (frames % 9 === 0) { values[slots.speed] = speeds[(frames / 9) % 4]; switches++; }
  if (frames % 17 === 0) { values[slots.k] = values[slots.k] === 0 ? 1 : 0; switches++; }
  g.update(1 / 60);
  g.evaluate();
};
// A longer warm-up than the other probes: this graph's many nodes keep V8 re-tiering for about
// 60,000 frames (0.3 to 0.9 B/frame in those windows, with or without profiles), then it measures the floor.
const { perFrame, windows } = bytesPerFrame(frame, { warmup: 100000, windows: 6 });
const seen: Record<string, unknown> = {};
const walk = (n: ReturnType<typeof g.gatherDebug>) => {
  if (n.values && !(n.id in seen)) seen[n.id] = n.values;
  for (const c of n.children) walk(c);
};
walk(g.gatherDebug());
let finite = true;
for (const x of g.evaluate().rotations) if (!Number.isFinite(x)) finite = false;

console.log(JSON.stringify({ perFrame, windows, switches, frames, finite, nodes: seen }));
