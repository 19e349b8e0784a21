/**
 * The `animgraph edit` server without a browser: what it serves (the view server's rules), what a
 * save writes and everything it refuses to write, the --nodes module, and the command's exit codes.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGraphAsset } from '../../graphs/loader.ts';
import { main, type Io } from '../../cli/main.ts';
import { loadNodesModule, moduleImports } from '../../cli/edit.ts';
import { startEditServer, type EditServer } from '../../cli/edit-server.ts';
import type { PageAssets } from '../../cli/local-server.ts';
import { exitedOrHung } from '../support/hang.ts';
import { cliArgs } from '../support/compiled-sources.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = join(root, 'tests/editor/fixtures/custom-nodes.mjs');

function memoryIo(): Io & { outText: () => string; errText: () => string } {
  let out = '', err = '';
  return { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false, outText: () => out, errText: () => err };
}

/** A request with the headers as given (fetch sets Origin and Host itself). */
function raw(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const assets: PageAssets = new Map([
  ['index.html', { body: Buffer.from('<!doctype html><title>t</title>'), type: 'text/html; charset=utf-8' }],
  ['editor.js', { body: Buffer.from('// page'), type: 'text/javascript; charset=utf-8' }],
]);

const BVH = 'HIERARCHY\nROOT pelvis\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xposition Yposition Zposition\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0\n1 1 1\n';
const GRAPH_TEXT = `{
  "format": "animgraph/1",
  "skeleton": { "bvh": "../data/walk.bvh" },
  "clips": { "walk": { "source": "../data/walk.bvh" } },
  "nodes": {
    "walk": { "type": "SequencePlayer", "properties": { "clip": "walk" } }
  },
  "output": "walk"
}
`;

/** project/graphs/walk.json (GRAPH_TEXT), project/graphs/other.json, project/data/walk.bvh, project/data/secret.txt. */
function project(text = GRAPH_TEXT): { dir: string; graph: string; other: string } {
  const dir = mkdtempSync(join(tmpdir(), 'animgraph-edit-'));
  mkdirSync(join(dir, 'graphs'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'walk.bvh'), BVH);
  writeFileSync(join(dir, 'data', 'secret.txt'), 'secret\n');
  const other = join(dir, 'graphs', 'other.json');
  writeFileSync(other, '{"other": true}\n');
  const graph = join(dir, 'graphs', 'walk.json');
  writeFileSync(graph, text);
  return { dir, graph, other };
}

describe('animgraph edit server', () => {
  let server: EditServer;
  let graph: string, other: string, dir: string;
  const save = (body: unknown, headers: Record<string, string> = {}) => raw(server.port, '/api/save', {
    method: 'POST', headers: { host: `127.0.0.1:${server.port}`, 'content-type': 'application/json', origin: `http://127.0.0.1:${server.port}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

  beforeAll(async () => {
    ({ dir, graph, other } = project());
    server = await startEditServer(graph, { port: 0, assets });
  });
  afterAll(() => server.close());

  it('serves the page and the graph: its text as read, the parsed asset, and the files the graph reads only', async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    expect((await fetch(server.url)).headers.get('content-type')).toMatch(/^text\/html/);
    expect(await (await fetch(`${server.url}editor.js`)).text()).toBe('// page');
    const info = await (await fetch(`${server.url}api/graph`)).json();
    expect(info).toEqual({ source: 'walk.json', text: GRAPH_TEXT, asset: JSON.parse(GRAPH_TEXT), problems: [], nodes: false });
    expect(await (await fetch(`${server.url}file?path=${encodeURIComponent('../data/walk.bvh')}`)).text()).toBe(BVH);
    for (const path of ['../data/secret.txt', 'other.json', 'walk.json', '/etc/passwd', '../graphs/../data/secret.txt']) {
      expect((await fetch(`${server.url}file?path=${encodeURIComponent(path)}`)).status, path).toBe(403);
    }
    for (const path of ['/../data/secret.txt', '/walk.json', '/nodes-config.mjs', '/package.json']) expect((await raw(server.port, path, { headers: { host: `127.0.0.1:${server.port}` } })).status, path).toBe(404);
    expect((await raw(server.port, '/api/graph', { headers: { host: `evil.example:${server.port}` } })).status).toBe(403);
    expect((await raw(server.port, '/api/save', { method: 'POST', headers: { host: `evil.example:${server.port}`, 'content-type': 'application/json' }, body: '{}' })).status).toBe(403);
    expect((await raw(server.port, '/api/save', { headers: { host: `127.0.0.1:${server.port}` } })).status).toBe(405);
    expect((await raw(server.port, '/api/graph', { method: 'POST', headers: { host: `127.0.0.1:${server.port}` } })).status).toBe(405);
  });

  it('saves the text to the graph file through a temporary renamed over it, keeping its mode; the next load serves what it reads', async () => {
    chmodSync(graph, 0o640);
    const edited = GRAPH_TEXT.replace('"output": "walk"', '"output": "walk",\n  "description": "saved"');
    const res = await save({ text: edited, base: GRAPH_TEXT });
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: true, bytes: Buffer.byteLength(edited) });
    expect(readFileSync(graph, 'utf8')).toBe(edited);
    expect(statSync(graph).mode & 0o777).toBe(0o640);
    expect(readdirSync(join(dir, 'graphs')).sort()).toEqual(['other.json', 'walk.json']); // no temporary left
    expect(readFileSync(other, 'utf8')).toBe('{"other": true}\n');
    expect((await (await fetch(`${server.url}api/graph`)).json()).text).toBe(edited);
    writeFileSync(graph, GRAPH_TEXT);
  });

  it('writes no other file, whatever the request says, and refuses a save from another page or of text that is not JSON', async () => {
    const before = readFileSync(graph, 'utf8');
    const refusals: [unknown, Record<string, string>, number, RegExp][] = [
      [{ text: '{"x":1}', base: before }, { origin: 'http://evil.example' }, 403, /from another page/],
      [{ text: '{"x":1}', base: before }, { origin: `http://127.0.0.1:${server.port + 1}` }, 403, /from another page/],
      [{ text: '{"x":1}', base: before }, { 'content-type': 'text/plain' }, 415, /application\/json/],
      [{ text: '{"x":1}', base: before }, { 'content-type': 'application/x-www-form-urlencoded' }, 415, /application\/json/],
      [{ text: '{"x": ', base: before }, {}, 400, /not JSON/],
      [{ base: before }, {}, 400, /no text/],
      ['not json', {}, 400, /request is not JSON/],
      // The file changed on disk since the page read it.
      [{ text: '{"x":1}', base: '{"older": true}' }, {}, 409, /changed on disk since the editor read it/],
    ];
    for (const [body, headers, status, reason] of refusals) {
      const res = await save(body, headers);
      expect(res.status, JSON.stringify([body, headers])).toBe(status);
      expect(JSON.parse(res.body).reason).toMatch(reason);
    }
    // A path in the request is no file to write: the graph's is written, and nothing else.
    const path = await raw(server.port, `/api/save?path=${encodeURIComponent('../data/secret.txt')}`, {
      method: 'POST', headers: { host: `127.0.0.1:${server.port}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: before, base: before, path: other, file: other }),
    });
    expect(path.status).toBe(200);
    expect(readFileSync(graph, 'utf8')).toBe(before);
    expect(readFileSync(other, 'utf8')).toBe('{"other": true}\n');
    expect(readFileSync(join(dir, 'data', 'secret.txt'), 'utf8')).toBe('secret\n');
  });

  it('refuses to save once the graph file names another file (replaced by a link to it); saves again once it is the same file', async () => {
    const before = readFileSync(graph, 'utf8');
    unlinkSync(graph);
    symlinkSync(other, graph);
    const res = await save({ text: '{"overwritten": true}', base: '{"other": true}\n' });
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body).reason).toBe(`walk.json now names ${other}, not the file the editor opened (${graph}): not saved`);
    expect(readFileSync(other, 'utf8')).toBe('{"other": true}\n');
    unlinkSync(graph);
    // Deleted meanwhile: written anew at its place.
    expect((await save({ text: before, base: before })).status).toBe(200);
    expect(readFileSync(graph, 'utf8')).toBe(before);
  });

  it('gives the parsed asset of a graph with problems (the page edits it), and of a graph that is not JSON, the problem only', async () => {
    const broken = GRAPH_TEXT.replace('"clip": "walk"', '"clip": "jog"');
    writeFileSync(graph, broken);
    const info = await (await fetch(`${server.url}api/graph`)).json();
    expect(info).toMatchObject({ text: broken, asset: JSON.parse(broken), problems: [] });
    expect(checkGraphAsset(info.asset).ok).toBe(false);
    // A graph that does not load reads nothing the page may fetch.
    expect((await fetch(`${server.url}file?path=${encodeURIComponent('../data/walk.bvh')}`)).status).toBe(403);
    writeFileSync(graph, '{ "format": ');
    const notJson = await (await fetch(`${server.url}api/graph`)).json();
    expect(notJson.asset).toBeUndefined();
    expect(notJson.problems).toEqual([expect.objectContaining({ path: '$', code: 'schema', message: expect.stringMatching(/^not valid JSON: /) })]);
    writeFileSync(graph, GRAPH_TEXT);
  });
});

describe('--nodes: a module of custom node types', () => {
  it('lists the imports a module makes, and refuses one importing anything but animgraph and animgraph/nodes, before running it', async () => {
    expect(moduleImports(readFileSync(FIXTURE, 'utf8'))).toEqual(['animgraph/nodes']);
    expect(moduleImports("import a from './a.js';\nexport * from \"../b.mjs\";\nimport 'side';\nconst c = await import('node:fs');\nimport { x } from 'animgraph';"))
      .toEqual(['./a.js', '../b.mjs', 'side', 'node:fs', 'animgraph']);
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-nodes-'));
    const module = join(dir, 'nodes.mjs');
    writeFileSync(module, "import { helper } from './helper.mjs';\nthrow new Error('ran');\n");
    await expect(loadNodesModule(module)).rejects.toThrow(`--nodes ${module} imports './helper.mjs': the page loads the module by itself, with only 'animgraph' and 'animgraph/nodes' beside it; bundle the module and what it imports into one file`);
  });

  it('exits 2 on a module without nodeTypes, with a type the registry refuses, or meta that does not match its type', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-nodes-'));
    const { graph } = project();
    const cases: [string, RegExp][] = [
      ['export const types = [];', /exports no 'nodeTypes' list/],
      // Plain node type objects: vitest's module runner, which imports the module here, resolves no
      // animgraph/nodes (the command's hook does, in a process of its own: the test below).
      ["export const nodeTypes = [{ type: 'BlendTwo', space: 'local', properties: {}, inputs: [], create: () => null }];", /names the built-in type registered already/],
      [`export const nodeTypes = [{ type: 'Mine', space: 'local', properties: {}, inputs: [{ name: 'pose', kind: 'pose', space: 'local' }], create: () => null }];
export const editorMeta = [{ type: 'Mine', title: 'Mine', category: 'Blends', description: '', pins: {}, properties: {} }];`, /the editorMeta of 'Mine' does not match it: Mine: input 'pose' has no docs/],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      const module = join(dir, `m${i}.mjs`);
      writeFileSync(module, text);
      const io = memoryIo();
      expect(await main(['edit', graph, '--nodes', module, '--port', '0'], io), text).toBe(2);
      expect(io.errText()).toMatch(message);
    }
  });

  it('loads the module with the command\'s own animgraph/nodes: the server loads a graph that uses its type and serves the module to the page', async () => {
    const { graph } = project(GRAPH_TEXT.replace('"output": "walk"', '"output": "pass"').replace('"nodes": {', '"nodes": {\n    "pass": { "type": "Passthrough", "inputs": { "pose": "walk" }, "properties": { "gain": 1.5 } },'));
    const child = spawn(process.execPath, cliArgs(['edit', graph, '--nodes', FIXTURE, '--port', '0']),
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 60000;
      while (!/http:\/\/127\.0\.0\.1:\d+\//.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no URL printed; stdout: ${out} stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const url = out.match(/http:\/\/127\.0\.0\.1:\d+\//)![0];
      expect(out).toBe(`animgraph edit: ${graph} at ${url} (Ctrl-C to stop)\n`);
      const info = await (await fetch(`${url}api/graph`)).json();
      expect(info).toMatchObject({ nodes: true, problems: [] });
      // Served only once the graph loaded, which it does with the module's type registered.
      expect((await fetch(`${url}file?path=${encodeURIComponent('../data/walk.bvh')}`)).status).toBe(200);
      expect(await (await fetch(`${url}nodes-config.mjs`)).text()).toBe(readFileSync(FIXTURE, 'utf8'));
    } finally {
      child.kill('SIGTERM');
    }
    // The first SIGTERM stops it: a bound that only a hang would pass, however busy the machine.
    const stopped = await exitedOrHung(exited);
    if (stopped === 'hung') child.kill('SIGKILL');
    expect(stopped, out + err).toBe(0);
  });
});

describe('animgraph edit command', () => {
  it('exits 2 on a bad --port, a repeated option or a missing GRAPH, 1 on a graph file that does not exist', async () => {
    const { graph } = project();
    for (const args of [['--port', 'x'], ['--port', '65536'], ['--port', '1', '--port', '2'], ['--bogus']]) {
      const io = memoryIo();
      expect(await main(['edit', graph, ...args], io), args.join(' ')).toBe(2);
    }
    expect(await main(['edit'], memoryIo())).toBe(2);
    const missing = memoryIo();
    expect(await main(['edit', join(tmpdir(), 'no-such-graph.json')], missing)).toBe(1);
    expect(missing.errText()).toMatch(/^animgraph edit: cannot read graph file .*no-such-graph\.json: no such file\n$/);
  });

  it('is in the usage text', async () => {
    const io = memoryIo();
    expect(await main(['help'], io)).toBe(0);
    expect(io.outText()).toContain('animgraph edit GRAPH [--port N] [--nodes MODULE]');
  });
});
