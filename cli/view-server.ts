/**
 * The HTTP server behind `animgraph view`: 127.0.0.1 only, serving
 *   GET /                 the viewer page (bundled at build time into dist/viewer/, or by esbuild
 *                         when running from the TypeScript sources: never from a CDN)
 *   GET /viewer.js, /style.css   its script and style
 *   GET /api/graph        the graph file: { source, asset } or { source, problems } when it cannot
 *                         be read or is not JSON (problems the loader finds are the page's to show)
 *   GET /file?path=P      a file the graph references, P as written in the asset (relative to the
 *                         graph's folder): only the files the asset names (skeleton, clip sources,
 *                         pose-search index files, the buffers and images of a .gltf it names);
 *                         anything else is refused with 403, whatever `..` it holds
 *   GET /api/events       Server-Sent Events: `change` when the graph file changes
 * and nothing else (404). The graph runs in the page; the server never evaluates it.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, resolve } from 'node:path';
import { NodeRegistry } from '../graphs/loader.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { parseGraphText } from '../graphs/loader/json-text.ts';
import { dirnamePath, joinPath, normalizePath } from '../graphs/loader/paths.ts';
import { nodeFileValues } from '../graphs/loader/files.ts';

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
  const built = await Promise.all(files.map((f) => readFile(new URL(f, folder)).catch(() => null)));
  if (built.every((b) => b !== null)) {
    return new Map(files.map((f, i) => [f, { body: built[i]!, type: TYPES[f.slice(f.lastIndexOf('.'))] }]));
  }
  const bundler = new URL('../scripts/bundle-viewer.mjs', import.meta.url).href;
  const { bundleViewer } = await import(bundler) as { bundleViewer: () => Promise<Map<string, Uint8Array>> };
  const bundled = await bundleViewer();
  return new Map([...bundled].map(([f, body]) => [f, { body, type: TYPES[f.slice(f.lastIndexOf('.'))] ?? 'application/octet-stream' }]));
}

const BUILT_IN_TYPES = new NodeRegistry();

/**
 * The files an asset references, as written (normalised as the loader normalises them): the
 * skeleton file, every clip source but the built-in ones, and every `file` property of a built-in
 * node type (pose-search index files), state machines' states included (the loader's own walk,
 * nodeFileValues). Reads nothing; see gltfResources for what a .gltf names.
 */
export function referencedFiles(asset: unknown): Set<string> {
  const paths = new Set<string>();
  const add = (p: unknown) => {
    if (typeof p === 'string' && p !== '' && !p.startsWith('builtin:')) paths.add(normalizePath(p));
  };
  if (typeof asset !== 'object' || asset === null) return paths;
  const a = asset as Record<string, unknown>;
  const skeleton = a.skeleton;
  if (typeof skeleton === 'object' && skeleton !== null) {
    for (const key of ['bvh', 'gltf', 'file']) if (Object.hasOwn(skeleton, key)) add((skeleton as Record<string, unknown>)[key]);
  }
  for (const clip of objectValues(a.clips)) if (typeof clip === 'object' && clip !== null && Object.hasOwn(clip, 'source')) add((clip as { source: unknown }).source);
  for (const value of nodeFileValues(a.nodes, BUILT_IN_TYPES)) add(value);
  return paths;
}

function objectValues(value: unknown): unknown[] {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.values(value) : [];
}

/** The external buffers and images a .gltf file's JSON names, as paths joined to the .gltf's own (as written). */
export function gltfResources(gltfPath: string, json: unknown): string[] {
  const out: string[] = [];
  if (typeof json !== 'object' || json === null) return out;
  for (const key of ['buffers', 'images']) {
    const list = (json as Record<string, unknown>)[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const uri = typeof item === 'object' && item !== null ? (item as { uri?: unknown }).uri : undefined;
      if (typeof uri !== 'string' || /^[a-z][a-z0-9+.-]*:/i.test(uri)) continue;
      let decoded = uri;
      try {
        decoded = decodeURIComponent(uri);
      } catch { /* left as written, as the loader does */ }
      out.push(joinPath(dirnamePath(gltfPath), decoded));
    }
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

  async function readGraph(): Promise<GraphRead> {
    let text: string;
    try {
      text = await readFile(graphPath, 'utf8');
    } catch (e) {
      return { source, problems: [{ path: '$', code: 'file', message: `cannot read graph file: ${(e as Error).message}` }] };
    }
    // The loader's parse (a byte-order mark skipped); the page loads the parsed object, whose
    // repeated keys are gone, so they are reported here, before it does.
    const parsed = parseGraphText(text);
    if ('problems' in parsed) return { source, problems: parsed.problems };
    return parsed.repeated.length > 0 ? { source, problems: parsed.repeated } : { source, asset: parsed.json };
  }

  /** Every file the graph may have the page fetch, by normalised path as written: read afresh per request, so an edit adding a clip takes effect. */
  async function allowedFiles(): Promise<Set<string>> {
    const read = await readGraph();
    const allowed = 'asset' in read ? referencedFiles(read.asset) : new Set<string>();
    for (const p of [...allowed]) {
      if (!p.toLowerCase().endsWith('.gltf')) continue;
      try {
        for (const r of gltfResources(p, JSON.parse(await readFile(resolve(graphDir, p), 'utf8')))) allowed.add(r);
      } catch { /* the loader reports an unreadable .gltf */ }
    }
    return allowed;
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
    if (path === '/api/graph') return send(res, 200, JSON.stringify(await readGraph()), 'application/json; charset=utf-8');
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
      const normalised = normalizePath(wanted);
      if (!(await allowedFiles()).has(normalised)) return send(res, 403, `not a file the graph references: ${wanted}\n`);
      const file = resolve(graphDir, normalised);
      try {
        if (!(await stat(file)).isFile()) return send(res, 404, `not a file: ${wanted}\n`);
        return send(res, 200, await readFile(file), 'application/octet-stream');
      } catch (e) {
        return send(res, 404, `cannot read ${wanted}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
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
