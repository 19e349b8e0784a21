/**
 * Measures bytes allocated per frame by LayeredBlendPerBone nodes (a bound layer weight, two
 * layers, local and mesh-space rotation blends, root motion through the layers) in a plain Node
 * process, as allocation-probe.ts does for the other nodes (see there why not inside vitest).
 * Prints one JSON line: { perFrame, windows, blended }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk', rootMotion: true }, run: { source: 'builtin:run', rootMotion: true } },
  parameters: { aim: { type: 'float', default: 0.6 } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.1 } },
    idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    local: {
      type: 'LayeredBlendPerBone', inputs: { base: 'walk', layers: ['run', 'idle'] },
      properties: {
        layers: [
          { filters: [{ bone: 'spine_01', depth: 3 }], weight: { param: 'aim' } },
          { mask: { root: 0.5, clavicle_r: 1, hand_r: 0.5 }, weight: 0.8 },
        ],
      },
    },
    idle2: { type: 'SequencePlayer', properties: { clip: 'idle', playRate: 0.7 } },
    mesh: {
      type: 'LayeredBlendPerBone', inputs: { base: 'local', layers: ['idle2'] },
      properties: { layers: [{ filters: [{ bone: 'spine_02', depth: 2 }, { bone: 'neck', depth: -1 }], weight: { param: 'aim' } }], meshSpaceRotationBlend: true },
    },
  },
  output: 'mesh',
}).createInstance();
const frame = () => {
  g.update(1 / 60);
  g.evaluate();
  g.componentPose();
};
const { perFrame, windows } = bytesPerFrame(frame, { untilFloor: true });
const layered = g.gatherDebug().children[0];
const blended = layered.children.every((c) => c.weight > 0) && layered.children[0].children.every((c) => c.weight > 0);
console.log(JSON.stringify({ perFrame, windows, blended }));
