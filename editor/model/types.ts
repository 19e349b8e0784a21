// The editor model's types and constants (index.ts documents the model as a whole).
import type { NodeRegistry } from '../../graphs/loader.ts';
import type { NodeEditorMeta } from '../../editor-meta/index.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * The editor-only key at the top of an asset: `{ "positions": { [canvasKey]: { [id]: [x, y] } } }`.
 * The schema accepts any object there; the loader and the runtime ignore it.
 */
export const EDITOR_KEY = 'editor';

/** The asset's named sections, each an object of specs by name, that the asset panel edits entry by entry. */
export const ASSET_SECTIONS = ['parameters', 'clips', 'montages', 'blendProfiles'] as const;
export type AssetSection = (typeof ASSET_SECTIONS)[number];

/** The asset's single values the asset panel edits, each as one JSON value. */
export const ASSET_VALUE_KEYS = ['name', 'description', 'skeleton', 'units', 'helperBones', 'mirror'] as const;
export type AssetValueKey = (typeof ASSET_VALUE_KEYS)[number];

/** A row of the asset panel: an entry of a named section (or the section itself), or a single value. */
export type AssetRow = { section: AssetSection; name?: string } | { key: AssetValueKey };

/** The reserved node id of a graph canvas's output node (not a valid asset node id, so it never collides). */
export const OUTPUT_ID = '@output';
/** The reserved node id of a machine canvas's entry marker. */
export const ENTRY_ID = '@entry';
/** The reserved node id of a machine canvas's any-state ('*' in a transition's `from`). */
export const ANY_STATE_ID = '@any';

/**
 * A canvas: [] the graph's top level; ['sm'] the states and transitions of StateMachine node 'sm';
 * ['sm', 'walk'] state walk's sub-graph; ['sm', 'walk', 'inner'] a machine inside it, and so on:
 * an even length is a graph canvas, an odd one a machine canvas.
 */
export type CanvasPath = readonly string[];

/** The node types the editor knows: the loader's registry and the editor-meta documenting them. */
export interface EditorTypes {
  /** Default: the built-in types. */
  registry?: NodeRegistry;
  /** The editor-meta of custom types, used before the built-in types' own. */
  metas?: readonly NodeEditorMeta[];
}
/** Either a registry (with the built-in metas) or both; default the built-in types. */
export type Types = NodeRegistry | EditorTypes;

/** The key of a canvas in `editor.positions`: '' for [], 'sm', 'sm/walk'; '~' and '/' inside a name written '~0' and '~1'. */
export function canvasKey(path: CanvasPath): string {
  return path.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

/** An input pin of a drawn node. */
export interface EditorPin {
  /** The handle id: the input's name; `name:index` for an entry of a list input, `name:+` for its listAdd pin; 'pose' on the output node. */
  handle: string;
  /** The input's name in the node type's spec ('pose' on the output node). */
  name: string;
  /** For a list input's entry: its index in the list. */
  index?: number;
  title: string;
  description: string;
  /** Where the link is written ('$.nodes.blend.inputs.A', '$.nodes.list.inputs.poses[1]', '$.output'). */
  jsonPath: string;
  /** The extra pin of a list input that appends a link. */
  listAdd?: boolean;
}

export interface EditorNode {
  /** The node's id or the state's name; OUTPUT_ID, ENTRY_ID, ANY_STATE_ID for the reserved nodes. */
  id: string;
  kind: 'node' | 'output' | 'state' | 'conduit' | 'entry' | 'any-state';
  /** The node type (kind 'node'). */
  type?: string;
  /** The type's title (kind 'node'), the state's name, 'Output', 'Entry', 'Any state'. */
  title: string;
  /** The type's category; 'Custom' for a registered type without meta, undefined for an unknown type. */
  category?: string;
  /** CSS colour of the category (or of the kind). */
  color: string;
  summary?: string;
  /**
   * Spec order; a list input: one pin per linked entry plus one `listAdd` pin. A node of an unknown
   * type gets a pin per input it writes. Empty on machine canvases.
   */
  inputs: EditorPin[];
  /**
   * Top-left corner: the saved position (the editor key's, else the node's or state's own
   * `editor.position`), else the layered layout's (inputs to the left, output right; entry left).
   */
  x: number;
  y: number;
  /** Size the layout assumed. */
  width: number;
  height: number;
  /** '$.nodes.blend', '$.nodes.sm.properties.states.walk', '$.output' for the output node, '$.nodes.sm.properties.entry' for an entry. */
  jsonPath: string;
  /** The canvas this node opens: a StateMachine node's machine, or a state's sub-graph. */
  opens?: CanvasPath;
  /** Cached poses: a SaveCachedPose ('save', named by its id), a UseCachedPose ('use', with the name its `cache` gives). */
  cachedPose?: { name: string; role: 'save' | 'use' };
}

export interface EditorEdge {
  /** Unique in its canvas: 'link:<target>:<handle>', 'transition:<index>', 'cache:<use node id>', 'entry'. */
  id: string;
  kind: 'link' | 'transition' | 'cached-pose' | 'entry';
  /** Node ids of the canvas (a link's source feeds the target; a transition's source is its from state). */
  source: string;
  target: string;
  /** A link's pin on the target (EditorPin.handle). */
  targetHandle?: string;
  /** Where the edge is written. */
  jsonPath: string;
  /** A transition's rule and duration ('speed > 10 · 0.25 s'); a cached pose's name. */
  label?: string;
}

export interface Canvas {
  path: CanvasPath;
  kind: 'graph' | 'machine';
  /** 'Graph', or the names down to it ('locomotion', 'locomotion › walk'). */
  title: string;
  nodes: EditorNode[];
  edges: EditorEdge[];
}

/**
 * Every edit is pure: a new asset (the old one untouched, structure shared where unchanged), or a
 * refusal whose reason is the loader's own problem message for the link or value that is invalid
 * (`path` its JSON path). `ids`: the ids an edit created (addNode, pasteNodes, addState).
 */
export type EditResult = { ok: true; asset: JsonObject; ids?: string[] } | { ok: false; reason: string; path?: string };

/** Where a problem's JSON path lands: which canvas, node (or state), pin or property. */
export interface ProblemTarget {
  canvas: CanvasPath;
  nodeId?: string;
  /** An EditorPin.handle of nodeId. */
  handle?: string;
  /** The property's name (the key below `properties`). */
  property?: string;
  /** A transition's index on a machine canvas. */
  transition?: number;
}

/** The details panel: one field per property of the node's type, from the runtime spec + editor-meta. */
export interface PropertyField {
  name: string;
  title: string;
  description: string;
  unit?: string;
  /**
   * The control: number (float), int, bool, enum (`options`; also a `node` property, its options the
   * nodes of the named type it may name), clip, bone, blend-profile, string (a file), vec3 (also a
   * direction), list (a list of objects), json (anything else: float lists, clip lists, objects).
   * 'parameter' is not produced: a bindable field takes `{ "param": name }` (see `bindable`).
   */
  kind: 'number' | 'int' | 'bool' | 'enum' | 'clip' | 'bone' | 'parameter' | 'blend-profile' | 'string' | 'vec3' | 'list' | 'json';
  min?: number;
  max?: number;
  options?: string[];
  /** May be written `{ "param": name }` (offer a parameter picker). */
  bindable: boolean;
  /** Parameter types a binding may name (a float also takes an int parameter). */
  bindableFrom?: string[];
  /** Whether the property must be written. */
  required: boolean;
  /** As written in the asset (a binding included); undefined if absent. */
  value: Json | undefined;
  default?: Json;
  jsonPath: string;
}

export interface AssetChoices {
  clips: string[];
  parameters: { name: string; type: string }[];
  blendProfiles: string[];
  /** Ids of the nodes that save a cached pose (SaveCachedPose), at the top level and in states. */
  cachedPoses: string[];
  /** The slot names of the Slot nodes (what a montage's `slot` names), at the top level and in states, each once. */
  slots: string[];
}

export interface PaletteGroup {
  category: string;
  types: { type: string; title: string; summary: string }[];
}
