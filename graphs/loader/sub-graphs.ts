// Sub-graphs at load time: the graphs a node owns besides its inputs (NodeType.subGraphs: a
// StateMachine's states). Each is checked by the same code as the top-level graph (checkNodes,
// checkLinks) and its problems reported at paths inside it, such as
// `$.nodes.sm.properties.states.walk.nodes.p.properties.clip`. Its nodes are compiled with ids
// scoped by node and sub-graph (`sm/walk/p`: '/' is not allowed in an asset's ids, so they cannot
// collide) and placed before their owner, which receives their roots as CompiledNode.subGraphs.
import { AnimGraphError } from '../../runtime/core/errors.ts';
import type { CompiledNode, PropertyValue } from '../../runtime/graph/graph.ts';
import { thrownText, type NodeType, type SubGraphSource } from '../../runtime/node/node.ts';
import { checkLinks, type ForeignRef, type LinkScope } from './links.ts';
import { checkNodes, type CheckedNode, type NodeReferences } from './nodes.ts';
import { jsonPath, Problems } from './problems.ts';
import type { NodeRegistry } from './registry.ts';

/** What a node's checked sub-graphs contribute to the compiled graph. */
export interface SubGraphBuild {
  /** Their nodes, ids scoped, in post-order (the nodes of sub-graphs inside them included). */
  nodes: CompiledNode[];
  /** The root node id of each sub-graph that checked out, by name. */
  roots: Record<string, string>;
  /** The path (below the node's `properties`) of the first sub-graph that needs an Inertialization below the node. */
  inertialAt?: readonly PropertyKey[];
  /** References from its sub-graphs (at any depth) to nodes of the graphs around it; `at` starts at the node's id. */
  foreign: ForeignRef[];
}

/**
 * Where the nodes of each sub-graph are written, by the prefix of their compiled ids: 'sm/walk/'
 * is ['nodes', 'sm', 'properties', 'states', 'walk', 'nodes']. Filled as sub-graphs are checked.
 */
export type SubGraphPaths = Map<string, readonly PropertyKey[]>;

/**
 * The sub-graphs a node type names for these properties; throws what the type's hook throws, or an
 * AnimGraphError (`node-build`: the type's code failed) for a malformed answer.
 */
export function subGraphsOf(type: NodeType, properties: unknown): readonly SubGraphSource[] {
  if (!type.subGraphs || !isRecord(properties)) return [];
  const sources: unknown = type.subGraphs(properties);
  const names = new Set<string>();
  const valid = Array.isArray(sources) && sources.every((s) => isRecord(s) && typeof s.name === 'string' && !names.has(s.name) && names.add(s.name)
    && Array.isArray(s.path) && isRecord(s.nodes) && typeof s.output === 'string');
  if (!valid) throw new AnimGraphError('node-build', 'subGraphs returned something other than a list of { name, path, nodes, output }, each of its own name');
  return sources as SubGraphSource[];
}

/**
 * How many nodes `rawNodes` (an asset's `nodes`) holds with those of the sub-graphs below them, at
 * any depth (a state machine's states), counted before anything is checked; the count stops once
 * past `max`. A sub-graph hook that throws counts nothing (its node's check reports it).
 */
export function countGraphNodes(rawNodes: unknown, registry: NodeRegistry, max: number): number {
  let count = 0;
  const graphs: unknown[] = [rawNodes];
  while (graphs.length > 0 && count <= max) {
    const nodes = graphs.pop();
    if (!isRecord(nodes)) continue;
    for (const node of Object.values(nodes)) {
      count++;
      if (!isRecord(node) || typeof node.type !== 'string') continue;
      const type = registry.get(node.type);
      if (!type?.subGraphs) continue;
      try {
        for (const sub of subGraphsOf(type, node.properties)) graphs.push(sub.nodes);
      } catch {
        // Reported by the node's check.
      }
    }
  }
  return count;
}

/**
 * Checks the sub-graphs of every node among `nodes` whose type has them, and returns what each such
 * node compiles to, by node id. A hook that throws is a problem of its node (`node-type-failed`).
 */
export function checkSubGraphs(
  nodes: ReadonlyMap<string, CheckedNode>, registry: NodeRegistry, refs: NodeReferences, problems: Problems, scope: LinkScope, paths: SubGraphPaths,
): Map<string, SubGraphBuild> {
  const builds = new Map<string, SubGraphBuild>();
  for (const [id, checked] of nodes) {
    if (!checked.type.subGraphs) continue;
    let sources: readonly SubGraphSource[];
    try {
      sources = subGraphsOf(checked.type, checked.envelope.properties ?? {});
    } catch (e) {
      problems.add(['nodes', id], 'node-type-failed', `${checked.type.type} '${id}': subGraphs threw ${thrownText(e)}`);
      continue;
    }
    const build: SubGraphBuild = { nodes: [], roots: {}, foreign: [] };
    for (const source of sources) {
      const sub = checkSubGraph(source, id, scope, registry, refs, problems, paths);
      for (const ref of sub.foreign) build.foreign.push({ ...ref, at: [id, 'properties', ...source.path, 'nodes', ...ref.at] });
      if (sub.root !== undefined) build.roots[source.name] = sub.root;
      build.nodes.push(...sub.nodes);
      if (sub.needsInertialization && build.inertialAt === undefined) build.inertialAt = source.path;
    }
    builds.set(id, build);
  }
  return builds;
}

/** The nodes whose sub-graphs need an Inertialization below them, with where to report a missing one (for checkLinks). */
export function inertialSubGraphs(builds: ReadonlyMap<string, SubGraphBuild>): Map<string, readonly PropertyKey[]> {
  const out = new Map<string, readonly PropertyKey[]>();
  for (const [id, build] of builds) if (build.inertialAt) out.set(id, build.inertialAt);
  return out;
}

/** `compiled` with each node's sub-graph nodes placed before it and their roots attached. */
export function withSubGraphs(compiled: readonly CompiledNode[], builds: ReadonlyMap<string, SubGraphBuild>): CompiledNode[] {
  const out: CompiledNode[] = [];
  for (const node of compiled) {
    const build = builds.get(node.id);
    if (!build) {
      out.push(node);
      continue;
    }
    out.push(...build.nodes, { ...node, subGraphs: build.roots });
  }
  return out;
}

/**
 * What the sub-graphs of a graph at `depth` refer to outside themselves: the references to this
 * graph's own nodes, as edges of their owner (for checkLinks' `external`), and those to graphs
 * further out, passed on.
 */
export function subGraphReferences(
  builds: ReadonlyMap<string, SubGraphBuild>, depth: number,
): { external: Map<string, [PropertyKey[], string][]>; outward: ForeignRef[] } {
  const external = new Map<string, [PropertyKey[], string][]>();
  const outward: ForeignRef[] = [];
  for (const [id, build] of builds) {
    for (const ref of build.foreign) {
      if (ref.depth < depth) {
        outward.push(ref);
        continue;
      }
      let list = external.get(id);
      if (!list) external.set(id, list = []);
      list.push([ref.at.slice(1), ref.target]);
    }
  }
  return { external, outward };
}

function checkSubGraph(
  source: SubGraphSource, ownerId: string, outer: LinkScope, registry: NodeRegistry, refs: NodeReferences, problems: Problems, paths: SubGraphPaths,
): { root?: string; nodes: CompiledNode[]; needsInertialization: boolean; foreign: ForeignRef[] } {
  const at = ['nodes', ownerId, 'properties', ...source.path];
  const rawNodes = source.nodes as Record<string, unknown>;
  const sub = new Problems();
  const nodes = checkNodes(rawNodes, registry, refs, sub);
  // Compiled ids are scoped by every node and sub-graph above (`sm/walk/p`: '/' is not allowed in
  // an asset's ids, so they cannot collide); node references are resolved to those ids here.
  const scope: LinkScope = { nodes, rawNodes, prefix: `${outer.prefix}${ownerId}/${source.name}/`, depth: outer.depth + 1, parent: outer };
  paths.set(scope.prefix, [...(paths.get(outer.prefix) ?? ['nodes']), ownerId, 'properties', ...source.path, 'nodes']);
  const builds = checkSubGraphs(nodes, registry, refs, sub, scope, paths);
  const { external, outward } = subGraphReferences(builds, scope.depth);
  const foreign: ForeignRef[] = [...outward];
  const resolved = new Map<string, Record<string, string>>();
  const order = checkLinks(nodes, rawNodes, source.output, sub, {
    additiveClips: refs.additiveClips, prefix: scope.prefix, outer, foreign, external, resolved, inertialSubGraphs: inertialSubGraphs(builds),
  });
  let needsInertialization = false;
  const prefix = jsonPath(at);
  for (const p of sub.list) {
    // An Inertialization below the owner serves its sub-graphs too: the owner asks for one instead.
    if (p.code === 'no-inertialization') {
      needsInertialization = true;
      continue;
    }
    problems.push({ ...p, path: prefix + p.path.slice(1) });
  }
  if (!order || !nodes.has(source.output)) return { nodes: [], needsInertialization, foreign };
  const local: CompiledNode[] = order.map((id) => {
    const { envelope, type, properties } = nodes.get(id)!;
    return { id, nodeType: type, properties: { ...properties, ...resolved.get(id) } as Record<string, PropertyValue>, inputs: envelope.inputs ?? {} };
  });
  const scoped = (id: string) => `${ownerId}/${source.name}/${id}`;
  const compiled = withSubGraphs(local, builds).map((node): CompiledNode => ({
    ...node,
    id: scoped(node.id),
    inputs: Object.fromEntries(Object.entries(node.inputs).map(([pin, target]) => [pin, typeof target === 'string' ? scoped(target) : target.map(scoped)])),
    ...(node.subGraphs ? { subGraphs: Object.fromEntries(Object.entries(node.subGraphs).map(([name, root]) => [name, scoped(root)])) } : {}),
  }));
  return { root: scoped(source.output), nodes: compiled, needsInertialization, foreign };
}

/**
 * The JSON path keys of a compiled node id, down to the node: `sm/walk/p` (scoped by node and
 * sub-graph, at any depth) is where `paths` says sub-graph `sm/walk/` writes its nodes, then `p`,
 * so that what a node reports once built (a missing index file) is placed where the asset writes it.
 */
export function nodePathOf(id: string, paths: ReadonlyMap<string, readonly PropertyKey[]>): PropertyKey[] {
  // Node ids hold no '/', so the last one ends the prefix (a sub-graph's name may hold one).
  const cut = id.lastIndexOf('/') + 1;
  return [...(paths.get(id.slice(0, cut)) ?? ['nodes']), id.slice(cut)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
