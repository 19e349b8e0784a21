/**
 * Bytes per frame of InstanceBatches sampling in single precision (InstanceBatchOptions.precision):
 * the crowd bench's player (sampleSingle), and its crossfade with the component pass
 * (sampleSingleBlend, then the batch's composition in groups). In a plain Node process (see
 * allocation-probe.ts). Prints one JSON line: { player, blendComponent } bytes per frame.
 */
import { buildCrowdGraph, createCrowdBatch, crowdPhases } from '../../bench/crowd-cases.ts';
import { bytesPerFrame } from './allocation.ts';

const COUNT = 40;
const result: Record<string, number> = {};
for (const [name, kind, componentSpace] of [['player', 'player', false], ['blendComponent', 'blend', true]] as const) {
  const batch = createCrowdBatch(buildCrowdGraph(kind), COUNT, crowdPhases(COUNT, 2), componentSpace, 'single');
  if (batch.precision !== 'single') throw new Error('no single-precision sampling kernel on this engine');
  result[name] = bytesPerFrame(() => batch.update(1 / 60), { warmup: 2000, windows: 5, frames: 2000, untilFloor: true }).perFrame;
}
console.log(JSON.stringify(result));
