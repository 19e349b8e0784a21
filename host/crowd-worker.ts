import { parentPort, workerData } from 'node:worker_threads';
import { kernelPoseLengths } from '../runtime/graph/instance-batch.ts';
import { SamplingKernel } from '../runtime/kernel/sampling-kernel.ts';
import { buildCrowdGraph, type CrowdWorkerData } from './crowd-shared.ts';
import { CrowdSlice } from './crowd-slice.ts';
import { crowdWorkerLoop, reportExit } from './crowd-worker-loop.ts';

const data = workerData as CrowdWorkerData;
reportExit(data.buffers, data.worker);
let slice: CrowdSlice;
try {
  const graph = await buildCrowdGraph(data.source);
  const b = data.buffers;
  // This thread's kernel on the crowd's shared memory; null (JavaScript) if its graph differs.
  const lengths = kernelPoseLengths(graph.skeleton.boneCount, b.rootMotion.length / 4, data.componentSpace, true, graph.frameNumberCount, data.threads);
  const kernel = data.kernelMemory === null ? null
    : SamplingKernel.attachShared(data.kernelMemory, graph.skeleton, [...graph.clipBindings.values()], lengths, data.threads, data.worker, data.precision);
  slice = new CrowdSlice(graph, data, kernel);
} catch (e) {
  parentPort!.postMessage({ error: e instanceof Error ? e.message : String(e) });
  process.exit(1);
}
parentPort!.postMessage({ ready: true, wasm: slice.wasm });
crowdWorkerLoop(slice, data.buffers, data.worker);
