import type { AdditiveSpace } from '../../runtime/core/additive.ts';
import { MAX_GRAPH_DEPTH } from '../../runtime/graph/graph.ts';
import { nodeReferences } from '../../runtime/node/node-type.ts';
import type { CheckedNode } from './nodes.ts';
import { jsonPath, type Problems } from './problems.ts';
import { nameList, quoted } from '../../runtime/core/names.ts';

/**
 * A graph whose nodes a node reference may name: the top level, or a sub-graph (a state machine's
 * state) inside `parent`. A reference in a state names a node of its own state first, else of
 * the graphs around it, innermost first (Unreal's states use the cached poses of the graph around
 * their machine).
 */
export interface LinkScope {
  nodes: ReadonlyMap<string, CheckedNode>;
  rawNodes: Record<string, unknown>;
  /** The prefix of its nodes' compiled ids: '' at the top level, 'sm/walk/' in state walk of machine sm. */
  prefix: string;
  /** 0 at the top level, one more per state. */
  depth: number;
  parent?: LinkScope;
}

/**
 * A node reference from inside a sub-graph (a state machine's state) to a node of a graph around
 * its owner: `at` is the JSON path keys from the node id of the scope it is listed for (a node of
 * that scope, or the owner holding the use), `target` the id named, `depth` the depth of the scope
 * holding it.
 */
export interface ForeignRef {
  at: PropertyKey[];
  target: string;
  depth: number;
}

export interface LinkOptions {
  additiveClips?: ReadonlyMap<string, AdditiveSpace>;
  /** The prefix of this graph's compiled ids (LinkScope.prefix); default ''. */
  prefix?: string;
  /** The graph around this one, when this one is a sub-graph. */
  outer?: LinkScope;
  /** Receives the references of this graph's nodes to nodes of `outer`. */
  foreign?: ForeignRef[];
  /**
   * References from inside sub-graphs (by owner id) to nodes of this graph: edges of the owner,
   * for order, cycles, depth and inertialization, as if the owner named them itself.
   */
  external?: ReadonlyMap<string, [PropertyKey[], string][]>;
  /** Receives, by node id and property, the compiled id each node reference resolves to. */
  resolved?: Map<string, Record<string, string>>;
  /**
   * Nodes whose sub-graphs need an Inertialization below the node (SubGraphBuild.inertialAt): they
   * request one whatever their properties say, and a missing one is reported at that path.
   */
  inertialSubGraphs?: ReadonlyMap<string, readonly PropertyKey[]>;
}

/**
 * Checks the links between the nodes and from the output, the graph's depth and where
 * inertialization is requested; the post-order of the nodes the output reaches (undefined when
 * links form a cycle).
 */
export function checkLinks(
  nodes: ReadonlyMap<string, CheckedNode>, rawNodes: Record<string, unknown>, outputId: string | undefined, problems: Problems,
  options: LinkOptions = {},
): string[] | undefined {
  const additiveClips = options.additiveClips ?? new Map<string, AdditiveSpace>();
  const prefix = options.prefix ?? '';
  const external = options.external ?? new Map<string, [PropertyKey[], string][]>();
  const edges = (id: string, node: CheckedNode): [PropertyKey[], string][] => {
    const extra = external.get(id);
    return extra ? [...linksOf(node), ...extra] : linksOf(node);
  };
  const resolve = (id: string, property: string, compiledId: string): void => {
    if (!options.resolved) return;
    let map = options.resolved.get(id);
    if (!map) options.resolved.set(id, map = {});
    map[property] = compiledId;
  };
  // Links: every declared input linked to an existing node, nothing linked twice.
  const consumers = new Map<string, string>();
  /** The node each node feeds (undefined for the output's node), for walking toward the output. */
  const consumerNode = new Map<string, string | undefined>();
  const claim = (target: string, by: readonly PropertyKey[]) => {
    consumerNode.set(target, by[0] === 'nodes' ? String(by[1]) : undefined);
    const previous = consumers.get(target);
    if (previous !== undefined) {
      problems.add(by, 'shared-link', `node ${quoted(target)} already feeds ${previous}; a pose can feed one input only (add another node for each use)`);
    } else consumers.set(target, jsonPath(by));
  };
  for (const [id, { envelope: node, type, properties }] of nodes) {
    const inputs = node.inputs ?? {};
    const additiveInputs = type.additiveInputs?.(properties) ?? {};
    for (const name of Object.keys(inputs)) {
      if (!type.inputs.some((s) => s.name === name)) {
        problems.add(['nodes', id, 'inputs', name], 'unknown-input', `${type.type} has no input ${quoted(name)} (inputs: ${nameList(type.inputs.map((s) => s.name))})`);
      }
    }
    for (const spec of type.inputs) {
      const value = inputs[spec.name];
      const where = ['nodes', id, 'inputs', spec.name];
      if (value === undefined) {
        problems.add(where, 'missing-link', `input ${quoted(spec.name)} of ${type.type} ${quoted(id)} is not linked`);
        continue;
      }
      if (spec.kind === 'pose' && typeof value !== 'string') {
        problems.add(where, 'schema', `input ${quoted(spec.name)} takes one node id, not a list`);
        continue;
      }
      if (spec.kind === 'poseList' && !Array.isArray(value)) {
        problems.add(where, 'schema', `input ${quoted(spec.name)} takes a list of node ids`);
        continue;
      }
      const targets = Array.isArray(value) ? value : [value];
      if (spec.kind === 'poseList' && targets.length < (spec.minCount ?? 1)) {
        problems.add(where, 'missing-link', `input ${quoted(spec.name)} needs at least ${spec.minCount ?? 1} pose(s), has ${targets.length}`);
      }
      targets.forEach((target, i) => {
        const at = Array.isArray(value) ? [...where, i] : where;
        const linked = nodes.get(target);
        if (!linked) {
          if (!Object.hasOwn(rawNodes, target)) problems.add(at, 'dangling-link', `links to ${quoted(target)}, which is not a node of this graph`);
          return;
        }
        claim(target, at);
        if (linked.type.referencedOnly) {
          problems.add(at, 'not-linkable', `${linked.type.type} ${quoted(target)} cannot be linked to an input: name it in the \`cache\` property of a UseCachedPose node, one per place its pose is needed`);
        }
        if (spec.accepts && !spec.accepts.includes(linked.type.space)) {
          problems.add(at, 'space-mismatch', `input ${quoted(spec.name)} of ${type.type} ${quoted(id)} accepts only ${spec.accepts.join(' or ')}-space poses, but ${linked.type.type} ${quoted(target)} produces a ${linked.type.space}-space pose, which cannot be converted here`);
        }
        if (Object.hasOwn(additiveInputs, spec.name)) checkAdditiveLink(at, `input ${quoted(spec.name)} of ${type.type} ${quoted(id)}`, additiveInputs[spec.name], linked, target, additiveClips, problems);
      });
    }
  }
  if (outputId !== undefined) {
    if (!nodes.has(outputId)) {
      if (!Object.hasOwn(rawNodes, outputId)) problems.add(['output'], 'dangling-link', `output names ${quoted(outputId)}, which is not a node of this graph`);
    } else {
      claim(outputId, ['output']);
      const linked = nodes.get(outputId)!;
      if (linked.type.referencedOnly) {
        problems.add(['output'], 'not-linkable', `${linked.type.type} ${quoted(outputId)} cannot be the output: name a UseCachedPose node that names it`);
      }
    }
  }
  // Node references (a UseCachedPose's `cache`): to an existing node of the type named.
  /** The nodes naming each referenced node, for walking toward the output through a cache. */
  const referrers = new Map<string, string[]>();
  for (const [id, node] of nodes) {
    for (const [property, target] of nodeReferences(node.type, node.properties)) {
      const spec = node.type.properties[property];
      const expected = spec.kind === 'node' ? spec.nodeType : '';
      const where = ['nodes', id, 'properties', property];
      // This graph's own nodes first (a malformed one included: it is reported where it is written).
      const scope = Object.hasOwn(rawNodes, target) ? undefined : outerScope(options.outer, target);
      const named = scope ? scope.nodes.get(target) : nodes.get(target);
      if (!named) {
        if (!Object.hasOwn(rawNodes, target) && !scope) {
          problems.add(where, 'dangling-link', `names ${quoted(target)}, which is not a node of this graph${options.outer ? ' nor of the graphs around its state' : ''} (a ${expected} node's id)`);
        }
        continue;
      }
      if (named.type.type !== expected) {
        problems.add(where, 'wrong-node-type', `names ${quoted(target)}, a ${named.type.type}; ${node.type.type} ${quoted(id)} needs a ${expected}`);
        continue;
      }
      if (scope) {
        // Checked as an edge of the machine holding this state, in the graph holding the target.
        options.foreign?.push({ at: [id, 'properties', property], target, depth: scope.depth });
        resolve(id, property, scope.prefix + target);
        continue;
      }
      resolve(id, property, prefix + target);
      let list = referrers.get(target);
      if (!list) referrers.set(target, list = []);
      list.push(id);
    }
  }
  for (const [machine, refs] of external) {
    for (const [, target] of refs) {
      let list = referrers.get(target);
      if (!list) referrers.set(target, list = []);
      if (!list.includes(machine)) list.push(machine);
    }
  }
  const order = postOrder(nodes, outputId, problems, edges);
  if (order && outputId !== undefined && nodes.has(outputId)) checkDepth(nodes, order, outputId, problems, edges);
  // A node that requests inertialization needs a node that provides it between it and the output.
  // Memoised per node (true: a provider lies between it and the output), so that a long chain of
  // requesters costs one walk, not one per requester.
  const providedBelow = new Map<string, boolean>();
  /**
   * Whether a provider lies between `start` and the output on every way down. A cached pose's
   * branch reaches the output through each of its uses, so it is provided when every use is (at
   * run time the branch asks the largest use's provider). Recursion happens at caches only.
   */
  const providedFrom = (start: string | undefined): boolean => {
    const walked: string[] = [];
    let at = start;
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
      const uses = referrers.get(at);
      if (uses !== undefined && !consumerNode.has(at)) {
        provided = uses.every((use) => consumerNode.has(use) && providedFrom(use));
        break;
      }
      at = consumerNode.get(at);
    }
    for (const w of walked) providedBelow.set(w, provided);
    return provided;
  };
  for (const [id, { type, properties }] of nodes) {
    const forSubGraphs = options.inertialSubGraphs?.get(id);
    if (!(forSubGraphs !== undefined || type.requestsInertialization?.(properties)) || !consumerNode.has(id)) continue;
    const provided = providedFrom(consumerNode.get(id));
    if (!provided) {
      const at = forSubGraphs ?? type.inertializationPath?.(properties) ?? ['blendMode'];
      problems.add(['nodes', id, 'properties', ...at], 'no-inertialization',
        `${type.type} ${quoted(id)} requests inertialization, but no Inertialization node lies between it and the output ${quoted(String(outputId))}: add one below it, or use blendMode "crossfade"`);
    }
  }

  return order;
}

/**
 * An additive input takes an additive pose (a MakeAdditive, or a player of a clip marked additive)
 * made in the space it applies it in: an ordinary pose there would be added to the base as if it
 * were a delta, doubling every bone.
 */
function checkAdditiveLink(
  at: readonly PropertyKey[], input: string, space: AdditiveSpace, linked: CheckedNode, target: string,
  additiveClips: ReadonlyMap<string, AdditiveSpace>, problems: Problems,
): void {
  const made = linked.type.additiveOutput?.(linked.properties, additiveClips);
  if (made === undefined) {
    problems.add(at, 'not-additive', `${input} takes an additive pose, but ${linked.type.type} ${quoted(target)} produces an ordinary one: link a MakeAdditive, or a player of a clip marked "additive" in the asset's clips`);
  } else if (made !== space) {
    problems.add(at, 'space-mismatch', `${input} applies a ${space}-space additive, but ${linked.type.type} ${quoted(target)} produces a ${made}-space one: make both the same space`);
  }
}

/** A node's edges (see linksOf), with those checkLinks adds for a machine's states. */
type Edges = (id: string, node: CheckedNode) => [PropertyKey[], string][];

/** The innermost graph around a state that has a node `target` (checked or malformed), if any. */
function outerScope(outer: LinkScope | undefined, target: string): LinkScope | undefined {
  for (let scope = outer; scope; scope = scope.parent) if (Object.hasOwn(scope.rawNodes, target)) return scope;
  return undefined;
}

/**
 * A node's links as (JSON path below the node, target id) pairs, in pin order, then the nodes it
 * names in `node` properties (a cached pose: updated, evaluated and shown in the debug tree below
 * its use, so an edge for cycles and depth alike).
 */
function linksOf(node: CheckedNode): [PropertyKey[], string][] {
  const out: [PropertyKey[], string][] = [];
  for (const [pin, value] of Object.entries(node.envelope.inputs ?? {})) {
    if (Array.isArray(value)) value.forEach((target, i) => out.push([['inputs', pin, i], target]));
    else out.push([['inputs', pin], value]);
  }
  for (const [property, target] of nodeReferences(node.type, node.properties)) out.push([['properties', property], target]);
  return out;
}

/**
 * Post-order (children before parents) of the nodes reachable from the output; reports cycles.
 * Iterative, with an explicit stack, so that a chain of any length is checked (and rejected as
 * too deep) instead of overflowing the loader's own stack.
 */
function postOrder(
  nodes: ReadonlyMap<string, CheckedNode>, outputId: string | undefined, problems: Problems, edges: Edges,
): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const order: string[] = [];
  const reported = new Set<string>();
  let ok = true;
  /** The nodes being visited, from the root of this walk down; and where each sits in it. */
  const path: string[] = [];
  const pathIndex = new Map<string, number>();
  const frames: { id: string; targets: [PropertyKey[], string][]; next: number }[] = [];
  /** The edge each node on the path was entered by (from the node before it), by path index. */
  const enteredBy: ([string, PropertyKey[]] | undefined)[] = [];
  const enter = (id: string, by?: [string, PropertyKey[]]): void => {
    const node = nodes.get(id);
    if (!node) return;
    const s = state.get(id);
    if (s === 'done') return;
    if (s === 'visiting') {
      const from = pathIndex.get(id)!;
      const cycle = [...path.slice(from), id];
      const key = [...cycle].sort().join(',');
      if (!reported.has(key)) {
        reported.add(key);
        // A cycle through a cached pose is reported at the use naming it: a cache used inside its own branch.
        const edges = [...enteredBy.slice(from + 1), by];
        const viaCache = edges.find((e) => e !== undefined && e[1][0] === 'properties');
        if (viaCache) {
          problems.add(['nodes', viaCache[0], ...viaCache[1]], 'cycle',
            `a cached pose is used inside its own branch: ${cycle.join(' -> ')} (a UseCachedPose cannot lie below the SaveCachedPose it names)`);
        } else problems.add(['nodes', id, 'inputs'], 'cycle', `links form a cycle: ${cycle.join(' -> ')}`);
      }
      ok = false;
      return;
    }
    state.set(id, 'visiting');
    pathIndex.set(id, path.length);
    path.push(id);
    enteredBy.push(by);
    frames.push({ id, targets: edges(id, node), next: 0 });
  };
  const visit = (root: string): void => {
    enter(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1];
      if (frame.next < frame.targets.length) {
        const [keys, target] = frame.targets[frame.next++];
        enter(target, [frame.id, keys]);
        continue;
      }
      frames.pop();
      path.pop();
      enteredBy.pop();
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
  nodes: ReadonlyMap<string, CheckedNode>, order: readonly string[], outputId: string, problems: Problems, edges: Edges,
): void {
  const height = new Map<string, number>();
  for (const id of order) {
    let h = 0;
    for (const [, target] of edges(id, nodes.get(id)!)) h = Math.max(h, height.get(target) ?? 0);
    height.set(id, h + 1);
  }
  const depth = height.get(outputId) ?? 0;
  if (depth <= MAX_GRAPH_DEPTH) return;
  // Down the deepest chain to the node at the last level allowed, whose link goes one further.
  let at = outputId;
  for (let level = 1; ; level++) {
    const links = edges(at, nodes.get(at)!);
    const [keys, target] = links.find(([, t]) => height.get(t) === height.get(at)! - 1)!;
    if (level === MAX_GRAPH_DEPTH) {
      problems.add(['nodes', at, ...keys], 'too-deep',
        `the graph is ${depth} nodes deep from its output ${quoted(outputId)}; at most ${MAX_GRAPH_DEPTH} are allowed, and this link to ${quoted(target)} is level ${MAX_GRAPH_DEPTH + 1}`);
      return;
    }
    at = target;
  }
}
