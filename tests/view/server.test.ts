/**
 * The `animgraph view` server without a browser: what it serves, what it refuses (anything the
 * graph does not reference, `../` or not), load problems it can see, the change stream, and the
 * command's exit codes.
 */
import { Document, WebIO } from '@gltf-transform/core';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { gltfImages, loadPageAssets, startViewServer, type PageAssets, type ViewServer } from '../../cli/view-server.ts';
import { exitedOrHung } from '../support/hang.ts';
import { cliArgs } from '../support/compiled-sources.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A GET with the path sent as is (fetch and URL would resolve `..` before sending). */
function rawGet(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function memoryIo(): Io & { outText: () => string; errText: () => string } {
  let out = '', err = '';
  return { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false, outText: () => out, errText: () => err };
}

// Tiny page assets: these tests are about the server, not the bundle (one test bundles the real page).
const assets: PageAssets = new Map([
  ['index.html', { body: Buffer.from('<!doctype html><title>t</title>'), type: 'text/html; charset=utf-8' }],
  ['viewer.js', { body: Buffer.from('// page'), type: 'text/javascript; charset=utf-8' }],
  ['style.css', { body: Buffer.from('body{}'), type: 'text/css; charset=utf-8' }],
]);

/** A BVH of one bone (the built-in clips' pelvis) and two frames: a skeleton and a clip. */
const BVH = 'HIERARCHY\nROOT pelvis\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xposition Yposition Zposition\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0\n1 1 1\n';

/**
 * project/
 *   graphs/walk.json     skeleton ../data/walk.bvh, clips ../data/walk.bvh and builtin:idle
 *   graphs/other.json    not referenced
 *   data/walk.bvh        referenced
 *   data/secret.txt      not referenced, beside a referenced file
 */
function project(): { dir: string; graph: string } {
  const dir = mkdtempSync(join(tmpdir(), 'animgraph-view-'));
  mkdirSync(join(dir, 'graphs'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'walk.bvh'), BVH);
  writeFileSync(join(dir, 'data', 'secret.txt'), 'secret\n');
  writeFileSync(join(dir, 'graphs', 'other.json'), '{}');
  const graph = join(dir, 'graphs', 'walk.json');
  writeFileSync(graph, JSON.stringify({
    format: 'animgraph/1', skeleton: { bvh: '../data/walk.bvh' },
    clips: { walk: { source: '../data/walk.bvh' }, idle: { source: 'builtin:idle' } },
    nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'walk',
  }));
  return { dir, graph };
}

/** A .gltf of one joint and a one-second animation, as JSON and its binary buffer. */
async function gltfModel(): Promise<{ json: Record<string, any>; bin: Uint8Array }> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const hips = doc.createNode('hips');
  doc.createScene().addChild(hips);
  doc.createSkin('rig').addJoint(hips);
  const sampler = doc.createAnimationSampler()
    .setInput(doc.createAccessor().setType('SCALAR').setArray(new Float32Array([0, 1])).setBuffer(buffer))
    .setOutput(doc.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 0, 1, 0])).setBuffer(buffer));
  doc.createAnimation('Walk').addSampler(sampler)
    .addChannel(doc.createAnimationChannel().setTargetNode(hips).setTargetPath('translation').setSampler(sampler));
  const { json, resources } = await new WebIO().binaryToJSON(await new WebIO().writeBinary(doc));
  return { json: json as Record<string, any>, bin: Object.values(resources)[0] };
}

function gltfGraph(dir: string, gltf: string): string {
  const graph = join(dir, 'graphs', 'model.json');
  writeFileSync(graph, JSON.stringify({
    format: 'animgraph/1', skeleton: { gltf }, clips: { walk: { source: gltf, animation: 'Walk' } },
    nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'walk',
  }));
  return graph;
}

/** `animgraph ARGS` from the sources in a child process; resolves once it prints its URL. */
async function spawnView(args: string[]): Promise<{ url: string; child: ReturnType<typeof spawn>; exited: Promise<number | null>; output: () => string }> {
  const child = spawn(process.execPath, cliArgs(['view', ...args, '--port', '0']),
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const deadline = Date.now() + 60000;
  while (!/http:\/\/127\.0\.0\.1:\d+\//.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no URL printed; stdout: ${out} stderr: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: out.match(/http:\/\/127\.0\.0\.1:\d+\//)![0], child, exited, output: () => out + err };
}

describe('gltfImages', () => {
  it("lists a .gltf's images next to it, not data:, absolute or escaping URIs", () => {
    expect(gltfImages('../d/m.gltf', {
      buffers: [{ uri: 'm%20data.bin' }],
      images: [{ uri: 'tex/skin%20a.png' }, { uri: 'https://example.com/x.png' }, { uri: 'data:image/png;base64,AA==' }, { uri: '/etc/passwd' },
        { uri: '../../../etc/passwd' }, { uri: 'file:///etc/passwd' }, { uri: 'tex/../face.png' }, { bufferView: 0 }],
    })).toEqual(['../d/tex/skin a.png', '../d/face.png']);
    expect(gltfImages('m.gltf', null)).toEqual([]);
  });
});

describe('animgraph view server', () => {
  let server: ViewServer;
  let dir: string;
  let graph: string;

  beforeAll(async () => {
    ({ dir, graph } = project());
    server = await startViewServer(graph, { port: 0, assets });
  });
  afterAll(() => server.close());

  it('listens on 127.0.0.1 and serves the page, its script and the graph', async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await (await fetch(`${server.url}viewer.js`)).text()).toBe('// page');
    const info = await (await fetch(`${server.url}api/graph`)).json();
    expect(info.source).toBe('walk.json');
    expect(info.asset.skeleton).toEqual({ bvh: '../data/walk.bvh' });
  });

  it('serves a file the graph references, by its path as written', async () => {
    const res = await fetch(`${server.url}file?path=${encodeURIComponent('../data/walk.bvh')}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(BVH);
    // The same file written another way normalises to the same path.
    expect((await fetch(`${server.url}file?path=${encodeURIComponent('../graphs/../data/./walk.bvh')}`)).status).toBe(200);
  });

  it('refuses every file the graph does not reference, however the path is written', async () => {
    for (const path of ['../data/secret.txt', '../data/walk.bvh/../secret.txt', '../../../../../../etc/passwd', '/etc/passwd',
      'other.json', 'walk.json', '../data', '%2e%2e/data/secret.txt', 'builtin:idle']) {
      const res = await fetch(`${server.url}file?path=${encodeURIComponent(path)}`);
      expect(res.status, path).toBe(403);
    }
    expect((await fetch(`${server.url}file`)).status).toBe(400);
  });

  it('serves nothing else: ../ in the URL path, other files of the folder, the sources', async () => {
    for (const path of ['/../data/secret.txt', '/../../etc/passwd', '/%2e%2e/data/secret.txt', '/..%2fdata%2fsecret.txt',
      '/walk.json', '/other.json', '/graphs/walk.json', '/main.ts', '/viewer/main.ts', '/package.json']) {
      const res = await rawGet(server.port, path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain('secret');
    }
  });

  it('answers only requests addressed to 127.0.0.1 or localhost on its port (no DNS rebinding), and only GET', async () => {
    expect((await rawGet(server.port, '/api/graph', { host: 'evil.example:80' })).status).toBe(403);
    expect((await rawGet(server.port, '/api/graph', { host: `evil.example:${server.port}` })).status).toBe(403);
    expect((await rawGet(server.port, '/api/graph', { host: `localhost:${server.port}` })).status).toBe(200);
    expect((await rawGet(server.port, '/api/graph', {}, 'POST')).status).toBe(405);
  });

  it('reports a graph that is not JSON at $ and keeps serving; announces each change of the file on the event stream', async () => {
    const controller = new AbortController();
    const events = await fetch(`${server.url}api/events`, { signal: controller.signal });
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    const reader = events.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    const nextChange = async () => {
      const deadline = Date.now() + 5000;
      while (!received.includes('event: change')) {
        if (Date.now() > deadline) throw new Error(`no change event; stream so far: ${received}`);
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        received += decoder.decode(value);
      }
      const event = received.slice(received.indexOf('event: change'));
      received = '';
      return event;
    };
    // Let the watcher settle, so the write below is seen as a change.
    await new Promise((r) => setTimeout(r, 100));
    const good = JSON.stringify((await (await fetch(`${server.url}api/graph`)).json()).asset);
    writeFileSync(graph, '{ "format": "animgraph/1", ');
    expect(await nextChange()).toContain('data: {"source":"walk.json"}');
    const broken = await (await fetch(`${server.url}api/graph`)).json();
    expect(broken.asset).toBeUndefined();
    expect(broken.problems).toHaveLength(1);
    expect(broken.problems[0]).toMatchObject({ path: '$', code: 'schema' });
    expect(broken.problems[0].message).toMatch(/^not valid JSON: /);
    // Still serving, and a broken graph references nothing.
    expect((await fetch(server.url)).status).toBe(200);
    expect((await fetch(`${server.url}file?path=${encodeURIComponent('../data/walk.bvh')}`)).status).toBe(403);
    // A repeated key: the page loads the parsed object, which has lost it, so the server reports it.
    writeFileSync(graph, good.replace('{"format"', '{"output": "nothing", "format"'));
    await nextChange();
    const twice = await (await fetch(`${server.url}api/graph`)).json();
    expect(twice.problems).toEqual([{ path: '$.output', code: 'duplicate-key', message: "'output' appears more than once in this object; JSON keeps only the last, so the others would be ignored" }]);
    writeFileSync(graph, `\ufeff${good}`);
    await nextChange();
    expect((await (await fetch(`${server.url}api/graph`)).json()).asset).toEqual(JSON.parse(good));
    controller.abort();
  });
});

describe('the view server serves what the loader read, for a graph that loaded', () => {
  it("serves a .gltf's buffer and images in its folder; nothing a URI outside the folder names, nor anything while the graph does not load", async () => {
    const { dir } = project();
    mkdirSync(join(dir, 'data', 'tex'));
    const { json, bin } = await gltfModel();
    writeFileSync(join(dir, 'data', 'model.bin'), bin);
    writeFileSync(join(dir, 'data', 'tex', 'skin.png'), 'png');
    json.buffers[0].uri = 'model.bin';
    json.images = [{ uri: 'tex/skin.png' }, { uri: '../data/secret.txt' }, { uri: '/etc/passwd' }];
    writeFileSync(join(dir, 'data', 'model.gltf'), JSON.stringify(json));
    // A second .gltf, as hostile as it gets: buffers leading to /etc, an image to a secret.
    writeFileSync(join(dir, 'data', 'hostile.gltf'), JSON.stringify({
      ...json, buffers: [{ uri: '../../../../../../../../etc/passwd', byteLength: 4 }, { uri: '/etc/shadow', byteLength: 4 }], images: [{ uri: '../data/secret.txt' }],
    }));
    const good = gltfGraph(dir, '../data/model.gltf');
    const server = await startViewServer(good, { port: 0, assets });
    const file = (path: string) => fetch(`${server.url}file?path=${encodeURIComponent(path)}`);
    try {
      expect((await (await fetch(`${server.url}api/graph`)).json()).asset.skeleton).toEqual({ gltf: '../data/model.gltf' });
      expect(await (await file('../data/model.gltf')).text()).toBe(JSON.stringify(json));
      expect(new Uint8Array(await (await file('../data/model.bin')).arrayBuffer())).toEqual(bin);
      expect(await (await file('../data/tex/skin.png')).text()).toBe('png');
      for (const path of ['../data/secret.txt', '/etc/passwd', '../data/../data/secret.txt', '../data/hostile.gltf']) expect((await file(path)).status, path).toBe(403);

      // The graph now names the hostile .gltf: it does not load, so nothing is served, not even
      // what the last good load read.
      writeFileSync(good, JSON.stringify({ ...JSON.parse(JSON.stringify({
        format: 'animgraph/1', skeleton: { gltf: '../data/hostile.gltf' }, clips: { walk: { source: '../data/hostile.gltf', animation: 'Walk' } },
        nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'walk',
      })) }));
      const info = await (await fetch(`${server.url}api/graph`)).json();
      expect(info.asset).toBeUndefined();
      expect(info.problems).toContainEqual({ path: '$.clips.walk.source', code: 'file', message: expect.stringContaining("buffers[0]: '../../../../../../../../etc/passwd' is not in the glTF's folder") });
      for (const path of ['../data/../../../../../../../../etc/passwd', '/etc/passwd', '/etc/shadow', '../data/secret.txt', '../data/hostile.gltf', '../data/model.gltf', '../data/model.bin']) {
        const res = await file(path);
        expect(res.status, path).toBe(403);
        expect(await res.text(), path).not.toMatch(/root:|^secret$/m);
      }
    } finally {
      await server.close();
    }
  });

  it("serves a state machine state's index file only once the loader has read it", async () => {
    const { dir, graph } = project();
    writeFileSync(join(dir, 'data', 'db.psindex'), 'not an index');
    const ps = { type: 'PoseSearchBlend', properties: { clips: ['walk'], database: '../data/db.psindex' } };
    writeFileSync(graph, JSON.stringify({
      format: 'animgraph/1', skeleton: { bvh: '../data/walk.bvh' }, clips: { walk: { source: '../data/walk.bvh' } },
      nodes: { sm: { type: 'StateMachine', properties: { states: { a: { nodes: { ps }, output: 'ps' } }, entry: 'a' } } }, output: 'sm',
    }));
    const server = await startViewServer(graph, { port: 0, assets });
    try {
      // The index file is read, and is no index: the graph does not load, and nothing is served.
      const info = await (await fetch(`${server.url}api/graph`)).json();
      expect(info.problems?.map((p: { path: string }) => p.path)).toContain('$.nodes.sm.properties.states.a.nodes.ps.properties.database');
      expect((await fetch(`${server.url}file?path=${encodeURIComponent('../data/db.psindex')}`)).status).toBe(403);
    } finally {
      await server.close();
    }
  });

  it.skipIf(process.platform === 'win32')('a FIFO named as a clip fails the load at once with a clear problem; the server keeps answering and exits on the first SIGTERM', async () => {
    const { dir } = project();
    execFileSync('mkfifo', [join(dir, 'data', 'pipe.gltf')]);
    const graph = gltfGraph(dir, '../data/pipe.gltf');
    const view = await spawnView([graph]);
    const get = (path: string) => fetch(`${view.url}${path}`, { signal: AbortSignal.timeout(30000) });
    let stopped: number | null | 'hung';
    try {
      // More requests for it than the thread pool has threads (4): none blocks one.
      const files = await Promise.all(Array.from({ length: 8 }, () => get(`file?path=${encodeURIComponent('../data/pipe.gltf')}`)));
      expect(files.map((r) => r.status)).toEqual(Array(8).fill(403));
      const info = await (await get('api/graph')).json();
      expect(info.problems).toContainEqual({
        path: '$.clips.walk.source', code: 'file', message: `cannot read '../data/pipe.gltf': ${join(dir, 'data', 'pipe.gltf')} is a named pipe (FIFO), not a regular file`,
      });
      expect((await get('')).status).toBe(200);
    } finally {
      view.child.kill('SIGTERM');
      // The first SIGTERM stops it: a bound that only a hang would pass, however busy the machine.
      stopped = await exitedOrHung(view.exited);
      if (stopped === 'hung') view.child.kill('SIGKILL');
    }
    expect(stopped, view.output()).toBe(0);
  });
});

it('bundles the real page from the sources: the script is served from the server, nothing from elsewhere', async () => {
  const { graph } = project();
  const server = await startViewServer(graph, { port: 0, assets: await loadPageAssets() });
  try {
    const html = await (await fetch(server.url)).text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.sort()).toEqual(['data:,', 'style.css', 'viewer.js']);
    const script = await fetch(`${server.url}viewer.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    const text = await script.text();
    expect(text.length).toBeGreaterThan(100_000); // three.js and the core are inside
    expect(text).not.toMatch(/\bimport\s*(?:\(|[^(]*?from\s*)["']https?:/);
  } finally {
    await server.close();
  }
});

describe('animgraph view command', () => {
  it('exits 2 with a clear message when the port is taken, and the other process keeps it', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as { port: number }).port;
    try {
      const io = memoryIo();
      expect(await main(['view', project().graph, '--port', String(port)], io)).toBe(2);
      expect(io.errText()).toBe(`animgraph view: port ${port} on 127.0.0.1 is in use: choose another with --port N (--port 0 picks a free one)\n`);
      expect(io.outText()).toBe('');
    } finally {
      busy.close();
    }
  });

  it('exits 2 on a bad --port or a missing GRAPH, 1 on a graph file that does not exist', async () => {
    for (const port of ['x', '-1', '65536', '1.5', '']) {
      const io = memoryIo();
      expect(await main(['view', project().graph, `--port=${port}`], io), port).toBe(2);
      expect(io.errText()).toContain('--port needs a whole number from 0 to 65535');
    }
    const none = memoryIo();
    expect(await main(['view'], none)).toBe(2);
    const missing = memoryIo();
    expect(await main(['view', join(tmpdir(), 'no-such-graph.json')], missing)).toBe(1);
    expect(missing.errText()).toMatch(/cannot read graph file .*no-such-graph\.json: no such file/);
    // A folder is not 'no such file'.
    const folder = memoryIo();
    expect(await main(['view', tmpdir()], folder)).toBe(1);
    expect(folder.errText()).toBe(`animgraph view: cannot read graph file ${tmpdir()}: it is a directory\n`);
  });

  it('prints the URL, serves until SIGINT and then exits 0', async () => {
    const child = spawn(process.execPath, cliArgs(['view', join(root, 'graphs/examples/sample-locomotion.json'), '--port', '0']),
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const deadline = Date.now() + 20000;
    while (!/http:\/\/127\.0\.0\.1:\d+\//.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no URL printed; stdout: ${out} stderr: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const url = out.match(/http:\/\/127\.0\.0\.1:\d+\//)![0];
    expect(out).toBe(`animgraph view: ${join(root, 'graphs/examples/sample-locomotion.json')} at ${url} (Ctrl-C to stop)\n`);
    expect((await (await fetch(`${url}api/graph`)).json()).asset.name).toBe('Sample locomotion');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(err).toBe('');
  });
});
