// Where a canvas lives in the asset, and what the editor knows of node types.
import { DEFAULT_REGISTRY, NodeRegistry } from '../../graphs/loader/registry.ts';
import { editorMeta, editorMetaFor, type NodeEditorMeta } from '../../editor-meta/index.ts';
import type { NodeType } from '../../runtime/node/node.ts';
import { getIn, isObject, type Key } from './json.ts';
import type { CanvasPath, Json, JsonObject, Types } from './types.ts';

/** The type a state machine node has: its canvas is drawn from `entry`, `states` and `transitions`. */
export const STATE_MACHINE = 'StateMachine';

/** A graph canvas: the object holding `nodes` and `output` (the asset, or a state). */
export interface GraphScope {
  kind: 'graph';
  path: CanvasPath;
  /** Keys from the asset to the object holding `nodes` and `output`. */
  keys: Key[];
  nodes: JsonObject;
  output: Json | undefined;
  /** The graphs around this one, innermost first (their nodes may be named by `node` properties). */
  outer: GraphScope[];
}

/** A machine canvas: a StateMachine node. */
export interface MachineScope {
  kind: 'machine';
  path: CanvasPath;
  /** Keys from the asset to the StateMachine node. */
  keys: Key[];
  properties: JsonObject;
  states: JsonObject;
  transitions: Json[];
  graph: GraphScope;
}

export type Scope = GraphScope | MachineScope;

/** The canvas at `path`; throws an Error naming the step that names no canvas. */
export function resolveCanvas(asset: JsonObject, path: CanvasPath): Scope {
  let scope: Scope = graphScope(asset, [], [], []);
  for (let i = 0; i < path.length; i++) {
    const name = path[i];
    const here = path.slice(0, i + 1);
    if (scope.kind === 'graph') {
      const node: Json | undefined = Object.hasOwn(scope.nodes, name) ? scope.nodes[name] : undefined;
      if (!isObject(node) || node.type !== STATE_MACHINE) throw new Error(`no canvas ${JSON.stringify(here)}: ${JSON.stringify(name)} is not a StateMachine node`);
      const keys: Key[] = [...scope.keys, 'nodes', name];
      const properties: JsonObject = isObject(node.properties) ? node.properties : {};
      scope = {
        kind: 'machine', path: here, keys, properties,
        states: isObject(properties.states) ? properties.states : {},
        transitions: Array.isArray(properties.transitions) ? properties.transitions : [],
        graph: scope,
      };
    } else {
      const state: Json | undefined = Object.hasOwn(scope.states, name) ? scope.states[name] : undefined;
      if (!isObject(state) || state.conduit === true) throw new Error(`no canvas ${JSON.stringify(here)}: ${JSON.stringify(name)} is not a state with a sub-graph`);
      scope = graphScope(asset, [...scope.keys, 'properties', 'states', name], here, [scope.graph, ...scope.graph.outer]);
    }
  }
  return scope;
}

export function graphCanvas(asset: JsonObject, path: CanvasPath): GraphScope {
  const scope = resolveCanvas(asset, path);
  if (scope.kind !== 'graph') throw new Error(`canvas ${JSON.stringify(path)} is a state machine, not a graph`);
  return scope;
}

export function machineCanvas(asset: JsonObject, path: CanvasPath): MachineScope {
  const scope = resolveCanvas(asset, path);
  if (scope.kind !== 'machine') throw new Error(`canvas ${JSON.stringify(path)} is a graph, not a state machine`);
  return scope;
}

function graphScope(asset: JsonObject, keys: Key[], path: CanvasPath, outer: GraphScope[]): GraphScope {
  const holder = getIn(asset, keys);
  const nodes = isObject(holder) && isObject(holder.nodes) ? holder.nodes : {};
  return { kind: 'graph', path, keys, nodes, output: isObject(holder) ? holder.output : undefined, outer };
}

/** The registry and metas of `types`. */
export interface KnownTypes {
  registry: NodeRegistry;
  metas: readonly NodeEditorMeta[];
}

export function knownTypes(types?: Types): KnownTypes {
  if (types instanceof NodeRegistry) return { registry: types, metas: editorMeta };
  // Custom metas come first: one for a built-in type's name documents the type that replaced it.
  return { registry: types?.registry ?? DEFAULT_REGISTRY, metas: types?.metas ? [...types.metas, ...editorMeta] : editorMeta };
}

export function typeOf(known: KnownTypes, type: unknown): { spec?: NodeType; meta?: NodeEditorMeta } {
  if (typeof type !== 'string') return {};
  return { spec: known.registry.get(type), meta: editorMetaFor(type, known.metas) };
}

/**
 * A cached pose's role, from the type rather than its name: a type nothing may link to (a
 * SaveCachedPose, `referencedOnly`) saves; a type with a `node` property naming one uses it.
 */
export function cacheRole(known: KnownTypes, type: unknown): { role: 'save' } | { role: 'use'; property: string } | undefined {
  const spec = typeof type === 'string' ? known.registry.get(type) : undefined;
  if (!spec) return undefined;
  if (spec.referencedOnly) return { role: 'save' };
  for (const [name, p] of Object.entries(spec.properties)) {
    if (p.kind === 'node' && known.registry.get(p.nodeType)?.referencedOnly) return { role: 'use', property: name };
  }
  return undefined;
}

/** Category colours (a type without meta is 'Custom'). */
export const CATEGORY_COLORS: Readonly<Record<string, string>> = {
  'Pose sources': '#3f9b5a',
  Blends: '#3b77c4',
  'Cached poses': '#8a5cc2',
  'Skeletal controls': '#d08a2c',
  Output: '#c0453a',
  Custom: '#2a9d9a',
};
export const UNKNOWN_COLOR = '#888888';
export const STATE_COLOR = '#5a6b7d';
export const CONDUIT_COLOR = '#9aa6b2';
