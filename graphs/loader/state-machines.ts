// StateMachine nodes at load time: each state's sub-graph is checked by the same code as the
// top-level graph (checkNodes, checkLinks) and its problems reported at paths inside the state,
// such as `$.nodes.sm.properties.states.walk.nodes.p.properties.clip`; transitions are checked for
// state names and rules. The sub-graphs' nodes are compiled with ids scoped by machine and state
// (`sm/walk/p`: '/' is not allowed in an asset's ids, so they cannot collide) and placed before
// their machine, which receives their roots as CompiledNode.subGraphs.
import { TRANSITION_PROFILE_MODES } from '../../runtime/core/blend-profile.ts';
import type { CompiledNode, PropertyValue } from '../../runtime/graph/graph.ts';
import { COMPARISONS, MAX_RULE_DEPTH, ruleDepth, stateSchema, StateMachineType } from '../../nodes/StateMachine.ts';
import { checkLinks, type ForeignRef, type LinkScope } from './links.ts';
import { checkBlendProfileName, checkNodes, type CheckedNode, type NodeReferences } from './nodes.ts';
import { jsonPath, Problems } from './problems.ts';
import type { NodeRegistry } from './registry.ts';
import { nameList, quoted } from '../../runtime/core/names.ts';

/** What a checked StateMachine contributes to the compiled graph. */
export interface MachineBuild {
  /** Its states' nodes, ids scoped, in post-order (nested machines' nodes included). */
  nodes: CompiledNode[];
  /** The root node id of each state with a pose. */
  roots: Record<string, string>;
  /** Where a missing Inertialization below the machine is reported (below the node's `properties`). */
  inertialAt: PropertyKey[];
  /** References from its states (at any depth) to nodes of the graphs around it; `at` starts at the machine's id. */
  foreign: ForeignRef[];
}

/**
 * Checks every StateMachine among `nodes` (states, entry, transitions, rules, each state's
 * sub-graph) and returns what each compiles to, by node id. A machine whose transitions or states
 * ask for inertialization is marked in `nodes` as requesting it, so checkLinks requires an
 * Inertialization node below it.
 */
export function checkStateMachines(
  nodes: Map<string, CheckedNode>, registry: NodeRegistry, refs: NodeReferences, problems: Problems, scope: LinkScope,
): Map<string, MachineBuild> {
  const machines = new Map<string, MachineBuild>();
  for (const [id, checked] of nodes) {
    if (checked.type.type !== StateMachineType.type) continue;
    const at = ['nodes', id, 'properties'];
    const raw = (checked.envelope.properties ?? {}) as Record<string, unknown>;
    const build: MachineBuild = { nodes: [], roots: {}, inertialAt: ['transitions'], foreign: [] };
    let inertialState = false;
    const rawStates = raw.states;
    const states = new Map<string, boolean>(); // name -> conduit
    if (rawStates === undefined) problems.add([...at, 'states'], 'schema', 'a StateMachine needs its states');
    else if (isRecord(rawStates)) {
      if (Object.keys(rawStates).length === 0) problems.add([...at, 'states'], 'schema', 'a StateMachine needs at least one state');
      for (const [name, rawState] of Object.entries(rawStates)) {
        const parsed = stateSchema.safeParse(rawState);
        // A malformed state is reported by the properties' schema; its name still counts.
        states.set(name, isRecord(rawState) && rawState.conduit === true);
        if (!parsed.success || !('nodes' in parsed.data)) continue;
        const sub = checkSubGraph(parsed.data, [...at, 'states', name], id, name, scope, registry, refs, problems);
        for (const ref of sub.foreign) build.foreign.push({ ...ref, at: [id, 'properties', 'states', name, 'nodes', ...ref.at] });
        if (sub.root !== undefined) build.roots[name] = sub.root;
        build.nodes.push(...sub.nodes);
        if (sub.needsInertialization && !inertialState) {
          inertialState = true;
          build.inertialAt = ['states', name];
        }
      }
      if (![...states.values()].some((conduit) => !conduit) && states.size > 0) {
        problems.add([...at, 'states'], 'schema', 'a StateMachine needs at least one state with a pose (not a conduit)');
      }
    }
    const stateList = () => nameList(states.keys());
    if (raw.entry === undefined) problems.add([...at, 'entry'], 'schema', 'a StateMachine needs an entry state');
    else if (typeof raw.entry === 'string' && isRecord(rawStates)) {
      if (!states.has(raw.entry)) problems.add([...at, 'entry'], 'unknown-state', `unknown state ${quoted(raw.entry)} (states: ${stateList()})`);
      else if (states.get(raw.entry)) problems.add([...at, 'entry'], 'unknown-state', `the entry state ${quoted(raw.entry)} is a conduit; enter a state with a pose`);
    }
    if (Array.isArray(raw.transitions)) {
      raw.transitions.forEach((t, i) => {
        if (!isRecord(t)) return;
        const where = [...at, 'transitions', i];
        if (isRecord(rawStates)) {
          for (const end of ['from', 'to'] as const) {
            const name = t[end];
            if (typeof name !== 'string' || (end === 'from' && name === '*')) continue;
            if (!states.has(name)) {
              problems.add([...where, end], 'unknown-state', `unknown state ${quoted(name)} (states: ${stateList()}${end === 'from' ? "; '*' is any state" : ''})`);
            }
          }
        }
        // A missing rule is reported by the properties' schema.
        if (Object.hasOwn(t, 'rule')) {
          // Measured first, without recursion: checkRule recurses per level.
          const depth = ruleDepth(t.rule);
          if (depth > MAX_RULE_DEPTH) {
            problems.add([...where, 'rule'], 'too-deep', `this rule nests and, or and not more than ${MAX_RULE_DEPTH} levels deep (the limit, MAX_RULE_DEPTH)`);
          } else checkRule(t.rule, [...where, 'rule'], refs, problems);
        }
        if (typeof t.blendProfile === 'string') checkBlendProfileName(t.blendProfile, TRANSITION_PROFILE_MODES, [...where, 'blendProfile'], refs, problems);
        if (t.blend === 'inertial' && build.inertialAt[0] === 'transitions' && build.inertialAt.length === 1) build.inertialAt = ['transitions', i, 'blend'];
      });
    }
    if (inertialState && !checked.type.requestsInertialization?.(checked.properties)) {
      nodes.set(id, { ...checked, type: { ...checked.type, requestsInertialization: () => true } });
    }
    machines.set(id, build);
  }
  return machines;
}

/**
 * Moves checkLinks' `no-inertialization` problem of each machine from the `blendMode` it assumes
 * to the transition (or state) that asks for inertialization.
 */
export function placeInertializationProblems(problems: Problems, machines: ReadonlyMap<string, MachineBuild>): void {
  for (const [id, build] of machines) {
    const assumed = jsonPath(['nodes', id, 'properties', 'blendMode']);
    for (const p of problems.list) {
      if (p.code === 'no-inertialization' && p.path === assumed) p.path = jsonPath(['nodes', id, 'properties', ...build.inertialAt]);
    }
  }
}

/** `compiled` with each machine's state nodes placed before it and its state roots attached. */
export function withSubGraphs(compiled: readonly CompiledNode[], machines: ReadonlyMap<string, MachineBuild>): CompiledNode[] {
  const out: CompiledNode[] = [];
  for (const node of compiled) {
    const machine = machines.get(node.id);
    if (!machine) {
      out.push(node);
      continue;
    }
    out.push(...machine.nodes, { ...node, subGraphs: machine.roots });
  }
  return out;
}

/**
 * What the machines of a graph at `depth` refer to outside their states: the references to this
 * graph's own nodes, as edges of each machine (for checkLinks' `external`), and those to graphs
 * further out, passed on.
 */
export function machineReferences(
  machines: ReadonlyMap<string, MachineBuild>, depth: number,
): { external: Map<string, [PropertyKey[], string][]>; outward: ForeignRef[] } {
  const external = new Map<string, [PropertyKey[], string][]>();
  const outward: ForeignRef[] = [];
  for (const [id, build] of machines) {
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
  state: { nodes: Record<string, unknown>; output: string }, at: readonly PropertyKey[], machineId: string, stateName: string,
  outer: LinkScope, registry: NodeRegistry, refs: NodeReferences, problems: Problems,
): { root?: string; nodes: CompiledNode[]; needsInertialization: boolean; foreign: ForeignRef[] } {
  const sub = new Problems();
  const nodes = checkNodes(state.nodes, registry, refs, sub);
  // Compiled ids are scoped by every machine and state above (`sm/walk/p`: '/' is not allowed in
  // an asset's ids, so they cannot collide); node references are resolved to those ids here.
  const scope: LinkScope = { nodes, rawNodes: state.nodes, prefix: `${outer.prefix}${machineId}/${stateName}/`, depth: outer.depth + 1, parent: outer };
  const machines = checkStateMachines(nodes, registry, refs, sub, scope);
  const { external, outward } = machineReferences(machines, scope.depth);
  const foreign: ForeignRef[] = [...outward];
  const resolved = new Map<string, Record<string, string>>();
  const order = checkLinks(nodes, state.nodes, state.output, sub, { additiveClips: refs.additiveClips, prefix: scope.prefix, outer, foreign, external, resolved });
  placeInertializationProblems(sub, machines);
  let needsInertialization = false;
  const prefix = jsonPath(at);
  for (const p of sub.list) {
    // An Inertialization below the machine serves its states too: the machine asks for one instead.
    if (p.code === 'no-inertialization') {
      needsInertialization = true;
      continue;
    }
    problems.list.push({ ...p, path: prefix + p.path.slice(1) });
  }
  if (!order || !nodes.has(state.output)) return { nodes: [], needsInertialization, foreign };
  const local: CompiledNode[] = order.map((id) => {
    const { envelope, type, properties } = nodes.get(id)!;
    return { id, nodeType: type, properties: { ...properties, ...resolved.get(id) } as Record<string, PropertyValue>, inputs: envelope.inputs ?? {} };
  });
  const scoped = (id: string) => `${machineId}/${stateName}/${id}`;
  const compiled = withSubGraphs(local, machines).map((node): CompiledNode => ({
    ...node,
    id: scoped(node.id),
    inputs: Object.fromEntries(Object.entries(node.inputs).map(([pin, target]) => [pin, typeof target === 'string' ? scoped(target) : target.map(scoped)])),
    ...(node.subGraphs ? { subGraphs: Object.fromEntries(Object.entries(node.subGraphs).map(([name, root]) => [name, scoped(root)])) } : {}),
  }));
  return { root: scoped(state.output), nodes: compiled, needsInertialization, foreign };
}

/**
 * The JSON path keys of a compiled node id, down to the node: `sm/walk/p` (scoped by machine and
 * state, at any depth) is `nodes.sm.properties.states.walk.nodes.p`, so that what a node reports
 * once built (a missing index file) is placed where the asset writes it.
 */
export function nodePathOf(id: string): PropertyKey[] {
  const parts = id.split('/');
  const out: PropertyKey[] = ['nodes', parts[0]];
  for (let i = 1; i + 1 < parts.length; i += 2) out.push('properties', 'states', parts[i], 'nodes', parts[i + 1]);
  return out;
}

const RULE_FORMS = 'a rule is true/false, "atEnd", {"timeRemaining": s}, {"param", "op", "value"}, {"and": [...]}, {"or": [...]} or {"not": rule}';

/** Reports every problem of a transition rule (its shape, its parameters and their types) at its path. */
function checkRule(rule: unknown, at: readonly PropertyKey[], refs: NodeReferences, problems: Problems): void {
  if (typeof rule === 'boolean' || rule === 'atEnd') return;
  if (!isRecord(rule)) {
    problems.add(at, 'schema', typeof rule === 'string' ? `unknown rule ${quoted(rule)} (${RULE_FORMS})` : RULE_FORMS);
    return;
  }
  const keys = Object.keys(rule);
  const extra = (allowed: readonly string[]) => {
    for (const k of keys) if (!allowed.includes(k)) problems.add([...at, k], 'schema', `unexpected key ${quoted(k)} in this rule (${RULE_FORMS})`);
  };
  for (const combine of ['and', 'or'] as const) {
    if (!Object.hasOwn(rule, combine)) continue;
    extra([combine]);
    const list = rule[combine];
    if (!Array.isArray(list) || list.length === 0) problems.add([...at, combine], 'schema', `"${combine}" takes a non-empty list of rules`);
    else list.forEach((r, i) => checkRule(r, [...at, combine, i], refs, problems));
    return;
  }
  if (Object.hasOwn(rule, 'not')) {
    extra(['not']);
    checkRule(rule.not, [...at, 'not'], refs, problems);
    return;
  }
  if (Object.hasOwn(rule, 'timeRemaining')) {
    extra(['timeRemaining']);
    const s = rule.timeRemaining;
    if (typeof s !== 'number' || !Number.isFinite(s) || s < 0) problems.add([...at, 'timeRemaining'], 'schema', 'timeRemaining takes seconds: a finite number, at least 0');
    return;
  }
  if (!Object.hasOwn(rule, 'param')) {
    problems.add(at, 'schema', RULE_FORMS);
    return;
  }
  extra(['param', 'op', 'value']);
  const { param, op, value } = rule;
  if (op !== undefined && !(COMPARISONS as readonly unknown[]).includes(op)) {
    problems.add([...at, 'op'], 'schema', `unknown comparison ${JSON.stringify(op)} (one of ${COMPARISONS.join(' ')})`);
  }
  if (value !== undefined && typeof value !== 'boolean' && !(typeof value === 'number' && Number.isFinite(value))) {
    problems.add([...at, 'value'], 'schema', 'a rule compares with a finite number or a bool');
  }
  if (typeof param !== 'string') {
    problems.add([...at, 'param'], 'schema', 'param names a parameter');
    return;
  }
  const def = refs.parameters.get(param);
  if (!def) {
    if (!refs.declaredParameters.has(param)) {
      problems.add([...at, 'param'], 'unknown-parameter', `unknown parameter ${quoted(param)} (declared: ${nameList(refs.declaredParameters)})`);
    }
    return;
  }
  if (def.type === 'vec3') {
    problems.add([...at, 'param'], 'parameter-type', `a rule compares a float, int or bool parameter; ${quoted(param)} is vec3`);
  } else if (def.type === 'bool') {
    if (op !== undefined && op !== '==' && op !== '!=') problems.add([...at, 'op'], 'parameter-type', `${quoted(param)} is bool: compare it with == or !=`);
    if (typeof value === 'number') problems.add([...at, 'value'], 'parameter-type', `${quoted(param)} is bool: compare it with true or false`);
  } else {
    if (value === undefined) problems.add([...at, 'value'], 'schema', `${quoted(param)} is ${def.type}: give the value to compare it with`);
    else if (typeof value === 'boolean') problems.add([...at, 'value'], 'parameter-type', `${quoted(param)} is ${def.type}: compare it with a number, not a bool`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
