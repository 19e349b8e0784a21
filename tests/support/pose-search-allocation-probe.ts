/**
 * Bytes allocated per frame by a PoseSearchBlend, in a plain Node process (see allocation-probe.ts
 * for why not inside vitest): playing one clip (steady), and in the middle of a long crossfade after
 * a switch (blending), and switching every frame (a search per frame). Prints one JSON line:
 * { steady, blending, blendingWeights, perSwitch }.
 */
import { loadGraphAsset } from '../../graphs/loader.ts';

const limbs = ['foot_l', 'foot_r', 'hand_l', 'hand_r'];
const graph = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
  parameters: { motion: { type: 'int', default: 0 }, bt: { type: 'float', default: 1e6 } },
  nodes: {
    ps: {
      type: 'PoseSearchBlend',
      properties: {
        clips: ['walk', 'run'], motion: { param: 'motion' }, blendTime: { param: 'bt' },
        features: { rotations: { weight: 1 }, positions: { weight: 1, bones: limbs }, velocities: { weight: 1, bones: limbs } },
      },
    },
  },
  output: 'ps',
});
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const g = graph.createInstance();
const frame = () => {
  g.update(1 / 60);
  g.evaluate();
};
/** The smallest of three windows: an allocation in the frame loop shows in all of them, one-off noise does not. */
const measure = (frames: number, step: () => void) => Math.min(...[0, 1, 2].map(() => {
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < frames; i++) step();
  return (process.memoryUsage().heapUsed - before) / frames;
}));

for (let i = 0; i < 5000; i++) frame();
const steady = measure(20000, frame);
g.setParameter('motion', 1); // a crossfade of a million seconds: both clips play for the rest of the probe
for (let i = 0; i < 5000; i++) frame();
const blending = measure(20000, frame);
const weights = g.gatherDebug().children[0].values?.weights;

// Switching back and forth every frame with a zero blend time: a search (and its runner-up) per
// frame. The parameter slot is written directly: setParameter's own bookkeeping is not the node's.
g.setParameter('bt', 0);
const slot = g.parameters.slotOf('motion');
let m = 1;
const switching = () => {
  m = 1 - m;
  g.parameterValues[slot] = m;
  frame();
};
for (let i = 0; i < 2000; i++) switching();
const perSwitch = measure(20000, switching);
console.log(JSON.stringify({ steady, blending, blendingWeights: weights, perSwitch }));
