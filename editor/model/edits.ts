// Edits of the asset: each pure, returning a new asset that shares what it did not change.
import { checkGraphAsset, type GraphProblem } from '../../graphs/loader.ts';
import { nodeIdSchema, propertyRequired } from '../../graphs/schema.ts';
import type { PropertySpec } from '../../runtime/node/node.ts';
import { canvas } from './canvas.ts';
import { deepEqual, getIn, isObject, put, renameKey, setIn, withKey, withKeyInOrder, type Key } from './json.ts';
import { cacheRole, graphCanvas, knownTypes, machineCanvas, resolveCanvas, STATE_MACHINE, type GraphScope } from './scope.ts';
import {
  ANY_STATE_ID, ASSET_SECTIONS, ASSET_VALUE_KEYS, canvasKey, EDITOR_KEY, ENTRY_ID, OUTPUT_ID,
  type AssetSection, type AssetValueKey, type CanvasPath, type EditResult, type Json, type JsonObject, type Types,
} from './types.ts';

type Point = { x: number; y: number };

const ok = (asset: Json, ids?: string[]): EditResult => (ids ? { ok: true, asset: asset as JsonObject, ids } : { ok: true, asset: asset as JsonObject });
const refuse = (reason: string, path?: string): EditResult => (path === undefined ? { ok: false, reason } : { ok: false, reason, path });

/** A refusal for a canvas path that names no canvas, instead of the Error resolveCanvas throws. */
function attempt(run: () => EditResult): EditResult {
  try {
    return run();
  } catch (e) {
    return refuse(e instanceof Error ? e.message : String(e));
  }
}

/** A fresh name from `base`: base, base2, base3, ... not in `taken`. */
function freshName(base: string, taken: (name: string) => boolean): string {
  if (!taken(base)) return base;
  for (let i = 2; ; i++) if (!taken(`${base}${i}`)) return `${base}${i}`;
}

/** A node id from a type name: 'BlendTwo' -> 'blendTwo'; something that is a valid id in any case. */
function idBase(type: string): string {
  const base = type.replace(/[^A-Za-z0-9_.-]/g, '');
  const lowered = base.charAt(0).toLowerCase() + base.slice(1);
  return /^[A-Za-z_]/.test(lowered) ? lowered : `node${lowered}`;
}

/** Every node id in the graph scope and the graphs around it (a new id shadows none of them). */
function idTaken(scope: GraphScope): (id: string) => boolean {
  const scopes = [scope, ...scope.outer];
  return (id) => scopes.some((s) => Object.hasOwn(s.nodes, id));
}

// ---------------------------------------------------------------------------------------------
// Positions

function positionsOf(asset: JsonObject): JsonObject {
  const editor = asset[EDITOR_KEY];
  return isObject(editor) && isObject(editor.positions) ? editor.positions : {};
}

function writePositions(asset: JsonObject, path: CanvasPath, positions: Readonly<Record<string, Point>>): JsonObject {
  const record: JsonObject = {};
  for (const [id, p] of Object.entries(positions)) put(record, id, [Math.round(p.x), Math.round(p.y)]);
  return setIn(asset, [EDITOR_KEY, 'positions', canvasKey(path)], record) as JsonObject;
}

/** The canvas's positions as drawn (saved or laid out), with `changes` applied. */
function currentPositions(asset: JsonObject, path: CanvasPath, types: Types | undefined, changes: Readonly<Record<string, Point>> = {}): Record<string, Point> {
  const out: Record<string, Point> = {};
  for (const n of canvas(asset, path, types).nodes) put(out, n.id, { x: n.x, y: n.y });
  for (const [id, p] of Object.entries(changes)) if (Object.hasOwn(out, id)) put(out, id, p);
  return out;
}

/**
 * Drops saved positions of ids gone from a canvas, and of canvases that are gone (keys below
 * `prefix` for a removed machine or state); the editor key goes when nothing is left in it.
 */
function prunePositions(asset: JsonObject, path: CanvasPath, ids: readonly string[], removedCanvases: readonly CanvasPath[] = []): JsonObject {
  const positions = positionsOf(asset);
  if (Object.keys(positions).length === 0) return asset;
  let next: JsonObject = positions;
  const key = canvasKey(path);
  if (isObject(next[key])) {
    let record = next[key] as JsonObject;
    for (const id of ids) record = setIn(record, [id], undefined) as JsonObject;
    next = setIn(next, [key], record) as JsonObject;
  }
  for (const gone of removedCanvases) {
    const prefix = canvasKey(gone);
    for (const k of Object.keys(next)) if (k === prefix || k.startsWith(`${prefix}/`)) next = setIn(next, [k], undefined) as JsonObject;
  }
  if (next === positions) return asset;
  return setIn(asset, [EDITOR_KEY, 'positions'], next) as JsonObject;
}

/** Writes positions for the whole canvas: the moved nodes where given, every other node where it is drawn now. */
export function moveNodes(asset: JsonObject, path: CanvasPath, positions: Readonly<Record<string, Point>>, types?: Types): EditResult {
  return attempt(() => {
    for (const [id, p] of Object.entries(positions)) {
      if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) return refuse(`the position of ${JSON.stringify(id)} is not a pair of finite numbers`);
    }
    return ok(writePositions(asset, path, currentPositions(asset, path, types, positions)));
  });
}

// ---------------------------------------------------------------------------------------------
// Nodes and links

/**
 * Adds a node of `type` at `at` with a fresh id from the type ('blendTwo', 'blendTwo2'), and writes
 * the canvas's positions. Properties are written only where the type requires them: a clip
 * property names the asset's first clip, a node property the first node of its type in reach,
 * a clip list the first clip; bones and anything else without a choice are '' for the user to
 * fill in (the loader reports them until then). A StateMachine starts with one empty state.
 */
export function addNode(asset: JsonObject, path: CanvasPath, type: string, at: Point, types?: Types): EditResult {
  return attempt(() => {
    const scope = graphCanvas(asset, path);
    const known = knownTypes(types);
    const spec = known.registry.get(type);
    if (!spec) return refuse(`unknown node type ${JSON.stringify(type)}: it is not built in nor registered`);
    const id = freshName(idBase(type), idTaken(scope));
    const properties: JsonObject = {};
    const clips = isObject(asset.clips) ? Object.keys(asset.clips) : [];
    for (const [name, p] of Object.entries(spec.properties)) {
      if (!propertyRequired(p)) continue;
      if (p.kind === 'clip') properties[name] = clips[0] ?? '';
      else if (p.kind === 'clipList') properties[name] = clips.slice(0, Math.max(1, p.minCount ?? 1));
      else if (p.kind === 'node') properties[name] = nodesOfType(scope, p.nodeType)[0] ?? '';
      else if (p.kind === 'list') properties[name] = [];
      else properties[name] = '';
    }
    if (type === STATE_MACHINE) Object.assign(properties, { entry: 'state', states: { state: { nodes: {}, output: '' } }, transitions: [] });
    const node: JsonObject = { type };
    if (Object.keys(properties).length > 0) node.properties = properties;
    let next = setIn(asset, [...scope.keys, 'nodes', id], node) as JsonObject;
    // Where the others are drawn now, not where a layout with the new node would put them.
    next = writePositions(next, path, { ...currentPositions(asset, path, types), [id]: at });
    return ok(next, [id]);
  });
}

/** The ids of nodes of `type` a node of this scope may name: its own graph's, then those of the graphs around it. */
export function nodesOfType(scope: GraphScope, type: string): string[] {
  const out: string[] = [];
  for (const s of [scope, ...scope.outer]) {
    for (const [id, n] of Object.entries(s.nodes)) if (isObject(n) && n.type === type && !out.includes(id)) out.push(id);
  }
  return out;
}

/**
 * Removes nodes and every link to them (a list loses the entry; an output naming one becomes '',
 * which the loader reports until something is linked), and their saved positions. OUTPUT_ID is ignored.
 */
export function removeNodes(asset: JsonObject, path: CanvasPath, ids: readonly string[]): EditResult {
  return attempt(() => {
    const scope = graphCanvas(asset, path);
    const gone = new Set(ids.filter((id) => Object.hasOwn(scope.nodes, id)));
    if (gone.size === 0) return ok(asset);
    const nodes: JsonObject = {};
    for (const [id, raw] of Object.entries(scope.nodes)) {
      if (gone.has(id)) continue;
      put(nodes, id, unlinked(raw, gone));
    }
    let next = setIn(asset, [...scope.keys, 'nodes'], nodes) as JsonObject;
    if (typeof scope.output === 'string' && gone.has(scope.output)) next = setIn(next, [...scope.keys, 'output'], '') as JsonObject;
    const machines = [...gone].filter((id) => isObject(scope.nodes[id]) && (scope.nodes[id] as JsonObject).type === STATE_MACHINE).map((id) => [...path, id]);
    return ok(prunePositions(next, path, [...gone], machines));
  });
}

/** A node without its links to `gone` (the same object when it has none). */
function unlinked(raw: Json, gone: ReadonlySet<string>): Json {
  if (!isObject(raw) || !isObject(raw.inputs)) return raw;
  let inputs: JsonObject = raw.inputs;
  for (const [name, v] of Object.entries(raw.inputs)) {
    if (typeof v === 'string' && gone.has(v)) inputs = setIn(inputs, [name], undefined) as JsonObject;
    else if (Array.isArray(v) && v.some((s) => typeof s === 'string' && gone.has(s))) {
      inputs = setIn(inputs, [name], v.filter((s) => !(typeof s === 'string' && gone.has(s)))) as JsonObject;
    }
  }
  return inputs === raw.inputs ? raw : withKey(raw, 'inputs', inputs);
}

/** Where a pin's link is written: keys below the graph's holder, and whether it appends to a list. */
function pinKeys(scope: GraphScope, target: string, handle: string): { keys: Key[]; append: boolean } | string {
  if (target === OUTPUT_ID) return handle === 'pose' ? { keys: ['output'], append: false } : `the output has no pin ${JSON.stringify(handle)}`;
  if (!Object.hasOwn(scope.nodes, target)) return `no node ${JSON.stringify(target)} on this canvas`;
  const m = /^(.*):(\d+|\+)$/.exec(handle);
  if (!m) return { keys: ['nodes', target, 'inputs', handle], append: false };
  if (m[2] === '+') return { keys: ['nodes', target, 'inputs', m[1]], append: true };
  // An entry pin exists for each entry of the list; the one after the last is the `+` pin.
  const list = getIn(scope.nodes, [target, 'inputs', m[1]]);
  if (!Array.isArray(list) || Number(m[2]) >= list.length) return `${JSON.stringify(target)} has no pin ${JSON.stringify(handle)}`;
  return { keys: ['nodes', target, 'inputs', m[1], Number(m[2])], append: false };
}

/**
 * Per-input lists (a BlendList's `blendTimes`) written as arrays follow their input's links: an
 * entry appended repeats the last value, a link removed takes its entry along.
 */
function followList(asset: JsonObject, scope: GraphScope, target: string, input: string, change: 'append' | number, types: Types | undefined): JsonObject {
  const node = scope.nodes[target];
  const spec = isObject(node) && typeof node.type === 'string' ? knownTypes(types).registry.get(node.type) : undefined;
  let next = asset;
  for (const [name, p] of Object.entries(spec?.properties ?? {})) {
    if (p.kind !== 'floatList' || p.perInput !== input) continue;
    const keys = [...scope.keys, 'nodes', target, 'properties', name];
    const values = getIn(next, keys);
    if (!Array.isArray(values) || values.length === 0) continue;
    next = setIn(next, keys, change === 'append' ? [...values, values[values.length - 1]] : values.filter((_, i) => i !== change)) as JsonObject;
  }
  return next;
}

/** The problems of assets checked already (the asset before a link, usually), by registry. */
const checked = new WeakMap<JsonObject, WeakMap<object, readonly GraphProblem[]>>();

/**
 * The loader's problems with an asset, for its link checks: read without its files and with a
 * skeleton it cannot find, so it neither loads motion nor builds the graph (a third of the time).
 * The link rules read only the nodes, the output and the clips' declarations; what the stand-in
 * skeleton breaks is broken before and after the link alike, and is no link problem.
 */
function problemsOf(asset: JsonObject, types: Types | undefined): readonly GraphProblem[] {
  const registry = knownTypes(types).registry;
  const cached = checked.get(asset)?.get(registry);
  if (cached) return cached;
  const result = checkGraphAsset({ ...asset, skeleton: { file: 'editor link check: no skeleton is read' } }, { nodeTypes: registry });
  const problems = result.ok ? [] : result.problems;
  if (!checked.has(asset)) checked.set(asset, new WeakMap());
  checked.get(asset)!.set(registry, problems);
  return problems;
}

/**
 * The problems that make a link invalid. Others a new link may bring (a per-input list one entry
 * short, say) are left for the user to fix, as any problem is.
 */
const LINK_PROBLEMS: ReadonlySet<string> = new Set([
  'cycle', 'space-mismatch', 'shared-link', 'not-linkable', 'unknown-input', 'dangling-link', 'wrong-node-type', 'not-additive', 'no-inertialization', 'too-deep',
]);

/** The first link problem `after` has that `before` had not (same path, code and message): the loader's reason to refuse. */
function newProblem(before: readonly GraphProblem[], after: readonly GraphProblem[]): GraphProblem | undefined {
  const had = new Set(before.map((p) => `${p.path}\n${p.code}\n${p.message}`));
  return after.find((p) => LINK_PROBLEMS.has(p.code) && !had.has(`${p.path}\n${p.code}\n${p.message}`));
}

/**
 * Links `source`'s pose to pin `handle` of `target` (an EditorPin.handle: a list's `name:+` pin
 * appends, and per-input lists such as blendTimes repeat their last entry; `name:i` replaces
 * entry i; OUTPUT_ID's pin is 'pose'), replacing what the pin had. On a
 * machine canvas it adds a transition from state `source` (ANY_STATE_ID for any state) to
 * `target`, or from ENTRY_ID makes `target` the entry; `handle` is ignored there.
 *
 * The loader checks the candidate asset: the link is refused, with the loader's own message and
 * path, when the loader finds a problem it did not find before (a cycle, a space the pin does not
 * accept, a node that may not be linked, a node already feeding another input...). Problems the
 * asset had already do not refuse it.
 */
export function connect(asset: JsonObject, path: CanvasPath, source: string, target: string, handle: string, types?: Types): EditResult {
  return attempt(() => {
    const scope = resolveCanvas(asset, path);
    let candidate: EditResult;
    if (scope.kind === 'machine') {
      if (source === ENTRY_ID) candidate = ok(setIn(asset, [...scope.keys, 'properties', 'entry'], target));
      else candidate = addTransition(asset, path, source, target);
    } else {
      // A source that is no node here, or the target itself, is the loader's to refuse (dangling link, cycle).
      const pin = pinKeys(scope, target, handle);
      if (typeof pin === 'string') return refuse(pin);
      let next: Json;
      if (pin.append) {
        const list = getIn(asset, [...scope.keys, ...pin.keys]);
        next = setIn(asset, [...scope.keys, ...pin.keys], [...(Array.isArray(list) ? list : []), source]);
        next = followList(next as JsonObject, scope, target, String(pin.keys[3]), 'append', types);
      } else next = setIn(asset, [...scope.keys, ...pin.keys], source);
      candidate = ok(next);
    }
    if (!candidate.ok) return candidate;
    const problem = newProblem(problemsOf(asset, types), problemsOf(candidate.asset, types));
    return problem ? refuse(problem.message, problem.path) : candidate;
  });
}

/**
 * Removes an edge (EditorEdge.id): a link (a list entry leaves its list, with its entry of per-input
 * lists such as blendTimes; the output becomes ''), a
 * transition, the entry (''), or a cached pose's use (the property naming the cache is removed).
 */
export function disconnect(asset: JsonObject, path: CanvasPath, edgeId: string, types?: Types): EditResult {
  return attempt(() => {
    const scope = resolveCanvas(asset, path);
    if (scope.kind === 'machine') {
      if (edgeId === 'entry') return ok(setIn(asset, [...scope.keys, 'properties', 'entry'], ''));
      const m = /^transition:(\d+)$/.exec(edgeId);
      if (m) return setTransition(asset, path, Number(m[1]), undefined);
      return refuse(`no edge ${JSON.stringify(edgeId)} on this canvas`);
    }
    const cache = /^cache:(.+)$/.exec(edgeId);
    if (cache) {
      const role = cacheRole(knownTypes(types), getIn(scope.nodes, [cache[1], 'type']));
      if (role?.role !== 'use') return refuse(`no edge ${JSON.stringify(edgeId)} on this canvas`);
      return setProperty(asset, path, cache[1], role.property, undefined);
    }
    const link = /^link:([^:]+):(.+)$/.exec(edgeId);
    if (!link) return refuse(`no edge ${JSON.stringify(edgeId)} on this canvas`);
    const pin = pinKeys(scope, link[1], link[2]);
    if (typeof pin === 'string') return refuse(pin);
    if (pin.keys[0] === 'output') return ok(setIn(asset, [...scope.keys, 'output'], ''));
    if (getIn(asset, [...scope.keys, ...pin.keys]) === undefined) return refuse(`no edge ${JSON.stringify(edgeId)} on this canvas`);
    const next = setIn(asset, [...scope.keys, ...pin.keys], undefined) as JsonObject;
    return ok(typeof pin.keys[4] === 'number' ? followList(next, scope, link[1], String(pin.keys[3]), pin.keys[4], types) : next);
  });
}

/** Sets (or with undefined removes) a property of a node of a graph canvas; `properties` goes when left empty. */
export function setProperty(asset: JsonObject, path: CanvasPath, nodeId: string, property: string, value: Json | undefined): EditResult {
  return attempt(() => {
    const scope = graphCanvas(asset, path);
    if (!Object.hasOwn(scope.nodes, nodeId) || !isObject(scope.nodes[nodeId])) return refuse(`no node ${JSON.stringify(nodeId)} on this canvas`);
    const keys = [...scope.keys, 'nodes', nodeId, 'properties'];
    const before = getIn(asset, keys);
    if (deepEqual(getIn(asset, [...keys, property]), value)) return ok(asset);
    const props = setIn(isObject(before) ? before : {}, [property], value) as JsonObject;
    return ok(setIn(asset, keys, Object.keys(props).length === 0 ? undefined : props));
  });
}

/** Sets (or with undefined removes) a parameter. */
export function setParameter(asset: JsonObject, name: string, spec: Json | undefined): EditResult {
  return setAssetEntry(asset, 'parameters', name, spec);
}

/** Sets (or with undefined removes) a clip. */
export function setClip(asset: JsonObject, name: string, spec: Json | undefined): EditResult {
  return setAssetEntry(asset, 'clips', name, spec);
}

/** The asset's top-level keys in the order the format lists them: where a section added by an edit goes. */
const TOP_LEVEL_ORDER = [
  '$schema', 'format', 'name', 'description', 'skeleton', 'units', 'helperBones', 'blendProfiles', 'montages', 'mirror',
  'clips', 'parameters', 'nodes', 'output', EDITOR_KEY,
];

/**
 * Sets (or with undefined removes) entry `name` of one of the asset's named sections: a parameter,
 * clip, montage or blend profile, as its JSON spec. The loader checks the spec; a section the asset
 * lacks is added in the format's order, and one left empty is removed.
 */
export function setAssetEntry(asset: JsonObject, section: AssetSection, name: string, spec: Json | undefined): EditResult {
  if (!ASSET_SECTIONS.includes(section)) return refuse(`no asset section ${JSON.stringify(section)}`);
  if (name === '') return refuse(`an entry of ${section} needs a name`);
  const entries = isObject(asset[section]) ? asset[section] : {};
  if (spec === undefined && !Object.hasOwn(entries, name)) return ok(asset);
  const next = setIn(entries, [name], spec) as JsonObject;
  return ok(withKeyInOrder(asset, section, Object.keys(next).length === 0 ? undefined : next, TOP_LEVEL_ORDER));
}

/**
 * Renames a montage in place. Nothing in the asset names a montage (code plays it by name), so
 * nothing else changes.
 */
export function renameMontage(asset: JsonObject, from: string, to: string): EditResult {
  return renameEntry(asset, 'montages', 'montage', from, to);
}

/** Entry `from` of `section` (a `what`) renamed `to` in its place, or the reason it cannot be; the asset itself when `to` is `from`. */
function renameEntry(asset: JsonObject, section: AssetSection, what: string, from: string, to: string): EditResult {
  const entries = isObject(asset[section]) ? asset[section] : {};
  if (!Object.hasOwn(entries, from)) return refuse(`no ${what} ${JSON.stringify(from)}`);
  if (from === to) return ok(asset);
  if (to === '') return refuse(`a ${what} needs a name`);
  if (Object.hasOwn(entries, to)) return refuse(`a ${what} ${JSON.stringify(to)} exists already`);
  return ok(setIn(asset, [section], renameKey(entries, from, to)) as JsonObject);
}

/**
 * Renames a clip: its entry in place, and every name of it: the properties of the clip kinds
 * (a player's clip, a blend space's samples, a pose search's clips), in states too, a montage's
 * clip and an additive clip's reference clip.
 */
export function renameClip(asset: JsonObject, from: string, to: string, types?: Types): EditResult {
  const renamed = renameEntry(asset, 'clips', 'clip', from, to);
  if (!renamed.ok || renamed.asset === asset) return renamed;
  let next = renameInNodes(renamed.asset, ['clip', 'clipList'], from, to, types);
  const rename = (section: 'clips' | 'montages', keys: readonly Key[]): void => {
    const entries = next[section];
    if (!isObject(entries)) return;
    for (const name of Object.keys(entries)) {
      if (getIn(entries[name], keys) === from) next = setIn(next, [section, name, ...keys], to) as JsonObject;
    }
  };
  rename('clips', ['additive', 'reference', 'clip']);
  rename('montages', ['clip']);
  return ok(next);
}

/**
 * Renames a blend profile: its entry in place, and every name of it: the properties of the
 * blendProfile kind (in list items and states too) and StateMachine transitions' blendProfile.
 */
export function renameBlendProfile(asset: JsonObject, from: string, to: string, types?: Types): EditResult {
  const renamed = renameEntry(asset, 'blendProfiles', 'blend profile', from, to);
  if (!renamed.ok || renamed.asset === asset) return renamed;
  return ok(renameInNodes(renamed.asset, ['blendProfile'], from, to, types));
}

/**
 * `asset` with name `from` replaced by `to` in every node property of one of `kinds` (by the node
 * type's property specs, into list items), in the sub-graphs of states too, and, for blend
 * profiles, in StateMachine transitions.
 */
function renameInNodes(asset: JsonObject, kinds: readonly PropertySpec['kind'][], from: string, to: string, types: Types | undefined): JsonObject {
  const known = knownTypes(types);
  const swap = (v: Json): Json => (v === from ? to : v);
  const mapItems = (items: Json[], f: (item: Json) => Json): Json[] => {
    const out = items.map(f);
    return out.some((v, i) => v !== items[i]) ? out : items;
  };
  const value = (spec: PropertySpec, v: Json): Json => {
    if (kinds.includes(spec.kind)) return spec.kind === 'clipList' ? (Array.isArray(v) ? mapItems(v, swap) : v) : swap(v);
    if (spec.kind === 'list' && Array.isArray(v)) return mapItems(v, (item) => (isObject(item) ? properties(spec.item, item) : item));
    return v;
  };
  const properties = (specs: Readonly<Record<string, PropertySpec>>, props: JsonObject): JsonObject => {
    let out = props;
    for (const [k, v] of Object.entries(props)) {
      const spec = Object.hasOwn(specs, k) ? specs[k] : undefined;
      const next = spec ? value(spec, v) : v;
      if (next !== v) out = withKey(out, k, next);
    }
    return out;
  };
  const nodes = (held: JsonObject): JsonObject => {
    let out = held;
    for (const [id, node] of Object.entries(held)) {
      if (!isObject(node) || !isObject(node.properties)) continue;
      let props = node.properties;
      const type = typeof node.type === 'string' ? known.registry.get(node.type) : undefined;
      if (type) props = properties(type.properties, props);
      if (node.type === STATE_MACHINE) {
        if (isObject(props.states)) {
          let states = props.states;
          for (const [name, state] of Object.entries(props.states)) {
            if (isObject(state) && isObject(state.nodes)) {
              const inner = nodes(state.nodes);
              if (inner !== state.nodes) states = withKey(states, name, withKey(state, 'nodes', inner));
            }
          }
          if (states !== props.states) props = withKey(props, 'states', states);
        }
        if (kinds.includes('blendProfile') && Array.isArray(props.transitions)) {
          const transitions = mapItems(props.transitions, (t) => (isObject(t) && t.blendProfile === from ? withKey(t, 'blendProfile', to) : t));
          if (transitions !== props.transitions) props = withKey(props, 'transitions', transitions);
        }
      }
      if (props !== node.properties) out = withKey(out, id, withKey(node, 'properties', props));
    }
    return out;
  };
  if (!isObject(asset.nodes)) return asset;
  const renamed = nodes(asset.nodes);
  return renamed === asset.nodes ? asset : withKey(asset, 'nodes', renamed);
}

/**
 * Sets (or with undefined removes) one of the asset's single values: its name, description,
 * skeleton, units, helper bones or mirror table, as JSON. The skeleton can be changed but not
 * removed (every asset has one).
 */
export function setAssetValue(asset: JsonObject, key: AssetValueKey, value: Json | undefined): EditResult {
  if (!ASSET_VALUE_KEYS.includes(key)) return refuse(`no asset value ${JSON.stringify(key)}`);
  if (key === 'skeleton' && value === undefined) return refuse('every graph has a skeleton');
  return ok(withKeyInOrder(asset, key, value, TOP_LEVEL_ORDER));
}

// ---------------------------------------------------------------------------------------------
// States and transitions

/**
 * Adds a state to the machine canvas at `at`, named `name` or a fresh 'state', 'state2'...: a
 * sub-graph with no nodes and output '' (the loader reports it until it has one), or a conduit.
 * The first state of a machine without an entry becomes its entry.
 */
export function addState(asset: JsonObject, machinePath: CanvasPath, name: string | undefined, at: Point, conduit = false, types?: Types): EditResult {
  return attempt(() => {
    const scope = machineCanvas(asset, machinePath);
    if (name !== undefined && (name === '' || name === '*' || Object.hasOwn(scope.states, name))) {
      return refuse(name === '' || name === '*' ? `a state cannot be called ${JSON.stringify(name)}` : `a state ${JSON.stringify(name)} exists already`);
    }
    const state = name ?? freshName('state', (n) => Object.hasOwn(scope.states, n));
    let next = setIn(asset, [...scope.keys, 'properties', 'states', state], conduit ? { conduit: true } : { nodes: {}, output: '' }) as JsonObject;
    const entry = scope.properties.entry;
    if (typeof entry !== 'string' || entry === '') next = setIn(next, [...scope.keys, 'properties', 'entry'], state) as JsonObject;
    next = writePositions(next, machinePath, { ...currentPositions(asset, machinePath, types), [state]: at });
    return ok(next, [state]);
  });
}

/** Removes a state, the transitions from or to it, and the entry if it was the entry (''). */
export function removeState(asset: JsonObject, machinePath: CanvasPath, name: string): EditResult {
  return attempt(() => {
    const scope = machineCanvas(asset, machinePath);
    if (!Object.hasOwn(scope.states, name)) return refuse(`no state ${JSON.stringify(name)} in this machine`);
    const props = scope.keys.concat('properties');
    let next = setIn(asset, [...props, 'states', name], undefined) as JsonObject;
    const transitions = scope.transitions.filter((t) => !(isObject(t) && (t.from === name || t.to === name)));
    if (transitions.length !== scope.transitions.length) next = setIn(next, [...props, 'transitions'], transitions) as JsonObject;
    if (scope.properties.entry === name) next = setIn(next, [...props, 'entry'], '') as JsonObject;
    return ok(prunePositions(next, machinePath, [name], [[...machinePath, name]]));
  });
}

/** Renames a state in place, in the entry, every transition and the saved positions. */
export function renameState(asset: JsonObject, machinePath: CanvasPath, from: string, to: string): EditResult {
  return attempt(() => {
    const scope = machineCanvas(asset, machinePath);
    if (!Object.hasOwn(scope.states, from)) return refuse(`no state ${JSON.stringify(from)} in this machine`);
    if (from === to) return ok(asset);
    if (to === '' || to === '*') return refuse(`a state cannot be called ${JSON.stringify(to)}`);
    if (Object.hasOwn(scope.states, to)) return refuse(`a state ${JSON.stringify(to)} exists already`);
    const props = scope.keys.concat('properties');
    let next = setIn(asset, [...props, 'states'], renameKey(scope.states, from, to)) as JsonObject;
    if (scope.properties.entry === from) next = setIn(next, [...props, 'entry'], to) as JsonObject;
    if (scope.transitions.some((t) => isObject(t) && (t.from === from || t.to === from))) {
      next = setIn(next, [...props, 'transitions'], scope.transitions.map((t) => {
        if (!isObject(t)) return t;
        let out = t;
        if (out.from === from) out = withKey(out, 'from', to);
        if (out.to === from) out = withKey(out, 'to', to);
        return out;
      })) as JsonObject;
    }
    // Saved positions: the state on the machine canvas, and the canvases inside it.
    const positions = positionsOf(next);
    const machineKey = canvasKey(machinePath);
    const prefix = canvasKey([...machinePath, from]);
    const renamed = canvasKey([...machinePath, to]);
    let moved: JsonObject = {};
    let changed = false;
    for (const [k, v] of Object.entries(positions)) {
      let key = k;
      let value = v;
      if (k === machineKey && isObject(v) && Object.hasOwn(v, from)) value = renameKey(v, from, to);
      if (k === prefix || k.startsWith(`${prefix}/`)) key = renamed + k.slice(prefix.length);
      changed ||= key !== k || value !== v;
      moved = withKey(moved, key, value);
    }
    if (changed) next = setIn(next, [EDITOR_KEY, 'positions'], moved) as JsonObject;
    return ok(next);
  });
}

/** Appends a transition from -> to (`from` '*' or ANY_STATE_ID for any state) whose rule is true. */
export function addTransition(asset: JsonObject, machinePath: CanvasPath, from: string, to: string): EditResult {
  return attempt(() => {
    const scope = machineCanvas(asset, machinePath);
    const source = from === ANY_STATE_ID ? '*' : from;
    if (source !== '*' && !Object.hasOwn(scope.states, source)) return refuse(`no state ${JSON.stringify(from)} in this machine`);
    if (!Object.hasOwn(scope.states, to)) return refuse(`no state ${JSON.stringify(to)} in this machine`);
    return ok(setIn(asset, [...scope.keys, 'properties', 'transitions'], [...scope.transitions, { from: source, to, rule: true }]));
  });
}

/** Replaces (or with undefined removes) the transition at `index`. */
export function setTransition(asset: JsonObject, machinePath: CanvasPath, index: number, transition: Json | undefined): EditResult {
  return attempt(() => {
    const scope = machineCanvas(asset, machinePath);
    if (!Number.isInteger(index) || index < 0 || index >= scope.transitions.length) return refuse(`no transition ${index} in this machine`);
    const transitions = scope.transitions.slice();
    if (transition === undefined) transitions.splice(index, 1);
    else transitions[index] = transition;
    return ok(setIn(asset, [...scope.keys, 'properties', 'transitions'], transitions));
  });
}

// ---------------------------------------------------------------------------------------------
// Copy and paste

const CLIPBOARD_FORMAT = 'animgraph-editor-nodes/1';

/** Clipboard text (JSON) of nodes of a graph canvas, with their positions; links to nodes not copied are dropped on paste. */
export function copyNodes(asset: JsonObject, path: CanvasPath, ids: readonly string[], types?: Types): string {
  const scope = graphCanvas(asset, path);
  const positions = currentPositions(asset, path, types);
  const nodes: JsonObject = {};
  const at: JsonObject = {};
  for (const id of ids) {
    if (!Object.hasOwn(scope.nodes, id)) continue;
    put(nodes, id, scope.nodes[id]);
    put(at, id, [positions[id].x, positions[id].y]);
  }
  return JSON.stringify({ format: CLIPBOARD_FORMAT, nodes, positions: at });
}

/**
 * Pastes clipboard text from copyNodes: each node keeps its id where free, else gets a fresh one
 * (id2, id3...); links and `node` properties among the pasted nodes follow the new ids, links to
 * nodes not pasted are dropped; the group's top-left corner goes to `at`.
 */
export function pasteNodes(asset: JsonObject, path: CanvasPath, clipboard: string, at: Point, types?: Types): EditResult {
  return attempt(() => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(clipboard);
    } catch {
      return refuse('the clipboard holds no copied nodes');
    }
    if (!isObject(parsed as Json) || (parsed as JsonObject).format !== CLIPBOARD_FORMAT || !isObject((parsed as JsonObject).nodes as Json)) {
      return refuse('the clipboard holds no copied nodes');
    }
    const clip = parsed as { nodes: JsonObject; positions?: JsonObject };
    const scope = graphCanvas(asset, path);
    const taken = idTaken(scope);
    const rename = new Map<string, string>();
    for (const id of Object.keys(clip.nodes)) {
      const fresh = freshName(id.replace(/\d+$/, '') || id, (n) => taken(n) || [...rename.values()].includes(n));
      rename.set(id, taken(id) || [...rename.values()].includes(id) ? fresh : id);
    }
    const known = knownTypes(types);
    let next = asset;
    const moved: Record<string, Point> = {};
    const xs: number[] = [], ys: number[] = [];
    for (const id of Object.keys(clip.nodes)) {
      const p = clip.positions?.[id];
      if (Array.isArray(p) && typeof p[0] === 'number' && typeof p[1] === 'number') {
        xs.push(p[0]);
        ys.push(p[1]);
      }
    }
    const left = xs.length ? Math.min(...xs) : 0, top = ys.length ? Math.min(...ys) : 0;
    for (const [id, raw] of Object.entries(clip.nodes)) {
      const node = relinked(raw, rename, known.registry.get(isObject(raw) && typeof raw.type === 'string' ? raw.type : '')?.properties);
      next = setIn(next, [...scope.keys, 'nodes', rename.get(id)!], node) as JsonObject;
      const p = clip.positions?.[id];
      const px = Array.isArray(p) && typeof p[0] === 'number' ? p[0] : left;
      const py = Array.isArray(p) && typeof p[1] === 'number' ? p[1] : top;
      put(moved, rename.get(id)!, { x: at.x + px - left, y: at.y + py - top });
    }
    next = writePositions(next, path, { ...currentPositions(asset, path, types), ...moved });
    return ok(next, [...rename.values()]);
  });
}

/** A pasted node: inputs and `node` properties renamed among the pasted, other links dropped. */
function relinked(raw: Json, rename: ReadonlyMap<string, string>, specs: Readonly<Record<string, { kind: string }>> | undefined): Json {
  if (!isObject(raw)) return raw;
  let node = raw;
  if (isObject(raw.inputs)) {
    const inputs: JsonObject = {};
    for (const [name, v] of Object.entries(raw.inputs)) {
      if (typeof v === 'string') {
        if (rename.has(v)) put(inputs, name, rename.get(v)!);
      } else if (Array.isArray(v)) put(inputs, name, v.flatMap((s) => (typeof s === 'string' && rename.has(s) ? [rename.get(s)!] : [])));
      else put(inputs, name, v);
    }
    node = withKey(node, 'inputs', inputs);
  }
  if (isObject(raw.properties) && specs) {
    let props = raw.properties;
    for (const [name, spec] of Object.entries(specs)) {
      const v = props[name];
      if (spec.kind === 'node' && typeof v === 'string' && rename.has(v)) props = withKey(props, name, rename.get(v)!);
    }
    if (props !== raw.properties) node = withKey(node, 'properties', props);
  }
  return node;
}

// ---------------------------------------------------------------------------------------------
// Renaming

/**
 * Renames a node of a graph canvas in place: its key, the links and `node` properties naming it
 * (in its graph, and in states inside it that have no node of that name themselves), the output,
 * and its saved positions (a StateMachine's canvases too). An id the loader would not take is
 * refused with the loader's message for it; so is an id in use in reach.
 */
export function renameNode(asset: JsonObject, path: CanvasPath, from: string, to: string, types?: Types): EditResult {
  return attempt(() => {
    const scope = graphCanvas(asset, path);
    if (!Object.hasOwn(scope.nodes, from)) return refuse(`no node ${JSON.stringify(from)} on this canvas`);
    if (from === to) return ok(asset);
    const valid = nodeIdSchema.safeParse(to);
    if (!valid.success) return refuse(valid.error.issues[0]?.message ?? `${JSON.stringify(to)} is not a node id`);
    if (idTaken(scope)(to)) return refuse(`a node ${JSON.stringify(to)} exists already`);
    const registry = knownTypes(types).registry;
    const holder = getIn(asset, scope.keys);
    let next = setIn(asset, scope.keys, renamedIn(isObject(holder) ? holder : {}, from, to, registry, true)) as JsonObject;
    // Positions: the node on this canvas, and the canvases inside a renamed machine.
    const positions = positionsOf(next);
    const here = canvasKey(path);
    const prefix = canvasKey([...path, from]);
    const renamed = canvasKey([...path, to]);
    let moved: JsonObject = {};
    let changed = false;
    for (const [k, v] of Object.entries(positions)) {
      let key = k;
      let value = v;
      if (k === here && isObject(v) && Object.hasOwn(v, from)) value = renameKey(v, from, to);
      if (k === prefix || k.startsWith(`${prefix}/`)) key = renamed + k.slice(prefix.length);
      changed ||= key !== k || value !== v;
      moved = withKey(moved, key, value);
    }
    if (changed) next = setIn(next, [EDITOR_KEY, 'positions'], moved) as JsonObject;
    return ok(next, [to]);
  });
}

/** A graph holder (`nodes`, `output`) with node `from` called `to`; `own` when `from` is its own node rather than one around it. */
function renamedIn(holder: JsonObject, from: string, to: string, registry: ReturnType<typeof knownTypes>['registry'], own: boolean): JsonObject {
  const nodes = isObject(holder.nodes) ? holder.nodes : {};
  if (!own && Object.hasOwn(nodes, from)) return holder; // its own node of that name hides the outer one
  let out = holder;
  const renamedNodes: JsonObject = {};
  for (const [id, raw] of Object.entries(nodes)) {
    let node = raw;
    if (isObject(node)) {
      if (own && isObject(node.inputs)) {
        let inputs = node.inputs;
        for (const [name, v] of Object.entries(node.inputs)) {
          if (v === from) inputs = withKey(inputs, name, to);
          else if (Array.isArray(v) && v.includes(from)) inputs = withKey(inputs, name, v.map((s) => (s === from ? to : s)));
        }
        if (inputs !== node.inputs) node = withKey(node, 'inputs', inputs);
      }
      const spec = typeof node.type === 'string' ? registry.get(node.type) : undefined;
      if (spec && isObject(node.properties)) {
        let props = node.properties;
        for (const [name, p] of Object.entries(spec.properties)) if (p.kind === 'node' && props[name] === from) props = withKey(props, name, to);
        if (node.type === STATE_MACHINE && isObject(props.states)) {
          let states = props.states;
          for (const [name, state] of Object.entries(props.states)) {
            if (isObject(state) && state.conduit !== true) {
              const inner = renamedIn(state, from, to, registry, false);
              if (inner !== state) states = withKey(states, name, inner);
            }
          }
          if (states !== props.states) props = withKey(props, 'states', states);
        }
        if (props !== node.properties) node = withKey(node, 'properties', props);
      }
    }
    put(renamedNodes, own && id === from ? to : id, node);
  }
  if (!own && deepEqual(renamedNodes, nodes)) return holder;
  out = withKey(out, 'nodes', renamedNodes);
  if (own && out.output === from) out = withKey(out, 'output', to);
  return out;
}

/**
 * Renames a parameter: its declaration in place, and every `{ "param": name }` naming it in the
 * nodes (bound properties, transition rules), states included.
 */
export function renameParameter(asset: JsonObject, from: string, to: string): EditResult {
  const renamed = renameEntry(asset, 'parameters', 'parameter', from, to);
  if (!renamed.ok || renamed.asset === asset) return renamed;
  const rebind = (value: Json): Json => {
    if (Array.isArray(value)) {
      const items = value.map(rebind);
      return items.some((v, i) => v !== value[i]) ? items : value;
    }
    if (!isObject(value)) return value;
    let out = value;
    for (const [k, v] of Object.entries(value)) {
      const next = k === 'param' && v === from ? to : rebind(v);
      if (next !== v) out = withKey(out, k, next);
    }
    return out;
  };
  let next = renamed.asset;
  if (isObject(next.nodes)) next = setIn(next, ['nodes'], rebind(next.nodes)) as JsonObject;
  return ok(next);
}
