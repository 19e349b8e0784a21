/**
 * Bytes allocated per frame by blend spaces (1D and 2D, smoothing, inputs moving so the leader and
 * the triangle change, root motion) and a sync group of players with markers, in a plain Node
 * process (see allocation-probe.ts). Prints one JSON line: { perFrame, weights2D, moved }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: {
    idle: { source: 'builtin:idle' },
    walk: { source: 'builtin:walk', rootMotion: { bone: 'pelvis' }, syncMarkers: [{ name: 'footL', time: 0.1 }, { name: 'footR', time: 0.65 }] },
    run: { source: 'builtin:run', rootMotion: { bone: 'pelvis' }, syncMarkers: [{ name: 'footL', time: 0.3 }, { name: 'footR', time: 0.6 }] },
  },
  parameters: { speed: { type: 'float', default: 0 }, dir: { type: 'float', default: 0 }, a: { type: 'float', default: 0.5 } },
  nodes: {
    bs1: {
      type: 'BlendSpace1D',
      properties: { samples: [{ clip: 'idle', x: 0 }, { clip: 'walk', x: 150 }, { clip: 'run', x: 400 }], x: { param: 'speed' }, smoothingTime: 0.2, syncGroup: 'gait' },
    },
    bs2: {
      type: 'BlendSpace2D',
      properties: {
        samples: [{ clip: 'idle', x: 0, y: 0 }, { clip: 'walk', x: 150, y: -90 }, { clip: 'walk', x: 150, y: 90 }, { clip: 'run', x: 400, y: -90 }, { clip: 'run', x: 400, y: 90 }],
        x: { param: 'speed' }, y: { param: 'dir' }, xSmoothingTime: 0.1, ySmoothingTime: 0.3,
      },
    },
    walk: { type: 'SequencePlayer', properties: { clip: 'walk', syncGroup: 'gait' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', syncGroup: 'gait', playRate: 1.3 } },
    players: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: { param: 'a' } } },
    spaces: { type: 'BlendTwo', inputs: { A: 'bs1', B: 'bs2' }, properties: { alpha: 0.5 } },
    all: { type: 'BlendTwo', inputs: { A: 'spaces', B: 'players' }, properties: { alpha: { param: 'a' } } },
  },
  output: 'all',
}).createInstance();
const values = new Float64Array(1);
let frameIndex = 0;
const frame = () => {
  frameIndex++;
  // Inputs sweep back and forth (integers, so setting them boxes nothing): leaders and triangles change.
  const phase = frameIndex % 600;
  g.setParameter('speed', phase < 300 ? phase * 2 - 100 : 1100 - phase * 2);
  g.setParameter('dir', (frameIndex % 240) - 120);
  g.setParameter('a', (frameIndex % 500) < 250 ? 0 : 1);
  g.update(1 / 60);
  g.evaluate();
  values[0] += g.rootMotion[3];
};
const { perFrame } = bytesPerFrame(frame);
const bs2 = g.gatherDebug().children[0].children[0].children[1];
console.log(JSON.stringify({ perFrame, weights2D: bs2.values?.weights, moved: values[0] !== 0 }));
