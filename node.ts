/**
 * animgraph's Node.js entry (`animgraph/node`): what reads files or starts worker threads, plus the
 * runner for convenience (it is in the main entry too). Code that may run in a browser imports
 * `animgraph` and leaves this entry to Node-only code.
 *
 *   import { loadGraphFile, runGraph } from 'animgraph/node';
 *   const graph = loadGraphFile('graphs/examples/sample-locomotion.json');
 */
// loadGraphAsset and checkGraphAsset here read the files an asset names from disk, relative to
// `baseDir` (default the working directory), as they always did; the core's take a resolver.
export {
  loadGraphFile, checkGraphFile, loadGraphAsset, checkGraphAsset, fileResolver, FileReadError, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_GRAPH_BYTES,
} from './host/files.ts';
export type { FileRead, FileReadOptions, FileResolverOptions, GraphFileCheck, GraphFileOptions } from './host/files.ts';
export { GraphLoadError } from './graphs/loader.ts';
export { AnimGraphError, ANIM_GRAPH_ERROR_CODES } from './runtime/core/errors.ts';
export type { AnimGraphErrorCode } from './runtime/core/errors.ts';
export type { GraphProblem, ProblemCode, LoadOptions, SyncLoadOptions, CheckResult } from './graphs/loader.ts';
export { Crowd, CROWD_SLOT_CALLS, CrowdWorkerError, DEFAULT_WORKER_TIMEOUT, MIN_CHARACTERS_PER_THREAD, MIN_CORES_FOR_WORKERS, defaultWorkers } from './host/crowd.ts';
export type { CrowdOptions, CrowdGraphSource, CrowdWorkerErrorCode } from './host/crowd.ts';
export { CROWD_EVENT_NAMES, CrowdEventEmitter } from './host/crowd-events.ts';
export type { CrowdEventName, CrowdEvents, NonFiniteAttribute } from './host/crowd-events.ts';
export { runGraph, GraphRunner, formatDebugTree, MAX_KEPT_ROWS, TimelineError } from './host/runner.ts';
export { measureAllocation } from './host/allocation.ts';
export type { RunOptions, RunResult, FrameResult, BoneRow, ParameterChange } from './host/runner.ts';
