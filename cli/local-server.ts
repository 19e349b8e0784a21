/**
 * What the servers of `animgraph view` and `animgraph edit` share: the rules of a local page server.
 *  - It listens on 127.0.0.1 only, and answers only requests addressed to 127.0.0.1 or localhost
 *    on its port (the Host check: a page elsewhere that rebinds its DNS name to 127.0.0.1 would
 *    otherwise read the graph's files through the visitor's browser).
 *  - It serves the page's own files (bundled at build time, or by esbuild when running from the
 *    TypeScript sources: never from a CDN), and of the disk only the files the graph's last load
 *    read: GET /file?path=P, P as written in the asset (relative to the graph's folder); anything
 *    else, and everything while the graph does not load, is refused with 403, whatever `..` it holds.
 *  - GET /api/graph loads the graph file afresh (as loadGraphFile loads it, recording what it
 *    reads) and answers what the caller's `describe` makes of the load; GET /api/events is a stream
 *    of Server-Sent Events, `change` when the graph file changes.
 *  - Everything else is the caller's `route`, then 404; a method other than GET or HEAD that no
 *    route takes is 405.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { parseGraphText } from '../graphs/loader/json-text.ts';
import { dirnamePath, joinPath, normalizePath } from '../graphs/loader/paths.ts';
import type { NodeRegistry } from '../graphs/loader.ts';
import { decodeGltfUri, gltfUriOutsideFolder } from '../runtime/import/gltf.ts';
import { checkGraphAsset, fileResolver, type FileRead } from '../host/files.ts';
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_GRAPH_BYTES, FileReadError, readRegularFile } from '../host/read-file.ts';
import { parseDecimal } from '../runtime/node/parameters.ts';
import { repeatedOption } from './common.ts';
import type { Io } from './io.ts';

export const HOST = '127.0.0.1';

/** A page's files by URL path (without the leading slash). */
export type PageAssets = ReadonlyMap<string, { body: Uint8Array; type: string }>;

/** The port is taken by another process (code `io`): `animgraph view` and `edit` exit 2 with this message. */
export class PortInUseError extends AnimGraphError {
  constructor(readonly port: number, options?: ErrorOptions) {
    super('io', `port ${port} on 127.0.0.1 is in use: choose another with --port N (--port 0 picks a free one)`, options);
    this.name = 'PortInUseError';
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export function contentType(file: string): string {
  return TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';
}

/**
 * A page: dist/<folder>/ as the build wrote it when this module runs compiled (every file there,
 * the page's chunks included), else bundled now from the sources with esbuild (a development
 * dependency, present wherever the sources are run) by `bundler`'s `bundle` export.
 */
export async function loadPage(folder: string, required: readonly string[], bundler: string, bundle: string): Promise<PageAssets> {
  const dir = fileURLToPath(new URL(`../${folder}/`, import.meta.url));
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((f) => /\.(html|js|css|map)$/.test(f));
  } catch { /* running from the sources: no dist/ folder here */ }
  if (required.every((f) => names.includes(f))) {
    const bodies = await Promise.all(names.map((f) => readRegularFile(join(dir, f), DEFAULT_MAX_FILE_BYTES).catch(() => null)));
    if (bodies.every((b) => b !== null)) return new Map(names.map((f, i) => [f, { body: bodies[i]!, type: contentType(f) }]));
  }
  const module = await import(new URL(`../scripts/${bundler}`, import.meta.url).href) as Record<string, () => Promise<Map<string, Uint8Array>>>;
  const bundled = await module[bundle]();
  return new Map([...bundled].map(([f, body]) => [f, { body, type: contentType(f) }]));
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

export interface Problem { path: string; code: string; message: string }

/**
 * One load of the graph file: its text and parsed JSON when it has them, the problems (of the
 * text, or of the loader when the JSON does not load), and the files the load read, by normalised
 * asset path: none unless the graph loaded.
 */
export interface GraphLoad {
  source: string;
  text?: string;
  json?: unknown;
  /** Problems of the text alone (unreadable, not JSON, a key repeated): the page's loader cannot see these. */
  textProblems: Problem[];
  /** Every problem: the text's, else the loader's. */
  problems: Problem[];
  loaded: boolean;
  files: Map<string, string>;
}

/**
 * Reads and parses the graph file, as the loader parses it (a byte-order mark skipped): a load
 * that has read nothing else yet (`loaded` false, no files), with the problems of the text.
 */
export async function readGraphText(graphPath: string): Promise<GraphLoad> {
  const source = basename(graphPath);
  const failed = (problems: Problem[], extra: Partial<GraphLoad> = {}): GraphLoad => ({ source, textProblems: problems, problems, loaded: false, files: new Map(), ...extra });
  let text: string;
  try {
    text = (await readRegularFile(graphPath, DEFAULT_MAX_GRAPH_BYTES, 'maxGraphBytes')).toString('utf8');
  } catch (e) {
    return failed([{ path: '$', code: 'file', message: `cannot read graph file: ${(e as Error).message}` }]);
  }
  // The page loads the parsed object, whose repeated keys are gone, so they are reported here.
  const parsed = parseGraphText(text);
  if ('problems' in parsed) return failed(parsed.problems, { text });
  if (parsed.repeated.length > 0) return failed(parsed.repeated, { text, json: parsed.json });
  return { source, text, json: parsed.json, textProblems: [], problems: [], loaded: false, files: new Map() };
}

/** Loads the graph file as loadGraphFile does (the same reads, the same limits), recording what it read. */
export async function loadGraphFiles(graphPath: string, nodeTypes?: NodeRegistry): Promise<GraphLoad> {
  const graphDir = dirname(graphPath);
  const source = basename(graphPath);
  const read = await readGraphText(graphPath);
  if (read.text === undefined || read.textProblems.length > 0) return read;
  const { text, json } = read;
  const files = read.files;
  const parsed = { json };
  const reads: FileRead[] = [];
  const gltfTexts = new Map<string, Uint8Array>();
  const disk = fileResolver(graphDir, { onRead: (read) => reads.push(read) });
  const resolveSync = (path: string) => {
    const bytes = disk(path);
    if (/\.gltf$/i.test(path)) gltfTexts.set(path, bytes);
    return bytes;
  };
  const result = checkGraphAsset(parsed.json, { baseDir: graphDir, source, resolveSync, nodeTypes });
  if (!result.ok) return { source, text, json: parsed.json, textProblems: [], problems: [...result.problems], loaded: false, files };
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
  return { source, text, json: parsed.json, textProblems: [], problems: [], loaded: true, files };
}

export function send(res: ServerResponse, status: number, body: string | Uint8Array, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
}

export interface LocalServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  assets: PageAssets;
  /** The node types the graph is loaded with (default the built-in ones). */
  nodeTypes?: NodeRegistry;
  /** What GET /api/graph answers for a load (as JSON). */
  describe: (load: GraphLoad) => unknown;
  /**
   * Answer GET /api/graph from the text alone (readGraphText), loading the graph meanwhile for
   * /file: for a page that runs the loader itself and wants the graph before its files are read.
   */
  describeText?: boolean;
  /** Routes of the caller's own, asked before the 404: true when it answered. */
  route?: (req: IncomingMessage, res: ServerResponse, url: URL, server: LocalServer) => Promise<boolean> | boolean;
}

export interface LocalServer {
  readonly url: string;
  readonly port: number;
  /** The graph's folder and file, resolved. */
  readonly graphPath: string;
  /** Loads the graph afresh; what /file serves follows this load. */
  reload(): Promise<GraphLoad>;
  /** Stops watching, ends the event streams and closes the server. */
  close(): Promise<void>;
}

export async function startLocalServer(graphFile: string, options: LocalServerOptions): Promise<LocalServer> {
  const graphPath = resolve(graphFile);
  const graphDir = dirname(graphPath);
  const source = basename(graphPath);
  const { assets } = options;
  const streams = new Set<ServerResponse>();
  let port = options.port ?? 0;

  /** The graph as last loaded, with the files the page may fetch: by normalised asset path, the file on disk. */
  let loaded: GraphLoad | undefined;
  /** The load under way, which /file waits for. */
  let loading: Promise<GraphLoad> | undefined;
  let loads = 0;

  /** Loads the graph afresh, keeping the result unless a later load has started since. */
  function reload(): Promise<GraphLoad> {
    const load = ++loads;
    const pending = loadGraphFiles(graphPath, options.nodeTypes).then((result) => {
      if (load === loads) {
        loaded = result;
        loading = undefined;
      }
      return result;
    });
    loading = pending;
    return pending;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host ?? '';
    if (host !== `${HOST}:${port}` && host !== `localhost:${port}`) return send(res, 403, 'forbidden host\n');
    const url = new URL(req.url ?? '/', `http://${HOST}`);
    const path = url.pathname;
    const get = req.method === 'GET' || req.method === 'HEAD';
    if (get && (path === '/' || path === '/index.html')) {
      const page = assets.get('index.html')!;
      return send(res, 200, page.body, page.type);
    }
    if (get && path === '/api/graph') {
      let load: GraphLoad;
      if (options.describeText) {
        void reload().catch(() => {});
        load = await readGraphText(graphPath);
      } else load = await reload();
      return send(res, 200, JSON.stringify(options.describe(load)), 'application/json; charset=utf-8');
    }
    if (get && path === '/api/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write('retry: 1000\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    if (get && path === '/file') {
      const wanted = url.searchParams.get('path');
      if (wanted === null || wanted === '') return send(res, 400, 'needs ?path=\n');
      const file = (loaded ?? await (loading ?? reload())).files.get(normalizePath(wanted));
      if (file === undefined) return send(res, 403, `not a file the graph read (or the graph did not load): ${wanted}\n`);
      try {
        return send(res, 200, await readRegularFile(file, DEFAULT_MAX_FILE_BYTES), 'application/octet-stream');
      } catch (e) {
        return send(res, 404, `cannot read ${wanted}: ${e instanceof FileReadError ? e.message : (e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      }
    }
    if (options.route && await options.route(req, res, url, self)) return;
    if (!get) return send(res, 405, 'method not allowed\n');
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
      // The next request for a file loads the graph again; a load under way read the file before.
      loaded = undefined;
      loading = undefined;
      loads++;
      clearTimeout(pending);
      pending = setTimeout(() => {
        for (const res of streams) res.write(`event: change\ndata: ${JSON.stringify({ source })}\n\n`);
      }, 50);
    });
  } catch { /* no folder: the page shows the read error; nothing to watch */ }
  // Proxies and browsers drop an event stream that stays silent; a comment line keeps it open.
  const keepAlive = setInterval(() => { for (const res of streams) res.write(': keep-alive\n\n'); }, 15000);
  keepAlive.unref();

  const self: LocalServer = {
    url: `http://${HOST}:${port}/`,
    port,
    graphPath,
    reload,
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
  return self;
}

/**
 * Resolves once `stop` is aborted, or (without one) at the first SIGINT or SIGTERM: the commands
 * serve until then, then close the server and exit 0.
 */
export function untilStopped(stop?: AbortSignal): Promise<void> {
  return new Promise<void>((resolveStop) => {
    if (stop) {
      if (stop.aborted) return resolveStop();
      stop.addEventListener('abort', () => resolveStop(), { once: true });
      return;
    }
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolveStop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/**
 * The arguments of a page command (`view`, `edit`): GRAPH, a regular file, and `--port N` (default
 * `defaultPort`), with the command's other string options in `values`; or the exit code after
 * saying what is wrong on io.err: 2 for bad usage, 1 when GRAPH is not a file.
 */
export function pageCommandArgs<K extends string>(
  command: string, args: readonly string[], io: Io, defaultPort: number, extra: readonly K[] = [],
): { graph: string; port: number; values: Partial<Record<K, string>> } | number {
  const spec: Record<string, { type: 'string' }> = { port: { type: 'string' } };
  for (const name of extra) spec[name] = { type: 'string' };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...args], options: spec, allowPositionals: true, strict: true }));
  } catch (e) {
    io.err(`animgraph ${command}: ${(e as Error).message}\n`);
    return 2;
  }
  const repeated = repeatedOption(args, spec);
  if (repeated !== undefined) {
    io.err(`animgraph ${command}: ${repeated}\n`);
    return 2;
  }
  if (positionals.length !== 1) {
    io.err(`animgraph ${command}: needs exactly one GRAPH file\n`);
    return 2;
  }
  const given = values.port as string | undefined;
  const port = given === undefined ? defaultPort : parseDecimal(given);
  if (given !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    io.err(`animgraph ${command}: --port needs a whole number from 0 to 65535 (0: any free port), got '${given}'\n`);
    return 2;
  }
  const graph = positionals[0];
  let kind = 'no such file';
  try {
    const stat = statSync(graph);
    kind = stat.isFile() ? '' : stat.isDirectory() ? 'it is a directory' : 'not a regular file';
  } catch { /* no such file */ }
  if (kind !== '') {
    io.err(`animgraph ${command}: cannot read graph file ${graph}: ${kind}\n`);
    return 1;
  }
  return { graph, port, values: values as Partial<Record<K, string>> };
}
