/**
 * Bytes per frame of InstanceBatches whose blends run in the sampling kernel: the crowd bench's state
 * machine (a transition every CROWD_STATE_EVERY frames per character: the kernel's crossfade of N
 * poses), its layered blend (the kernel's layer) and its inertial blend in a transition (the
 * kernel's inertialization offsets). Each batch writes numbers into the kernel's memory before its
 * calls (weights, per-bone weights): none of it may allocate. In a plain Node process (see
 * allocation-probe.ts). Prints one JSON line: { statemachine, layered, inertial } bytes per frame.
 */
import { buildCrowdGraph, createCrowdBatch, crowdPhases, CROWD_STATE_EVERY } from '../../bench/crowd-cases.ts';
import { bytesPerFrame } from './allocation.ts';

const COUNT = 40;
const result: Record<string, number> = {};
for (const kind of ['statemachine', 'layered', 'inertial'] as const) {
  const batch = createCrowdBatch(buildCrowdGraph(kind), COUNT, crowdPhases(COUNT, 2));
  if (!batch.wasm) throw new Error('no sampling kernel on this engine');
  if (kind === 'inertial') {
    batch.update(1 / 60);
    for (const character of batch.instances) character.setParameter('useA', false); // a transition that never ends (1e6 s)
  }
  let frame = 0;
  const run = () => {
    frame++;
    if (kind === 'statemachine') {
      for (let i = 0; i < COUNT; i++) {
        const k = frame + i;
        if (k % CROWD_STATE_EVERY === 0) batch.instances[i].setParameter('motion', ((k / CROWD_STATE_EVERY) | 0) & 1);
      }
    }
    batch.update(1 / 60);
  };
  result[kind] = bytesPerFrame(run, { warmup: 2000, windows: 5, frames: 2000, untilFloor: true }).perFrame;
}
console.log(JSON.stringify(result));
