/**
 * Loads a graph asset in the page. The asset's files are fetched from the server through
 * `resolve` (paths as written in the asset).
 */
import { checkGraphAsset, GraphLoadError } from '../graphs/loader.ts';
import type { AnimGraph } from '../runtime/graph.ts';

export type Resolve = (path: string) => Promise<Uint8Array>;

export async function loadViewerGraph(asset: unknown, source: string, _resolve: Resolve): Promise<AnimGraph> {
  const result = checkGraphAsset(asset, { baseDir: '.', source });
  if (!result.ok) throw new GraphLoadError(source, result.problems);
  return result.graph;
}

export { GraphLoadError };
