/**
 * Outputs cannot destroy inputs: an output that is any file the graph reads (the graph, skeleton,
 * clips, a .gltf and its buffers, an index file), by name, symbolic link or hard link, is a usage
 * error naming both. Every output is written to a temporary beside it and renamed into place, so a
 * failed or interrupted command leaves the file as it was and no temporary behind.
 */
import { Document, WebIO } from '@gltf-transform/core';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, linkSync, lstatSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';
import { exitedOrHung } from '../support/hang.ts';
import { cliArgs } from '../support/compiled-sources.ts';

const root = new URL('../../', import.meta.url).pathname;
const sample = `${root}graphs/examples/sample-locomotion.json`;

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const io: Io = { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false };
  const code = await main(args, io);
  return { code, out, err };
}

/**
 * dir/run.bvh (a copy of a CMU take: never the shared file itself), dir/g.json (its skeleton and a
 * clip of it, a PoseSearchBlend over it) and dir/indexed.json (the same naming db.psindex).
 */
function mocapProject(): { dir: string; graph: string; indexed: string; bvh: string } {
  const dir = mkdtempSync(join(tmpdir(), 'animgraph-outputs-'));
  const bvh = join(dir, 'run.bvh');
  copyFileSync(`${CMU}002_03.bvh`, bvh);
  const asset = (database?: string) => JSON.stringify({
    format: 'animgraph/1', skeleton: { bvh: 'run.bvh' },
    clips: { run: { source: 'run.bvh', frames: [1, -1] } },
    nodes: {
      search: {
        type: 'PoseSearchBlend',
        properties: { clips: ['run'], ...(database ? { database } : {}), features: { rotations: { weight: 1 }, positions: { weight: 1, bones: ['CC_Base_L_Foot', 'CC_Base_R_Foot'] } } },
      },
    },
    output: 'search',
  });
  const graph = join(dir, 'g.json');
  writeFileSync(graph, asset());
  const indexed = join(dir, 'indexed.json');
  writeFileSync(indexed, asset('db.psindex'));
  return { dir, graph, indexed, bvh };
}

describeWithData('an output may not be a file the graph reads', () => {
  it('index, run and plot refuse a clip source as output (exit 2, naming both) and leave it as it was', async () => {
    const { dir, graph, bvh } = mocapProject();
    const before = readFileSync(bvh);
    const refusal = (command: string, option: string, out: string) =>
      `animgraph ${command}: ${option} ${out} is ${bvh}, which the graph reads as 'run.bvh'; writing it would overwrite it\n`;
    expect(await cli('index', graph, '--out', bvh)).toEqual({ code: 2, out: '', err: refusal('index', '--out', bvh) });
    expect(await cli('run', graph, '--frames', '2', '--poses', bvh)).toEqual({ code: 2, out: '', err: refusal('run', '--poses', bvh) });
    expect(await cli('run', graph, '--frames', '2', '--debug', 'text', '--debug-out', bvh)).toEqual({ code: 2, out: '', err: refusal('run', '--debug-out', bvh) });
    expect(await cli('plot', graph, '--frames', '2', '--out', bvh)).toEqual({ code: 2, out: '', err: refusal('plot', '--out', bvh) });
    // By another name: a symbolic link, a hard link, a path through another folder.
    const symbolic = join(dir, 'symbolic.bvh'), hard = join(dir, 'hard.bvh');
    symlinkSync(bvh, symbolic);
    linkSync(bvh, hard);
    for (const out of [symbolic, hard, `${dir}/../${basename(dir)}/./run.bvh`]) {
      expect(await cli('run', graph, '--frames', '2', '--poses', out), out).toEqual({ code: 2, out: '', err: refusal('run', '--poses', out) });
    }
    expect(readFileSync(bvh)).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(['g.json', 'hard.bvh', 'indexed.json', 'run.bvh', 'symbolic.bvh']);
  });

  it('a hard link to the graph is the graph', async () => {
    const { dir, graph } = mocapProject();
    const link = join(dir, 'link.json');
    linkSync(graph, link);
    const text = readFileSync(graph, 'utf8');
    expect(await cli('index', graph, '--out', link)).toEqual({ code: 2, out: '', err: `animgraph index: --out ${link} is the graph file ${graph}; writing it would overwrite the graph\n` });
    expect(await cli('plot', graph, '--out', link)).toMatchObject({ code: 2 });
    expect(readFileSync(graph, 'utf8')).toBe(text);
  });

  it("an index file the graph reads is refused as run's output; index rebuilds it in place (it does not read it)", async () => {
    const { dir, graph, indexed } = mocapProject();
    const db = join(dir, 'db.psindex');
    expect((await cli('index', graph, '--out', db)).code).toBe(0);
    expect((await cli('index', indexed, '--out', db)).code).toBe(0);
    const bytes = readFileSync(db);
    expect(await cli('run', indexed, '--frames', '2', '--poses', db)).toEqual({
      code: 2, out: '', err: `animgraph run: --poses ${db} is ${db}, which the graph reads as 'db.psindex'; writing it would overwrite it\n`,
    });
    expect(readFileSync(db)).toEqual(bytes);
  });
});

describe("an output may not be a .gltf or its buffer", () => {
  it('run refuses the .gltf and its external buffer as --poses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-outputs-gltf-'));
    const doc = new Document();
    const buffer = doc.createBuffer();
    const pelvis = doc.createNode('pelvis');
    doc.createScene().addChild(pelvis);
    doc.createSkin('rig').addJoint(pelvis);
    const sampler = doc.createAnimationSampler()
      .setInput(doc.createAccessor().setType('SCALAR').setArray(new Float32Array([0, 1])).setBuffer(buffer))
      .setOutput(doc.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 0, 1, 0])).setBuffer(buffer));
    doc.createAnimation('Walk').addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(pelvis).setTargetPath('translation').setSampler(sampler));
    const io = new WebIO();
    const { json, resources } = await io.binaryToJSON(await io.writeBinary(doc));
    json.buffers![0].uri = 'model.bin';
    writeFileSync(join(dir, 'model.gltf'), JSON.stringify(json));
    writeFileSync(join(dir, 'model.bin'), Object.values(resources)[0]);
    const graph = join(dir, 'g.json');
    writeFileSync(graph, JSON.stringify({
      format: 'animgraph/1', skeleton: { gltf: 'model.gltf' }, clips: { walk: { source: 'model.gltf', animation: 'Walk' } },
      nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'walk',
    }));
    expect((await cli('run', graph, '--frames', '2')).code).toBe(0);
    for (const [name, as] of [['model.gltf', 'model.gltf'], ['model.bin', 'model.bin']]) {
      const out = join(dir, name);
      expect(await cli('run', graph, '--frames', '2', '--poses', out)).toEqual({
        code: 2, out: '', err: `animgraph run: --poses ${out} is ${out}, which the graph reads as '${as}'; writing it would overwrite it\n`,
      });
    }
  });
});

describe('outputs are written whole or not at all', () => {
  it('each command writes its output through a temporary renamed into place, leaving none behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-outputs-'));
    const at = (name: string) => join(dir, name);
    expect((await cli('run', sample, '--frames', '3', '--poses', at('p.jsonl'), '--debug', 'jsonl', '--debug-out', at('d.jsonl'))).code).toBe(0);
    expect((await cli('plot', sample, '--frames', '3', '--out', at('plot.svg'))).code).toBe(0);
    expect((await cli('schema', '--out', at('schema.json'))).code).toBe(0);
    expect((await cli('docs', '--out', at('nodes.md'))).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['d.jsonl', 'nodes.md', 'p.jsonl', 'plot.svg', 'schema.json']);
    expect(readFileSync(at('p.jsonl'), 'utf8').trim().split('\n')).toHaveLength(4);
    expect(readFileSync(at('plot.svg'), 'utf8')).toMatch(/<\/svg>\n?$/);
  });

  it('a replaced file keeps its permissions, and a symbolic link stays a link to the file rewritten', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-outputs-'));
    const real = join(dir, 'real.jsonl'), link = join(dir, 'link.jsonl');
    writeFileSync(real, 'old\n');
    chmodSync(real, 0o640);
    symlinkSync('real.jsonl', link);
    expect((await cli('run', sample, '--frames', '2', '--poses', link)).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8').split('\n')).toHaveLength(4);
    expect(statSync(real).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(['link.jsonl', 'real.jsonl']);
  });

  it('a device is written directly, never replaced: /dev/null stays a device', async () => {
    expect((await cli('run', sample, '--frames', '2', '--poses', '/dev/null')).code).toBe(0);
    expect((await cli('schema', '--out', '/dev/null')).code).toBe(0);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('a run interrupted by Ctrl-C leaves the file it was replacing as it was, and no temporary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-outputs-'));
    const poses = join(dir, 'p.jsonl');
    writeFileSync(poses, 'the last good run\n');
    const child = spawn(process.execPath, cliArgs(['run', sample, '--frames', '10000000', '--poses', poses, '--quiet']),
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
    try {
      // Interrupt once the temporary exists and has frames in it (a bound only a hang would reach).
      const deadline = Date.now() + 60000;
      for (;;) {
        const temporary = readdirSync(dir).find((name) => name.endsWith('.tmp'));
        if (temporary !== undefined && statSync(join(dir, temporary)).size > 100_000) break;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no temporary output; stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(readFileSync(poses, 'utf8')).toBe('the last good run\n');
      child.kill('SIGINT');
      const bounded = await exitedOrHung(exited);
      expect(bounded, err).toEqual({ code: null, signal: 'SIGINT' });
    } finally {
      child.kill('SIGKILL');
    }
    expect(readFileSync(poses, 'utf8')).toBe('the last good run\n');
    expect(readdirSync(dir)).toEqual(['p.jsonl']);
  });
});
