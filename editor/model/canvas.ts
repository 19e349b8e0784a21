// A canvas as the page draws it: nodes with pins, edges, and positions (saved, else laid out).
import dagre from '@dagrejs/dagre';
import { jsonPath } from '../../runtime/core/names.ts';
import { DEFAULT_TRANSITION_DURATION } from '../../runtime/jobs/state-machine-table.ts';
import { isObject, type Key } from './json.ts';
import {
  cacheRole, CATEGORY_COLORS, CONDUIT_COLOR, knownTypes, resolveCanvas, STATE_COLOR, STATE_MACHINE, typeOf, UNKNOWN_COLOR,
  type GraphScope, type KnownTypes, type MachineScope,
} from './scope.ts';
import {
  ANY_STATE_ID, canvasKey, EDITOR_KEY, ENTRY_ID, OUTPUT_ID,
  type Canvas, type CanvasPath, type EditorEdge, type EditorNode, type EditorPin, type Json, type JsonObject, type Types,
} from './types.ts';

export const NODE_WIDTH = 200;
const PIN_HEIGHT = 22;
const HEADER_HEIGHT = 36;
const STATE_WIDTH = 160;
const STATE_HEIGHT = 48;
const MARKER_SIZE = 64;

/** The nodes and edges of one canvas of the asset. Throws an Error if the path names no canvas. */
export function canvas(asset: JsonObject, path: CanvasPath, types?: Types): Canvas {
  const scope = resolveCanvas(asset, path);
  const drawn = scope.kind === 'graph' ? graphCanvas(scope, knownTypes(types)) : machineCanvas(scope);
  // A node's (or state's) own `editor.position` counts where the editor key has none.
  const saved = savedPositions(asset, path);
  const own = scope.kind === 'graph' ? scope.nodes : scope.states;
  for (const n of drawn.nodes) {
    const block = Object.hasOwn(own, n.id) && isObject(own[n.id]) ? (own[n.id] as JsonObject).editor : undefined;
    const p = isObject(block) ? pair(block.position) : undefined;
    if (p && !saved.has(n.id)) saved.set(n.id, p);
  }
  place(drawn.nodes, drawn.edges, saved);
  return { path: [...path], kind: scope.kind, title: canvasTitle(path), ...drawn };
}

function canvasTitle(path: CanvasPath): string {
  return path.length === 0 ? 'Graph' : path.join(' › ');
}

/** The saved positions of a canvas, by id ([x, y] pairs of finite numbers only). */
export function savedPositions(asset: JsonObject, path: CanvasPath): Map<string, { x: number; y: number }> {
  const out = new Map<string, { x: number; y: number }>();
  const editor = asset[EDITOR_KEY];
  const positions = isObject(editor) && isObject(editor.positions) ? editor.positions : undefined;
  const key = canvasKey(path);
  const canvas = positions && Object.hasOwn(positions, key) ? positions[key] : undefined;
  if (!isObject(canvas)) return out;
  for (const [id, p] of Object.entries(canvas)) {
    const at = pair(p);
    if (at) out.set(id, at);
  }
  return out;
}

function pair(p: Json | undefined): { x: number; y: number } | undefined {
  return Array.isArray(p) && p.length === 2 && typeof p[0] === 'number' && typeof p[1] === 'number' && Number.isFinite(p[0]) && Number.isFinite(p[1])
    ? { x: p[0], y: p[1] } : undefined;
}

function graphCanvas(scope: GraphScope, known: KnownTypes): { nodes: EditorNode[]; edges: EditorEdge[] } {
  const nodes: EditorNode[] = [];
  const edges: EditorEdge[] = [];
  const ids = new Set(Object.keys(scope.nodes));
  const at = (...keys: Key[]) => jsonPath([...scope.keys, ...keys]);
  for (const [id, raw] of Object.entries(scope.nodes)) {
    // Not a valid node id (the loader says so); drawn, it would be taken for the output node.
    if (id === OUTPUT_ID) continue;
    const node = isObject(raw) ? raw : {};
    const { spec, meta } = typeOf(known, node.type);
    const inputs = isObject(node.inputs) ? node.inputs : {};
    const pins: EditorPin[] = [];
    const link = (source: Json | undefined, handle: string, keys: Key[]) => {
      if (typeof source === 'string' && ids.has(source)) {
        edges.push({ id: `link:${id}:${handle}`, kind: 'link', source, target: id, targetHandle: handle, jsonPath: at('nodes', id, 'inputs', ...keys) });
      }
    };
    // Declared inputs in spec order; a node of an unknown type shows the inputs it writes.
    const declared = spec ? spec.inputs.map((i) => ({ name: i.name, list: i.kind === 'poseList' }))
      : Object.entries(inputs).map(([name, v]) => ({ name, list: Array.isArray(v) }));
    for (const { name, list } of declared) {
      const doc = meta?.pins[name];
      const title = doc?.title ?? name;
      const description = doc?.description ?? '';
      const value = Object.hasOwn(inputs, name) ? inputs[name] : undefined;
      if (!list) {
        pins.push({ handle: name, name, title, description, jsonPath: at('nodes', id, 'inputs', name) });
        link(value, name, [name]);
        continue;
      }
      const entries = Array.isArray(value) ? value : [];
      entries.forEach((source, index) => {
        const handle = `${name}:${index}`;
        pins.push({ handle, name, index, title: `${title} ${index}`, description, jsonPath: at('nodes', id, 'inputs', name, index) });
        link(source, handle, [name, index]);
      });
      pins.push({ handle: `${name}:+`, name, title: `+ ${title}`, description, jsonPath: at('nodes', id, 'inputs', name), listAdd: true });
    }
    const category = meta?.category ?? (spec ? 'Custom' : undefined);
    const drawn: EditorNode = {
      id, kind: 'node', title: meta?.title ?? (typeof node.type === 'string' ? node.type : '?'), color: category ? CATEGORY_COLORS[category] ?? UNKNOWN_COLOR : UNKNOWN_COLOR,
      inputs: pins, x: 0, y: 0, width: NODE_WIDTH, height: HEADER_HEIGHT + PIN_HEIGHT * Math.max(1, pins.length), jsonPath: at('nodes', id),
    };
    if (typeof node.type === 'string') drawn.type = node.type;
    if (category) drawn.category = category;
    if (meta?.summary) drawn.summary = meta.summary;
    if (node.type === STATE_MACHINE) drawn.opens = [...scope.path, id];
    const cached = cacheRole(known, node.type);
    if (cached?.role === 'save') drawn.cachedPose = { name: id, role: 'save' };
    if (cached?.role === 'use') {
      const cache = isObject(node.properties) ? node.properties[cached.property] : undefined;
      drawn.cachedPose = { name: typeof cache === 'string' ? cache : '', role: 'use' };
      // The pair is drawn when the cache is on this canvas (a state may use one of a graph around it).
      if (typeof cache === 'string' && ids.has(cache)) {
        edges.push({ id: `cache:${id}`, kind: 'cached-pose', source: cache, target: id, jsonPath: at('nodes', id, 'properties', cached.property), label: cache });
      }
    }
    nodes.push(drawn);
  }
  nodes.push({
    id: OUTPUT_ID, kind: 'output', title: 'Output', category: 'Output', color: CATEGORY_COLORS.Output,
    inputs: [{ handle: 'pose', name: 'pose', title: 'Pose', description: "The graph's pose", jsonPath: at('output') }],
    x: 0, y: 0, width: NODE_WIDTH, height: HEADER_HEIGHT + PIN_HEIGHT, jsonPath: at('output'),
  });
  if (typeof scope.output === 'string' && ids.has(scope.output)) {
    edges.push({ id: `link:${OUTPUT_ID}:pose`, kind: 'link', source: scope.output, target: OUTPUT_ID, targetHandle: 'pose', jsonPath: at('output') });
  }
  return { nodes, edges };
}

function machineCanvas(scope: MachineScope): { nodes: EditorNode[]; edges: EditorEdge[] } {
  const at = (...keys: Key[]) => jsonPath([...scope.keys, 'properties', ...keys]);
  const nodes: EditorNode[] = [
    { id: ENTRY_ID, kind: 'entry', title: 'Entry', color: STATE_COLOR, inputs: [], x: 0, y: 0, width: MARKER_SIZE, height: MARKER_SIZE / 2, jsonPath: at('entry') },
    { id: ANY_STATE_ID, kind: 'any-state', title: 'Any state', color: CONDUIT_COLOR, inputs: [], x: 0, y: 0, width: STATE_WIDTH, height: STATE_HEIGHT, jsonPath: at('transitions') },
  ];
  const edges: EditorEdge[] = [];
  const names = new Set(Object.keys(scope.states));
  for (const [name, state] of Object.entries(scope.states)) {
    if (name === ENTRY_ID || name === ANY_STATE_ID) continue; // would be taken for the markers
    const conduit = isObject(state) && state.conduit === true;
    const node: EditorNode = {
      id: name, kind: conduit ? 'conduit' : 'state', title: name, color: conduit ? CONDUIT_COLOR : STATE_COLOR,
      inputs: [], x: 0, y: 0, width: STATE_WIDTH, height: STATE_HEIGHT, jsonPath: at('states', name),
    };
    if (!conduit && isObject(state)) node.opens = [...scope.path, name];
    nodes.push(node);
  }
  const entry = scope.properties.entry;
  if (typeof entry === 'string' && names.has(entry)) edges.push({ id: 'entry', kind: 'entry', source: ENTRY_ID, target: entry, jsonPath: at('entry') });
  scope.transitions.forEach((t, index) => {
    if (!isObject(t)) return;
    const source = t.from === '*' ? ANY_STATE_ID : t.from;
    if (typeof source !== 'string' || typeof t.to !== 'string' || (source !== ANY_STATE_ID && !names.has(source)) || !names.has(t.to)) return;
    const duration = typeof t.duration === 'number' ? t.duration : DEFAULT_TRANSITION_DURATION;
    edges.push({ id: `transition:${index}`, kind: 'transition', source, target: t.to, jsonPath: at('transitions', index), label: `${ruleText(t.rule)} · ${duration} s` });
  });
  return { nodes, edges };
}

/**
 * Positions: the saved ones, the rest from a layered layout of the whole canvas (dagre, ranks left
 * to right along the edges: a node's inputs to its left, the output at the right; on a machine the
 * entry at the left).
 */
function place(nodes: EditorNode[], edges: readonly EditorEdge[], saved: ReadonlyMap<string, { x: number; y: number }>): void {
  if (nodes.every((n) => saved.has(n.id))) {
    for (const n of nodes) Object.assign(n, saved.get(n.id));
    return;
  }
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 30, ranksep: 80, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  // dagre keeps nodes in plain objects by name: '__proto__' or 'toString' as a name breaks it, so it sees indices.
  const key = new Map(nodes.map((n, i) => [n.id, `n${i}`]));
  for (const n of nodes) g.setNode(key.get(n.id)!, { width: n.width, height: n.height });
  edges.forEach((e, i) => {
    if (e.source !== e.target) g.setEdge(key.get(e.source)!, key.get(e.target)!, {}, `e${i}`);
  });
  dagre.layout(g);
  for (const n of nodes) {
    const laid = g.node(key.get(n.id)!);
    n.x = Math.round(laid.x - n.width / 2);
    n.y = Math.round(laid.y - n.height / 2);
  }
  // A machine's ranks follow its transitions, cycles and all: the entry goes left of everything,
  // level with the state it enters.
  const entry = nodes.find((n) => n.kind === 'entry');
  if (entry) {
    const entered = edges.find((e) => e.kind === 'entry');
    const state = nodes.find((n) => n.id === entered?.target);
    entry.x = Math.min(...nodes.filter((n) => n !== entry).map((n) => n.x)) - entry.width - 60;
    if (state) entry.y = Math.round(state.y + (state.height - entry.height) / 2);
  }
  // The laid-out nodes move by the mean offset of the saved ones from their laid-out places, so a
  // new node lands near its neighbours rather than in the layout's own frame.
  const savedHere = nodes.filter((n) => saved.has(n.id));
  const dx = savedHere.length ? Math.round(savedHere.reduce((sum, n) => sum + saved.get(n.id)!.x - n.x, 0) / savedHere.length) : 0;
  const dy = savedHere.length ? Math.round(savedHere.reduce((sum, n) => sum + saved.get(n.id)!.y - n.y, 0) / savedHere.length) : 0;
  for (const n of nodes) {
    const p = saved.get(n.id);
    if (p) Object.assign(n, p);
    else {
      n.x += dx;
      n.y += dy;
    }
  }
}

/**
 * A transition rule as text: true -> 'always', false -> 'never', 'atEnd' -> 'at end',
 * { timeRemaining: 0.2 } -> 'time left ≤ 0.2 s', { param: 'speed', op: '>', value: 10 } -> 'speed > 10',
 * { param: 'jump' } -> 'jump', and / or / not with parentheses where they nest.
 */
export function ruleText(rule: Json | undefined): string {
  return text(rule, 0);
}

function text(rule: Json | undefined, level: number): string {
  if (rule === true) return 'always';
  if (rule === false) return 'never';
  if (rule === 'atEnd') return 'at end';
  if (isObject(rule)) {
    if (typeof rule.timeRemaining === 'number') return `time left ≤ ${rule.timeRemaining} s`;
    if (typeof rule.param === 'string') return rule.op === undefined && rule.value === undefined ? rule.param : `${rule.param} ${String(rule.op ?? '==')} ${JSON.stringify(rule.value ?? true)}`;
    if (Array.isArray(rule.and) || Array.isArray(rule.or)) {
      const op = Array.isArray(rule.and) ? 'and' : 'or';
      const parts = (rule[op] as Json[]).map((r) => text(r, 1));
      const joined = parts.length === 0 ? (op === 'and' ? 'always' : 'never') : parts.join(` ${op} `);
      return level > 0 && parts.length > 1 ? `(${joined})` : joined;
    }
    if (Object.hasOwn(rule, 'not')) return `not ${text(rule.not, 1)}`;
  }
  return JSON.stringify(rule) ?? '?';
}
