/**
 * Bytes per frame of nodes whose scalar properties are bound to float parameters (two players'
 * play rates, a BlendTwo's alpha, an ApplyAdditive's alpha, a BlendSpace1D's axis and play rate),
 * in a process that built a graph with vec3 properties first (StrideWarping's directions): a vec3
 * property sharing the scalars' shape would make readScalar box every value it reads (see
 * CONTRIBUTING.md, "Numbers in the frame loop"). In a plain Node process (see allocation-probe.ts).
 * Prints one JSON line: { perFrame, windows, alpha }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';
import { warpedWalkGraph } from './crowd-graphs.ts';

// A graph with vec3 properties (StrideWarping's directions), built and run first.
const warped = warpedWalkGraph().createInstance();
warped.update(1 / 60);

const g = loadGraphAsset({
  format: 'animgraph/1', skeleton: 'builtin:biped',
  clips: {
    walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' }, idle: { source: 'builtin:idle' },
    lean: { source: 'builtin:run', frames: [0, 0], additive: { reference: { clip: 'walk', frame: 0 } } },
  },
  parameters: {
    walkRate: { type: 'float', default: 0.93 }, runRate: { type: 'float', default: 1.07 }, alpha: { type: 'float', default: 0.3 },
    lean: { type: 'float', default: 0.45 }, speed: { type: 'float', default: 210.5 }, spaceRate: { type: 'float', default: 1.15 },
  },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'walkRate' } } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: { param: 'runRate' } } },
    blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: { param: 'alpha' } } },
    posture: { type: 'SequencePlayer', properties: { clip: 'lean' } },
    leaning: { type: 'ApplyAdditive', inputs: { base: 'blend', additive: 'posture' }, properties: { alpha: { param: 'lean' } } },
    space: {
      type: 'BlendSpace1D',
      properties: { samples: [{ clip: 'idle', x: 0 }, { clip: 'walk', x: 150 }, { clip: 'run', x: 400 }], x: { param: 'speed' }, playRate: { param: 'spaceRate' } },
    },
    both: { type: 'BlendTwo', inputs: { A: 'leaning', B: 'space' }, properties: { alpha: { param: 'alpha' } } },
  },
  output: 'both',
}).createInstance();

const { perFrame, windows } = bytesPerFrame(() => {
  g.update(1 / 60);
  g.evaluate();
}, { untilFloor: true });
console.log(JSON.stringify({ perFrame, windows, alpha: g.gatherDebug().children[0].values?.alpha }));
