/**
 * animgraph's Node.js entry (`animgraph/node`): what reads files or starts worker threads. The main
 * entry (`animgraph`) still exports these too, for code written before this entry existed; new code
 * that may run in a browser imports `animgraph` and leaves this entry to Node-only code.
 *
 *   import { loadGraphFile, runGraph } from 'animgraph/node';
 *   const graph = loadGraphFile('graphs/examples/sample-locomotion.json');
 */
export { loadGraphFile, GraphLoadError } from './graphs/loader.ts';
export type { GraphProblem, ProblemCode, LoadOptions } from './graphs/loader.ts';
export { Crowd } from './runtime/crowd.ts';
export type { CrowdOptions, CrowdGraphSource } from './runtime/crowd.ts';
export { runGraph, GraphRunner, formatDebugTree } from './runtime/runner.ts';
export type { RunOptions, RunResult, FrameResult, BoneRow, ParameterChange } from './runtime/runner.ts';
