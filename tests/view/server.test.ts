/**
 * The `animgraph view` server without a browser: what it serves, what it refuses (anything the
 * graph does not reference, `../` or not), load problems it can see, the change stream, and the
 * command's exit codes.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { gltfResources, loadPageAssets, referencedFiles, startViewServer, type PageAssets, type ViewServer } from '../../cli/view-server.ts';

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

/**
 * project/
 *   graphs/walk.json     skeleton ../data/walk.bvh, clips ../data/walk.bvh and builtin:idle
 *   graphs/other.json    not referenced
 *   data/walk.bvh        referenced
 *   data/secret.txt      not referenced, beside a referenced file
 *   data/model.gltf      referenced by graphs/model.json, naming model.bin
 */
function project(): { dir: string; graph: string } {
  const dir = mkdtempSync(join(tmpdir(), 'animgraph-view-'));
  mkdirSync(join(dir, 'graphs'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'walk.bvh'), 'HIERARCHY\n');
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

describe('referencedFiles', () => {
  it('collects the skeleton, clip sources and pose-search index files, as written and normalised, without built-ins', () => {
    const files = referencedFiles({
      skeleton: { gltf: './a/../robot.glb' },
      clips: { a: { source: 'builtin:walk' }, b: { source: '../m/run.bvh' }, c: { source: 7 } },
      nodes: {
        n: { type: 'PoseSearchBlend', properties: { database: 'db.json' } },
        // A property that is not a file of a node type the loader knows names nothing.
        m: { type: 'SequencePlayer', properties: { clip: 'x.bvh' } }, u: { type: 'Custom', properties: { database: 'secret.txt' } },
      },
    });
    expect([...files].sort()).toEqual(['../m/run.bvh', 'db.json', 'robot.glb']);
    expect(referencedFiles({ skeleton: 'builtin:biped' }).size).toBe(0);
    expect(referencedFiles(null).size).toBe(0);
    expect([...referencedFiles({ skeleton: { file: 'skel.json' } })]).toEqual(['skel.json']);
    expect([...referencedFiles({ skeleton: { bvh: 'a\\..\\b\\walk.bvh' } })]).toEqual(['b/walk.bvh']); // as the loader reads it
  });

  it('collects the index files of nodes inside state machine states, nested at any depth (the page fetches them)', () => {
    const ps = (database: string) => ({ type: 'PoseSearchBlend', properties: { database } });
    const inner = { type: 'StateMachine', properties: { states: { b: { nodes: { deep: ps('deep.psindex') }, output: 'deep' }, c: { conduit: true } } } };
    const files = referencedFiles({
      skeleton: 'builtin:biped',
      nodes: {
        top: ps('top.psindex'),
        sm: { type: 'StateMachine', properties: { states: { a: { nodes: { ps: ps('./db/a.psindex'), inner }, output: 'inner' }, bad: 7 } } },
      },
    });
    expect([...files].sort()).toEqual(['db/a.psindex', 'deep.psindex', 'top.psindex']);
  });

  it("lists a .gltf's external buffers and images next to it, not data: or absolute URIs", () => {
    expect(gltfResources('../d/m.gltf', {
      buffers: [{ uri: 'm%20data.bin' }, { uri: 'data:application/octet-stream;base64,AA==' }, { byteLength: 4 }],
      images: [{ uri: 'tex/skin.png' }, { uri: 'https://example.com/x.png' }],
    })).toEqual(['../d/m data.bin', '../d/tex/skin.png']);
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
    expect(await res.text()).toBe('HIERARCHY\n');
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
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'tests/support/cli-source.ts'), 'view', join(root, 'graphs/examples/sample-locomotion.json'), '--port', '0'],
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
