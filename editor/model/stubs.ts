// Not implemented yet: the contract's signatures, each throwing.
import type { CanvasPath, EditResult, Json, JsonObject, ProblemTarget, PropertyField, Types } from './types.ts';

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

/** `jsonPath` as the loader writes it (GraphProblem.path: '$.nodes.sm.properties.states.walk.nodes.clip.properties.clip'). */
export function locateProblem(asset: JsonObject, jsonPath: string): ProblemTarget {
  void asset; void jsonPath;
  throw new Error('not implemented');
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

