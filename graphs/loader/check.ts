import { AnimGraph, graphDepth, MAX_GRAPH_DEPTH, type CompiledNode, type PropertyValue } from '../../runtime/graph/graph.ts';
import { NodeBuildError, NodePrepareError } from '../../runtime/node/node.ts';
import type { ParameterDefinition } from '../../runtime/node/parameters.ts';
import { OutputType } from '../../nodes/index.ts';
import { graphEnvelopeSchema, type GraphEnvelope } from '../schema.ts';
import { parseOptions } from '../schema-text.ts';
import { loadClips, loadMirroredClip } from './clips.ts';
import { referencedFiles, type FileCache } from './files.ts';
import { checkLinks } from './links.ts';
import { checkNodes } from './nodes.ts';
import { checkAssetData, jsonPath, MAX_GRAPH_NODES, Problems, type GraphProblem } from './problems.ts';
import { checkSubGraphs, countGraphNodes, inertialSubGraphs, nodePathOf, subGraphReferences, withSubGraphs, type SubGraphPaths } from './sub-graphs.ts';
import { DEFAULT_REGISTRY, type NodeRegistry } from './registry.ts';
import { addHelperBones, checkReferenceRange, loadSkeleton, withMirrorSettings } from './skeleton.ts';
import type { z } from 'zod';
import { blendProfileProblems, type BlendProfileMode } from '../../runtime/core/blend-profile.ts';
import type { Skeleton } from '../../runtime/core/skeleton.ts';
import type { Clip } from '../../runtime/core/clip.ts';
import { nameList, quoted } from '../../runtime/core/names.ts';
import { montageProblems } from '../../runtime/core/montage.ts';

export interface LoadOptions {
  /**
   * Folder the asset's relative file paths are relative to, as text: it names files in messages
   * and NodePrepareContext.resolvePath. Files are read by the resolver, never from this folder.
   */
  baseDir?: string;
  /** Name used in error messages (usually the file path). */
  source?: string;
  nodeTypes?: NodeRegistry;
  /**
   * False to ignore index files the asset names (a PoseSearchBlend `database`) and rebuild their
   * data from the clips, as `animgraph index` does. Default true.
   */
  useIndexFiles?: boolean;
  /**
   * True to read a .gltf's external buffers wherever its URIs point. By default they are read
   * from the .gltf's own folder and below only: a URI that is an absolute path, has a scheme
   * (`file:`) or climbs above the folder with `..` is not asked of the resolver, and the glTF is
   * reported as unreadable at the path naming it. (data: URIs are always read.)
   */
  allowGltfUrisOutsideFolder?: boolean;
}

export type CheckResult = { ok: true; graph: AnimGraph } | { ok: false; problems: readonly GraphProblem[] };

/**
 * The one loader behind the four entry points. It yields the paths of the files it needs, in
 * rounds (the files the asset names; then the buffers its .gltf files name), and the caller puts
 * their contents into `files`, synchronously or not; every check then runs on those contents.
 */
export function* checkSteps(json: unknown, options: LoadOptions, files: FileCache): Generator<string[], CheckResult, void> {
  const registry = options.nodeTypes ?? DEFAULT_REGISTRY;
  const problems = new Problems();
  // Everything below reads the asset as a tree of JSON data.
  if (!checkAssetData(json, problems)) return { ok: false, problems: problems.list };
  const envelope = graphEnvelopeSchema.safeParse(json, parseOptions(graphEnvelopeSchema));
  if (!envelope.success) problems.addZod([], envelope.error, json);
  // Keep checking whatever parts are readable, so one run reports everything.
  const raw = (typeof json === 'object' && json !== null ? json : {}) as Partial<Record<keyof GraphEnvelope, unknown>>;
  const nodeCount = countGraphNodes(raw.nodes, registry, MAX_GRAPH_NODES);
  if (nodeCount > MAX_GRAPH_NODES) {
    problems.add(['nodes'], 'too-large', `the graph has ${nodeCount.toLocaleString('en-US')} nodes, counting those in state machines' states; at most ${MAX_GRAPH_NODES.toLocaleString('en-US')} are allowed (MAX_GRAPH_NODES)`);
    return { ok: false, problems: problems.list };
  }
  const asset: Partial<GraphEnvelope> = envelope.success ? envelope.data : salvage(raw);

  const named = referencedFiles(asset, raw, registry, options.useIndexFiles ?? true);
  yield named;
  files.allowGltfUrisOutsideFolder = options.allowGltfUrisOutsideFolder === true;
  yield files.gltfBuffers(named);

  const loaded = asset.skeleton !== undefined ? loadSkeleton(asset.skeleton, files, problems) : undefined;
  const withHelpers = loaded && addHelperBones(asset.units ? loaded.withUnits(asset.units) : loaded, raw.helperBones, problems);
  const skeleton = withHelpers && asset.mirror ? withMirrorSettings(withHelpers, asset.mirror, problems) : withHelpers;
  if (skeleton) checkReferenceRange(skeleton, problems);
  const { clips, declaredClips } = loadClips(asset, raw, skeleton, files, problems);
  // Looked up by name in a Map: a binding to 'toString' must not find Object.prototype's.
  const parameters = new Map(Object.entries(asset.parameters ?? {}) as [string, ParameterDefinition][]);
  // Likewise a declared parameter whose definition is malformed is not also unknown where bound.
  const declaredParameters = new Set(typeof raw.parameters === 'object' && raw.parameters !== null && !Array.isArray(raw.parameters) ? Object.keys(raw.parameters) : []);

  const { blendProfiles, declaredBlendProfiles } = checkBlendProfiles(asset, raw, skeleton, problems);

  for (const [name, montage] of Object.entries(asset.montages ?? {})) {
    // A clip that failed to load is reported where it is declared, not again here.
    const problemsOf = montageProblems(montage, (clip) => clips.get(clip)).filter((p) => !(p.code === 'unknown-clip' && declaredClips.has(montage.clip) && p.path[0] === 'clip'));
    for (const p of problemsOf) problems.add(['montages', name, ...p.path], p.code, `montage ${quoted(name)}: ${p.message}`);
  }

  const rawNodes = (typeof raw.nodes === 'object' && raw.nodes !== null ? raw.nodes : {}) as Record<string, unknown>;
  const additiveClips = new Map(Object.entries(asset.clips ?? {}).flatMap(([name, def]) => (def.additive ? [[name, def.additive.space ?? 'local'] as const] : [])));
  const curveNames = writtenCurveNames(raw.clips);
  checkParameterCurves(raw.parameters, curveNames, problems);
  const refs = { parameters, declaredParameters, clips, declaredClips, skeleton, blendProfiles, declaredBlendProfiles, additiveClips, curveNames };
  const nodes = checkNodes(rawNodes, registry, refs, problems);
  const paths: SubGraphPaths = new Map();
  const subGraphs = checkSubGraphs(nodes, registry, refs, problems, { nodes, rawNodes, prefix: '', depth: 0 }, paths);
  // At the top level every reference out of a sub-graph names a node here.
  const { external } = subGraphReferences(subGraphs, 0);

  const outputId = typeof raw.output === 'string' ? raw.output : undefined;
  const order = checkLinks(nodes, rawNodes, outputId, problems, { additiveClips, external, inertialSubGraphs: inertialSubGraphs(subGraphs) });

  if (problems.count > 0 || !skeleton || outputId === undefined || !order) return { ok: false, problems: problems.list };
  const compiled: CompiledNode[] = withSubGraphs(order.map((id) => {
    const { envelope: node, type, properties } = nodes.get(id)!;
    return { id, nodeType: type, properties: properties as Record<string, PropertyValue>, inputs: node.inputs ?? {} };
  }), subGraphs);
  compiled.push({ id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: outputId } });
  bindMirroredPlayers(compiled, asset, clips, skeleton, files, problems, paths);
  if (problems.count > 0) return { ok: false, problems: problems.list };
  // Each graph's own depth is checked with its links; states add their levels to their machine's.
  const { depth, chain } = graphDepth(compiled);
  if (depth > MAX_GRAPH_DEPTH + 1) {
    const at = chain[MAX_GRAPH_DEPTH];
    return {
      ok: false,
      problems: [{
        path: jsonPath(nodePathOf(at, paths)), code: 'too-deep',
        message: `the graph is ${depth - 1} nodes deep from its output ${quoted(outputId)}, counting the levels inside state machines' states; at most ${MAX_GRAPH_DEPTH} are allowed, and this node's inputs are level ${MAX_GRAPH_DEPTH + 1}`,
      }],
    };
  }
  try {
    const graph = new AnimGraph({
      name: asset.name ?? options.source ?? 'graph', skeleton, parameters: Object.fromEntries(parameters), clips, nodes: compiled,
      blendProfiles: asset.blendProfiles, montages: asset.montages,
      resolvePath: (path) => files.name(path), readFile: (path) => files.readFile(path), useIndexFiles: options.useIndexFiles ?? true,
    });
    graph.createInstance(); // binds every node once, so an asset that loads is known to instantiate
    // Which slots the graph has is known once its nodes are built (states' and sub-graphs' included).
    const slotProblems = Object.entries(asset.montages ?? {}).filter(([, m]) => !graph.slotNames.includes(m.slot)).map(([name, m]): GraphProblem => ({
      path: jsonPath(['montages', name, 'slot']), code: 'unknown-slot',
      message: `montage ${quoted(name)}: the graph has no Slot node named ${quoted(m.slot)} (slots: ${nameList(graph.slotNames)})`,
    }));
    if (slotProblems.length > 0) return { ok: false, problems: slotProblems };
    return { ok: true, graph };
  } catch (e) {
    // A node type's prepare or create that threw, or built no node, is reported at its node.
    const failed = (f: NodeBuildError): GraphProblem => ({ path: jsonPath(nodePathOf(f.nodeId, paths)), code: 'node-type-failed', message: f.message });
    if (e instanceof NodePrepareError) {
      return {
        ok: false,
        problems: [
          ...e.problems.map((p): GraphProblem => ({ path: jsonPath([...nodePathOf(p.nodeId, paths), 'properties', ...p.path]), code: p.code, message: p.message })),
          ...e.failures.map(failed),
        ],
      };
    }
    if (e instanceof NodeBuildError) return { ok: false, problems: [failed(e)] };
    return { ok: false, problems: [{ path: '$', code: 'schema', message: `graph failed to instantiate: ${(e as Error).message}` }] };
  }
}

/**
 * Checks each well-formed blend profile against the skeleton (its structure is the envelope
 * schema's); returns the profiles' modes by name for the nodes naming them, and every name written
 * (a malformed profile is not also unknown where it is named).
 */
function checkBlendProfiles(
  asset: Partial<GraphEnvelope>, raw: Partial<Record<keyof GraphEnvelope, unknown>>, skeleton: Skeleton | undefined, problems: Problems,
): { blendProfiles: Map<string, BlendProfileMode>; declaredBlendProfiles: Set<string> } {
  const blendProfiles = new Map<string, BlendProfileMode>();
  for (const [name, profile] of Object.entries(asset.blendProfiles ?? {})) {
    blendProfiles.set(name, profile.mode);
    for (const p of blendProfileProblems(profile, skeleton)) problems.add(['blendProfiles', name, ...p.path], p.code, p.message);
  }
  const declared = raw.blendProfiles;
  const declaredBlendProfiles = new Set(typeof declared === 'object' && declared !== null && !Array.isArray(declared) ? Object.keys(declared) : []);
  return { blendProfiles, declaredBlendProfiles };
}

/** Every curve name the asset's clips write, well formed or not (a malformed clip's curve is not also unknown where it is named). */
function writtenCurveNames(clips: unknown): Set<string> {
  const names = new Set<string>();
  if (typeof clips !== 'object' || clips === null) return names;
  for (const clip of Object.values(clips)) {
    const curves = typeof clip === 'object' && clip !== null ? (clip as { curves?: unknown }).curves : undefined;
    if (typeof curves === 'object' && curves !== null && !Array.isArray(curves)) for (const name of Object.keys(curves)) names.add(name);
  }
  return names;
}

/** Reports a parameter's `curve` that no clip writes, at the parameter's `curve` (its type is the schema's). */
function checkParameterCurves(parameters: unknown, curveNames: ReadonlySet<string>, problems: Problems): void {
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) return;
  for (const [name, def] of Object.entries(parameters)) {
    const curve = typeof def === 'object' && def !== null ? (def as { curve?: unknown }).curve : undefined;
    if (typeof curve === 'string' && curve !== '' && !curveNames.has(curve)) {
      problems.add(['parameters', name, 'curve'], 'unknown-curve', `no clip of the graph has a curve ${quoted(curve)} (curves: ${nameList(curveNames)})`);
    }
  }
}

function salvage(raw: Partial<Record<keyof GraphEnvelope, unknown>>): Partial<GraphEnvelope> {
  const part = <T>(schema: z.ZodType<T>, value: unknown): T | undefined => {
    const r = schema.safeParse(value);
    return r.success ? r.data : undefined;
  };
  const shape = graphEnvelopeSchema.shape;
  // Individually valid clips and parameters are still loaded, so their users can be checked.
  const entries = <T>(schema: z.ZodType<T>, value: unknown): Record<string, T> => {
    const out: Record<string, T> = {};
    if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) {
        const r = schema.safeParse(v);
        if (r.success) out[k] = r.data;
      }
    }
    return out;
  };
  return {
    skeleton: part(shape.skeleton, raw.skeleton),
    units: part(shape.units, raw.units),
    clips: entries(shape.clips.unwrap().valueType, raw.clips),
    parameters: entries(shape.parameters.unwrap().valueType, raw.parameters),
    blendProfiles: entries(shape.blendProfiles.unwrap().valueType, raw.blendProfiles),
    montages: entries(shape.montages.unwrap().valueType, raw.montages),
    mirror: part(shape.mirror, raw.mirror),
    name: typeof raw.name === 'string' ? raw.name : undefined,
  };
}

/**
 * Gives each node marked `mirror` that plays a clip (a SequencePlayer's `clip`, a type with a `clip`
 * property and a non-bindable bool `mirror`) the clip mirrored, loaded once per clip
 * (loadMirroredClip) and added to the graph's clips under a name no asset clip has: the node plays
 * it as any clip, at no cost per frame.
 */
function bindMirroredPlayers(
  compiled: CompiledNode[], asset: Partial<GraphEnvelope>, clips: Map<string, Clip>, skeleton: Skeleton, files: FileCache, problems: Problems, paths: SubGraphPaths,
): void {
  const made = new Map<string, string | undefined>();
  for (let i = 0; i < compiled.length; i++) {
    const node = compiled[i], specs = node.nodeType.properties;
    const clipSpec = specs.clip, mirrorSpec = specs.mirror;
    if (clipSpec?.kind !== 'clip' || mirrorSpec?.kind !== 'bool' || mirrorSpec.bindable !== false) continue;
    const name = node.properties.clip;
    if (node.properties.mirror !== true || typeof name !== 'string') continue;
    if (!made.has(name)) {
      const clip = loadMirroredClip(asset, name, skeleton, files, problems, [...nodePathOf(node.id, paths), 'properties', 'mirror']);
      let key: string | undefined;
      if (clip) {
        key = `${name} (mirrored)`;
        while (clips.has(key)) key = `${key}'`;
        clips.set(key, clip);
      }
      made.set(name, key);
    }
    const key = made.get(name);
    if (key !== undefined) compiled[i] = { ...node, properties: { ...node.properties, clip: key } };
  }
}
