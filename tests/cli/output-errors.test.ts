import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { GraphRunner } from '../../host/runner.ts';

/**
 * Output files that cannot be written exit 3
 * with one line naming the file; out-of-range --frames, --fps and --seconds are usage errors
 * (exit 2); a non-finite number is never written as null into --poses (exit 4).
 */
const root = new URL('../../', import.meta.url).pathname;
const sample = `${root}graphs/examples/sample-locomotion.json`;
const missingDir = join(tmpdir(), 'animgraph-no-such-dir', 'deeper');

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const io: Io = { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false };
  const code = await main(args, io);
  return { code, out, err };
}

describe('output files that cannot be written', () => {
  it('--debug-out into a missing folder exits 3 and does not claim to have written it', async () => {
    const file = join(missingDir, 'debug.txt');
    expect(await cli('run', sample, '--frames', '2', '--debug', 'text', '--debug-out', file)).toEqual({
      code: 3, out: '', err: `animgraph: cannot write ${file}: ENOENT: no such file or directory\n`,
    });
  });

  it('--poses naming a folder exits 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-out-'));
    expect(await cli('run', sample, '--frames', '2', '--poses', dir)).toEqual({
      code: 3, out: '', err: `animgraph: cannot write ${dir}: EISDIR: illegal operation on a directory\n`,
    });
  });

  it('--poses on a full device (the write, not the open, fails) exits 3', async () => {
    expect(await cli('run', sample, '--frames', '400', '--poses', '/dev/full')).toEqual({
      code: 3, out: '', err: 'animgraph: cannot write /dev/full: ENOSPC: no space left on device\n',
    });
  });

  it('schema --out and index --out into a missing folder exit 3', async () => {
    const schema = join(missingDir, 'schema.json');
    expect(await cli('schema', '--out', schema)).toEqual({ code: 3, out: '', err: `animgraph: cannot write ${schema}: ENOENT: no such file or directory\n` });
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-out-'));
    const graph = join(dir, 'ps.json');
    writeFileSync(graph, JSON.stringify({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      nodes: { ps: { type: 'PoseSearchBlend', properties: { clips: ['walk', 'run'] } } }, output: 'ps',
    }));
    const index = join(missingDir, 'db.psindex');
    expect(await cli('index', graph, '--out', index)).toEqual({ code: 3, out: '', err: `animgraph: cannot write ${index}: ENOENT: no such file or directory\n` });
    // Refused before anything is written (exit 2): the graph itself as the index overwrote it.
    expect(await cli('index', graph, '--out', join(dir, '.', 'ps.json'))).toEqual({
      code: 2, out: '', err: `animgraph index: --out ${join(dir, '.', 'ps.json')} is the graph file ${graph}; writing it would overwrite the graph\n`,
    });
    expect(JSON.parse(readFileSync(graph, 'utf8')).output).toBe('ps');
  });

  it('refuses two outputs in one file, an output that is the graph, and an empty output name (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-out-'));
    const same = join(dir, 'same.out');
    // Both went through their own handle from offset 0: 4 lines of poses, no debug lines, exit 0.
    expect(await cli('run', sample, '--frames', '3', '--poses', same, '--debug', 'jsonl', '--debug-out', same)).toEqual({
      code: 2, out: '', err: `animgraph run: --poses ${same} is the same file as --debug-out; give each output its own file\n`,
    });
    expect(existsSync(same)).toBe(false);
    expect((await cli('plot', sample, '--out', sample)).err).toBe(`animgraph plot: --out ${sample} is the graph file ${sample}; writing it would overwrite the graph\n`);
    // An empty name wrote nothing and said nothing (--poses), or wrote to stdout (--debug-out).
    expect(await cli('run', sample, '--poses', '')).toEqual({ code: 2, out: '', err: 'animgraph run: --poses needs a value, got an empty string\n' });
    expect((await cli('run', sample, '--debug', 'text', '--debug-out', '')).code).toBe(2);
  });

  it('writes both files, and says so, when they can be written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-out-'));
    const poses = join(dir, 'p.jsonl'), debug = join(dir, 'd.jsonl');
    const r = await cli('run', sample, '--frames', '3', '--poses', poses, '--debug', 'jsonl', '--debug-out', debug);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain(`; poses in ${poses}; debug in ${debug}`);
    expect(readFileSync(poses, 'utf8').trim().split('\n')).toHaveLength(4);
    expect(readFileSync(debug, 'utf8').trim().split('\n')).toHaveLength(3);
  });
});

describe('run length and rate limits', () => {
  it.each([
    [['--frames', '1e9'], "--frames needs a whole number from 1 to 10,000,000, got '1e9'"],
    [['--frames', '0'], "--frames needs a whole number from 1 to 10,000,000, got '0'"],
    [['--frames', '2.5'], "--frames needs a whole number from 1 to 10,000,000, got '2.5'"],
    [['--fps', '1e308'], "--fps needs a number from 0.001 to 10,000, got '1e308'"],
    [['--fps', '1e-300'], "--fps needs a number from 0.001 to 10,000, got '1e-300'"],
    [['--fps', 'NaN'], "--fps needs a number from 0.001 to 10,000, got 'NaN'"],
    [['--seconds', '1e300'], '--seconds 1e300 at 30 fps is more than 10,000,000 frames'],
    [['--seconds', '100000', '--fps', '120'], '--seconds 100000 at 120 fps is more than 10,000,000 frames'],
    [['--seconds', 'Infinity'], "--seconds needs a number >= 0, got 'Infinity'"],
  ])('%j is a usage error (exit 2), at once', async (args, message) => {
    const start = performance.now();
    expect(await cli('run', sample, ...args)).toEqual({ code: 2, out: '', err: `animgraph run: ${message}\n` });
    expect(performance.now() - start).toBeLessThan(2000);
  });

  it('accepts the limits themselves', async () => {
    expect((await cli('run', sample, '--frames', '2', '--fps', '10000', '--quiet')).code).toBe(0);
    expect((await cli('run', sample, '--seconds', '1000', '--fps', '0.001', '--quiet')).code).toBe(0);
  });
});

describe('non-finite poses', () => {
  afterEach(() => vi.restoreAllMocks());

  it('are never written as null: exit 4 naming the frame and bone', async () => {
    const rows = GraphRunner.prototype.componentRows;
    vi.spyOn(GraphRunner.prototype, 'componentRows').mockImplementation(function (this: GraphRunner) {
      const out = rows.call(this);
      if (this.instance.updateCounter === 3) out[5][1] = Number.NaN;
      return out;
    });
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-out-'));
    const poses = join(dir, 'p.jsonl');
    const r = await cli('run', sample, '--frames', '5', '--poses', poses);
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/^animgraph run: frame 2: bone 'head' has a non-finite component transform \([^)]*NaN[^)]*\); the run stops before writing it\n$/);
    // A failed run writes no file, and leaves no temporary behind.
    expect(readdirSync(dir)).toEqual([]);
    // Nor does it touch one that was there.
    writeFileSync(poses, 'the last good run\n');
    expect((await cli('run', sample, '--frames', '5', '--poses', poses)).code).toBe(4);
    expect(readFileSync(poses, 'utf8')).toBe('the last good run\n');
    expect(readdirSync(dir)).toEqual(['p.jsonl']);
  });
});
