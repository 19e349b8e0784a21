/**
 * Measures bytes allocated per frame by a Mirror node over a player with root motion, mirroring
 * and not (its parameter true, then false), in a plain Node process, as allocation-probe.ts does for
 * the other nodes (see there why not inside vitest).
 * Prints one JSON line: { on, off, mirrored }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { walk: { source: 'builtin:walk', rootMotion: true } },
  parameters: { mirror: { type: 'bool', default: true } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    mirrored: { type: 'Mirror', inputs: { pose: 'walk' }, properties: { mirror: { param: 'mirror' } } },
  },
  output: 'mirrored',
}).createInstance();
const step = () => {
  g.update(1 / 60);
  g.evaluate();
};
const on = bytesPerFrame(step, { untilFloor: true }).perFrame;
const upper = g.skeleton.indexOf('upperarm_l') * 4;
const mirrored = g.evaluate().rotations[upper + 1] !== 0;
g.setParameter('mirror', false);
const off = bytesPerFrame(step, { untilFloor: true }).perFrame;
console.log(JSON.stringify({ on, off, mirrored }));
