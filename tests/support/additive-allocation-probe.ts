/**
 * Measures bytes allocated per frame by MakeAdditive and ApplyAdditive (local and mesh space, a
 * bound alpha, an additive clip) in a plain Node process, as allocation-probe.ts does for the
 * other nodes (see there why not inside vitest). Prints one JSON line: { perFrame, windows, moved }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: {
    walk: { source: 'builtin:walk' },
    run: { source: 'builtin:run' },
    idle: { source: 'builtin:idle' },
    breathe: { source: 'builtin:idle', additive: { reference: { clip: 'idle', frame: 0 }, space: 'mesh' } },
  },
  parameters: { a: { type: 'float', default: 0.6 } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.3 } },
    delta: { type: 'MakeAdditive', inputs: { pose: 'run' }, properties: { reference: { clip: 'walk', frame: 3 } } },
    lean: { type: 'ApplyAdditive', inputs: { base: 'walk', additive: 'delta' }, properties: { alpha: { param: 'a' } } },
    idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    meshDelta: { type: 'MakeAdditive', inputs: { pose: 'idle' }, properties: { space: 'mesh' } },
    meshApply: { type: 'ApplyAdditive', inputs: { base: 'lean', additive: 'meshDelta' }, properties: { alpha: 0.3, space: 'mesh' } },
    breathe: { type: 'SequencePlayer', properties: { clip: 'breathe' } },
    out: { type: 'ApplyAdditive', inputs: { base: 'meshApply', additive: 'breathe' }, properties: { space: 'mesh' } },
  },
  output: 'out',
}).createInstance();
const frame = () => {
  g.update(1 / 60);
  g.evaluate();
  g.componentPose();
};
const { perFrame, windows } = bytesPerFrame(frame, { untilFloor: true });
const walk = loadGraphAsset({
  format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
  nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'walk',
}).createInstance();
walk.update(0);
const spine = 2 * 4;
const moved = Math.abs(g.evaluate().rotations[spine] - walk.evaluate().rotations[spine]) > 1e-3;
console.log(JSON.stringify({ perFrame, windows, moved }));
