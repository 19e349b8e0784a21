/**
 * Measures bytes allocated per frame by BendRollHelper nodes (bound weights, both orders, alpha
 * blending and full alpha, helper bones below helper bones) in a plain Node process, as
 * allocation-probe.ts does for the other nodes (see there why not inside vitest).
 * Prints one JSON line: { perFrame, windows, moved }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  helperBones: [
    { name: 'pad_l', parent: 'clavicle_l', translation: [12, 0, 0] },
    { name: 'plate_l', parent: 'pad_l', translation: [2, -3, 0], rotation: [0, 0, 0, 1] },
    { name: 'guard_l', parent: 'lowerarm_l', translation: [0, -12, 0] },
  ],
  clips: { walk: { source: 'builtin:walk' } },
  parameters: { roll: { type: 'float', default: 0.25 }, alpha: { type: 'float', default: 0.7 } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    armour: {
      type: 'BendRollHelper', inputs: { pose: 'walk' },
      properties: {
        alpha: { param: 'alpha' },
        helpers: [
          { source: 'upperarm_l', target: 'pad_l', axis: [0, -1, 0], bendWeight: 1, rollWeight: { param: 'roll' } },
          { source: 'upperarm_l', target: 'plate_l', axis: [0, -1, 0], bendWeight: 0.5, rollWeight: 0.5, order: 'bendRoll' },
        ],
      },
    },
    guard: {
      type: 'BendRollHelper', inputs: { pose: 'armour' },
      properties: { helpers: [{ source: 'hand_l', target: 'guard_l', axis: [0, -1, 0], bendWeight: 0, rollWeight: 0.5 }] },
    },
  },
  output: 'guard',
}).createInstance();
const frame = () => {
  g.update(1 / 60);
  g.evaluate();
  g.componentPose();
};
const { perFrame, windows } = bytesPerFrame(frame, { untilFloor: true });
const pad = g.skeleton.indexOf('pad_l') * 4;
const moved = Math.abs(g.evaluate().rotations[pad + 3]) < 0.99999;
console.log(JSON.stringify({ perFrame, windows, moved }));
