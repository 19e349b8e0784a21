import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkGraph, checkGraphAsset, loadGraph, loadGraphAsset, GraphLoadError, type ResolvedFile } from '../../graphs/loader.ts';
import { dirnamePath, joinPath, normalizePath } from '../../graphs/loader/paths.ts';
import { fileResolver, loadGraphFile } from '../../host/files.ts';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import { describeWithData, SHARED_DATA } from '../support/shared-data.ts';

const examples = new URL('../../graphs/examples/', import.meta.url).pathname;
const exampleAsset = (name: string): any => JSON.parse(readFileSync(`${examples}${name}`, 'utf8'));

interface Run {
  frames: number;
  /** A parameter set before the update of this frame. */
  set?: { frame: number; name: string; value: number | boolean };
}

/** Every local pose of a run at 30 fps, as one list of numbers: compared with toEqual, they must be bit-identical. */
function poses(graph: AnimGraph, run: Run): number[] {
  const character = graph.createInstance();
  const out: number[] = [];
  for (let frame = 0; frame < run.frames; frame++) {
    if (run.set?.frame === frame) character.setParameter(run.set.name, run.set.value);
    character.update(frame === 0 ? 0 : 1 / 30);
    const pose = character.evaluate();
    for (const values of [pose.translations, pose.rotations, pose.scales]) out.push(...values);
  }
  return out;
}

/** An async resolver serving files from memory, answering on a later turn like `fetch`; it logs the paths asked. */
function memoryResolver(files: Record<string, ResolvedFile>): { resolve: (path: string) => Promise<ResolvedFile>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    resolve: async (path) => {
      asked.push(path);
      await new Promise((r) => setTimeout(r, 1));
      if (!Object.hasOwn(files, path)) throw new Error(`404 ${path}`);
      return files[path];
    },
  };
}

const biped = (clips: Record<string, unknown>, skeleton: unknown = 'builtin:biped'): any => ({
  format: 'animgraph/1',
  skeleton,
  clips,
  nodes: { p: { type: 'SequencePlayer', properties: { clip: Object.keys(clips)[0] } } },
  output: 'p',
});

describe('asset paths without node:path', () => {
  it('join, normalise and take the folder as POSIX paths do', () => {
    expect(joinPath('graphs/examples', '../../data/a.bvh')).toBe('data/a.bvh');
    expect(joinPath('graphs', '../../../shared/a.bvh')).toBe('../../shared/a.bvh');
    expect(joinPath('/work/x', './walk.bvh')).toBe('/work/x/walk.bvh');
    expect(joinPath('/work/x', '/abs/walk.bvh')).toBe('/abs/walk.bvh');
    expect(joinPath('models', 'https://example.com/a/../b.bin')).toBe('https://example.com/b.bin');
    expect(joinPath('.', 'a.bin')).toBe('a.bin');
    expect(normalizePath('/../a//b/./c/..')).toBe('/a/b');
    expect(normalizePath('./')).toBe('.');
    expect(dirnamePath('models/robot.gltf')).toBe('models');
    expect(dirnamePath('robot.gltf')).toBe('.');
    expect(dirnamePath('/robot.gltf')).toBe('/');
    expect(dirnamePath('C:\\models\\robot.gltf')).toBe('C:\\models');
  });
});

describe('loading with a resolver', () => {
  it('needs no resolver for an asset naming no files, sync or async', async () => {
    const asset = exampleAsset('sample-locomotion.json');
    const sync = loadGraphAsset(asset);
    const async = await loadGraph(asset);
    expect(async.skeleton.boneCount).toBe(22);
    const run: Run = { frames: 30, set: { frame: 10, name: 'gait', value: 2 } };
    expect(poses(async, run)).toEqual(poses(sync, run));
  });

  it('reports each named file as a `file` problem at its path when no resolver is given', async () => {
    const asset = biped({ walk: { source: 'clips/walk.bvh' }, robot: { source: 'robot.glb' } }, { bvh: 'skeleton.bvh' });
    const expected = ['$.skeleton.bvh', '$.clips.walk.source', '$.clips.robot.source'].map((path) => ({
      path, code: 'file', message: expect.stringMatching(/cannot read '.*': no file resolver was given .*fileResolver/),
    }));
    const sync = checkGraphAsset(asset);
    expect(sync.ok ? [] : sync.problems).toEqual(expected);
    const async = await checkGraph(asset);
    expect(async.ok ? [] : async.problems).toEqual(expected);
    expect(() => loadGraphAsset(asset, { source: 'hero.json' })).toThrow(GraphLoadError);
  });

  it('reports what a resolver cannot give at the same path and code as a missing file, with its reason', async () => {
    const { resolve, asked } = memoryResolver({});
    const result = await checkGraph(biped({ walk: { source: 'walk.bvh' } }, { file: 'rig.json' }), { resolve });
    expect(result.ok ? [] : result.problems).toEqual([
      { path: '$.skeleton.file', code: 'file', message: "cannot read skeleton 'rig.json': 404 rig.json" },
      { path: '$.clips.walk.source', code: 'clip-file', message: "cannot read 'walk.bvh': 404 walk.bvh" },
    ]);
    expect(asked.sort()).toEqual(['rig.json', 'walk.bvh']);
    const wrong = checkGraphAsset(biped({ walk: { source: 'walk.bvh' } }), { resolveSync: () => ({ text: 'HIERARCHY' }) as never });
    expect(wrong.ok ? [] : wrong.problems).toEqual([
      { path: '$.clips.walk.source', code: 'clip-file', message: "cannot read 'walk.bvh': the resolver gave Object for 'walk.bvh', not text, an ArrayBuffer or a Uint8Array" },
    ]);
  });

  it('asks once for a file several clips name, however the path is spelled', async () => {
    const bvh = 'HIERARCHY\nROOT pelvis\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n1 2 3\n4 5 6\n';
    const { resolve, asked } = memoryResolver({ 'clips/tiny.bvh': bvh });
    const graph = await loadGraph(biped({ a: { source: 'clips/tiny.bvh' }, b: { source: './clips/../clips/tiny.bvh' } }, { bvh: 'clips/tiny.bvh' }), { resolve });
    expect(asked).toEqual(['clips/tiny.bvh']);
    expect([...graph.clipBindings.keys()]).toEqual(['a', 'b']);
  });

  it('asks for the index files of node properties (kind file), unless index files are ignored', async () => {
    const asset = biped({ walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } });
    asset.nodes = { ps: { type: 'PoseSearchBlend', properties: { clips: ['walk', 'run'], database: 'db/locomotion.psindex' } } };
    asset.output = 'ps';
    const { resolve, asked } = memoryResolver({});
    await checkGraph(asset, { resolve });
    expect(asked).toEqual(['db/locomotion.psindex']);
    const ignoring = memoryResolver({});
    expect((await checkGraph(asset, { resolve: ignoring.resolve, useIndexFiles: false })).ok).toBe(true);
    expect(ignoring.asked).toEqual([]);
  });

  it('asks for the index files of nodes inside state machine states, nested at any depth, and reports them at their JSON path', async () => {
    // A PoseSearchBlend in state `b` of machine `inner`, itself in state `a` of machine `sm`.
    const ps = { type: 'PoseSearchBlend', properties: { clips: ['walk', 'run'], database: 'db/inner.psindex' } };
    const asset = biped({ walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } });
    const inner = { type: 'StateMachine', properties: { entry: 'b', states: { b: { nodes: { ps }, output: 'ps' } }, transitions: [] } };
    asset.nodes = { sm: { type: 'StateMachine', properties: { entry: 'a', states: { a: { nodes: { inner }, output: 'inner' } }, transitions: [] } } };
    asset.output = 'sm';
    const { PoseSearchDatabase, serializePoseSearchDatabase } = await import('../../runtime/jobs/pose-search/index.ts');
    const rebuilt = await loadGraph(asset, { useIndexFiles: false });
    const built = rebuilt.shared.get('sm/a/inner/b/ps') as { database: InstanceType<typeof PoseSearchDatabase> };
    const index = serializePoseSearchDatabase(built.database);
    const served = memoryResolver({ 'db/inner.psindex': index });
    const graph = await loadGraph(asset, { resolve: served.resolve });
    expect(served.asked).toEqual(['db/inner.psindex']);
    const read = graph.shared.get('sm/a/inner/b/ps') as { database: InstanceType<typeof PoseSearchDatabase>; fromIndexFile: boolean };
    expect(read.fromIndexFile).toBe(true);
    expect(read.database.frameCount).toBe(built.database.frameCount);
    expect(read.database.hash.hash).toBe(built.database.hash.hash);
    // One the resolver cannot give is reported inside the state, not at a scoped id the asset lacks.
    const missing = await checkGraph(asset, { resolve: memoryResolver({}).resolve });
    expect(missing.ok ? [] : missing.problems.map((p) => [p.path, p.code])).toEqual([
      ['$.nodes.sm.properties.states.a.nodes.inner.properties.states.b.nodes.ps.properties.database', 'file'],
    ]);
  });
});

describeWithData('loading real data with an async resolver from memory', () => {
  /** What `fetch` would serve, relative to graphs/examples/: the shared data the examples name. */
  const served = (paths: readonly string[], as: (bytes: Uint8Array) => ResolvedFile) =>
    Object.fromEntries(paths.map((p) => [p, as(new Uint8Array(readFileSync(joinPath(examples, p))))]));

  it('gives the CMU walk to run poses bit-identical to loadGraphFile, from Uint8Array and from text', async () => {
    const asset = exampleAsset('cmu-walk-run.json');
    const paths = ['../../../shared/data/bvh/cmu/002_01.bvh', '../../../shared/data/bvh/cmu/002_03.bvh'];
    const { resolve, asked } = memoryResolver(served(paths, (b) => b));
    const fromMemory = await loadGraph(asset, { resolve });
    expect(asked.sort()).toEqual(paths);
    const fromDisk = loadGraphFile(`${examples}cmu-walk-run.json`);
    const run: Run = { frames: 60, set: { frame: 24, name: 'running', value: true } };
    const expected = poses(fromDisk, run);
    expect(expected.length).toBe(60 * fromDisk.skeleton.boneCount * 10);
    expect(expected.every(Number.isFinite)).toBe(true);
    const size = fromDisk.skeleton.boneCount * 10;
    expect(expected.slice(59 * size)).not.toEqual(expected.slice(30 * size, 31 * size)); // the character moves
    expect(poses(fromMemory, run)).toEqual(expected);
    const text = served(paths, (b) => new TextDecoder().decode(b));
    expect(poses(loadGraphAsset(asset, { resolveSync: (p) => text[p] }), run)).toEqual(expected);
  });

  it('loads a .glb given as an ArrayBuffer, as loadGraphFile does', async () => {
    const asset = exampleAsset('robot-locomotion.json');
    const glb = '../../../shared/data/gltf/RobotExpressive.glb';
    const { resolve, asked } = memoryResolver(served([glb], (b) => b.slice().buffer));
    const fromMemory = await loadGraph(asset, { resolve });
    expect(asked).toEqual([glb]); // one file, though the skeleton and three clips name it
    const fromDisk = loadGraphFile(`${examples}robot-locomotion.json`);
    const run: Run = { frames: 45, set: { frame: 15, name: 'gait', value: 2 } };
    expect(poses(fromMemory, run)).toEqual(poses(fromDisk, run));
  });

  it('fetches the external buffer a text .gltf names, relative to the .gltf, once its JSON is read', async () => {
    // CesiumMan with its embedded buffer moved out to 'bin/cesium man.bin' (percent-encoded in the URI).
    const original = readFileSync(`${SHARED_DATA}gltf/CesiumMan.gltf`, 'utf8');
    const json = JSON.parse(original);
    const dataUri: string = json.buffers[0].uri;
    const bin = Buffer.from(dataUri.slice(dataUri.indexOf(',') + 1), 'base64');
    json.buffers[0].uri = 'bin/cesium%20man.bin';
    const asset = (gltf: string) => ({
      format: 'animgraph/1', skeleton: { gltf }, clips: { anim: { source: gltf } },
      nodes: { p: { type: 'SequencePlayer', properties: { clip: 'anim' } } }, output: 'p',
    });
    const { resolve, asked } = memoryResolver({
      'models/cesium.gltf': JSON.stringify(json),
      'models/bin/cesium man.bin': new Uint8Array(bin),
    });
    const fromMemory = await loadGraph(asset('models/cesium.gltf'), { resolve });
    expect(asked).toEqual(['models/cesium.gltf', 'models/bin/cesium man.bin']);
    const embedded = loadGraphAsset(asset('CesiumMan.gltf'), { resolveSync: fileResolver(`${SHARED_DATA}gltf`) });
    expect(poses(fromMemory, { frames: 60 })).toEqual(poses(embedded, { frames: 60 }));
    // Without the buffer: the glTF's own `file` problem, naming the URI.
    const noBin = memoryResolver({ 'models/cesium.gltf': JSON.stringify(json) });
    const result = await checkGraph(asset('models/cesium.gltf'), { resolve: noBin.resolve });
    expect(result.ok ? [] : result.problems.map((p) => [p.path, p.code])).toEqual([['$.skeleton.gltf', 'file'], ['$.clips.anim.source', 'file']]);
    expect(result.ok ? '' : result.problems[0].message).toContain("cannot read 'bin/cesium%20man.bin': 404 models/bin/cesium man.bin");
  });
});
