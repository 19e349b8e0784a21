import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { BvhError, loadBvh } from '../runtime/bvh.ts';
import { GltfError, gltfClip, gltfRig, readGltf, type GltfDocument, type GltfRig } from '../runtime/gltf.ts';
import { extractRootMotion, rootMotionSource } from '../runtime/root-motion.ts';
import type { Clip } from '../runtime/clip.ts';
import { AnimGraph, MAX_GRAPH_DEPTH, type CompiledNode, type PropertyValue } from '../runtime/graph.ts';
import { NodePrepareError, type NodeType, type PropertySpec } from '../runtime/node.ts';
import { parameterFits, type ParameterDefinition, type ParameterType } from '../runtime/parameters.ts';
import { sampleClip, sampleSkeleton, SAMPLE_CLIP_NAMES } from '../runtime/sample-data.ts';
import { Skeleton, SkeletonError, type BoneDefinition } from '../runtime/skeleton.ts';
import { builtInNodeTypes, OutputType } from '../nodes/index.ts';
import {
  graphEnvelopeSchema, helperBoneSchema, nodeEnvelopeSchema, nodeIdSchema, nodePropertiesSchema, propertySchema,
  type GraphEnvelope, type NodeEnvelope,
} from './schema.ts';

export type ProblemCode =
  | 'schema' | 'unknown-node-type' | 'missing-link' | 'dangling-link' | 'unknown-input' | 'shared-link' | 'cycle'
  | 'space-mismatch' | 'unknown-parameter' | 'parameter-type' | 'unknown-bone' | 'unknown-clip' | 'clip-file'
  | 'clip-frames' | 'bvh' | 'skeleton' | 'file' | 'no-inertialization' | 'stale-index' | 'no-root-motion'
  | 'gltf' | 'unknown-skin' | 'unknown-animation' | 'empty-animation' | 'not-bindable' | 'too-deep';

/** One problem with a graph asset: where (a JSON path such as `$.nodes.blend.inputs.A`), what and why. */
export interface GraphProblem {
  path: string;
  code: ProblemCode;
  message: string;
}

/** Every problem found in a graph asset, reported at once. */
export class GraphLoadError extends Error {
  constructor(readonly source: string, readonly problems: readonly GraphProblem[]) {
    super(`${source}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`);
    this.name = 'GraphLoadError';
  }
}

/** The node types a loader knows, by asset `type`. Register custom node types here. */
export class NodeRegistry {
  private readonly types = new Map<string, NodeType>();

  constructor(types: readonly NodeType[] = builtInNodeTypes) {
    for (const t of types) this.register(t);
  }

  register(type: NodeType): this {
    if (type.type === OutputType.type) throw new RangeError(`'${type.type}' is reserved for the graph output`);
    this.types.set(type.type, type);
    return this;
  }

  get(type: string): NodeType | undefined {
    return this.types.get(type);
  }

  list(): NodeType[] {
    return [...this.types.values()];
  }
}

export interface LoadOptions {
  /** Folder that relative file paths in the asset are resolved against. */
  baseDir?: string;
  /** Name used in error messages (usually the file path). */
  source?: string;
  nodeTypes?: NodeRegistry;
  /**
   * False to ignore index files the asset names (a PoseSearchBlend `database`) and rebuild their
   * data from the clips, as `animgraph index` does. Default true.
   */
  useIndexFiles?: boolean;
}

/** JSON path text for a path of keys, e.g. ['nodes', 'blend', 'inputs', 0] -> `$.nodes.blend.inputs[0]`. */
export function jsonPath(keys: readonly PropertyKey[]): string {
  let out = '$';
  for (const key of keys) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

class Problems {
  readonly list: GraphProblem[] = [];
  add(keys: readonly PropertyKey[], code: ProblemCode, message: string): void {
    this.list.push({ path: jsonPath(keys), code, message });
  }
  /** Reports zod's issues for `input`, the value parsed at `prefix`. */
  addZod(prefix: readonly PropertyKey[], error: z.ZodError, input: unknown): void {
    const seen = new Set<string>();
    for (const issue of error.issues) {
      // Reported once, at the key itself, by reportProtoKeys.
      if (issue.code === 'unrecognized_keys' && issue.keys.every((k) => k === '__proto__')) continue;
      // JSON.parse turns a number beyond the float range (1e400) into ±Infinity, which zod reports
      // as a bare "Invalid input" when the value may also be a binding: name the number instead.
      const value = valueAt(input, issue.path);
      const inner = nonFinitePath(value);
      const keys = inner ? [...prefix, ...issue.path, ...inner] : [...prefix, ...issue.path];
      // A binding where the schema takes only a literal: a property its node reads once (bindable: false).
      const refused = !inner && issue.code === 'invalid_type' && isBinding(value);
      const message = inner ? 'not a finite number (a JSON number beyond ±1.8e308 reads as Infinity)'
        : refused ? `cannot be bound to a parameter (the node reads it once, when it is built): give a literal (${issue.message})` : issue.message;
      const key = `${jsonPath(keys)}\n${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.add(keys, refused ? 'not-bindable' : 'schema', message);
    }
  }
}

/** Whether a value is written as a parameter binding, `{ "param": "name" }`. */
function isBinding(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1
    && typeof (value as { param?: unknown }).param === 'string';
}

function valueAt(value: unknown, keys: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of keys) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/**
 * Reports every `__proto__` key in the asset. JSON.parse makes it an ordinary own key, but
 * JavaScript objects built from it (zod's records, spreads, `obj[name] = …`) drop it or change
 * their prototype instead, so a clip, parameter or node of that name would vanish silently; it
 * is refused by name instead. The walk is iterative: an asset may nest arbitrarily deep.
 */
function reportProtoKeys(json: unknown, problems: Problems): void {
  // Each entry keeps its parent's entry and its key; a path is built only for a key reported.
  type Entry = { value: unknown; key: PropertyKey; parent: Entry | null };
  const keysOf = (entry: Entry): PropertyKey[] => {
    const keys: PropertyKey[] = [];
    for (let e: Entry | null = entry; e !== null && e.parent !== null; e = e.parent) keys.push(e.key);
    return keys.reverse();
  };
  const stack: Entry[] = [{ value: json, key: '', parent: null }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const value = entry.value;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: entry });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (key === '__proto__') problems.add([...keysOf(entry), key], 'schema', `'__proto__' cannot be a name or key in an asset (JavaScript objects treat it specially): rename it`);
      else stack.push({ value: (value as Record<string, unknown>)[key], key, parent: entry });
    }
  }
}

/**
 * The keys leading to the first non-finite number inside `value` ([] for the value itself), or
 * undefined. Iterative, depth first in key order, and no deeper than 16 levels: a malformed value
 * may nest arbitrarily deep, and a path of thousands of keys names nothing useful.
 */
function nonFinitePath(value: unknown): PropertyKey[] | undefined {
  type Entry = { value: unknown; key: PropertyKey; parent: Entry | null; depth: number };
  const stack: Entry[] = [{ value, key: '', parent: null, depth: 0 }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const v = entry.value;
    if (typeof v === 'number') {
      if (Number.isFinite(v)) continue;
      const keys: PropertyKey[] = [];
      for (let e: Entry | null = entry; e !== null && e.parent !== null; e = e.parent) keys.push(e.key);
      return keys.reverse();
    }
    if (typeof v !== 'object' || v === null || entry.depth >= 16) continue;
    const items = Array.isArray(v) ? [...v.entries()] : Object.entries(v);
    for (let i = items.length - 1; i >= 0; i--) stack.push({ value: items[i][1], key: items[i][0], parent: entry, depth: entry.depth + 1 });
  }
  return undefined;
}

const DEFAULT_REGISTRY = new NodeRegistry();

// Building a zod schema costs far more than using it: one per node type (and property spec), not
// one per node, keeps a 10,000-node asset's check in well under a second.
const propertiesSchemas = new WeakMap<object, z.ZodObject>();
const propertySchemas = new WeakMap<PropertySpec, z.ZodType>();
function cachedPropertiesSchema(type: NodeType): z.ZodObject {
  let schema = propertiesSchemas.get(type.properties);
  if (!schema) propertiesSchemas.set(type.properties, schema = nodePropertiesSchema(type));
  return schema;
}
function cachedPropertySchema(spec: PropertySpec): z.ZodType {
  let schema = propertySchemas.get(spec);
  if (!schema) propertySchemas.set(spec, schema = propertySchema(spec));
  return schema;
}

/** Reads, validates and binds a graph file. Throws GraphLoadError listing every problem. */
export function loadGraphFile(path: string, options: Omit<LoadOptions, 'baseDir' | 'source'> = {}): AnimGraph {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new GraphLoadError(path, [{ path: '$', code: 'file', message: `cannot read graph file: ${(e as Error).message}` }]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new GraphLoadError(path, [{ path: '$', code: 'schema', message: `not valid JSON: ${(e as Error).message}` }]);
  }
  return loadGraphAsset(json, { ...options, baseDir: dirname(resolve(path)), source: path });
}

/**
 * Validates a graph asset (already parsed JSON) and binds it to its skeleton and clips. Every rule
 * is checked and all problems are reported together in a GraphLoadError:
 * - the envelope: `format` is "animgraph/1"; skeleton, clips, parameters, nodes and output are well formed;
 * - every parameter default has its parameter's type;
 * - the skeleton and every clip file can be read and parsed (BVH problems carry their line);
 *   clip frame ranges lie inside the clip; a clip shares bones with the skeleton;
 * - helper bones name a parent in the skeleton or listed before them, a name not yet used and a
 *   unit-quaternion rotation;
 * - every node has a known `type`, and properties of that type with values in range (the fields
 *   of list items alike);
 * - every bound property names a parameter whose type fits; every clip property names a clip;
 *   every bone property names a skeleton bone;
 * - every declared input is linked, to a node that exists, with no unknown input names; pose
 *   lists have their minimum length; per-input lists match their input's length;
 * - no node feeds two inputs (use one node per consumer); `output` names a node;
 * - links form no cycle; each link's spaces are compatible (local and component space are
 *   converted automatically, except where an input accepts only one space);
 * - no chain from the output down is longer than MAX_GRAPH_DEPTH nodes (`too-deep`);
 * - no key anywhere is `__proto__`; every name is looked up as an own name (a node may be
 *   called `toString`, and a link to an undefined `constructor` dangles).
 */
export function loadGraphAsset(json: unknown, options: LoadOptions = {}): AnimGraph {
  const result = checkGraphAsset(json, options);
  if (!result.ok) throw new GraphLoadError(options.source ?? '<graph>', result.problems);
  return result.graph;
}

export type CheckResult = { ok: true; graph: AnimGraph } | { ok: false; problems: readonly GraphProblem[] };

/** Like loadGraphAsset, but returns the problems instead of throwing. */
export function checkGraphAsset(json: unknown, options: LoadOptions = {}): CheckResult {
  const registry = options.nodeTypes ?? DEFAULT_REGISTRY;
  const baseDir = options.baseDir ?? process.cwd();
  const problems = new Problems();
  reportProtoKeys(json, problems);
  const envelope = graphEnvelopeSchema.safeParse(json);
  if (!envelope.success) problems.addZod([], envelope.error, json);
  // Keep checking whatever parts are readable, so one run reports everything.
  const raw = (typeof json === 'object' && json !== null ? json : {}) as Partial<Record<keyof GraphEnvelope, unknown>>;
  const asset: Partial<GraphEnvelope> = envelope.success ? envelope.data : salvage(raw);

  const files = new FileCache(baseDir);
  const loaded = asset.skeleton !== undefined ? loadSkeleton(asset.skeleton, files, problems) : undefined;
  const skeleton = loaded && addHelperBones(asset.units ? loaded.withUnits(asset.units) : loaded, raw.helperBones, problems);
  const clips = new Map<string, Clip>();
  // Every clip name the asset declares, loaded or not: a node naming a declared clip whose file
  // failed is not also told the clip is unknown (the file's problem is the one to fix).
  const declaredClips = new Set(typeof raw.clips === 'object' && raw.clips !== null && !Array.isArray(raw.clips) ? Object.keys(raw.clips) : []);
  for (const [name, def] of Object.entries(asset.clips ?? {})) {
    const clip = loadClip(name, def, files, problems);
    if (!clip) continue;
    if (skeleton && !clip.tracks.some((t) => skeleton.indexOf(t.bone) >= 0)) {
      problems.add(['clips', name, 'source'], 'clip-file', `clip '${name}' animates none of the skeleton's bones`);
    }
    if (def.rootMotion && skeleton) {
      const options = def.rootMotion === true ? {} : def.rootMotion;
      const source = rootMotionSource(clip, skeleton, options.bone);
      if (typeof source === 'string') {
        const code = options.bone !== undefined && skeleton.indexOf(options.bone) < 0 ? 'unknown-bone' : 'no-root-motion';
        problems.add(['clips', name, 'rootMotion', ...(options.bone !== undefined ? ['bone'] : [])], code, source);
      } else clip.rootMotion = extractRootMotion(clip, source.bone, options.up ?? 'y', source);
    }
    clips.set(name, clip);
  }
  // Looked up by name in a Map: a binding to 'toString' must not find Object.prototype's.
  const parameters = new Map(Object.entries(asset.parameters ?? {}) as [string, ParameterDefinition][]);
  // Likewise a declared parameter whose definition is malformed is not also unknown where bound.
  const declaredParameters = new Set(typeof raw.parameters === 'object' && raw.parameters !== null && !Array.isArray(raw.parameters) ? Object.keys(raw.parameters) : []);

  const nodes = new Map<string, { envelope: NodeEnvelope; type: NodeType; properties: Record<string, unknown> }>();
  const rawNodes = (typeof raw.nodes === 'object' && raw.nodes !== null ? raw.nodes : {}) as Record<string, unknown>;
  for (const [id, rawNode] of Object.entries(rawNodes)) {
    const validId = nodeIdSchema.safeParse(id);
    if (!validId.success) problems.add(['nodes', id], 'schema', `node id '${id}': ${validId.error.issues[0].message}`);
    const parsed = nodeEnvelopeSchema.safeParse(rawNode);
    if (!parsed.success) {
      problems.addZod(['nodes', id], parsed.error, rawNode);
      continue;
    }
    const node = parsed.data;
    const type = registry.get(node.type);
    if (!type) {
      problems.add(['nodes', id, 'type'], 'unknown-node-type', `unknown node type '${node.type}' (known: ${registry.list().map((t) => t.type).join(', ')})`);
      continue;
    }
    const props = cachedPropertiesSchema(type).safeParse(node.properties ?? {});
    if (!props.success) problems.addZod(['nodes', id, 'properties'], props.error, node.properties ?? {});
    // When some properties are malformed, the well-formed ones are still checked, so one run
    // reports an unknown bone next to a missing one.
    const properties = props.success ? props.data : wellFormedProperties(type.properties, node.properties ?? {});
    checkPropertyReferences(id, type, properties, node, parameters, declaredParameters, clips, declaredClips, skeleton, problems);
    nodes.set(id, { envelope: node, type, properties });
  }

  // Links: every declared input linked to an existing node, nothing linked twice.
  const consumers = new Map<string, string>();
  /** The node each node feeds (undefined for the output's node), for walking toward the output. */
  const consumerNode = new Map<string, string | undefined>();
  const claim = (target: string, by: readonly PropertyKey[]) => {
    consumerNode.set(target, by[0] === 'nodes' ? String(by[1]) : undefined);
    const previous = consumers.get(target);
    if (previous !== undefined) {
      problems.add(by, 'shared-link', `node '${target}' already feeds ${previous}; a pose can feed one input only (add another node for each use)`);
    } else consumers.set(target, jsonPath(by));
  };
  for (const [id, { envelope: node, type }] of nodes) {
    const inputs = node.inputs ?? {};
    for (const name of Object.keys(inputs)) {
      if (!type.inputs.some((s) => s.name === name)) {
        problems.add(['nodes', id, 'inputs', name], 'unknown-input', `${type.type} has no input '${name}' (inputs: ${type.inputs.map((s) => s.name).join(', ') || 'none'})`);
      }
    }
    for (const spec of type.inputs) {
      const value = inputs[spec.name];
      const where = ['nodes', id, 'inputs', spec.name];
      if (value === undefined) {
        problems.add(where, 'missing-link', `input '${spec.name}' of ${type.type} '${id}' is not linked`);
        continue;
      }
      if (spec.kind === 'pose' && typeof value !== 'string') {
        problems.add(where, 'schema', `input '${spec.name}' takes one node id, not a list`);
        continue;
      }
      if (spec.kind === 'poseList' && !Array.isArray(value)) {
        problems.add(where, 'schema', `input '${spec.name}' takes a list of node ids`);
        continue;
      }
      const targets = Array.isArray(value) ? value : [value];
      if (spec.kind === 'poseList' && targets.length < (spec.minCount ?? 1)) {
        problems.add(where, 'missing-link', `input '${spec.name}' needs at least ${spec.minCount ?? 1} pose(s), has ${targets.length}`);
      }
      targets.forEach((target, i) => {
        const at = Array.isArray(value) ? [...where, i] : where;
        const linked = nodes.get(target);
        if (!linked) {
          if (!Object.hasOwn(rawNodes, target)) problems.add(at, 'dangling-link', `links to '${target}', which is not a node of this graph`);
          return;
        }
        claim(target, at);
        if (spec.accepts && !spec.accepts.includes(linked.type.space)) {
          problems.add(at, 'space-mismatch', `input '${spec.name}' of ${type.type} '${id}' accepts only ${spec.accepts.join(' or ')}-space poses, but ${linked.type.type} '${target}' produces a ${linked.type.space}-space pose, which cannot be converted here`);
        }
      });
    }
  }
  const outputId = typeof raw.output === 'string' ? raw.output : undefined;
  if (outputId !== undefined) {
    if (!nodes.has(outputId)) {
      if (!Object.hasOwn(rawNodes, outputId)) problems.add(['output'], 'dangling-link', `output names '${outputId}', which is not a node of this graph`);
    } else claim(outputId, ['output']);
  }
  const order = postOrder(nodes, outputId, problems);
  if (order && outputId !== undefined && nodes.has(outputId)) checkDepth(nodes, order, outputId, problems);
  // A node that requests inertialization needs a node that provides it between it and the output.
  // Memoised per node (true: a provider lies between it and the output), so that a long chain of
  // requesters costs one walk, not one per requester.
  const providedBelow = new Map<string, boolean>();
  for (const [id, { type, properties }] of nodes) {
    if (!type.requestsInertialization?.(properties) || !consumerNode.has(id)) continue;
    const walked: string[] = [];
    let at = consumerNode.get(id);
    let provided = false;
    while (at !== undefined) {
      const known = providedBelow.get(at);
      if (known !== undefined) {
        provided = known;
        break;
      }
      if (nodes.get(at)?.type.providesInertialization) {
        provided = true;
        break;
      }
      providedBelow.set(at, false); // provisional: also stops a walk round a cycle
      walked.push(at);
      at = consumerNode.get(at);
    }
    for (const w of walked) providedBelow.set(w, provided);
    if (!provided) {
      problems.add(['nodes', id, 'properties', 'blendMode'], 'no-inertialization',
        `${type.type} '${id}' requests inertialization, but no Inertialization node lies between it and the output '${outputId}': add one below it, or use blendMode "crossfade"`);
    }
  }

  if (problems.list.length > 0 || !skeleton || outputId === undefined || !order) return { ok: false, problems: problems.list };
  const compiled: CompiledNode[] = order.map((id) => {
    const { envelope: node, type, properties } = nodes.get(id)!;
    return { id, nodeType: type, properties: properties as Record<string, PropertyValue>, inputs: node.inputs ?? {} };
  });
  compiled.push({ id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: outputId } });
  try {
    const graph = new AnimGraph({
      name: asset.name ?? options.source ?? 'graph', skeleton, parameters: Object.fromEntries(parameters), clips, nodes: compiled, baseDir, useIndexFiles: options.useIndexFiles ?? true,
      readFile: (path) => readFileSync(files.resolve(path)),
    });
    graph.createInstance(); // binds every node once, so an asset that loads is known to instantiate
    return { ok: true, graph };
  } catch (e) {
    if (e instanceof NodePrepareError) {
      return { ok: false, problems: e.problems.map((p) => ({ path: jsonPath(['nodes', p.nodeId, 'properties', ...p.path]), code: p.code, message: p.message })) };
    }
    return { ok: false, problems: [{ path: '$', code: 'schema', message: `graph failed to instantiate: ${(e as Error).message}` }] };
  }
}

/**
 * The skeleton with the asset's `helperBones` appended (malformed fields are reported by the
 * envelope check; a helper with a name and a parent still takes its place). Problems name
 * `$.helperBones[i]` and the field; checking then goes on with the helper bones that could be
 * added, so the nodes that use them are still checked.
 */
function addHelperBones(skeleton: Skeleton, raw: unknown, problems: Problems): Skeleton {
  if (!Array.isArray(raw) || raw.length === 0) return skeleton;
  const indices: number[] = [];
  const bones: BoneDefinition[] = [];
  raw.forEach((item, i) => {
    const parsed = helperBoneSchema.safeParse(item);
    // A helper with a malformed offset still takes its place in the hierarchy (its children name it).
    const { name, parent } = (typeof item === 'object' && item !== null ? item : {}) as { name?: unknown; parent?: unknown };
    if (parsed.success || (typeof name === 'string' && typeof parent === 'string')) {
      indices.push(i);
      bones.push(parsed.success ? parsed.data : { name: name as string, parent: parent as string });
    }
  });
  try {
    return skeleton.withExtraBones(bones);
  } catch (e) {
    if (!(e instanceof SkeletonError)) throw e;
    for (const p of e.problems) problems.add(['helperBones', indices[p.bone], ...(p.field ? [p.field] : [])], 'skeleton', p.message);
  }
  let partial = skeleton;
  for (const bone of bones) {
    try {
      partial = partial.withExtraBones([bone]);
    } catch {
      // Reported above.
    }
  }
  return partial;
}

function wellFormedProperties(specs: Readonly<Record<string, PropertySpec>>, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    if (!Object.hasOwn(raw, name)) continue;
    const value = raw[name];
    if (cachedPropertySchema(spec).safeParse(value).success) out[name] = value;
    else if (spec.kind === 'list' && Array.isArray(value)) {
      // The well-formed fields of every item are still checked; indices (and so paths) stay.
      out[name] = value.map((item) => (typeof item === 'object' && item !== null && !Array.isArray(item) ? wellFormedProperties(spec.item, item) : null));
    }
  }
  return out;
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
    name: typeof raw.name === 'string' ? raw.name : undefined,
  };
}

function checkPropertyReferences(
  id: string, type: NodeType, properties: Record<string, unknown>, node: NodeEnvelope,
  parameters: ReadonlyMap<string, ParameterDefinition>, declaredParameters: ReadonlySet<string>,
  clips: ReadonlyMap<string, Clip>, declaredClips: ReadonlySet<string>,
  skeleton: Skeleton | undefined, problems: Problems,
): void {
  const unknownClip = (clip: unknown): clip is string => typeof clip === 'string' && !clips.has(clip) && !declaredClips.has(clip);
  const declared = () => [...declaredClips].join(', ') || 'none';
  // Runs over the node's properties, and again over each item of a list property.
  const checkValues = (specs: Readonly<Record<string, PropertySpec>>, values: Readonly<Record<string, unknown>>, at: readonly PropertyKey[]): void => {
    for (const [name, spec] of Object.entries(specs)) {
      const value = values[name];
      const where = [...at, name];
      if (value === undefined) continue;
      if (spec.kind !== 'object' && typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'param')) {
        const param = (value as { param: string }).param;
        const def = parameters.get(param);
        if (!def) {
          if (!declaredParameters.has(param)) {
            problems.add([...where, 'param'], 'unknown-parameter', `unknown parameter '${param}' (declared: ${[...declaredParameters].join(', ') || 'none'})`);
          }
        } else if (!parameterFits(spec.kind as ParameterType, def.type)) {
          problems.add([...where, 'param'], 'parameter-type', `property '${name}' is ${spec.kind} but parameter '${param}' is ${def.type}`);
        }
        continue;
      }
      if (spec.kind === 'clip' && unknownClip(value)) {
        problems.add(where, 'unknown-clip', `unknown clip '${value}' (declared: ${declared()})`);
      }
      if (spec.kind === 'bone' && typeof value === 'string' && skeleton && skeleton.indexOf(value) < 0) {
        problems.add(where, 'unknown-bone', `the skeleton has no bone '${value}'`);
      }
      if (spec.kind === 'floatList' && Array.isArray(value)) {
        const linked = node.inputs?.[spec.perInput];
        const count = Array.isArray(linked) ? linked.length : 0;
        if (value.length !== count) {
          problems.add(where, 'schema', `has ${value.length} entries but input '${spec.perInput}' has ${count} poses`);
        }
      }
      if (spec.kind === 'clipList' && Array.isArray(value)) {
        value.forEach((clip, i) => {
          if (unknownClip(clip)) {
            problems.add([...where, i], 'unknown-clip', `unknown clip '${clip}' (declared: ${declared()})`);
          }
        });
      }
      if (spec.kind === 'list' && Array.isArray(value)) {
        value.forEach((item, i) => {
          if (typeof item === 'object' && item !== null && !Array.isArray(item)) checkValues(spec.item, item as Record<string, unknown>, [...where, i]);
        });
      }
    }
  };
  checkValues(type.properties, properties, ['nodes', id, 'properties']);
  type.check?.({
    id,
    properties,
    rawProperties: node.properties ?? {},
    skeleton,
    clipNames: new Set(clips.keys()),
    report: (path, code, message) => problems.add(['nodes', id, 'properties', ...path], code, message),
  });
}

/** A node's links as (JSON path below the node, target id) pairs, in pin order. */
function linksOf(node: { envelope: NodeEnvelope }): [PropertyKey[], string][] {
  const out: [PropertyKey[], string][] = [];
  for (const [pin, value] of Object.entries(node.envelope.inputs ?? {})) {
    if (Array.isArray(value)) value.forEach((target, i) => out.push([['inputs', pin, i], target]));
    else out.push([['inputs', pin], value]);
  }
  return out;
}

/**
 * Post-order (children before parents) of the nodes reachable from the output; reports cycles.
 * Iterative, with an explicit stack, so that a chain of any length is checked (and rejected as
 * too deep) instead of overflowing the loader's own stack.
 */
function postOrder(
  nodes: ReadonlyMap<string, { envelope: NodeEnvelope }>, outputId: string | undefined, problems: Problems,
): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const order: string[] = [];
  const reported = new Set<string>();
  let ok = true;
  /** The nodes being visited, from the root of this walk down; and where each sits in it. */
  const path: string[] = [];
  const pathIndex = new Map<string, number>();
  const frames: { id: string; targets: string[]; next: number }[] = [];
  const enter = (id: string): void => {
    const node = nodes.get(id);
    if (!node) return;
    const s = state.get(id);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...path.slice(pathIndex.get(id)), id];
      const key = [...cycle].sort().join(',');
      if (!reported.has(key)) {
        reported.add(key);
        problems.add(['nodes', id, 'inputs'], 'cycle', `links form a cycle: ${cycle.join(' -> ')}`);
      }
      ok = false;
      return;
    }
    state.set(id, 'visiting');
    pathIndex.set(id, path.length);
    path.push(id);
    frames.push({ id, targets: linksOf(node).map(([, target]) => target), next: 0 });
  };
  const visit = (root: string): void => {
    enter(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1];
      if (frame.next < frame.targets.length) {
        enter(frame.targets[frame.next++]);
        continue;
      }
      frames.pop();
      path.pop();
      pathIndex.delete(frame.id);
      state.set(frame.id, 'done');
      order.push(frame.id);
    }
  };
  // Every node is checked for cycles, reachable from the output or not.
  if (outputId !== undefined) visit(outputId);
  const reachable = new Set(order);
  for (const id of nodes.keys()) visit(id);
  return ok ? order.filter((id) => reachable.has(id)) : undefined;
}

/**
 * Reports a graph whose longest chain from the output node down to a leaf has more than
 * MAX_GRAPH_DEPTH nodes (`too-deep`, at the link that leads past the limit): update, evaluate
 * and the debug tree recurse once per level, so the limit is what keeps them inside the stack.
 * `order` is the acyclic post-order of the nodes reachable from the output.
 */
function checkDepth(
  nodes: ReadonlyMap<string, { envelope: NodeEnvelope }>, order: readonly string[], outputId: string, problems: Problems,
): void {
  const height = new Map<string, number>();
  for (const id of order) {
    let h = 0;
    for (const [, target] of linksOf(nodes.get(id)!)) h = Math.max(h, height.get(target) ?? 0);
    height.set(id, h + 1);
  }
  const depth = height.get(outputId) ?? 0;
  if (depth <= MAX_GRAPH_DEPTH) return;
  // Down the deepest chain to the node at the last level allowed, whose link goes one further.
  let at = outputId;
  for (let level = 1; ; level++) {
    const links = linksOf(nodes.get(at)!);
    const [keys, target] = links.find(([, t]) => height.get(t) === height.get(at)! - 1)!;
    if (level === MAX_GRAPH_DEPTH) {
      problems.add(['nodes', at, ...keys], 'too-deep',
        `the graph is ${depth} nodes deep from its output '${outputId}'; at most ${MAX_GRAPH_DEPTH} are allowed, and this link to '${target}' is level ${MAX_GRAPH_DEPTH + 1}`);
      return;
    }
    at = target;
  }
}

class FileCache {
  private readonly bvh = new Map<string, ReturnType<typeof loadBvh> | BvhError | Error>();
  private readonly gltf = new Map<string, GltfDocument | Error>();
  /** The skeleton's glTF skin, so that clips from the same file target its bones by node. */
  skeletonRig: { file: string; rig: GltfRig } | null = null;

  constructor(readonly baseDir: string) {}

  resolve(path: string): string {
    return resolve(this.baseDir, path);
  }

  loadBvh(path: string): ReturnType<typeof loadBvh> | BvhError | Error {
    const full = this.resolve(path);
    let cached = this.bvh.get(full);
    if (cached === undefined) {
      try {
        cached = loadBvh(readFileSync(full, 'utf8'), path, full);
      } catch (e) {
        cached = e instanceof BvhError ? e : new Error(`cannot read '${path}' (resolved to ${full}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      this.bvh.set(full, cached);
    }
    return cached;
  }

  /** A glTF file read and parsed once per load, whichever clips name it; external buffers relative to it. */
  loadGltf(path: string): GltfDocument | Error {
    const full = this.resolve(path);
    let cached = this.gltf.get(full);
    if (cached === undefined) {
      let bytes: Uint8Array | undefined;
      try {
        bytes = readFileSync(full);
      } catch (e) {
        cached = new Error(`cannot read '${path}' (resolved to ${full}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      if (bytes) cached = guardGltf(path, () => readGltf(bytes, { source: path, readUri: (uri) => readFileSync(resolve(dirname(full), decodeURIComponent(uri))) }));
      this.gltf.set(full, cached!);
    }
    return cached!;
  }
}

const isGltfPath = (path: string) => /\.gl(b|tf)$/i.test(path);

/** Runs an import; an error other than GltfError (a bug, not the file) is still reported, never thrown. */
function guardGltf<T>(path: string, run: () => T): T | Error {
  try {
    return run();
  } catch (e) {
    return e instanceof GltfError ? e : new GltfError(path, 'malformed', [`cannot import: ${(e as Error).message}`]);
  }
}

/** A glTF problem at the asset path it concerns: the file, the skin or the animation named. */
function reportGltfError(error: Error, file: readonly PropertyKey[], named: readonly PropertyKey[], problems: Problems): void {
  if (!(error instanceof GltfError)) {
    problems.add(file, 'file', error.message);
    return;
  }
  const where = {
    malformed: [file, 'gltf'], unreadable: [file, 'file'], 'too-large': [named, 'gltf'], 'unknown-skin': [named, 'unknown-skin'],
    'skin-not-tree': [named, 'skeleton'], 'unknown-animation': [named, 'unknown-animation'], 'empty-animation': [named, 'empty-animation'],
  } as const satisfies Record<GltfError['code'], readonly [unknown, ProblemCode]>;
  const [keys, code] = where[error.code];
  for (const p of error.problems) problems.add(keys as readonly PropertyKey[], code, `${error.source}: ${p}`);
}

function loadGltfSkeleton(source: { gltf: string; skin?: number | string }, files: FileCache, problems: Problems): Skeleton | undefined {
  const doc = files.loadGltf(source.gltf);
  const rig = doc instanceof Error ? doc : guardGltf(source.gltf, () => gltfRig(doc, source.skin ?? 0));
  if (rig instanceof Error) {
    reportGltfError(rig, ['skeleton', 'gltf'], ['skeleton', 'skin'], problems);
    return undefined;
  }
  files.skeletonRig = { file: files.resolve(source.gltf), rig };
  return rig.skeleton;
}

function loadGltfClip(name: string, def: GraphEnvelope['clips'][string], files: FileCache, problems: Problems): Clip | undefined {
  const doc = files.loadGltf(def.source);
  const sameFile = files.skeletonRig?.file === files.resolve(def.source) ? files.skeletonRig.rig : undefined;
  const clip = doc instanceof Error ? doc : guardGltf(def.source, () => gltfClip(doc, def.animation ?? 0, { name, rig: sameFile, sampleRate: def.sampleRate }));
  if (clip instanceof Error) {
    reportGltfError(clip, ['clips', name, 'source'], ['clips', name, 'animation'], problems);
    return undefined;
  }
  return clip;
}

function reportFileError(error: BvhError | Error, where: readonly PropertyKey[], problems: Problems): void {
  if (error instanceof BvhError) {
    for (const p of error.problems) problems.add(where, 'bvh', `malformed BVH ${error.source} line ${p.line}: ${p.message}`);
  } else if (error instanceof SkeletonError) {
    for (const p of error.problems) problems.add(where, 'skeleton', p.message);
  } else problems.add(where, 'clip-file', error.message);
}

const jsonSkeletonSchema = z.object({
  bones: z.array(z.object({
    name: z.string().min(1),
    parent: z.string().nullable().optional(),
    translation: z.tuple([z.number(), z.number(), z.number()]).optional(),
    rotation: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional(),
    scale: z.tuple([z.number(), z.number(), z.number()]).optional(),
  }).strict()).min(1),
}).strict();

function loadSkeleton(source: GraphEnvelope['skeleton'], files: FileCache, problems: Problems): Skeleton | undefined {
  if (source === 'builtin:biped') return sampleSkeleton();
  if ('gltf' in source) return loadGltfSkeleton(source, files, problems);
  if ('bvh' in source) {
    const loaded = files.loadBvh(source.bvh);
    if (loaded instanceof Error) {
      reportFileError(loaded, ['skeleton', 'bvh'], problems);
      return undefined;
    }
    return loaded.skeleton;
  }
  const where = ['skeleton', 'file'];
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(files.resolve(source.file), 'utf8'));
  } catch (e) {
    problems.add(where, 'file', `cannot read skeleton '${source.file}': ${(e as Error).message}`);
    return undefined;
  }
  const parsed = jsonSkeletonSchema.safeParse(json);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.add(where, 'skeleton', `${jsonPath(issue.path)} in ${source.file}: ${issue.message}`);
    return undefined;
  }
  try {
    return Skeleton.fromDefinitions(parsed.data.bones);
  } catch (e) {
    if (e instanceof SkeletonError) for (const p of e.problems) problems.add(where, 'skeleton', `${source.file}: ${p.message}`);
    else throw e;
    return undefined;
  }
}

function loadClip(name: string, def: GraphEnvelope['clips'][string], files: FileCache, problems: Problems): Clip | undefined {
  let clip: Clip;
  if (!isGltfPath(def.source)) {
    for (const key of ['animation', 'sampleRate'] as const) {
      if (def[key] !== undefined) problems.add(['clips', name, key], 'schema', `'${key}' applies to glTF sources (.glb, .gltf) only`);
    }
  }
  if (def.source.startsWith('builtin:')) {
    const builtin = def.source.slice('builtin:'.length);
    if (!SAMPLE_CLIP_NAMES.includes(builtin)) {
      problems.add(['clips', name, 'source'], 'clip-file', `no built-in clip '${builtin}' (have: ${SAMPLE_CLIP_NAMES.join(', ')})`);
      return undefined;
    }
    clip = sampleClip(builtin);
  } else if (isGltfPath(def.source)) {
    const loaded = loadGltfClip(name, def, files, problems);
    if (!loaded) return undefined;
    clip = loaded;
  } else {
    const loaded = files.loadBvh(def.source);
    if (loaded instanceof Error) {
      reportFileError(loaded, ['clips', name, 'source'], problems);
      return undefined;
    }
    clip = loaded.clip;
  }
  const [first, last] = def.frames ?? [0, -1];
  const end = last < 0 ? clip.frameCount + last : last;
  if (first < 0 || end >= clip.frameCount || end < first) {
    problems.add(['clips', name, 'frames'], 'clip-frames', `frames [${first}, ${last}] are outside the clip's 0..${clip.frameCount - 1}`);
    return undefined;
  }
  return clip.sliceFrames(first, last, name, def.interpolation ?? 'slerp');
}
