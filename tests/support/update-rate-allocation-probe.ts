/**
 * Bytes per frame of characters below full update rate (AnimGraphInstance.setUpdateRate), in a
 * plain Node process (see allocation-probe.ts): ten instances of a walk/run blend with root
 * motion, notifies and a curve at rates 1, 2, 4 and 4 (two each, phases spread; two more at 2 and 4 holding their skipped frames), one of them
 * switching between 2 and 4 every 50 frames and another going to 1 and back every 90, another between interpolating and holding every 70, each
 * evaluated and converted to component space every frame; then a Crowd of 8 on one worker with
 * the same rates (half of them holding their skipped frames), one switching between 2 and 4 every 50 frames. Prints one JSON line: { perFrame, perFrameCrowd, rates }.
 */
import { Crowd } from '../../host/crowd.ts';
import { bytesPerFrame } from './allocation.ts';
import { rateWalkGraph } from './crowd-graphs.ts';

const RATES = [1, 2, 4, 4];
const graph = rateWalkGraph();
const instances = Array.from({ length: 10 }, (_, i) => {
  const g = graph.createInstance();
  // The last two hold their skipped frames (interpolate: false).
  g.setUpdateRate(RATES[i % 4], i, { interpolate: i < 8 });
  return g;
});
const HOLD = { interpolate: false }, INTERPOLATE = { interpolate: true };
// Both interpolation poses exist before measuring (the first rate above 1 allocates them).
instances[0].setUpdateRate(2);
instances[0].setUpdateRate(1);
let frame = 0;
const { perFrame } = bytesPerFrame(() => {
  frame++;
  if (frame % 50 === 0) instances[1].setUpdateRate(instances[1].updateRate === 2 ? 4 : 2, frame);
  if (frame % 90 === 0) instances[0].setUpdateRate(instances[0].updateRate === 1 ? 4 : 1, frame);
  if (frame % 70 === 0) instances[2].setUpdateRate(4, 0, instances[2].interpolatesSkippedFrames ? HOLD : INTERPOLATE);
  for (let i = 0; i < instances.length; i++) {
    const g = instances[i];
    g.update(1 / 60);
    g.evaluate();
    g.componentPose();
  }
}, { untilFloor: true });

const crowd = await Crowd.create({
  source: { module: new URL('./crowd-graphs.ts', import.meta.url).href, export: 'rateWalkGraph' }, count: 8, workers: 1, componentSpace: true,
});
for (let i = 0; i < crowd.count; i++) crowd.setUpdateRate(i, RATES[i % 4], i, { interpolate: i % 2 === 0 });
crowd.update(1 / 60);
let crowdFrames = 0;
const crowdFrame = bytesPerFrame(() => {
  // With no options, as the instances' switches above at 50 and 90 frames. An even number of
  // switches in any number of windows (20,000 frames each): character 1 ends at rate 2.
  if (++crowdFrames % 50 === 0) crowd.setUpdateRate(1, crowd.getUpdateRate(1) === 2 ? 4 : 2, 1);
  crowd.update(1 / 60);
}, { untilFloor: true });
const rates = RATES.map((_, i) => crowd.getUpdateRate(i));
await crowd.close();

console.log(JSON.stringify({ perFrame, perFrameCrowd: crowdFrame.perFrame, rates }));
