/**
 * The HTTP server behind `animgraph view`: 127.0.0.1 only, serving
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
import { watch, type FSWatcher } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { parseGraphText } from '../graphs/loader/json-text.ts';
import { dirnamePath, joinPath, normalizePath } from '../graphs/loader/paths.ts';
import { decodeGltfUri, gltfUriOutsideFolder } from '../runtime/import/gltf.ts';
import { checkGraphAsset, fileResolver, type FileRead } from '../host/files.ts';
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_GRAPH_BYTES, FileReadError, readRegularFile } from '../host/read-file.ts';

/** The page's files by URL path (without the leading slash). */
export type PageAssets = ReadonlyMap<string, { body: Uint8Array; type: string }>;

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

/** The port is taken by another process (code `io`): `animgraph view` exits 2 with this message. */
export class PortInUseError extends AnimGraphError {
  constructor(readonly port: number, options?: ErrorOptions) {
    super('io', `port ${port} on 127.0.0.1 is in use: choose another with --port N (--port 0 picks a free one)`, options);
    this.name = 'PortInUseError';
  }
}

const HOST = '127.0.0.1';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/**
 * The viewer page: dist/viewer/ as the build wrote it when this module runs compiled, else bundled
 * now from viewer/ with esbuild (a development dependency, present wherever the sources are run).
 */
export async function loadPageAssets(): Promise<PageAssets> {
  const folder = new URL('../viewer/', import.meta.url);
  const files = ['index.html', 'style.css', 'viewer.js'];
  const built = await Promise.all(files.map((f) => readRegularFile(fileURLToPath(new URL(f, folder)), DEFAULT_MAX_FILE_BYTES).catch(() => null)));
  if (built.every((b) => b !== null)) {
    return new Map(files.map((f, i) => [f, { body: built[i]!, type: TYPES[f.slice(f.lastIndexOf('.'))] }]));
  }
  const bundler = new URL('../scripts/bundle-viewer.mjs', import.meta.url).href;
  const { bundleViewer } = await import(bundler) as { bundleViewer: () => Promise<Map<string, Uint8Array>> };
  const bundled = await bundleViewer();
  return new Map([...bundled].map(([f, body]) => [f, { body, type: TYPES[f.slice(f.lastIndexOf('.'))] ?? 'application/octet-stream' }]));
}

/**
 * The images a .gltf file's JSON names by a path inside its own folder (gltfUriOutsideFolder), as
 * paths joined to the .gltf's own (as written): the page's GLTFLoader fetches them, the graph's
 * loader does not. data: and other URLs, and paths leading out of the folder, are left out.
 */
export function gltfImages(gltfPath: string, json: unknown): string[] {
  const out: string[] = [];
  const list = typeof json === 'object' && json !== null ? (json as Record<string, unknown>).images : undefined;
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    const uri = typeof item === 'object' && item !== null ? (item as { uri?: unknown }).uri : undefined;
    if (typeof uri !== 'string' || gltfUriOutsideFolder(uri) !== undefined) continue;
    out.push(joinPath(dirnamePath(gltfPath), decodeGltfUri(uri)));
  }
  return out;
}

type GraphRead = { source: string; asset: unknown } | { source: string; problems: { path: string; code: string; message: string }[] };

export async function startViewServer(graphFile: string, options: ViewServerOptions = {}): Promise<ViewServer> {
  const graphPath = resolve(graphFile);
  const graphDir = dirname(graphPath);
  const source = basename(graphPath);
  const assets = options.assets ?? await loadPageAssets();
  const streams = new Set<ServerResponse>();
  let port = options.port ?? 0;

  /** The graph as last loaded, and the files the page may fetch: by normalised asset path, the file on disk. */
  let loaded: { read: GraphRead; files: Map<string, string> } | undefined;
  let loads = 0;

  const problem = (code: string, message: string): GraphRead => ({ source, problems: [{ path: '$', code, message }] });

  /**
   * Loads the graph as loadGraphFile does (the same reads, the same limits), recording what it
   * read. A graph that does not load gives its problems and no files.
   */
  async function loadGraph(): Promise<{ read: GraphRead; files: Map<string, string> }> {
    const files = new Map<string, string>();
    let text: string;
    try {
      text = (await readRegularFile(graphPath, DEFAULT_MAX_GRAPH_BYTES, 'maxGraphBytes')).toString('utf8');
    } catch (e) {
      return { read: problem('file', `cannot read graph file: ${(e as Error).message}`), files };
    }
    // The loader's parse (a byte-order mark skipped); the page loads the parsed object, whose
    // repeated keys are gone, so they are reported here.
    const parsed = parseGraphText(text);
    if ('problems' in parsed) return { read: { source, problems: parsed.problems }, files };
    if (parsed.repeated.length > 0) return { read: { source, problems: parsed.repeated }, files };
    const reads: FileRead[] = [];
    const gltfTexts = new Map<string, Uint8Array>();
    const disk = fileResolver(graphDir, { onRead: (read) => reads.push(read) });
    const resolveSync = (path: string) => {
      const bytes = disk(path);
      if (/\.gltf$/i.test(path)) gltfTexts.set(path, bytes);
      return bytes;
    };
    const result = checkGraphAsset(parsed.json, { baseDir: graphDir, source, resolveSync });
    if (!result.ok) return { read: { source, problems: [...result.problems] }, files };
    for (const { path, file } of reads) files.set(normalizePath(path), file);
    for (const [path, bytes] of gltfTexts) {
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        continue; // a binary glTF named .gltf: its images are inside it
      }
      for (const image of gltfImages(path, json)) files.set(normalizePath(image), resolve(graphDir, image));
    }
    return { read: { source, asset: parsed.json }, files };
  }

  /** Loads the graph afresh, keeping the result unless a later load has finished first. */
  async function reload(): Promise<{ read: GraphRead; files: Map<string, string> }> {
    const load = ++loads;
    const result = await loadGraph();
    if (load === loads) loaded = result;
    return result;
  }

  const send = (res: ServerResponse, status: number, body: string | Uint8Array, type = 'text/plain; charset=utf-8') => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(body);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Only this machine's pages by their own address: a page elsewhere that rebinds its DNS name
    // to 127.0.0.1 would otherwise read the graph's files through the visitor's browser.
    const host = req.headers.host ?? '';
    if (host !== `${HOST}:${port}` && host !== `localhost:${port}`) return send(res, 403, 'forbidden host\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n');
    const url = new URL(req.url ?? '/', `http://${HOST}`);
    const path = url.pathname;
    if (path === '/' || path === '/index.html') {
      const page = assets.get('index.html')!;
      return send(res, 200, page.body, page.type);
    }
    if (path === '/api/graph') return send(res, 200, JSON.stringify((await reload()).read), 'application/json; charset=utf-8');
    if (path === '/api/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write('retry: 1000\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    if (path === '/file') {
      const wanted = url.searchParams.get('path');
      if (wanted === null || wanted === '') return send(res, 400, 'needs ?path=\n');
      const file = (loaded ?? await reload()).files.get(normalizePath(wanted));
      if (file === undefined) return send(res, 403, `not a file the graph read (or the graph did not load): ${wanted}\n`);
      try {
        return send(res, 200, await readRegularFile(file, DEFAULT_MAX_FILE_BYTES), 'application/octet-stream');
      } catch (e) {
        return send(res, 404, `cannot read ${wanted}: ${e instanceof FileReadError ? e.message : (e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      }
    }
    const asset = assets.get(path.slice(1));
    if (asset && path !== '/index.html') return send(res, 200, asset.body, asset.type);
    return send(res, 404, 'not found\n');
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, `${(e as Error).message}\n`);
      else res.destroy();
    });
  });

  await new Promise<void>((resolveListen, reject) => {
    const failed = (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new PortInUseError(port, { cause: e }) : e);
    server.once('error', failed);
    server.listen(port, HOST, () => {
      server.off('error', failed);
      resolveListen();
    });
  });
  port = (server.address() as AddressInfo).port;

  // The folder is watched, not the file: editors save by writing a new file and renaming it over
  // the old one, which ends a watch on the file itself. Several events per save arrive at once.
  let pending: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(graphDir, (_event, name) => {
      if (name !== null && name !== source) return;
      loaded = undefined; // the next request for a file loads the graph again
      clearTimeout(pending);
      pending = setTimeout(() => {
        for (const res of streams) res.write(`event: change\ndata: ${JSON.stringify({ source })}\n\n`);
      }, 50);
    });
  } catch { /* no folder: the page shows the read error; nothing to watch */ }
  // Proxies and browsers drop an event stream that stays silent; a comment line keeps it open.
  const keepAlive = setInterval(() => { for (const res of streams) res.write(': keep-alive\n\n'); }, 15000);
  keepAlive.unref();

  return {
    url: `http://${HOST}:${port}/`,
    port,
    close: () => new Promise<void>((resolveClose) => {
      clearTimeout(pending);
      clearInterval(keepAlive);
      watcher?.close();
      for (const res of streams) res.end();
      streams.clear();
      server.close(() => resolveClose());
      server.closeAllConnections();
    }),
  };
}
