/** Example graphs (graphs/examples) as the allocation probes run them. */
import { readFileSync } from 'node:fs';
import { loadGraphFile } from '../../host/files.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import type { ParameterDefinition } from '../../runtime/node/parameters.ts';

export const EXAMPLES_DIR = new URL('../../graphs/examples/', import.meta.url).pathname;

export interface ExampleInstance {
  instance: AnimGraphInstance;
  /** The example's parameters, as its asset declares them. */
  definitions: [string, ParameterDefinition][];
}

/**
 * An instance of example `file` with its float parameters set to values that are not whole numbers
 * (default + 0.37) and its vec3 ones likewise; or, for an example on ../shared/data where the
 * folder is missing, the loader's first line saying so.
 */
export function exampleInstance(file: string): ExampleInstance | { skipped: string } {
  let graph;
  try {
    graph = loadGraphFile(EXAMPLES_DIR + file);
  } catch (e) {
    if (!/file/.test(String(e))) throw e;
    return { skipped: String(e).split('\n')[0] };
  }
  const instance = graph.createInstance();
  const definitions = Object.entries((JSON.parse(readFileSync(EXAMPLES_DIR + file, 'utf8')).parameters ?? {}) as Record<string, ParameterDefinition>);
  for (const [name, def] of definitions) {
    if (def.curve !== undefined) continue; // set by its curve, not by code
    if (def.type === 'float') instance.setParameter(name, (typeof def.default === 'number' ? def.default : 0) + 0.37);
    else if (def.type === 'vec3') instance.setParameter(name, [0.31, 1.17, 0.73]);
  }
  return { instance, definitions };
}

/** A frame as the probes run it: updated by 1/60 s, evaluated, and its component pose composed. */
export function runExampleFrame(instance: AnimGraphInstance): void {
  instance.update(1 / 60);
  instance.evaluate();
  instance.componentPose();
}

/** The node types of an asset's nodes, state machines' states included; montages count as 'Montage'. */
function nodeTypes(nodes: Record<string, { type: string; properties?: { states?: Record<string, { nodes?: Record<string, any> }> } }> | undefined, into: Set<string>): Set<string> {
  for (const node of Object.values(nodes ?? {})) {
    into.add(node.type);
    if (node.type === 'StateMachine') for (const state of Object.values(node.properties?.states ?? {})) nodeTypes(state.nodes, into);
  }
  return into;
}

/**
 * The examples among `files` holding a state machine (at any depth) no earlier one holds, the same
 * machine (its node, as JSON) counting once: the sample graphs share one locomotion machine.
 */
export function examplesWithDistinctStateMachines(files: readonly string[]): string[] {
  const seen = new Set<string>();
  const machines = (nodes: Record<string, any> | undefined, into: string[]): string[] => {
    for (const node of Object.values(nodes ?? {})) {
      if (node.type !== 'StateMachine') continue;
      into.push(JSON.stringify(node));
      for (const state of Object.values((node.properties?.states ?? {}) as Record<string, { nodes?: Record<string, any> }>)) machines(state.nodes, into);
    }
    return into;
  };
  return files.filter((file) => {
    const found = machines(JSON.parse(readFileSync(EXAMPLES_DIR + file, 'utf8')).nodes, []).filter((m) => !seen.has(m));
    for (const m of found) seen.add(m);
    return found.length > 0;
  });
}

/**
 * The example files (graphs/examples, sorted) that between them hold every node type any example
 * holds, and montages: the quick variant of a test run over every example (tests/support/stress.ts).
 * Chosen greedily, most new types first, ties by name, so the set is the same on every run and
 * grows by itself when an example brings a new type.
 */
export function examplesCoveringNodeTypes(files: readonly string[]): string[] {
  const types = new Map(files.map((file) => {
    const asset = JSON.parse(readFileSync(EXAMPLES_DIR + file, 'utf8'));
    const set = nodeTypes(asset.nodes, new Set());
    if (asset.montages !== undefined) set.add('Montage');
    return [file, set] as const;
  }));
  const missing = new Set([...types.values()].flatMap((set) => [...set]));
  const chosen: string[] = [];
  while (missing.size > 0) {
    let best = '', gain = 0;
    for (const [file, set] of types) {
      const n = [...set].filter((t) => missing.has(t)).length;
      if (n > gain || (n === gain && n > 0 && file < best)) [best, gain] = [file, n];
    }
    chosen.push(best);
    for (const t of types.get(best)!) missing.delete(t);
  }
  return chosen.sort();
}
