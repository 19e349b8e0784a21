/**
 * Files read from disk are regular files within a size limit: /dev/zero, a FIFO or a folder named
 * as a graph, skeleton, clip or index file is a problem at its JSON path, reported at once, never
 * read (it read gigabytes, or blocked for good); a file over the limit likewise, and the limits
 * are options.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkGraphAsset, checkGraphFile, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_GRAPH_BYTES, fileResolver, FileReadError, loadGraphFile,
} from '../../host/files.ts';
import { readRegularFile, readRegularFileSync } from '../../host/read-file.ts';
import { expectAnimGraphError } from '../support/errors.ts';
import { cliArgs } from '../support/compiled-sources.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = join(root, 'graphs/examples/sample-locomotion.json');

/**
 * `animgraph ARGS` in a child process, killed after `bound` ms: a read that blocks for good (a
 * FIFO) or reads without end (/dev/zero) fails the test instead of hanging the test process.
 */
function cli(args: string[], bound = 60_000): Promise<{ code: number | null; out: string; err: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgs(args), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '', killed = false;
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => { killed = true; child.kill('SIGKILL'); }, bound);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err, killed });
    });
  });
}

function graphJson(extra: Record<string, unknown>): string {
  return JSON.stringify({
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' } },
    nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'walk',
    ...extra,
  });
}

describe('files that are not regular files', () => {
  it.skipIf(process.platform === 'win32')('/dev/zero, a FIFO and a folder named as skeleton, clips or index file: problems at their paths, at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-special-'));
    execFileSync('mkfifo', [join(dir, 'pipe.bvh')]);
    // Links inside the folder to /dev/zero: a .glb, and a .gltf's buffer.
    symlinkSync('/dev/zero', join(dir, 'zero.glb'));
    symlinkSync('/dev/zero', join(dir, 'zero.bin'));
    writeFileSync(join(dir, 'zero.gltf'), JSON.stringify({
      asset: { version: '2.0' }, nodes: [{ name: 'hips' }],
      buffers: [{ uri: 'zero.bin', byteLength: 8 }], bufferViews: [{ buffer: 0, byteLength: 8 }],
      accessors: [{ bufferView: 0, componentType: 5126, count: 2, type: 'SCALAR' }],
      animations: [{ channels: [{ sampler: 0, target: { node: 0, path: 'translation' } }], samplers: [{ input: 0, output: 0 }] }],
    }));
    const graph = join(dir, 'g.json');
    writeFileSync(graph, graphJson({
      skeleton: { bvh: 'pipe.bvh' },
      clips: { zero: { source: '/dev/zero' }, pipe: { source: 'pipe.bvh' }, folder: { source: '.' }, glb: { source: 'zero.glb' }, gltf: { source: 'zero.gltf' } },
      nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'zero' } } },
    }));
    const result = await cli(['validate', graph]);
    expect(result.killed).toBe(false);
    expect(result.code).toBe(1);
    expect(result.err.split('\n')).toEqual(expect.arrayContaining([
      `  $.skeleton.bvh: cannot read 'pipe.bvh': ${join(dir, 'pipe.bvh')} is a named pipe (FIFO), not a regular file [clip-file]`,
      "  $.clips.zero.source: cannot read '/dev/zero': /dev/zero is a character device, not a regular file [clip-file]",
      `  $.clips.pipe.source: cannot read 'pipe.bvh': ${join(dir, 'pipe.bvh')} is a named pipe (FIFO), not a regular file [clip-file]`,
      `  $.clips.folder.source: cannot read '.': ${dir} is a directory, not a regular file [clip-file]`,
      `  $.clips.glb.source: cannot read 'zero.glb': ${join(dir, 'zero.glb')} is a character device, not a regular file [file]`,
      `  $.clips.gltf.source: zero.gltf: buffers[0]: cannot read 'zero.bin': ${join(dir, 'zero.bin')} is a character device, not a regular file [file]`,
    ]));

    // An index file, read once the rest of the graph is good, and the graph file itself.
    const indexed = join(dir, 'indexed.json');
    writeFileSync(indexed, graphJson({
      clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      nodes: { ps: { type: 'PoseSearchBlend', properties: { clips: ['walk', 'run'], database: 'pipe.bvh' } } }, output: 'ps',
    }));
    const index = await cli(['validate', indexed]);
    expect(index.killed).toBe(false);
    expect(index.code).toBe(1);
    expect(index.err).toContain(`  $.nodes.ps.properties.database: cannot read index file 'pipe.bvh' (resolved to ${join(dir, 'pipe.bvh')}): ${join(dir, 'pipe.bvh')} is a named pipe (FIFO), not a regular file; `);
    const zero = await cli(['run', '/dev/zero']);
    expect(zero).toMatchObject({ killed: false, code: 1, err: '/dev/zero: 1 problem\n  $: cannot read graph file: /dev/zero is a character device, not a regular file [file]\n' });
    const pipe = await cli(['validate', join(dir, 'pipe.bvh')]);
    expect(pipe).toMatchObject({ killed: false, code: 1 });
    expect(pipe.err).toContain('is a named pipe (FIFO), not a regular file [file]');
  });

  it('the resolver and the readers refuse them with a FileReadError (code io), naming the file', async () => {
    expectAnimGraphError(() => fileResolver('/dev')('zero'), 'io', '/dev/zero is a character device, not a regular file');
    expectAnimGraphError(() => fileResolver(root)('graphs'), 'io', `${join(root, 'graphs')} is a directory, not a regular file`);
    const error = await readRegularFile('/dev/null', 10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileReadError);
    expect(error).toMatchObject({ code: 'io', reason: 'not-regular', file: '/dev/null' });
    // Node's own errors pass through.
    expect(() => readRegularFileSync(join(root, 'no-such-file'), 10)).toThrow(/ENOENT/);
  });
});

describe('file size limits', () => {
  it('are 1 GiB for the files a graph names and 64 MiB for the graph, by default', () => {
    expect(DEFAULT_MAX_FILE_BYTES).toBe(1024 ** 3);
    expect(DEFAULT_MAX_GRAPH_BYTES).toBe(64 * 1024 ** 2);
  });

  it('a file over maxFileBytes or a graph over maxGraphBytes is a problem naming the file, the limit and the option', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-limits-'));
    const bvh = `HIERARCHY\nROOT hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xposition Yposition Zposition\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0\n1 1 1\n`;
    writeFileSync(join(dir, 'hips.bvh'), bvh);
    const graph = join(dir, 'g.json');
    writeFileSync(graph, graphJson({ skeleton: { bvh: 'hips.bvh' }, clips: { walk: { source: 'hips.bvh' } } }));
    expect(checkGraphFile(graph).ok).toBe(true);
    const small = checkGraphFile(graph, { maxFileBytes: 100 });
    expect(small.ok).toBe(false);
    expect(small.ok ? [] : small.problems).toEqual([
      { path: '$.skeleton.bvh', code: 'clip-file', message: `cannot read 'hips.bvh': ${join(dir, 'hips.bvh')} is ${bvh.length} bytes, over the limit of 100 bytes (maxFileBytes)` },
      { path: '$.clips.walk.source', code: 'clip-file', message: `cannot read 'hips.bvh': ${join(dir, 'hips.bvh')} is ${bvh.length} bytes, over the limit of 100 bytes (maxFileBytes)` },
    ]);
    // The limit is inclusive, and raising it reads the file.
    expect(checkGraphFile(graph, { maxFileBytes: bvh.length }).ok).toBe(true);
    const big = checkGraphFile(graph, { maxGraphBytes: 50 });
    expect(big.ok ? [] : big.problems).toEqual([{ path: '$', code: 'file', message: expect.stringMatching(/^cannot read graph file: .*g\.json is \d+ bytes, over the limit of 50 bytes \(maxGraphBytes\)$/) }]);
    expectAnimGraphError(() => loadGraphFile(graph, { maxGraphBytes: 50 }), 'load-failed');
    // loadGraphAsset and checkGraphAsset from disk take the file limit too.
    const asset = checkGraphAsset(JSON.parse(graphJson({ skeleton: { bvh: 'hips.bvh' } })), { baseDir: dir, maxFileBytes: 10 });
    expect(asset.ok ? [] : asset.problems.map((p) => p.path)).toEqual(['$.skeleton.bvh']);
    expectAnimGraphError(() => readRegularFileSync(graph, -1), 'invalid-argument');
  });

  it.skipIf(process.platform !== 'linux')('a file that reports no size (/proc) is read up to the limit and no further', async () => {
    expect(readRegularFileSync('/proc/self/status', 1 << 20).toString()).toContain('Name:');
    const error = expectAnimGraphError(() => readRegularFileSync('/proc/self/status', 10), 'out-of-range', '/proc/self/status holds more than the limit of 10 bytes (maxFileBytes)');
    expect(error).toMatchObject({ reason: 'too-large' });
    await expect(readRegularFile('/proc/self/status', 10)).rejects.toMatchObject({ code: 'out-of-range', reason: 'too-large' });
    expect((await readRegularFile('/proc/self/status', 1 << 20)).toString()).toContain('Name:');
  });

  it('lists every file a load read, the graph first', () => {
    const result = checkGraphFile(SAMPLE);
    expect(result.files).toEqual([{ path: SAMPLE, file: SAMPLE }]);
  });
});
