/**
 * Bytes per frame of characters of their own in an InertialBlend transition from the CMU walk to
 * the run (the offsets applied in JavaScript), after a batch of the crowd bench's inertial graph
 * ran in the process (its offsets applied in the sampling kernel), as bench/inertial.ts runs them:
 * PoseInertializer.apply, optimised first for the kernel path, was re-optimised for the JavaScript
 * one without inlining its curve evaluation, whose returned double was then boxed (16 B per
 * character per frame). Needs ../shared/data. In a plain Node process (see allocation-probe.ts).
 * Prints one JSON line: { perFrame, windows }.
 */
import { buildCrowdGraph, createCrowd, crowdPhases } from '../../bench/crowd-cases.ts';
import { loadGraphAsset } from '../../host/files.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { bytesPerFrame } from './allocation.ts';
import { CMU } from './shared-data.ts';

const COUNT = 300;
const start = (characters: readonly AnimGraphInstance[]): void => {
  for (const character of characters) {
    character.update(1 / 60);
    character.evaluate();
    character.setParameter('useA', false); // the transition starts on the next frame and never ends (blend time 1e6 s)
  }
};
const batch = createCrowd(buildCrowdGraph('inertial'), COUNT, crowdPhases(COUNT, 2));
start(batch);
for (let f = 0; f < 400; f++) {
  for (const character of batch) {
    character.update(1 / 60);
    character.evaluate();
  }
}
const walkToRun = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: { bvh: `${CMU}002_01.bvh` },
  clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1] }, run: { source: `${CMU}002_03.bvh`, frames: [1, -1] } },
  parameters: { useA: { type: 'bool', default: true } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    blend: { type: 'InertialBlend', inputs: { A: 'walk', B: 'run' }, properties: { useA: { param: 'useA' }, blendTime: 1e6 } },
  },
  output: 'blend',
});
const alone = Array.from({ length: COUNT }, () => walkToRun.createInstance());
start(alone);
const run = () => {
  for (const character of alone) {
    character.update(1 / 60);
    character.evaluate();
  }
};
const { perFrame, windows } = bytesPerFrame(run, { warmup: 600, windows: 5, frames: 1000, untilFloor: true });
console.log(JSON.stringify({ perFrame, windows }));
