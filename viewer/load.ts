/**
 * Loads a graph asset in the page with the browser-safe core: the files it names are fetched from
 * the view server through `resolve` (paths as written in the asset).
 */
import { GraphLoadError, loadGraph } from '../graphs/loader.ts';
import type { AnimGraph } from '../runtime/graph/graph.ts';

export type Resolve = (path: string) => Promise<Uint8Array>;

export function loadViewerGraph(asset: unknown, source: string, resolve: Resolve): Promise<AnimGraph> {
  return loadGraph(asset, { source, resolve });
}

export { GraphLoadError };
