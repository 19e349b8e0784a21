/**
 * The graph editor's model: what the page (editor/page) draws and how an edit changes the asset.
 * Pure TypeScript (no DOM, no React, no node:*), synchronous, and free of side effects: every
 * function takes the asset as parsed JSON and returns new values, leaving its arguments untouched.
 *
 * Canvases: [] is the graph's top level; ['sm'] the states and transitions of the StateMachine
 * node 'sm'; ['sm', 'walk'] state walk's sub-graph; ['sm', 'walk', 'inner'] a machine inside that
 * sub-graph, and so on (graph and machine canvases alternate).
 *
 * Custom node types: pass `{ registry, metas }` (EditorTypes) wherever a registry is taken; a type
 * the registry has but `metas` does not document is drawn with its type name as title, category
 * 'Custom', and its pin and property names as titles.
 */
import type { NodeRegistry } from '../../graphs/loader.ts';
import type { NodeEditorMeta } from '../../editor-meta/index.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * The editor-only key at the top of an asset: `{ "positions": { [canvasKey]: { [id]: [x, y] } } }`.
 * The schema accepts any object there; the loader and the runtime ignore it.
 */
export const EDITOR_KEY = 'editor';

/** The reserved node id of a graph canvas's output node (not a valid asset node id, so it never collides). */
export const OUTPUT_ID = '@output';
/** The reserved node id of a machine canvas's entry marker. */
export const ENTRY_ID = '@entry';
/** The reserved node id of a machine canvas's any-state ('*') source. */
export const ANY_STATE_ID = '@any';

/** A canvas: see the module comment. */
export type CanvasPath = readonly string[];

/** The node types the editor knows: the loader's registry and the editor-meta documenting them. */
export interface EditorTypes {
  /** Default: the built-in types (graphs/loader's default registry). */
  registry?: NodeRegistry;
  /** Default: the built-in types' editor-meta. Custom types add their own NodeEditorMeta here. */
  metas?: readonly NodeEditorMeta[];
}
/** Either a registry (with the built-in metas) or both. */
export type Types = NodeRegistry | EditorTypes;

/** The key of a canvas in `editor.positions`: '' for [], 'sm', 'sm/walk'; '/' and '~' in a name escaped '~1' and '~0'. */
export function canvasKey(path: CanvasPath): string {
  return path.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

/** An input pin of a drawn node. */
export interface EditorPin {
  /** The React Flow handle id: the input's name, or `name:index` for an entry of a list input, `name:+` for its listAdd pin. */
  handle: string;
  /** The input's name in the node type's spec. */
  name: string;
  /** For a list input: the entry's index in the list (absent on the listAdd pin). */
  index?: number;
  title: string;
  description: string;
  /** Where the link is written ('$.nodes.blend.inputs.a', '$.nodes.list.inputs.poses[1]'). */
  jsonPath: string;
  /** The extra pin of a list input that appends a link. */
  listAdd?: boolean;
}

export interface EditorNode {
  /** The node's id / the state's name; OUTPUT_ID, ENTRY_ID, ANY_STATE_ID for the reserved nodes. */
  id: string;
  kind: 'node' | 'output' | 'state' | 'conduit' | 'entry' | 'any-state';
  /** The node type (kind 'node'). */
  type?: string;
  title: string;
  category?: string;
  /** CSS colour of the category. */
  color: string;
  summary?: string;
  /** Spec order; a list input: one pin per linked entry plus one `listAdd` pin. Empty on machine canvases. */
  inputs: EditorPin[];
  /** The saved position, else the layered layout's (inputs to the left, output right; entry left). */
  x: number;
  y: number;
  /** '$.nodes.blend', '$.nodes.sm.properties.states.walk', ... ('$.output' for the output node). */
  jsonPath: string;
  /** The canvas this node opens: a StateMachine node's machine, or a state's sub-graph. */
  opens?: CanvasPath;
  /** SaveCachedPose ('save') and UseCachedPose ('use') nodes, with the cache's name (the save node's id). */
  cachedPose?: { name: string; role: 'save' | 'use' };
}

export interface EditorEdge {
  /** Stable within a canvas: 'link:<target>:<handle>', 'transition:<index>', 'cache:<use id>', 'entry'. */
  id: string;
  kind: 'link' | 'transition' | 'cached-pose' | 'entry';
  source: string;
  target: string;
  /** A link's pin on the target (EditorPin.handle). */
  targetHandle?: string;
  /** Where the edge is written. */
  jsonPath: string;
  /** A transition's rule (ruleText) and duration, e.g. 'speed > 10 · 0.25 s'. */
  label?: string;
}

export interface Canvas {
  path: CanvasPath;
  kind: 'graph' | 'machine';
  /** 'Graph', or the machine node's / state's title path ('locomotion', 'locomotion › walk'). */
  title: string;
  nodes: EditorNode[];
  edges: EditorEdge[];
}

/** The nodes and edges of one canvas of the asset. Throws an Error if the path names no canvas. */
export function canvas(asset: JsonObject, path: CanvasPath, types?: Types): Canvas {
  void asset; void path; void types;
  throw new Error('not implemented');
}

/** A transition rule as text: { param: 'speed', op: '>', value: 10 } -> 'speed > 10'; 'atEnd'; 'a and (b or not c)'. */
export function ruleText(rule: Json): string {
  void rule;
  throw new Error('not implemented');
}

/**
 * Every edit is pure: a new asset (the old one untouched, structure shared where unchanged), or a
 * refusal whose reason is the loader's own problem message for the link/value that is invalid.
 * `ids`: the ids an edit created (addNode, pasteNodes, addState).
 */
export type EditResult = { ok: true; asset: JsonObject; ids?: string[] } | { ok: false; reason: string; path?: string };

/** Adds a node of `type` at `at`: a fresh id from the type ('blendTwo', 'blendTwo2'), properties only where required (empty strings / first choices). */
export function addNode(asset: JsonObject, path: CanvasPath, type: string, at: { x: number; y: number }, types?: Types): EditResult {
  void asset; void path; void type; void at; void types;
  throw new Error('not implemented');
}

/** Removes nodes and every link to them (list entries removed, the output cleared to ''); OUTPUT_ID is ignored. */
export function removeNodes(asset: JsonObject, path: CanvasPath, ids: readonly string[]): EditResult {
  void asset; void path; void ids;
  throw new Error('not implemented');
}

/**
 * Links `source`'s pose to `target`'s pin `handle` (an EditorPin.handle; OUTPUT_ID's handle is 'pose').
 * Checked by the loader on the candidate asset: refused (with the loader's message and path) when
 * the link itself is invalid: a cycle, a space the pin does not accept, a node that may not be linked,
 * a node already feeding another input. Problems that were there before do not refuse it.
 */
export function connect(asset: JsonObject, path: CanvasPath, source: string, target: string, handle: string, types?: Types): EditResult {
  void asset; void path; void source; void target; void handle; void types;
  throw new Error('not implemented');
}

/** Removes a link edge (EditorEdge.id); a list entry is removed from its list. */
export function disconnect(asset: JsonObject, path: CanvasPath, edgeId: string): EditResult {
  void asset; void path; void edgeId;
  throw new Error('not implemented');
}

/** Sets (or with undefined removes) a property of a node; `properties` is dropped when left empty. */
export function setProperty(asset: JsonObject, path: CanvasPath, nodeId: string, property: string, value: Json | undefined): EditResult {
  void asset; void path; void nodeId; void property; void value;
  throw new Error('not implemented');
}

/** Writes positions for the whole canvas (the moved ones and every other node's current position). */
export function moveNodes(asset: JsonObject, path: CanvasPath, positions: Readonly<Record<string, { x: number; y: number }>>, types?: Types): EditResult {
  void asset; void path; void positions; void types;
  throw new Error('not implemented');
}

/** Sets (or with undefined removes) a parameter. */
export function setParameter(asset: JsonObject, name: string, spec: Json | undefined): EditResult {
  void asset; void name; void spec;
  throw new Error('not implemented');
}

/** Sets (or with undefined removes) a clip. */
export function setClip(asset: JsonObject, name: string, spec: Json | undefined): EditResult {
  void asset; void name; void spec;
  throw new Error('not implemented');
}

/** Adds a state to the machine canvas `machinePath`: a sub-graph with an Output-less empty graph, or a conduit. */
export function addState(asset: JsonObject, machinePath: CanvasPath, name: string | undefined, at: { x: number; y: number }, conduit?: boolean): EditResult {
  void asset; void machinePath; void name; void at; void conduit;
  throw new Error('not implemented');
}

/** Removes states and the transitions from or to them. */
export function removeState(asset: JsonObject, machinePath: CanvasPath, name: string): EditResult {
  void asset; void machinePath; void name;
  throw new Error('not implemented');
}

/** Renames a state, in the entry and every transition too. */
export function renameState(asset: JsonObject, machinePath: CanvasPath, from: string, to: string): EditResult {
  void asset; void machinePath; void from; void to;
  throw new Error('not implemented');
}

/** Appends a transition from -> to (from may be '*' or ANY_STATE_ID) with rule true. */
export function addTransition(asset: JsonObject, machinePath: CanvasPath, from: string, to: string): EditResult {
  void asset; void machinePath; void from; void to;
  throw new Error('not implemented');
}

/** Replaces (or with undefined removes) the transition at `index`. */
export function setTransition(asset: JsonObject, machinePath: CanvasPath, index: number, transition: Json | undefined): EditResult {
  void asset; void machinePath; void index; void transition;
  throw new Error('not implemented');
}

/** Clipboard text (JSON) of the nodes `ids` of a graph canvas, with their links among themselves. */
export function copyNodes(asset: JsonObject, path: CanvasPath, ids: readonly string[]): string {
  void asset; void path; void ids;
  throw new Error('not implemented');
}

/** Pastes clipboard text: new ids where taken, links among the pasted nodes kept, others dropped; placed with its top-left at `at`. */
export function pasteNodes(asset: JsonObject, path: CanvasPath, clipboard: string, at: { x: number; y: number }): EditResult {
  void asset; void path; void clipboard; void at;
  throw new Error('not implemented');
}

/** Undo/redo over whole assets (structure is shared, so a step costs only what changed). */
export class History {
  constructor(initial: JsonObject) {
    void initial;
    throw new Error('not implemented');
  }
  get current(): JsonObject { throw new Error('not implemented'); }
  /** Makes `asset` current; drops the redo steps. */
  push(asset: JsonObject): void { void asset; throw new Error('not implemented'); }
  /** The asset before the current one, now current; undefined at the start. */
  undo(): JsonObject | undefined { throw new Error('not implemented'); }
  redo(): JsonObject | undefined { throw new Error('not implemented'); }
  get canUndo(): boolean { throw new Error('not implemented'); }
  get canRedo(): boolean { throw new Error('not implemented'); }
}

/** Where a problem's JSON path lands: which canvas, node (or state), pin or property. */
export interface ProblemTarget {
  canvas: CanvasPath;
  nodeId?: string;
  /** An EditorPin.handle of nodeId. */
  handle?: string;
  /** The property's name (top level of `properties`). */
  property?: string;
  /** A transition's index on a machine canvas. */
  transition?: number;
}
/** `jsonPath` as the loader writes it (GraphProblem.path: '$.nodes.sm.properties.states.walk.nodes.clip.properties.clip'). */
export function locateProblem(asset: JsonObject, jsonPath: string): ProblemTarget {
  void asset; void jsonPath;
  throw new Error('not implemented');
}

/** The details panel: one field per property of the node's type, from the runtime spec + editor-meta. */
export interface PropertyField {
  name: string;
  title: string;
  description: string;
  unit?: string;
  kind: 'number' | 'int' | 'bool' | 'enum' | 'clip' | 'bone' | 'parameter' | 'blend-profile' | 'string' | 'vec3' | 'list' | 'json';
  min?: number;
  max?: number;
  options?: string[];
  /** May be written { "param": name } (a parameter control in the panel). */
  bindable: boolean;
  /** Whether it must be written. */
  required: boolean;
  /** As written in the asset (a binding included); undefined if absent. */
  value: Json | undefined;
  default?: Json;
  jsonPath: string;
}
export function propertyFields(asset: JsonObject, path: CanvasPath, nodeId: string, types?: Types): PropertyField[] {
  void asset; void path; void nodeId; void types;
  throw new Error('not implemented');
}

/** The names the asset declares, for the panel's pickers (bones come from the loaded skeleton, in the page). */
export function assetChoices(asset: JsonObject): { clips: string[]; parameters: { name: string; type: string }[]; blendProfiles: string[]; cachedPoses: string[] } {
  void asset;
  throw new Error('not implemented');
}

/** The palette: every type of the registry (built-ins + custom), grouped by category in the node list's order. */
export function palette(types?: Types): { category: string; types: { type: string; title: string; summary: string }[] }[] {
  void types;
  throw new Error('not implemented');
}

/**
 * The file as the user would have written it: two-space indentation, keys in the order the file had
 * them (a new key in the schema's order), unknown keys kept, '\n' at the end. Given the original
 * text, every value equal to the original's at the same path keeps its original text exactly, so
 * an unchanged asset saves byte for byte and an edit changes only the lines it touches; new values
 * put short objects/arrays of scalars on one line as the examples do.
 */
export function formatAsset(asset: JsonObject, originalText?: string): string {
  void asset; void originalText;
  throw new Error('not implemented');
}
