/**
 * Bytes allocated per frame by a PoseSearchBlend, in a plain Node process (see allocation-probe.ts
 * for why not inside vitest): playing one clip (steady), and in the middle of a long crossfade after
 * a switch (blending), and switching every frame (a search per frame), crossfading and, on
 * non-looping clips, inertializing, and with a `motion` out of range that changes every frame. Prints
 * one JSON line: { steady, blending, blendingWeights, perSwitch, perInertialSwitch, outOfRange }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const limbs = ['foot_l', 'foot_r', 'hand_l', 'hand_r'];
const asset = {
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
};
const graph = loadGraphAsset(asset);

const g = graph.createInstance();
const frame = () => {
  g.update(1 / 60);
  g.evaluate();
};
const measure = (step: () => void) => bytesPerFrame(step, { untilFloor: true }).perFrame;

const steady = measure(frame);
g.setParameter('motion', 1); // a crossfade of a million seconds: both clips play for the rest of the probe
const blending = measure(frame);
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
const perSwitch = measure(switching);

// Motions out of range (a different one every frame, so each would be reported): the node keeps its
// clip, and the event, which nobody listens to, must not be built. Measured before the inertial
// graph below runs: after it, this instance has been seen to take ~10 B a frame in every window of
// some runs even playing an in-range motion (a JIT state of the shared code, not the node's).
let bad = 7;
const outOfRange = measure(() => {
  bad = bad === 7 ? 8 : 7;
  g.parameterValues[slot] = bad;
  frame();
});

// The same in inertial mode on non-looping clips (the end of each clip is left out of the search).
const inertialGraph = loadGraphAsset({
  ...asset,
  nodes: { ps: { type: 'PoseSearchBlend', properties: { ...asset.nodes.ps.properties, blendMode: 'inertial', loop: false, blendTime: 0.2 } } },
});
const h = inertialGraph.createInstance();
let k = 0;
const inertialSwitching = () => {
  k = 1 - k;
  h.parameterValues[slot] = k;
  h.update(1 / 60);
  h.evaluate();
};
const perInertialSwitch = measure(inertialSwitching);

console.log(JSON.stringify({ steady, blending, blendingWeights: weights, perSwitch, perInertialSwitch, outOfRange }));
