// The graph loader's public face: four entry points over one loader (loader/check.ts), which
// reads no files itself but asks a resolver for each file an asset names (loader/files.ts).
import type { AnimGraph } from '../runtime/graph/graph.ts';
import { checkSteps, type CheckResult, type LoadOptions } from './loader/check.ts';
import { FileCache, type FileResolver, type SyncFileResolver } from './loader/files.ts';
import { GraphLoadError } from './loader/problems.ts';

export type { CheckResult, LoadOptions } from './loader/check.ts';
export type { FileResolver, ResolvedFile, SyncFileResolver } from './loader/files.ts';
export { GraphLoadError, jsonPath, shortJsonPath, type GraphProblem, type ProblemCode } from './loader/problems.ts';
export { NodeRegistry } from './loader/registry.ts';
export { duplicateJsonKeys, duplicateKeyProblems, type DuplicateJsonKey } from './loader/json-text.ts';
import { parseGraphText } from './loader/json-text.ts';
import { MAX_PROBLEMS, moreProblems, type GraphProblem } from './loader/problems.ts';

/** Options of loadGraphAsset and checkGraphAsset: a resolver that answers at once (memory, the file system). */
export interface SyncLoadOptions extends LoadOptions {
  /** Gives each file the asset names (skeleton, clips, index files, a .gltf's buffers); see FileResolver. */
  resolveSync?: SyncFileResolver;
}

/** Options of loadGraph and checkGraph: a resolver that may answer later (`fetch`). */
export interface AsyncLoadOptions extends SyncLoadOptions {
  /** Gives each file the asset names; its answers are awaited together. Takes precedence over resolveSync. */
  resolve?: FileResolver;
}

/**
 * Validates a graph asset (already parsed JSON) and binds it to its skeleton and clips. Every rule
 * is checked and all problems are reported together in a GraphLoadError:
 * - the envelope: `format` is "animgraph/1"; skeleton, clips, parameters, nodes and output are well formed;
 * - every parameter default has its parameter's type;
 * - the skeleton and every clip file can be had from `options.resolveSync` and parsed (BVH problems carry their line);
 *   clip frame ranges lie inside the clip; a clip shares bones with the skeleton;
 * - helper bones name a parent in the skeleton or listed before them, a name not yet used and a
 *   unit-quaternion rotation;
 * - every node has a known `type`, and properties of that type with values in range (the fields
 *   of list items alike);
 * - every bound property names a parameter whose type fits; every clip property names a clip;
 *   every bone property names a skeleton bone;
 * - every declared input is linked, to a node that exists, with no unknown input names; pose
 *   lists have their minimum length; per-input lists match their input's length;
 * - no node feeds two inputs (use one node per consumer, or share a branch through a
 *   SaveCachedPose and UseCachedPose nodes naming it); `output` names a node; nothing links to a
 *   SaveCachedPose (`not-linkable`); a node property names an existing node of its type
 *   (`dangling-link`, `wrong-node-type`);
 * - links form no cycle, nor do they with the caches uses name (a use inside its cache's branch);
 *   each link's spaces are compatible (local and component space are
 *   converted automatically, except where an input accepts only one space);
 * - no chain from the output down is longer than MAX_GRAPH_DEPTH nodes (`too-deep`);
 * - the asset is JSON data: no object inside itself, within MAX_ASSET_VALUES values counting a
 *   shared object once per place (`schema`), and no value more than MAX_ASSET_DEPTH keys deep
 *   (`too-deep`), all measured before any schema (else nothing more is checked);
 * - at most MAX_GRAPH_NODES nodes, counting every state's (`too-large`, else nothing more is
 *   checked); a skeleton of at most MAX_BONES bones, a glTF file of at most MAX_GLTF_NODES nodes, a
 *   state machine of at most MAX_STATES states and MAX_TRANSITIONS transitions (`too-large`);
 * - at most MAX_PROBLEMS problems are reported, then one (`too-large`, at `$`) counting the rest;
 * - no key anywhere is `__proto__`; every name is looked up as an own name (a node may be
 *   called `toString`, and a link to an undefined `constructor` dangles).
 */
export function loadGraphAsset(json: unknown, options: SyncLoadOptions = {}): AnimGraph {
  const result = checkGraphAsset(json, options);
  if (!result.ok) throw new GraphLoadError(options.source ?? '<graph>', result.problems);
  return result.graph;
}

/** Like loadGraphAsset, but returns the problems instead of throwing. */
export function checkGraphAsset(json: unknown, options: SyncLoadOptions = {}): CheckResult {
  if (typeof json === 'string') return checkGraphText(json, (parsed) => checkGraphAsset(parsed, options));
  const resolver = options.resolveSync;
  const files = new FileCache(options.baseDir, resolver);
  const steps = checkSteps(json, options, files);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    const paths = files.missing(step.value);
    if (!resolver) files.putUnresolvable(paths);
    else for (const path of paths) files.put(path, resolveNow(resolver, path));
  }
}

/**
 * Validates a graph asset and binds it like loadGraphAsset, fetching the files it names through
 * `options.resolve` (all of a round at once: `fetch` them in parallel). Rejects with GraphLoadError.
 *
 *   const asset = await (await fetch('graphs/hero.json')).text(); // text: repeated keys are reported
 *   const base = new URL('graphs/', location.href);
 *   const graph = await loadGraph(asset, { resolve: async (path) => (await fetch(new URL(path, base))).arrayBuffer() });
 */
export async function loadGraph(json: unknown, options: AsyncLoadOptions = {}): Promise<AnimGraph> {
  const result = await checkGraph(json, options);
  if (!result.ok) throw new GraphLoadError(options.source ?? '<graph>', result.problems);
  return result.graph;
}

/** Like loadGraph, but resolves to the problems instead of rejecting. */
export async function checkGraph(json: unknown, options: AsyncLoadOptions = {}): Promise<CheckResult> {
  if (typeof json === 'string') {
    const parsed = parseGraphText(json);
    if ('problems' in parsed) return { ok: false, problems: parsed.problems };
    return withRepeats(parsed.repeated, await checkGraph(parsed.json, options));
  }
  const resolver = options.resolve ?? options.resolveSync;
  const files = new FileCache(options.baseDir, options.resolve ? undefined : options.resolveSync);
  const steps = checkSteps(json, options, files);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    const paths = files.missing(step.value);
    if (!resolver) files.putUnresolvable(paths);
    else {
      const got = await Promise.all(paths.map(async (path) => {
        try {
          return await resolver(path);
        } catch (e) {
          return e instanceof Error ? e : new Error(String(e));
        }
      }));
      paths.forEach((path, i) => files.put(path, got[i]));
    }
  }
}

/**
 * An asset given as JSON text (a string) checked as its parsed value, with the keys its objects
 * repeat (which the parsed value has lost: JSON.parse keeps the last) listed first.
 */
function checkGraphText(text: string, check: (json: unknown) => CheckResult): CheckResult {
  const parsed = parseGraphText(text);
  if ('problems' in parsed) return { ok: false, problems: parsed.problems };
  return withRepeats(parsed.repeated, check(parsed.json));
}

function withRepeats(repeated: readonly GraphProblem[], result: CheckResult): CheckResult {
  if (repeated.length === 0) return result;
  const problems = [...repeated, ...(result.ok ? [] : result.problems)];
  // At most MAX_PROBLEMS and a last one saying there are more, as each list is.
  return { ok: false, problems: problems.length <= MAX_PROBLEMS + 1 ? problems : [...problems.slice(0, MAX_PROBLEMS), moreProblems(0)] };
}

function resolveNow(resolver: SyncFileResolver, path: string): unknown {
  try {
    return resolver(path);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}
