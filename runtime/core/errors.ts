/*
 * The errors animgraph throws: one base class, AnimGraphError, whose `code` says what kind of
 * problem it is, so that a caller can tell them apart without parsing messages, and a subclass per
 * kind that carries more (a SkeletonError's problems, a GraphLoadError's problems with their JSON
 * paths). They are for setup, loading and misuse of the API: the frame loop throws none of them.
 *
 * This file imports nothing: every layer throws these.
 */

/**
 * Every code an AnimGraphError carries, each documented here (and in docs/api.md, "Errors"):
 *
 * - `invalid-argument`: a call was given a value of the wrong type or shape: a parameter value of
 *   the wrong type, options that are not an object or that it does not take, an array or buffer of
 *   the wrong size, a three.js object that is not a skinned mesh, a bad command-line argument, a
 *   resolver's answer that is no file's contents.
 * - `out-of-range`: a number outside what the call takes (an fps of 0, a frame range outside the
 *   clip, a play rate of 0), or a request over one of the library's limits (frames a run keeps, a
 *   clip's keys, a graph's depth, characters the engine can allocate).
 * - `unknown-name`: a name or index that is not there: a parameter, a slot, a clip, a curve, a
 *   bone or root track, a glTF skin or animation; the message lists the ones there are.
 * - `invalid-data`: the data an object is built from is inconsistent or not finite: a skeleton
 *   whose parent comes after its child, clip keys that do not match the clip's frames, a pose-search
 *   feature schema or database, a three.js bone or track that is no rotation, a graph built in code
 *   with no nodes or a link to a node not built before it.
 * - `bad-file`: a file's contents cannot be used: a malformed BVH or glTF file, a pose-search index
 *   file that is truncated, corrupt or stale.
 * - `load-failed`: a graph asset did not load (GraphLoadError): its `problems` list each problem
 *   with its own code and JSON path.
 * - `node-type`: a node type cannot be used (NodeTypeError): its spec is malformed, or its name is
 *   the output's or registered already.
 * - `node-build`: a node type's own code failed on a node of a graph (NodeBuildError,
 *   NodePrepareError): its `prepare` or `create` threw or reported problems, `create` returned no
 *   node of the id and space it should, or `numbers` was asked for what it cannot give.
 * - `invalid-state`: the object cannot take this call now: a hash already digested, an instance
 *   updated from a listener of its own update.
 * - `not-supported`: this host cannot do it: index files on a big-endian machine, a file read by a
 *   load or graph that was given no way to read it.
 * - `io`: reading or writing outside the library failed: an output file that cannot be written,
 *   standard output whose reader has gone, a port in use, a fetch that failed.
 * - `worker-failed`: a Crowd's worker thread exited, timed out or threw (CrowdWorkerError: its
 *   `failure` says which, its `characters` whose they were).
 * - `internal`: something that must never happen did: a bug in animgraph or in a custom node (a
 *   graph that produced a non-finite number).
 */
export const ANIM_GRAPH_ERROR_CODES = [
  'invalid-argument',
  'out-of-range',
  'unknown-name',
  'invalid-data',
  'bad-file',
  'load-failed',
  'node-type',
  'node-build',
  'invalid-state',
  'not-supported',
  'io',
  'worker-failed',
  'internal',
] as const;

/** What kind of problem an AnimGraphError is; see ANIM_GRAPH_ERROR_CODES for each code's meaning. */
export type AnimGraphErrorCode = (typeof ANIM_GRAPH_ERROR_CODES)[number];

/**
 * The base of every error animgraph throws: `code` says what kind of problem it is, `name` which
 * class threw it, `cause` (when given) the error it came from.
 *
 *   try { loadGraphAsset(json) } catch (e) { if (e instanceof AnimGraphError && e.code === 'load-failed') … }
 */
export class AnimGraphError extends Error {
  readonly code: AnimGraphErrorCode;

  constructor(code: AnimGraphErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = 'AnimGraphError';
  }
}
