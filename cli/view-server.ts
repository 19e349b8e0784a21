/**
 * The HTTP server behind `animgraph view`, on the rules of a local page server (local-server.ts:
 * 127.0.0.1 only, the Host check, only the files the graph's last load read), serving
 *   GET /                 the viewer page (bundled at build time into dist/viewer/, or by esbuild
 *                         when running from the TypeScript sources: never from a CDN)
 *   GET /viewer.js, /style.css   its script and style
 *   GET /api/graph        the graph file, loaded here first as loadGraphFile loads it:
 *                         { source, asset } when it loads, else { source, problems } (a file that
 *                         cannot be read, is not JSON or does not load: the page shows them)
 *   GET /file?path=P      a file the graph's last load read, P as written in the asset (relative to
 *                         the graph's folder): its skeleton, clip sources, pose-search index files
 *                         and .gltf buffers as the loader read them (regular files within the
 *                         loader's size limit), and the images of a .gltf it read, inside the
 *                         .gltf's folder; anything else, and everything while the graph does not
 *                         load, is refused with 403, whatever `..` it holds
 *   GET /api/events       Server-Sent Events: `change` when the graph file changes
 * and nothing else (404). The graph runs in the page; the server loads it only to know its files.
 */
import { loadPage, startLocalServer, type PageAssets } from './local-server.ts';

export { gltfImages, PortInUseError, type PageAssets } from './local-server.ts';

export interface ViewServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The page's files; default: loadPageAssets(). */
  assets?: PageAssets;
}

export interface ViewServer {
  readonly url: string;
  readonly port: number;
  /** Stops watching, ends the event streams and closes the server. */
  close(): Promise<void>;
}

/**
 * The viewer page: dist/viewer/ as the build wrote it when this module runs compiled, else bundled
 * now from viewer/ with esbuild (a development dependency, present wherever the sources are run).
 */
export function loadPageAssets(): Promise<PageAssets> {
  return loadPage('viewer', ['index.html', 'style.css', 'viewer.js'], 'bundle-viewer.mjs', 'bundleViewer');
}

export async function startViewServer(graphFile: string, options: ViewServerOptions = {}): Promise<ViewServer> {
  const assets = options.assets ?? await loadPageAssets();
  return startLocalServer(graphFile, {
    port: options.port,
    assets,
    describe: (load) => (load.loaded ? { source: load.source, asset: load.json } : { source: load.source, problems: load.problems }),
  });
}
