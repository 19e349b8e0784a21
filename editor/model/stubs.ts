// Not implemented yet: the contract's signatures, each throwing.
import type { CanvasPath, EditResult, Json, JsonObject, ProblemTarget, PropertyField, Types } from './types.ts';

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

