/**
 * The HTTP server behind `animgraph edit`, on the rules of a local page server (local-server.ts:
 * 127.0.0.1 only, the Host check, only the files the graph's last load read), serving
 *   GET /                  the editor page (bundled at build time into dist/editor/, or by esbuild
 *                          when running from the TypeScript sources), its script chunks and style;
 *                          `nodes.js` and `animgraph.js` are the page's own `animgraph/nodes` and
 *                          `animgraph`, which the page's import map names
 *   GET /api/graph         the graph file: { source, text, asset, problems, nodes } where `asset`
 *                          is the parsed JSON (absent when the file cannot be read or is not JSON),
 *                          `problems` those of the text alone (the page runs the loader itself)
 *                          and `nodes` whether --nodes gave a module of custom node types
 *   GET /nodes-config.mjs  that module, as written (only with --nodes)
 *   GET /file?path=P       a file the graph's last load read, as `view` serves them
 *   GET /api/events        Server-Sent Events: `change` when the graph file changes
 *   POST /api/save         { text, base }: writes `text` to the graph file the server was started
 *                          with, and to no other file (see save below)
 * and nothing else (404; 405 for another method).
 */
import { realpathSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename } from 'node:path';
import type { NodeRegistry } from '../graphs/loader.ts';
import { DEFAULT_MAX_GRAPH_BYTES, readRegularFile } from '../host/read-file.ts';
import { OutputError } from './common.ts';
import { loadPage, send, startLocalServer, type LocalServer, type PageAssets } from './local-server.ts';
import { writeOutputFile } from './output-file.ts';

export interface EditServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The page's files; default: loadEditorAssets(). */
  assets?: PageAssets;
  /** Custom node types: the registry the server loads the graph with, and the module the page imports. */
  nodes?: { registry: NodeRegistry; moduleFile: string };
}

export interface EditServer {
  readonly url: string;
  readonly port: number;
  /** Stops watching, ends the event streams and closes the server. */
  close(): Promise<void>;
}

/** The files a built editor page has besides its chunks. */
export const EDITOR_PAGE_FILES = ['index.html', 'style.css', 'editor.js', 'nodes.js', 'animgraph.js'];

/**
 * The editor page: dist/editor/ as the build wrote it when this module runs compiled, else bundled
 * now from editor/page/ with esbuild (a development dependency, present wherever the sources are run).
 */
export function loadEditorAssets(): Promise<PageAssets> {
  return loadPage('editor', EDITOR_PAGE_FILES, 'bundle-editor.mjs', 'bundleEditor');
}

/** A save refused: the status and the reason the page shows. */
class Refused extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Refused(413, `the graph is larger than the loader's limit of ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startEditServer(graphFile: string, options: EditServerOptions = {}): Promise<EditServer> {
  const assets = options.assets ?? await loadEditorAssets();
  const nodes = options.nodes;
  // The file saves go to: the graph file's real path when the server starts, fixed from then on.
  let target: string;
  try {
    target = realpathSync(graphFile);
  } catch {
    target = graphFile;
  }

  /**
   * Writes `text` to the graph file. Refused: a request from another page (an Origin not this
   * server's, or a body that is not application/json: a form on another site cannot send one, and
   * a script there is stopped by the browser's preflight, which this server never answers), text
   * that is not JSON, a graph file that now names another file (replaced by a link) or is no
   * regular file, and a file changed on disk since the page read it (`base`, unless `force`).
   * Written through OutputFile: a temporary beside the file, renamed over it.
   */
  async function save(req: IncomingMessage, server: LocalServer): Promise<{ text: string }> {
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://127.0.0.1:${server.port}` && origin !== `http://localhost:${server.port}`) {
      throw new Refused(403, `a save from another page (${origin}) is refused`);
    }
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) throw new Refused(415, 'a save is sent as application/json');
    const body = await readBody(req, DEFAULT_MAX_GRAPH_BYTES * 2 + 1024);
    let request: { text?: unknown; base?: unknown; force?: unknown };
    try {
      request = JSON.parse(body) as typeof request;
    } catch (e) {
      throw new Refused(400, `the request is not JSON: ${(e as Error).message}`);
    }
    const { text, base } = request;
    if (typeof text !== 'string') throw new Refused(400, 'the request has no text');
    if (Buffer.byteLength(text) > DEFAULT_MAX_GRAPH_BYTES) throw new Refused(413, `the graph is larger than the loader's limit of ${DEFAULT_MAX_GRAPH_BYTES} bytes`);
    try {
      JSON.parse(text);
    } catch (e) {
      throw new Refused(400, `the text to save is not JSON: ${(e as Error).message}`);
    }
    let now: string | undefined;
    try {
      now = realpathSync(server.graphPath);
    } catch { /* gone: written anew at the same place */ }
    if (now !== undefined && now !== target) throw new Refused(409, `${basename(server.graphPath)} now names ${now}, not the file the editor opened (${target}): not saved`);
    let current: string | undefined;
    try {
      if (!statSync(target).isFile()) throw new Refused(409, `${target} is not a regular file: not saved`);
      current = (await readRegularFile(target, DEFAULT_MAX_GRAPH_BYTES, 'maxGraphBytes')).toString('utf8');
    } catch (e) {
      if (e instanceof Refused) throw e;
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new Refused(409, `cannot read ${target} before saving: ${(e as Error).message}`);
    }
    if (request.force !== true && typeof base === 'string' && current !== undefined && current !== base) {
      throw new Refused(409, `${basename(server.graphPath)} changed on disk since the editor read it: not saved (reload it, or save again to overwrite)`);
    }
    try {
      writeOutputFile(target, text);
    } catch (e) {
      throw new Refused(500, e instanceof OutputError ? `cannot write ${e.file}: ${e.reason}` : (e as Error).message);
    }
    await server.reload(); // what the page may fetch follows the file as saved
    return { text };
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL, server: LocalServer): Promise<boolean> {
    const get = req.method === 'GET' || req.method === 'HEAD';
    if (url.pathname === '/api/save') {
      if (req.method !== 'POST') {
        send(res, 405, 'method not allowed\n');
        return true;
      }
      try {
        const saved = await save(req, server);
        send(res, 200, JSON.stringify({ ok: true, bytes: Buffer.byteLength(saved.text) }), 'application/json; charset=utf-8');
      } catch (e) {
        if (!(e instanceof Refused)) throw e;
        send(res, e.status, JSON.stringify({ ok: false, reason: e.message }), 'application/json; charset=utf-8');
      }
      return true;
    }
    if (get && url.pathname === '/nodes-config.mjs' && nodes) {
      send(res, 200, await readRegularFile(nodes.moduleFile, DEFAULT_MAX_GRAPH_BYTES), 'text/javascript; charset=utf-8');
      return true;
    }
    return false;
  }

  return startLocalServer(graphFile, {
    port: options.port,
    assets,
    nodeTypes: nodes?.registry,
    describeText: true,
    describe: (load) => ({
      source: load.source,
      text: load.text,
      asset: load.json,
      problems: load.textProblems,
      nodes: nodes !== undefined,
    }),
    route,
  });
}
