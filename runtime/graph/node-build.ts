/**
 * Building a graph's nodes for an instance (each node type's `create`, given its links, its
 * properties resolved and its numbers), and what is done once per graph before: each node type's
 * `prepare`.
 */
import type { BlendProfile } from '../core/blend-profile.ts';
import type { ClipBinding } from '../core/clip.ts';
import { AnimGraphError } from '../core/errors.ts';
import type { Skeleton } from '../core/skeleton.ts';
import {
  ComponentPoseLink, ComponentPoseNode as ComponentPoseNodeClass, LocalPoseNode as LocalPoseNodeClass, NodeBuildError, NodePrepareError,
  PoseLink, checkProblemCode, thrownText,
  type Link, type NodeProblem, type PoseNode, type PropertySpec, type ResolvedProperties, type ScalarProperty, type Vec3Property,
} from '../node/node.ts';
import { Parameters, type ParameterDefinition } from '../node/parameters.ts';
import type { AnimGraphDefinition, CompiledNode, PropertyValue } from './definition.ts';
import { curveBindingOf, type CurveInputs } from './curve-inputs.ts';
import type { FrameNumbering } from './frame-layout.ts';

/** What building a graph's nodes reads from the graph (a CompiledGraph). */
export interface NodeBuildSource {
  readonly skeleton: Skeleton;
  readonly parameterDefinitions: Readonly<Record<string, ParameterDefinition>>;
  readonly clipBindings: ReadonlyMap<string, ClipBinding>;
  readonly blendProfiles: ReadonlyMap<string, BlendProfile>;
  /** Nodes in post-order (see AnimGraphDefinition.nodes). */
  readonly nodes: readonly CompiledNode[];
  /** What each node type's `prepare` built, by node id (prepareNodes). */
  readonly shared: ReadonlyMap<string, unknown>;
  /** Properties resolved once per graph (see CompiledGraph.resolvedProperties). */
  readonly resolvedProperties: WeakMap<object, Map<string, unknown>>;
  /** The slots of curve-bound properties (CompiledGraph.curveInputs). */
  readonly curveInputs: CurveInputs | null;
}

/**
 * Builds every node of `graph` in its compiled order for an instance whose parameters are
 * `parameters`, each given its numbers by `numbering` (finished once every node is built): the
 * nodes in build order, the root last.
 */
export function buildNodes(graph: NodeBuildSource, parameters: Parameters, numbering: FrameNumbering): PoseNode[] {
  const built = new Map<string, PoseNode>();
  const nodes = graph.nodes;
  for (let i = 0; i < nodes.length; i++) {
    const compiled = nodes[i];
    const node = buildNode(compiled, built, parameters, graph, numbering.numbersFor(i, compiled));
    numbering.placeWeight(i, compiled);
    built.set(compiled.id, node);
  }
  return [...built.values()];
}

function buildNode(
  compiled: CompiledNode, built: ReadonlyMap<string, PoseNode>, parameters: Parameters, graph: NodeBuildSource, numbers: (count: number) => number,
): PoseNode {
  const { nodeType } = compiled;
  const inputs: Record<string, Link | Link[]> = {};
  for (const spec of nodeType.inputs) {
    const target = compiled.inputs[spec.name];
    const makeLink = (id: string): Link => {
      const node = built.get(id);
      if (!node) throw new AnimGraphError('invalid-data', `node '${compiled.id}' links '${spec.name}' to '${id}', which is not built before it`);
      return spec.space === 'local' ? new PoseLink(node) : new ComponentPoseLink(node);
    };
    if (spec.kind === 'poseList') inputs[spec.name] = (Array.isArray(target) ? target : []).map(makeLink);
    else if (typeof target === 'string') inputs[spec.name] = makeLink(target);
  }
  const subGraphs: Record<string, PoseLink> = {};
  for (const [name, id] of Object.entries(compiled.subGraphs ?? {})) {
    const node = built.get(id);
    if (!node) throw new AnimGraphError('invalid-data', `node '${compiled.id}' has sub-graph '${name}' rooted at '${id}', which is not built before it`);
    subGraphs[name] = new PoseLink(node);
  }
  let node: unknown;
  try {
    node = nodeType.create({
      id: compiled.id, boneCount: graph.skeleton.boneCount, properties: resolveProperties(compiled, built, parameters, graph), inputs,
      shared: graph.shared.get(compiled.id), subGraphs, parameterSlot: (name) => parameters.slotOf(name),
      blendProfile: (name) => graph.blendProfiles.get(name) ?? null, numbers,
    });
  } catch (e) {
    // Named here, so that the loader reports it at the node (it said only 'graph failed to instantiate').
    if (e instanceof NodeBuildError && e.nodeId === compiled.id) throw e;
    throw new NodeBuildError(compiled.id, nodeType.type, `create threw ${thrownText(e)}`, e);
  }
  return checkBuiltNode(compiled, node);
}

/**
 * `node` as create returned it, if it is a node of the compiled node's id and of its type's space. A
 * wrong one failed later and elsewhere: undefined as the next node's link 'not built before it', a
 * plain object at initialize, another id (the same node returned twice) as 'not one of this
 * instance's nodes'.
 */
function checkBuiltNode(compiled: CompiledNode, node: unknown): PoseNode {
  const { id, nodeType } = compiled;
  if (!(node instanceof LocalPoseNodeClass || node instanceof ComponentPoseNodeClass)) {
    const given = typeof node === 'object' && node !== null ? `an object of class ${node.constructor?.name ?? 'Object'}` : String(node);
    throw new NodeBuildError(id, nodeType.type, `create returned ${given}, not a node (a LocalPoseNode or ComponentPoseNode)`);
  }
  if (node.id !== id) throw new NodeBuildError(id, nodeType.type, `create returned a node of id '${node.id}': give the node the id create receives`);
  if (node.space !== nodeType.space) {
    throw new NodeBuildError(id, nodeType.type, `create returned a ${node.space}-space node; the type declares space '${nodeType.space}', which the loader checked links by`);
  }
  return node;
}

function resolveNodeReference(compiled: CompiledNode, built: ReadonlyMap<string, PoseNode>, value: PropertyValue | undefined): PoseNode {
  const node = typeof value === 'string' ? built.get(value) : undefined;
  if (!node) throw new AnimGraphError('invalid-data', `node '${compiled.id}' names ${JSON.stringify(value)}, which is not built before it`);
  return node;
}

/** Runs every node type's `prepare` once for the graph; throws NodePrepareError listing all problems. */
export function prepareNodes(
  graph: Pick<NodeBuildSource, 'skeleton' | 'parameterDefinitions' | 'clipBindings' | 'blendProfiles' | 'resolvedProperties' | 'curveInputs'>, definition: AnimGraphDefinition,
): Map<string, unknown> {
  const shared = new Map<string, unknown>();
  const problems: NodeProblem[] = [];
  const resolvePath = definition.resolvePath ?? ((path: string) => path);
  // The slots every instance's parameters will have (Parameters lays them out by the definitions alone).
  const parameters = new Parameters(graph.parameterDefinitions);
  const failures: NodeBuildError[] = [];
  for (const compiled of definition.nodes) {
    const prepare = compiled.nodeType.prepare;
    if (!prepare) continue;
    const before = problems.length;
    let data: unknown;
    try {
      data = prepare.call(compiled.nodeType, {
        id: compiled.id,
        properties: compiled.properties,
        resolved: resolveProperties(compiled, new Map(), parameters, graph),
        skeleton: graph.skeleton,
        clip: (name) => graph.clipBindings.get(name),
        resolvePath,
        readFile: definition.readFile ?? noFileAccess,
        useIndexFiles: definition.useIndexFiles ?? true,
        parameterSlot: (name) => parameters.slotOf(name),
        blendProfile: (name) => graph.blendProfiles.get(name) ?? null,
        subGraphs: Object.keys(compiled.subGraphs ?? {}),
        report: (path, code, message) => {
          checkProblemCode(code, path);
          problems.push({ nodeId: compiled.id, path, code, message });
        },
      });
    } catch (e) {
      // Each node's, listed with the others' problems: the loader reports them at their nodes.
      failures.push(new NodeBuildError(compiled.id, compiled.nodeType.type, `prepare threw ${thrownText(e)}`, e));
      continue;
    }
    if (problems.length === before) shared.set(compiled.id, data);
  }
  if (problems.length > 0 || failures.length > 0) throw new NodePrepareError(problems, failures);
  return shared;
}

function noFileAccess(path: string): Uint8Array {
  throw new AnimGraphError('not-supported', `no file access to read '${path}': the graph definition has no readFile (graphs/loader.ts gives one)`);
}

/** What property resolution reads of the graph. */
type PropertySource = Pick<NodeBuildSource, 'clipBindings' | 'blendProfiles' | 'resolvedProperties' | 'curveInputs'>;

function resolveProperties(compiled: CompiledNode, built: ReadonlyMap<string, PoseNode>, parameters: Parameters, graph: PropertySource): ResolvedProperties {
  return resolvePropertyValues(compiled, compiled.nodeType.properties, compiled.properties, parameters, graph, built);
}

/** Resolves `values` described by `specs`: a node's properties, or one item of a list property. */
function resolvePropertyValues(
  compiled: CompiledNode, specs: Readonly<Record<string, PropertySpec>>, values: Readonly<Record<string, PropertyValue | undefined>>,
  parameters: Parameters, graph: PropertySource, built: ReadonlyMap<string, PoseNode>,
): ResolvedProperties {
  const raw = (name: string): PropertyValue | undefined => {
    if (!Object.hasOwn(specs, name)) throw new AnimGraphError('unknown-name', `node type ${compiled.nodeType.type} has no property '${name}'`);
    return Object.hasOwn(values, name) ? values[name] : undefined;
  };
  const binding = (value: PropertyValue | undefined): number => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return -1;
    if (typeof value.param === 'string') return parameters.slotOf(value.param);
    // A curve's slot, after the declared parameters (CurveInputs lays them out from these very values).
    const curve = curveBindingOf(value);
    return curve !== undefined && graph.curveInputs !== null ? graph.curveInputs.slotOf(curve) : -1;
  };
  // One object per graph, record and name (CompiledGraph.resolvedProperties); a property's kind is fixed by its spec.
  const shared = <T>(name: string, resolve: () => T): T => {
    let byName = graph.resolvedProperties.get(values);
    if (byName === undefined) {
      byName = new Map();
      graph.resolvedProperties.set(values, byName);
    }
    if (!byName.has(name)) byName.set(name, resolve());
    return byName.get(name) as T;
  };
  return {
    scalar(name): ScalarProperty {
      return shared(name, (): ScalarProperty => {
        const value = raw(name);
        const spec = specs[name];
        const fallback = 'default' in spec ? spec.default : 0;
        const literal = typeof value === 'number' || typeof value === 'boolean' ? value : fallback;
        return { slot: binding(value), constant: typeof literal === 'boolean' ? (literal ? 1 : 0) : Number(literal) };
      });
    },
    vec3(name): Vec3Property {
      return shared(name, () => {
        const value = raw(name);
        const spec = specs[name];
        const literal = Array.isArray(value) ? value : 'default' in spec && Array.isArray(spec.default) ? spec.default : [0, 0, 0];
        // `constant` first: an object literal of the scalar's shape, `{ slot, constant }`, would share
        // its hidden class in V8, whose `constant` field, once it held an array, would stay tagged
        // for scalar properties too, and readScalar would then box every parameter value it read
        // that was not a whole number (16 bytes a read, per frame, in any process that had built a
        // graph with a vec3 property: tests/support/bound-scalar-allocation-probe.ts). Not a class
        // either: class fields start undefined, which leaves the field tagged just the same.
        return { constant: Float64Array.from(literal as readonly unknown[], Number), slot: binding(value) };
      });
    },
    enumValue(name): string {
      const value = raw(name);
      const spec = specs[name];
      return typeof value === 'string' ? value : 'default' in spec ? String(spec.default) : '';
    },
    clip(name): ClipBinding {
      const value = raw(name);
      const clip = typeof value === 'string' ? graph.clipBindings.get(value) : undefined;
      if (!clip) throw new AnimGraphError('unknown-name', `node '${compiled.id}': no clip named ${JSON.stringify(value)}`);
      return clip;
    },
    bone(name): string {
      const value = raw(name);
      return typeof value === 'string' ? value : '';
    },
    floatList(name): number[] {
      const value = raw(name);
      const spec = specs[name];
      const count = compiled.inputs[spec.kind === 'floatList' ? spec.perInput : '']?.length ?? 0;
      const fallback = spec.kind === 'floatList' ? spec.default : 0;
      if (Array.isArray(value)) return Array.from({ length: count }, (_, i) => Number(value[i] ?? fallback));
      return new Array<number>(count).fill(typeof value === 'number' ? value : fallback);
    },
    clipList(name): ClipBinding[] {
      const value = raw(name);
      const names: unknown[] = Array.isArray(value) ? value : [];
      return names.map((clipName) => {
        const clip = typeof clipName === 'string' ? graph.clipBindings.get(clipName) : undefined;
        if (!clip) throw new AnimGraphError('unknown-name', `node '${compiled.id}': no clip named ${JSON.stringify(clipName)}`);
        return clip;
      });
    },
    literal(name): unknown {
      return raw(name);
    },
    list(name): ResolvedProperties[] {
      const value = raw(name);
      const spec = specs[name];
      if (spec.kind !== 'list') throw new AnimGraphError('invalid-argument', `property '${name}' of ${compiled.nodeType.type} is not a list`);
      const items: unknown[] = Array.isArray(value) ? value : [];
      return items.map((item) => resolvePropertyValues(compiled, spec.item, item as Record<string, PropertyValue>, parameters, graph, built));
    },
    node(name): PoseNode {
      return resolveNodeReference(compiled, built, raw(name));
    },
    blendProfile(name): BlendProfile | null {
      const value = raw(name);
      if (typeof value !== 'string') return null;
      const profile = graph.blendProfiles.get(value);
      if (!profile) throw new AnimGraphError('unknown-name', `node '${compiled.id}': no blend profile named ${JSON.stringify(value)}`);
      return profile;
    },
  };
}
