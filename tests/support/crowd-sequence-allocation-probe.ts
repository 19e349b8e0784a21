/**
 * Bytes per frame of the crowd bench's statemachine case (walk/run states switched every 30 frames
 * per character) after its stride+cs case has run in the same process, as the bench runs them:
 * the StrideWarping graph gave readScalar other feedback, V8 stopped inlining it into
 * SequencePlayer's state-entry code, and each entry boxed the start time it returned (about 500
 * B/frame at 1000 characters). In a plain Node process (see allocation-probe.ts).
 * Prints one JSON line: { perFrame, windows }.
 */
import { buildCrowdGraph, createCrowd, crowdPhases, CROWD_STATE_EVERY } from '../../bench/crowd-cases.ts';
import { bytesPerFrame } from './allocation.ts';

const COUNT = 300;
const phases = crowdPhases(COUNT, 2);
const stride = createCrowd(buildCrowdGraph('stride'), COUNT, phases, true);
for (let f = 0; f < 400; f++) {
  for (const character of stride) {
    character.update(1 / 60);
    character.evaluate();
    character.componentPose();
  }
}
const machines = createCrowd(buildCrowdGraph('statemachine'), COUNT, phases);
let frame = 0;
const run = () => {
  frame++;
  for (let i = 0; i < COUNT; i++) {
    const character = machines[i];
    const k = frame + i;
    if (k % CROWD_STATE_EVERY === 0) character.setParameter('motion', ((k / CROWD_STATE_EVERY) | 0) & 1);
    character.update(1 / 60);
    character.evaluate();
  }
};
// Each frame runs 300 characters: far fewer frames than the single-character probes need (what a
// window itself costs, about 2.5 KB of heap statistics, then counts 2.5 B/frame).
const { perFrame, windows } = bytesPerFrame(run, { warmup: 600, windows: 5, frames: 1000, untilFloor: true });
console.log(JSON.stringify({ perFrame, windows }));
