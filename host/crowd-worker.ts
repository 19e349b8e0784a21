import { parentPort, workerData } from 'node:worker_threads';
import { buildCrowdGraph, crowdWorkerLoop, CrowdSlice, type CrowdWorkerData } from './crowd.ts';

const data = workerData as CrowdWorkerData;
let slice: CrowdSlice;
try {
  const graph = await buildCrowdGraph(data.source);
  slice = new CrowdSlice(graph, data.first, data.end, data.componentSpace, data.buffers);
} catch (e) {
  parentPort!.postMessage({ error: e instanceof Error ? e.message : String(e) });
  process.exit(1);
}
parentPort!.postMessage({ ready: true });
crowdWorkerLoop(slice, data.buffers, data.worker);
