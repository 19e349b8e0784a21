/**
 * Measures bytes allocated per frame by a graph sharing cached poses (a nested cache, root motion,
 * three uses: one blended from the cache with no copy, one copied, one under a blend), in a plain
 * Node process as allocation-probe.ts does (see there why not inside vitest).
 * Prints one JSON line: { perFrame, windows, rootMotion, cacheWeight }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { walk: { source: 'builtin:walk', rootMotion: { bone: 'pelvis' } }, run: { source: 'builtin:run', rootMotion: { bone: 'pelvis' } } },
  parameters: { a: { type: 'float', default: 0.35 } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.1 } },
    inner: { type: 'SaveCachedPose', inputs: { pose: 'run' } },
    innerUse: { type: 'UseCachedPose', properties: { cache: 'inner' } },
    gaits: { type: 'BlendTwo', inputs: { A: 'walk', B: 'innerUse' }, properties: { alpha: 0.5 } },
    loco: { type: 'SaveCachedPose', inputs: { pose: 'gaits' } },
    u1: { type: 'UseCachedPose', properties: { cache: 'loco' } },
    u2: { type: 'UseCachedPose', properties: { cache: 'loco' } },
    u3: { type: 'UseCachedPose', properties: { cache: 'inner' } },
    mix: { type: 'BlendTwo', inputs: { A: 'u1', B: 'u2' }, properties: { alpha: { param: 'a' } } },
    top: { type: 'BlendTwo', inputs: { A: 'mix', B: 'u3' }, properties: { alpha: 0.2 } },
    copy: { type: 'CopyBone', inputs: { pose: 'top' }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r', alpha: 0.5 } },
  },
  output: 'copy',
}).createInstance();
const frame = () => {
  g.update(1 / 60);
  g.evaluate();
  g.componentPose();
};
const { perFrame, windows } = bytesPerFrame(frame, { untilFloor: true });
const loco = g.gatherDebug().children[0].children[0].children[0].children[0].children[0];
console.log(JSON.stringify({ perFrame, windows, rootMotion: Array.from(g.rootMotion), cacheWeight: loco.weight, cacheType: loco.type }));
