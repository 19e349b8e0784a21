/**
 * A graph as its loader (or code) hands it over, before it is bound to anything: its definition
 * types, and the checks AnimGraph makes of one (its depth, and clips and a skeleton that sample to
 * finite poses).
 */
import type { BlendProfileJson } from '../core/blend-profile.ts';
import { clipKeyProblem, clipTimingProblem, type Clip } from '../core/clip.ts';
import { AnimGraphError } from '../core/errors.ts';
import type { MontageJson } from '../core/montage.ts';
import { referenceRangeProblems, type Skeleton } from '../core/skeleton.ts';
import { nodeReferences, type NodeType } from '../node/node.ts';
import type { ParameterDefinition } from '../node/parameters.ts';

/**
 * The most nodes a chain from a graph's output down to a leaf may have. initialize, update,
 * evaluate and the debug tree recurse a few calls per level, and a cold (interpreted) first
 * call overflows Node's default stack at 2,000 to 2,500 levels: 500 leaves the caller three
 * quarters of it, and is still ten times what a hand-made graph needs. The loader reports
 * deeper graphs as `too-deep`; AnimGraph refuses them with an AnimGraphError (`out-of-range`).
 */
export const MAX_GRAPH_DEPTH = 500;

/** A property value as written in an asset: a literal, or a binding to a parameter or a curve. */
export type PropertyValue =
  | number | boolean | string | number[] | string[] | { param: string } | { readonly [key: string]: unknown }
  /** A list property: one object of field values per item. */
  | { readonly [key: string]: unknown }[];

/** One node of a validated graph, ready to be instantiated. */
export interface CompiledNode {
  id: string;
  nodeType: NodeType;
  properties: Readonly<Record<string, PropertyValue | undefined>>;
  /** Node ids by input name (an array for pose-list inputs). */
  inputs: Readonly<Record<string, string | readonly string[]>>;
  /**
   * The root node ids of named sub-graphs the node owns besides its inputs (a StateMachine's
   * states), built before it like inputs; the node receives them as NodeBuild.subGraphs.
   */
  subGraphs?: Readonly<Record<string, string>>;
}

export interface AnimGraphDefinition {
  name: string;
  skeleton: Skeleton;
  parameters: Readonly<Record<string, ParameterDefinition>>;
  clips: ReadonlyMap<string, Clip>;
  /** Nodes in post-order: every node after the nodes it links to; the last one is the root. */
  nodes: readonly CompiledNode[];
  /**
   * How a file path written in the asset is named (for NodePrepareContext.resolvePath); default the
   * path as written. graphs/loader.ts joins it to the asset's folder.
   */
  resolvePath?: (path: string) => string;
  /** False to ignore index files named in the asset and rebuild their data (default true). */
  useIndexFiles?: boolean;
  /** The asset's montages by name (checked by the loader; see runtime/core/montage.ts), compiled once by the graph. */
  montages?: Readonly<Record<string, MontageJson>>;
  /** The asset's blend profiles by name (checked by the loader), bound to the skeleton once here. */
  blendProfiles?: Readonly<Record<string, BlendProfileJson>>;
  /**
   * Reads a file named in the asset (the path as written there), for NodePrepareContext.readFile:
   * file access comes from whoever loads the graph (graphs/loader.ts reads from disk). Without it,
   * a node that needs a file reports that it cannot read it.
   */
  readFile?: (path: string) => Uint8Array;
}

/**
 * The longest chain of `nodes` (compiled, in post-order) from its last node down, counting the
 * levels inside state machines' states (a state's root sits one below its machine) and a cached
 * pose below each node that names it: `depth` nodes, `chain` their ids from the top down.
 */
export function graphDepth(nodes: readonly CompiledNode[]): { depth: number; chain: string[] } {
  const height = new Map<string, number>();
  const below = new Map<string, string>();
  let deepest = 0, top = '';
  for (const node of nodes) {
    let h = 0, next = '';
    // A node named by a `node` property (a cached pose) is updated, evaluated and shown below the namer.
    const targets = [...Object.values(node.inputs).flat(), ...Object.values(node.subGraphs ?? {}), ...nodeReferences(node.nodeType, node.properties).map(([, t]) => t)];
    for (const target of targets) {
      const t = height.get(target) ?? 0;
      if (t > h) { h = t; next = target; }
    }
    height.set(node.id, h + 1);
    if (next !== '') below.set(node.id, next);
    if (h + 1 > deepest) { deepest = h + 1; top = node.id; }
  }
  const chain: string[] = [];
  for (let id: string | undefined = top; id !== undefined && id !== ''; id = below.get(id)) chain.push(id);
  return { depth: deepest, chain };
}

/** Throws an AnimGraphError (`out-of-range`) when a chain of `nodes` (in post-order) is longer than MAX_GRAPH_DEPTH (plus the output node). */
export function checkGraphDepth(nodes: readonly CompiledNode[]): void {
  const { depth } = graphDepth(nodes);
  // The loader's limit counts from the node the asset's `output` names, below the Output node.
  if (depth > MAX_GRAPH_DEPTH + 1) throw new AnimGraphError('out-of-range', `the graph is ${depth} nodes deep; at most ${MAX_GRAPH_DEPTH} (plus the output node) are allowed`);
}

/**
 * Throws an AnimGraphError (`invalid-data`) listing every clip key and reference value the frame
 * loop could not sample, blend or compose to a finite pose, and every clip whose frame time or
 * duration is out of range (see clipKeyProblem, clipTimingProblem, referenceRangeProblems): a graph
 * built in code, whose clips and skeleton no loader checked, fails here rather than giving NaN poses
 * every frame. (A loaded asset's are reported by the loader, with their JSON paths, and never reach
 * this.)
 */
export function checkGraphData(definition: AnimGraphDefinition): void {
  const messages = referenceRangeProblems(definition.skeleton);
  for (const [name, clip] of definition.clips) {
    const problem = clipKeyProblem(clip) ?? clipTimingProblem(1 / clip.frameRate, clip.frameCount);
    if (problem !== null) messages.push(`clip '${name}': ${problem}`);
  }
  if (messages.length > 0) throw new AnimGraphError('invalid-data', `graph '${definition.name}' cannot be sampled to finite poses:\n${messages.map((m) => `  ${m}`).join('\n')}`);
}
