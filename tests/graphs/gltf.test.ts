import { Document, WebIO, type Node as GltfNode } from '@gltf-transform/core';
import * as fs from 'node:fs';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { type GraphProblem } from '../../graphs/loader.ts';
import { checkGraphAsset, checkGraphFile, loadGraphFile } from '../../host/files.ts';
import { runGraph } from '../../host/runner.ts';
import { describeWithData } from '../support/shared-data.ts';

// Counts file opens, to check that a glTF named by several clips is read once per load.
vi.mock('node:fs', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs')>();
  return { ...original, openSync: vi.fn(original.openSync) };
});

const io = new WebIO();
const examples = new URL('../../graphs/examples/', import.meta.url).pathname;
let dir = '';

/** root -> child under an armature node, skin 'rig'; animations Walk (1 s), Pose (one key). */
async function rigFile(): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const armature = doc.createNode('Armature').setTranslation([0, 0, 10]);
  const root = doc.createNode('root').setTranslation([0, 1, 0]);
  const child = doc.createNode('child').setTranslation([0, 2, 0]);
  armature.addChild(root);
  root.addChild(child);
  doc.createScene().addChild(armature);
  doc.createSkin('rig').addJoint(root).addJoint(child);
  const animate = (name: string, node: GltfNode, times: number[], values: number[]) => {
    const sampler = doc.createAnimationSampler()
      .setInput(doc.createAccessor().setType('SCALAR').setArray(new Float32Array(times)).setBuffer(buffer))
      .setOutput(doc.createAccessor().setType('VEC3').setArray(new Float32Array(values)).setBuffer(buffer));
    doc.createAnimation(name).addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath('translation').setSampler(sampler));
  };
  animate('Walk', root, [0, 0.5, 1], [0, 1, 0, 0, 1, 1, 0, 1, 2]);
  animate('Pose', child, [0], [0, 3, 0]);
  return io.writeBinary(doc);
}

function graph(skeleton: unknown, clips: Record<string, unknown>): any {
  return {
    format: 'animgraph/1',
    skeleton,
    clips,
    nodes: Object.fromEntries(Object.keys(clips).map((name) => [name, { type: 'SequencePlayer', properties: { clip: name } }])),
    output: Object.keys(clips)[0],
  };
}

function problems(json: unknown): GraphProblem[] {
  const result = checkGraphAsset(json, { baseDir: dir });
  if (result.ok) throw new Error('expected the asset to be rejected');
  return [...result.problems];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'animgraph-gltf-'));
  const rig = await rigFile();
  writeFileSync(join(dir, 'rig.glb'), rig);
  writeFileSync(join(dir, 'copy.glb'), rig);
  writeFileSync(join(dir, 'corrupt.glb'), rig.subarray(0, 64));
  // An accessor running past its bufferView: the first animation's output.
  const { json, resources } = await io.binaryToJSON(rig);
  json.accessors![json.animations![0].samplers[0].output].count = 500;
  json.buffers![0].uri = 'rig.bin';
  writeFileSync(join(dir, 'overrun.gltf'), JSON.stringify(json));
  writeFileSync(join(dir, 'rig.bin'), Object.values(resources)[0]);
  // Two top joints in separate scenes: no common ancestor.
  const split = new Document();
  const a = split.createNode('a'), b = split.createNode('b');
  split.createScene().addChild(a);
  split.createScene().addChild(b);
  split.createSkin().addJoint(a).addJoint(b);
  writeFileSync(join(dir, 'split.glb'), await io.writeBinary(split));
});

describe('loader: glTF skeletons and clips', () => {
  it('loads a skin and its animations; clips from the skeleton file get the baked armature, others keep their keys', () => {
    const result = checkGraphAsset(graph({ gltf: 'rig.glb', skin: 'rig' }, {
      walk: { source: 'rig.glb', animation: 'Walk', sampleRate: 10 },
      other: { source: 'copy.glb', animation: 0 },
    }), { baseDir: dir });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const { skeleton } = result.graph;
    const clips = new Map([...result.graph.clipBindings].map(([name, b]) => [name, b.clip]));
    expect(skeleton.boneNames).toEqual(['root', 'child']);
    expect(Array.from(skeleton.referencePose.translations.subarray(0, 3))).toEqual([0, 1, 10]);
    expect(skeleton.skin!.jointBones).toEqual(Int32Array.of(0, 1));
    const walk = clips.get('walk')!;
    expect(walk.frameCount).toBe(11);
    expect(Array.from(walk.translations.subarray(30, 33))).toEqual([0, 1, 12]);
    expect(Array.from(clips.get('other')!.translations.subarray(6, 9))).toEqual([0, 1, 2]);
  });

  it('reads each glTF file once per load, however many clips name it', () => {
    const read = vi.mocked(fs.openSync);
    read.mockClear();
    const result = checkGraphAsset(graph({ gltf: 'rig.glb' }, {
      a: { source: 'rig.glb', animation: 'Walk' }, b: { source: 'rig.glb', animation: 'Walk' }, c: { source: './rig.glb', animation: 0 },
    }), { baseDir: dir });
    expect(result.ok).toBe(true);
    expect(read.mock.calls.filter(([path]) => String(path).endsWith('rig.glb'))).toHaveLength(1);
  });

  it('reports every glTF problem at once, typed, at its JSON path', () => {
    const found = problems(graph({ gltf: 'rig.glb', skin: 3 }, {
      unknown: { source: 'rig.glb', animation: 'Run' },
      empty: { source: 'rig.glb', animation: 'Pose' },
      corrupt: { source: 'corrupt.glb' },
      missing: { source: 'nowhere.glb' },
      overrun: { source: 'overrun.gltf', animation: 'Walk' },
      bvh: { source: 'builtin:walk', animation: 'Walk', sampleRate: 60 },
    }));
    const at = (path: string) => found.filter((p) => p.path === path).map((p) => p.code);
    expect(at('$.skeleton.skin')).toEqual(['unknown-skin']);
    expect(found.find((p) => p.path === '$.skeleton.skin')!.message).toBe('rig.glb: no skin 3: the file has 1 (0: rig)');
    expect(at('$.clips.unknown.animation')).toEqual(['unknown-animation']);
    expect(found.find((p) => p.path === '$.clips.unknown.animation')!.message).toMatch(/the file has Walk, Pose/);
    expect(at('$.clips.empty.animation')).toEqual(['empty-animation']);
    expect(at('$.clips.corrupt.source')).toEqual(['gltf']);
    expect(at('$.clips.missing.source')).toEqual(['file']);
    expect(at('$.clips.overrun.source')).toEqual(['gltf']);
    expect(found.find((p) => p.path === '$.clips.overrun.source')!.message).toMatch(/accessor out of range/);
    expect(at('$.clips.bvh.animation')).toEqual(['schema']);
    expect(at('$.clips.bvh.sampleRate')).toEqual(['schema']);
  });

  it('a corrupt or missing skeleton file, and a skin whose joints are not one tree', () => {
    expect(problems(graph({ gltf: 'corrupt.glb' }, { w: { source: 'builtin:walk' } }))
      .filter((p) => p.path === '$.skeleton.gltf').map((p) => p.code)).toEqual(['gltf']);
    expect(problems(graph({ gltf: 'absent.gltf' }, { w: { source: 'builtin:walk' } }))
      .filter((p) => p.path === '$.skeleton.gltf').map((p) => p.code)).toEqual(['file']);
    const split = problems(graph({ gltf: 'split.glb' }, { w: { source: 'builtin:walk' } }));
    expect(split.filter((p) => p.path === '$.skeleton.skin').map((p) => p.code)).toEqual(['skeleton']);
  });

  it('the CLI prints the problems and exits 1, never a stack', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(graph({ gltf: 'corrupt.glb' }, { w: { source: 'overrun.gltf' } })));
    let out = '', err = '';
    const cli: Io = { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false };
    expect(await main(['validate', file], cli)).toBe(1);
    const text = out + err;
    expect(text).toMatch(/\$\.skeleton\.gltf: corrupt\.glb: .*\[gltf\]/);
    expect(text).toMatch(/\$\.clips\.w\.source: overrun\.gltf: .*accessor out of range.*\[gltf\]/);
    expect(text).not.toMatch(/\n\s+at /);
  });
});

describe("loader: a .gltf's buffers come from its own folder", () => {
  /** project/models/m.gltf naming `uri` for its buffer; project/rig.bin is the real buffer, outside models/. */
  async function project(uri: string): Promise<{ root: string; graph: string }> {
    const root = mkdtempSync(join(tmpdir(), 'animgraph-gltf-uri-'));
    mkdirSync(join(root, 'models', 'sub'), { recursive: true });
    const { json, resources } = await io.binaryToJSON(await rigFile());
    const bin = Object.values(resources)[0];
    json.buffers![0].uri = uri;
    writeFileSync(join(root, 'models', 'm.gltf'), JSON.stringify(json));
    writeFileSync(join(root, 'rig.bin'), bin);
    writeFileSync(join(root, 'models', 'rig.bin'), bin);
    writeFileSync(join(root, 'models', 'sub', 'rig.bin'), bin);
    const graphFile = join(root, 'models', 'g.json');
    writeFileSync(graphFile, JSON.stringify(graph({ gltf: 'm.gltf' }, { walk: { source: 'm.gltf', animation: 'Walk' } })));
    return { root, graph: graphFile };
  }

  it('never asks the resolver for ../ above the folder, an absolute path or a file: URL: the glTF is unreadable at its paths', async () => {
    for (const [uri, why] of [
      ['../../../../etc/passwd', "its '..' leads above the folder"],
      ['/etc/shadow', 'it is an absolute path'],
      ['file:///etc/passwd', "it has a scheme ('file:')"],
      ['../rig.bin', "its '..' leads above the folder"],
    ]) {
      const asked: string[] = [];
      const { root } = await project(uri);
      const result = checkGraphAsset(graph({ gltf: 'models/m.gltf' }, { walk: { source: 'models/m.gltf', animation: 'Walk' } }), {
        baseDir: root, resolveSync: (path) => { asked.push(path); return fs.readFileSync(join(root, path)); },
      });
      expect(asked, uri).toEqual(['models/m.gltf']);
      // The skin needs no buffer; the animation does.
      expect(result.ok ? [] : result.problems, uri).toEqual([
        { path: '$.clips.walk.source', code: 'file', message: `models/m.gltf: buffers[0]: '${uri}' is not in the glTF's folder (${why}): a .gltf's buffers are read from its own folder and below, unless the loader is given allowGltfUrisOutsideFolder` },
      ]);
    }
  });

  it('loadGraphFile reads ../rig.bin only when allowGltfUrisOutsideFolder is given; in the folder, however written, always', async () => {
    const { root, graph: file } = await project('../rig.bin');
    const refused = checkGraphFile(file);
    expect(refused.ok).toBe(false);
    expect(refused.files.map((f) => f.file)).toEqual([file, join(root, 'models', 'm.gltf')]);
    const allowed = checkGraphFile(file, { allowGltfUrisOutsideFolder: true });
    expect(allowed.ok).toBe(true);
    expect(allowed.files.map((f) => f.file)).toEqual([file, join(root, 'models', 'm.gltf'), join(root, 'rig.bin')]);
    for (const uri of ['rig.bin', 'sub/../rig.bin', './sub/rig.bin', 'sub%2Frig.bin']) {
      const inside = await project(uri);
      expect(checkGraphFile(inside.graph).ok, uri).toBe(true);
    }
  });
});

describeWithData('example graphs on RobotExpressive', () => {
  const finite = (frames: ReturnType<typeof runGraph>['frames']) =>
    frames.every((f) => f.local!.every((bone) => bone.every(Number.isFinite)));

  it('robot-locomotion: idle, walk and run switched by gait with inertialization, finite poses', () => {
    const g = loadGraphFile(`${examples}robot-locomotion.json`);
    expect(g.skeleton.boneCount).toBe(43);
    expect([...g.clipBindings.keys()]).toEqual(['idle', 'walk', 'run']);
    const result = runGraph(g, { seconds: 2, fps: 30, timeline: [{ name: 'gait', value: 1, time: 0.5 }, { name: 'gait', value: 2, time: 1.2 }] });
    expect(finite(result.frames)).toBe(true);
    // The walk moves the pose away from the idle's.
    const arm = g.skeleton.indexOf('UpperArm.L');
    const rotation = (f: number) => result.frames[f].local![arm].slice(3, 7);
    expect(rotation(59)).not.toEqual(rotation(0));
  });

  it('robot-pose-search: PoseSearchBlend over Idle, Walking and Running, finite poses', () => {
    const g = loadGraphFile(`${examples}robot-pose-search.json`);
    const result = runGraph(g, { seconds: 2, fps: 30, timeline: [{ name: 'motion', value: 2, time: 0.6 }, { name: 'motion', value: 0, time: 1.4 }] });
    expect(finite(result.frames)).toBe(true);
    expect(result.frames[30].debug).toBeDefined();
  });
});
