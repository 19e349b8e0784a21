import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkGraph, duplicateJsonKeys, duplicateKeyProblems, GraphLoadError, NodeRegistry, type GraphProblem } from '../../graphs/loader.ts';
import { checkGraphAsset, checkGraphFile, loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { builtInNodeTypes } from '../../nodes/index.ts';
import * as z from 'zod';
import type { Pose } from '../../runtime/core/pose.ts';
import { cpuMs } from '../support/cpu-time.ts';
import {
  defineNodeType, LocalPoseNode, NO_LINKS, type NodeCheckContext, type NodeType, type PoseLink, type UpdateContext,
} from '../../runtime/node/node.ts';

/** A valid asset on the built-in biped; each test breaks one rule of a fresh copy. */
function asset(): any {
  return {
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    parameters: { alpha: { type: 'float', default: 0.25 }, fast: { type: 'bool' }, gait: { type: 'int', default: 0 } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.5 } },
      blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: { param: 'alpha' } }, editor: { position: [10, 20], comment: 'ignored' } },
      copy: { type: 'CopyBone', inputs: { pose: 'blend' }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r' } },
    },
    output: 'copy',
  };
}

function problems(json: unknown, baseDir?: string): GraphProblem[] {
  const result = checkGraphAsset(json, { baseDir });
  if (result.ok) throw new Error('expected the asset to be rejected');
  return [...result.problems];
}

const at = (list: GraphProblem[], path: string) => list.filter((p) => p.path === path);

describe('graph loader', () => {
  it('loads the valid asset, ignoring editor blocks', () => {
    const graph = loadGraphAsset(asset());
    expect(graph.nodes.map((n) => n.id)).toEqual(['walk', 'run', 'blend', 'copy', 'output']);
    expect(graph.skeleton.boneCount).toBe(22);
  });

  it('rejects an unknown format version', () => {
    const a = asset();
    a.format = 'animgraph/2';
    expect(at(problems(a), '$.format')).toHaveLength(1);
  });

  it('reports an unknown node type with its path and the known types', () => {
    const a = asset();
    a.nodes.run.type = 'SequencePlayr';
    const p = at(problems(a), '$.nodes.run.type');
    expect(p[0].code).toBe('unknown-node-type');
    expect(p[0].message).toContain('SequencePlayer');
  });

  it('reports a missing link', () => {
    const a = asset();
    delete a.nodes.blend.inputs.B;
    expect(at(problems(a), '$.nodes.blend.inputs.B')[0].code).toBe('missing-link');
  });

  it('reports a dangling link and a dangling output', () => {
    const a = asset();
    a.nodes.blend.inputs.A = 'nowhere';
    a.output = 'gone';
    const p = problems(a);
    expect(at(p, '$.nodes.blend.inputs.A')[0].code).toBe('dangling-link');
    expect(at(p, '$.output')[0].code).toBe('dangling-link');
  });

  it('reports a dangling link inside a pose list with its index', () => {
    const a = asset();
    a.nodes.list = { type: 'BlendList', inputs: { poses: ['walk', 'ghost'] } };
    a.nodes.blend.inputs.A = 'list';
    expect(at(problems(a), '$.nodes.list.inputs.poses[1]')[0].code).toBe('dangling-link');
  });

  it('reports a cycle', () => {
    const a = asset();
    a.nodes.walk = { type: 'BlendTwo', inputs: { A: 'copy2', B: 'x' } };
    a.nodes.x = { type: 'SequencePlayer', properties: { clip: 'walk' } };
    a.nodes.copy2 = { type: 'CopyBone', inputs: { pose: 'walk' }, properties: { sourceBone: 'head', targetBone: 'neck' } };
    const cycle = problems(a).filter((p) => p.code === 'cycle');
    expect(cycle).toHaveLength(1);
    // Found walking from the output: copy -> blend -> walk -> copy2, whose input leads back to walk.
    expect(cycle[0]).toEqual({ path: '$.nodes.walk.inputs', code: 'cycle', message: 'links form a cycle: walk -> copy2 -> walk' });
  });

  it('reports a node feeding two inputs', () => {
    const a = asset();
    a.nodes.blend.inputs.B = 'walk';
    expect(at(problems(a), '$.nodes.blend.inputs.B')[0].code).toBe('shared-link');
  });

  it('reports a space mismatch that cannot be converted', () => {
    // A node type whose input refuses conversion: only then is a space mismatch an error.
    const strict: NodeType = {
      type: 'ComponentOnly', space: 'local', properties: {},
      inputs: [{ name: 'pose', kind: 'pose', space: 'component', accepts: ['component'] }],
      create: ({ id }) => new (class extends LocalPoseNode {
        protected get links() { return NO_LINKS; }
        protected onUpdate() {}
        protected onEvaluate() {}
      })(id, 'ComponentOnly'),
    };
    const registry = new NodeRegistry([...builtInNodeTypes, strict]);
    const a = asset();
    a.nodes.strict = { type: 'ComponentOnly', inputs: { pose: 'blend' } };
    a.nodes.copy.inputs.pose = 'strict';
    const result = checkGraphAsset(a, { nodeTypes: registry });
    expect(result.ok).toBe(false);
    const p = !result.ok ? result.problems.find((x) => x.path === '$.nodes.strict.inputs.pose') : undefined;
    expect(p?.code).toBe('space-mismatch');
    // The same graph through a converting input loads: BlendTwo (local) feeding CopyBone (component).
    expect(checkGraphAsset(asset(), { nodeTypes: registry }).ok).toBe(true);
  });

  it('reports an unknown parameter and a parameter of the wrong type', () => {
    const a = asset();
    a.nodes.blend.properties.alpha = { param: 'nope' };
    a.nodes.run.properties.playRate = { param: 'fast' };
    const p = problems(a);
    expect(at(p, '$.nodes.blend.properties.alpha.param')[0].code).toBe('unknown-parameter');
    expect(at(p, '$.nodes.run.properties.playRate.param')[0]).toMatchObject({ code: 'parameter-type', message: "property 'playRate' is float but parameter 'fast' is bool" });
  });

  it('accepts an int parameter for a float property', () => {
    const a = asset();
    a.nodes.run.properties.playRate = { param: 'gait' };
    expect(checkGraphAsset(a).ok).toBe(true);
  });

  it('reports a parameter default of the wrong type', () => {
    const a = asset();
    a.parameters.fast.default = 3;
    expect(at(problems(a), '$.parameters.fast.default')).toHaveLength(1);
  });

  it('reports an unknown bone', () => {
    const a = asset();
    a.nodes.copy.properties.targetBone = 'tail';
    expect(at(problems(a), '$.nodes.copy.properties.targetBone')[0]).toMatchObject({ code: 'unknown-bone', message: "the skeleton has no bone 'tail'" });
  });

  it('reports an unknown clip, a property out of range and an unknown property', () => {
    const a = asset();
    a.nodes.walk.properties.clip = 'jog';
    a.nodes.blend.properties.alpha = 1.5;
    a.nodes.run.properties.speed = 2;
    const p = problems(a);
    expect(at(p, '$.nodes.walk.properties.clip')[0].code).toBe('unknown-clip');
    expect(at(p, '$.nodes.blend.properties.alpha')[0].code).toBe('schema');
    expect(at(p, '$.nodes.run.properties').length + at(p, '$.nodes.run.properties.speed').length).toBeGreaterThan(0);
  });

  it('reports a missing clip file and an unreadable skeleton file', () => {
    const a = asset();
    a.clips.walk.source = 'missing/walk.bvh';
    a.skeleton = { file: 'missing/skeleton.json' };
    const p = problems(a, tmpdir());
    expect(at(p, '$.clips.walk.source')[0]).toMatchObject({ code: 'clip-file' });
    expect(at(p, '$.clips.walk.source')[0].message).toContain('ENOENT');
    expect(at(p, '$.skeleton.file')[0].code).toBe('file');
  });

  it('reports a malformed BVH clip with the BVH line, and a frame range outside the clip', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-'));
    writeFileSync(join(dir, 'bad.bvh'), 'HIERARCHY\nROOT hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n1 2\n');
    writeFileSync(join(dir, 'ok.bvh'), 'HIERARCHY\nROOT pelvis\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n1 2 3\n4 5 6\n');
    const a = asset();
    a.clips.walk.source = 'bad.bvh';
    a.clips.run = { source: 'ok.bvh', frames: [1, 5] };
    const p = problems(a, dir);
    expect(at(p, '$.clips.walk.source')[0]).toMatchObject({ code: 'bvh' });
    expect(at(p, '$.clips.walk.source')[0].message).toContain('line 10: data row has 2 values but the hierarchy declares 3 channels');
    expect(at(p, '$.clips.run.frames')[0].code).toBe('clip-frames');
  });

  it('reports a BVH clip lasting Infinity (3 frames of 1e308 s) at the clip\'s path with its line: a blend space playing it had a NaN time', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-'));
    writeFileSync(join(dir, 'slow.bvh'), 'HIERARCHY\nROOT pelvis\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: 3\nFrame Time: 1e308\n1 2 3\n4 5 6\n7 8 9\n');
    const a = asset();
    a.clips.slow = { source: 'slow.bvh' };
    a.nodes.space = { type: 'BlendSpace1D', properties: { samples: [{ clip: 'walk', x: 0 }, { clip: 'slow', x: 1 }], x: { param: 'alpha' } } };
    a.nodes.blend.inputs.B = 'space';
    a.nodes.blend.inputs.A = 'walk';
    delete a.nodes.run;
    expect(problems(a, dir)).toEqual([
      { path: '$.clips.slow.source', code: 'bvh', message: `malformed BVH ${join(dir, 'slow.bvh')} line 9: frame time must be from 1e-6 to 1e6 seconds, got 1e+308` },
    ]);
  });

  it('reports translations and scales beyond 1e15 in clips and skeletons (near the largest double they overflow when sampled), and loads 1e15', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-'));
    const bvh = (offset: string, first: string, second: string) => `HIERARCHY\nROOT pelvis\n{\n OFFSET ${offset} 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n${first} 0 0\n${second} 0 0\n`;
    writeFileSync(join(dir, 'huge.bvh'), bvh('0', '1e308', '-1e308'));
    writeFileSync(join(dir, 'far.bvh'), bvh('2e15', '0', '1'));
    writeFileSync(join(dir, 'edge.bvh'), bvh('1e15', '-1e15', '1e15'));
    const a = asset();
    a.clips.walk.source = 'huge.bvh';
    let p = problems(a, dir);
    expect(at(p, '$.clips.walk.source')).toEqual([{ path: '$.clips.walk.source', code: 'value-range',
      message: "clip 'walk': the translation of bone 'pelvis' at frame 0 is 1e+308, beyond ±1e15" }]);
    expect(at(p, '$.nodes.walk.properties.clip')).toEqual([]); // the clip is declared: no knock-on unknown clip
    p = problems({ ...asset(), skeleton: { bvh: 'far.bvh' }, clips: { walk: { source: 'far.bvh' } }, nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'walk' }, dir);
    expect(p).toEqual([{ path: '$.skeleton', code: 'value-range', message: "bone 'pelvis': reference translation 2000000000000000 is beyond ±1e15" }]);
    // At the bound itself: loads, and samples half way between -1e15 and 1e15 to 0.
    const graph = loadGraphAsset({ ...asset(), skeleton: { bvh: 'edge.bvh' }, clips: { walk: { source: 'edge.bvh' } }, nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'walk' }, { baseDir: dir });
    const instance = graph.createInstance();
    instance.update(0.05);
    expect(instance.evaluate().translations[0]).toBe(0);
  });

  it('reports a BVH clip with a bad number at the clip\'s path and line, without a knock-on unknown clip', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-'));
    writeFileSync(join(dir, 'bad-number.bvh'), 'HIERARCHY\nROOT pelvis\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n1 2 3\n4 five 6\n');
    writeFileSync(join(dir, 'g.json'), JSON.stringify({ ...asset(), clips: { walk: { source: 'bad-number.bvh' }, run: { source: 'builtin:run' } } }));
    let error: unknown;
    try {
      loadGraphFile(join(dir, 'g.json'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GraphLoadError);
    // The file's problem only: the player naming the declared clip is not also told 'walk' is unknown.
    expect((error as GraphLoadError).problems).toEqual([
      { path: '$.clips.walk.source', code: 'bvh', message: `malformed BVH ${join(dir, 'bad-number.bvh')} line 11: value 2 'five' is not a number` },
    ]);
  });

  it('reports a clip path that cannot be read (a directory) at the clip\'s path, and no knock-on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-'));
    mkdirSync(join(dir, 'walk.bvh'));
    const a = asset();
    a.clips.walk.source = 'walk.bvh';
    a.nodes.run.properties.clip = 'jog'; // still unknown: the list names every declared clip
    const p = problems(a, dir);
    expect(p.map((x) => [x.path, x.code])).toEqual([['$.clips.walk.source', 'clip-file'], ['$.nodes.run.properties.clip', 'unknown-clip']]);
    expect(p[0].message).toBe(`cannot read 'walk.bvh': ${join(dir, 'walk.bvh')} is a directory, not a regular file`);
    expect(p[1].message).toBe("unknown clip 'jog' (declared: walk, run)");
  });

  it('names a number too large for a float (JSON 1e400 reads as Infinity) at its path', () => {
    const a = JSON.parse(JSON.stringify(asset()).replace('"playRate":1.5', '"playRate":1e400').replace('"default":0.25', '"default":-1e400'));
    a.nodes.list = { type: 'BlendList', inputs: { poses: ['walk'] }, properties: { blendTimes: [Infinity] } };
    a.nodes.blend.inputs.A = 'list';
    const p = problems(a);
    const finite = 'not a finite number (a JSON number beyond ±1.8e308 reads as Infinity)';
    expect(at(p, '$.nodes.run.properties.playRate')).toEqual([{ path: '$.nodes.run.properties.playRate', code: 'schema', message: finite }]);
    expect(at(p, '$.parameters.alpha.default')).toEqual([{ path: '$.parameters.alpha.default', code: 'schema', message: finite }]);
    expect(at(p, '$.nodes.list.properties.blendTimes[0]')).toEqual([{ path: '$.nodes.list.properties.blendTimes[0]', code: 'schema', message: finite }]);
    expect(p, JSON.stringify(p)).toHaveLength(3);
  });

  it('reports a JSON skeleton whose bones come before their parents', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-'));
    writeFileSync(join(dir, 'skeleton.json'), JSON.stringify({ bones: [{ name: 'root' }, { name: 'hand', parent: 'arm' }, { name: 'arm', parent: 'root' }] }));
    const a = asset();
    a.skeleton = { file: 'skeleton.json' };
    a.clips = {};
    a.nodes = { pose: { type: 'BlendList', inputs: { poses: [] } } };
    a.output = 'pose';
    const p = problems(a, dir);
    expect(at(p, '$.skeleton.file')[0]).toMatchObject({ code: 'skeleton' });
    expect(at(p, '$.skeleton.file')[0].message).toContain("comes before its parent 'arm'");
    expect(at(p, '$.nodes.pose.inputs.poses')[0].code).toBe('missing-link');
  });

  it('reports a JSON skeleton bone rotation that is not a unit quaternion at its path in the file, as helper bones do (a zero one reached the poses)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-'));
    const bones = (rotations: unknown[]) => JSON.stringify({ bones: [{ name: 'root' }, ...rotations.map((rotation, i) => ({ name: `b${i}`, parent: 'root', rotation }))] });
    writeFileSync(join(dir, 'x.skel.json'), bones([[0, 0, 0, 0], [0, 0, 0, 2], [0, 0, 0, 1]]));
    writeFileSync(join(dir, 'near.skel.json'), bones([[0, 0, 0, 1.0009], [0, Math.SQRT1_2, 0, Math.SQRT1_2]]));
    const a = asset();
    a.skeleton = { file: 'x.skel.json' };
    a.clips = {};
    a.nodes = { pose: { type: 'BlendList', inputs: { poses: [] } } };
    a.output = 'pose';
    expect(at(problems(a, dir), '$.skeleton.file')).toEqual([
      { path: '$.skeleton.file', code: 'skeleton', message: '$.bones[1].rotation in x.skel.json: a rotation is a unit quaternion [x, y, z, w]; this one has length 0.000' },
      { path: '$.skeleton.file', code: 'skeleton', message: '$.bones[2].rotation in x.skel.json: a rotation is a unit quaternion [x, y, z, w]; this one has length 2.000' },
    ]);
    // Within 0.001 of unit length, as for helper bones, loads.
    a.skeleton = { file: 'near.skel.json' };
    expect(at(problems(a, dir), '$.skeleton.file')).toEqual([]);
    // A key a bone repeats kept the last, silently, as in a graph file.
    writeFileSync(join(dir, 'twice.skel.json'), '{"bones": [{"name": "root"}, {"name": "arm", "parent": "root", "name": "leg", "rotation": [0, 0, 0, 0]}]}');
    a.skeleton = { file: 'twice.skel.json' };
    // With the file's other problems, at once.
    expect(at(problems(a, dir), '$.skeleton.file')).toEqual([
      { path: '$.skeleton.file', code: 'duplicate-key', message: "$.bones[1].name in twice.skel.json: 'name' appears more than once in this object; JSON keeps only the last, so the others would be ignored" },
      { path: '$.skeleton.file', code: 'skeleton', message: '$.bones[1].rotation in twice.skel.json: a rotation is a unit quaternion [x, y, z, w]; this one has length 0.000' },
    ]);
  });

  it('reports a blend-time list whose length does not match the pose list', () => {
    const a = asset();
    a.nodes.list = { type: 'BlendList', inputs: { poses: ['walk', 'run'] }, properties: { blendTimes: [0.1] } };
    a.nodes.blend.inputs = { A: 'list', B: 'x' };
    a.nodes.x = { type: 'SequencePlayer', properties: { clip: 'walk' } };
    expect(at(problems(a), '$.nodes.list.properties.blendTimes')).toHaveLength(1);
  });

  it('reports every problem at once, as a typed error from loadGraphAsset and loadGraphFile', () => {
    const a = asset();
    a.nodes.run.type = 'Nope';
    a.nodes.copy.properties.sourceBone = 'wing';
    a.nodes.blend.properties.alpha = { param: 'missing' };
    let error: unknown;
    try {
      loadGraphAsset(a, { source: 'mine.json' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GraphLoadError);
    const paths = (error as GraphLoadError).problems.map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['$.nodes.run.type', '$.nodes.copy.properties.sourceBone', '$.nodes.blend.properties.alpha.param']));
    expect((error as Error).message).toContain('mine.json: 3 problems');
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-'));
    writeFileSync(join(dir, 'g.json'), '{ not json');
    expect(() => loadGraphFile(join(dir, 'g.json'))).toThrow(GraphLoadError);
    expect(() => loadGraphFile(join(dir, 'absent.json'))).toThrow(/cannot read graph file/);
    // A byte-order mark (some Windows editors write one) was 'not valid JSON: Unexpected token', the token invisible.
    writeFileSync(join(dir, 'bom.json'), `\ufeff${JSON.stringify({ format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } }, nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p' })}`);
    expect(loadGraphFile(join(dir, 'bom.json')).skeleton.boneCount).toBe(22);
  });

  it('reports a key an object of the file repeats (JSON.parse kept the last silently), with the asset\'s other problems', () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-'));
    // The second 'o' replaced the first and the second 'walk' clip played run: it loaded as valid.
    const text = `{"format": "animgraph/1", "skeleton": "builtin:biped",
      "clips": {"walk": {"source": "builtin:walk"}, "walk": {"source": "builtin:run"}},
      "nodes": {"o": {"type": "SequencePlayer", "properties": {"clip": "walk", "playRate": 2}},
                "o": {"type": "SequencePlayer", "properties": {"clip": "nope", "clip": "walk"}}},
      "output": "o"}`;
    writeFileSync(join(dir, 'twice.json'), text);
    const result = checkGraphFile(join(dir, 'twice.json'));
    const repeat = (key: string) => `'${key}' appears more than once in this object; JSON keeps only the last, so the others would be ignored`;
    expect(result.ok ? [] : result.problems).toEqual([
      { path: '$.clips.walk', code: 'duplicate-key', message: repeat('walk') },
      { path: '$.nodes.o', code: 'duplicate-key', message: repeat('o') },
      { path: '$.nodes.o.properties.clip', code: 'duplicate-key', message: repeat('clip') },
    ]);
    expect(() => loadGraphFile(join(dir, 'twice.json'))).toThrow("twice.json: 3 problems");
    // The core loader takes the text too (a browser's `await response.text()`), with the same problems.
    const fromText = checkGraphAsset(text);
    expect(fromText.ok ? [] : fromText.problems).toEqual(result.ok ? [] : result.problems);
    const notJson = checkGraphAsset('{ "format": ');
    expect(notJson.ok ? [] : notJson.problems.map((p) => [p.path, p.code])).toEqual([['$', 'schema']]);
    const valid = { format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } }, nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p' };
    expect(checkGraphAsset(`\ufeff${JSON.stringify(valid, null, 2)}`).ok).toBe(true);
    // A long key is cut in the message, as every name a message echoes (runtime/core/names.ts).
    const long = 'k'.repeat(1000);
    const [problem] = duplicateKeyProblems(`{"${long}": 1, "${long}": 2}`);
    expect(problem.message).toBe(`'${'k'.repeat(80)}…' appears more than once in this object; JSON keeps only the last, so the others would be ignored`);
    // Escapes name the same key; nesting of any depth is scanned without recursion; arrays index.
    expect(duplicateJsonKeys('[{}, "s", {"k": 1, "\\u006b": [1, {"x": 1, "x": 2}]}]')).toEqual([{ path: [2], key: 'k' }, { path: [2, 'k', 1], key: 'x' }]);
    expect(duplicateJsonKeys(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`)).toEqual([]);
    expect(duplicateJsonKeys('{"a\\"b": 1, "a\\"b": 2, "a": {}, "b": "a"}')).toEqual([{ path: [], key: 'a"b' }]);
  });

  it('checkGraph (async) takes the JSON text as checkGraphAsset does, repeats and all', async () => {
    const text = '{"format": "animgraph/1", "skeleton": "builtin:biped", "clips": {"walk": {"source": "builtin:walk"}}, "nodes": {"p": {"type": "SequencePlayer", "properties": {"clip": "walk"}}}, "output": "p", "output": "p"}';
    const result = await checkGraph(text);
    expect(result.ok ? [] : result.problems.map((p) => [p.path, p.code])).toEqual([['$.output', 'duplicate-key']]);
    expect((await checkGraph(text.replace(', "output": "p"}', '}'))).ok).toBe(true);
  });

  it('finds exactly the keys an object repeats in any JSON text, however it is spaced or escaped (property)', () => {
    // JSON.stringify writes no repeats; re-adding an object's first key at its end (escaped as \\uXXXX,
    // as a hand-written file may) is the one repeat, at that object's path.
    const objectPaths = (value: unknown, path: (string | number)[] = [], out: { path: (string | number)[]; key: string }[] = []) => {
      if (Array.isArray(value)) value.forEach((v, k) => objectPaths(v, [...path, k], out));
      else if (typeof value === 'object' && value !== null) {
        const keys = Object.keys(value);
        if (keys.length > 0) out.push({ path, key: keys[0] });
        for (const key of keys) objectPaths((value as Record<string, unknown>)[key], [...path, key], out);
      }
      return out;
    };
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat(), fc.boolean(), (value, pick, spaced) => {
      const text = JSON.stringify(value, null, spaced ? 2 : undefined);
      expect(duplicateJsonKeys(text)).toEqual([]);
      const objects = objectPaths(value);
      if (objects.length === 0) return;
      const { path, key } = objects[pick % objects.length];
      // Rebuild the text with the repeat: the chosen object written by hand, the rest by JSON.stringify.
      const escaped = `"${Array.from({ length: key.length }, (_, k) => `\\u${key.charCodeAt(k).toString(16).padStart(4, '0')}`).join('')}"`;
      const write = (v: unknown, at: (string | number)[]): string => {
        if (Array.isArray(v)) return `[${v.map((x, k) => write(x, [...at, k])).join(',')}]`;
        if (typeof v !== 'object' || v === null) return JSON.stringify(v);
        const entries = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${write(x, [...at, k])}`);
        if (JSON.stringify(at) === JSON.stringify(path)) entries.push(`${escaped}: null`);
        return `{${entries.join(', ')}}`;
      };
      expect(duplicateJsonKeys(write(value, []))).toEqual([{ path, key }]);
    }), { seed: 20261128, numRuns: 300 });
  });
});

describe('values matching none of a union\'s shapes say what is accepted (zod said "Invalid input")', () => {
  const skeleton = 'expected "builtin:biped", {"bvh": path}, {"file": path} or {"gltf": path, "skin"?: index | name}';
  const scalar = 'expected a number, {"param": name} or {"curve": name}';
  const notify = 'expected {"name": string, "time": number} or {"name": string, "start": number, "end": number}';
  it.each([
    ['a skeleton file path', (a: any) => { a.skeleton = 'hero.bvh'; }, '$.skeleton', skeleton],
    ['a built-in skeleton misspelt', (a: any) => { a.skeleton = 'builtin:Biped'; }, '$.skeleton', skeleton],
    ['a skeleton key misspelt', (a: any) => { a.skeleton = { bhv: 'hero.bvh' }; }, '$.skeleton', skeleton],
    ['a null skeleton', (a: any) => { a.skeleton = null; }, '$.skeleton', skeleton],
    ['a key of another skeleton source', (a: any) => { a.skeleton = { bvh: 'hero.bvh', skin: 0 }; }, '$.skeleton', `unexpected key "skin": ${skeleton}`],
    ['a number as text', (a: any) => { a.nodes.run.properties.playRate = '2'; }, '$.nodes.run.properties.playRate', scalar],
    ['a null property', (a: any) => { a.nodes.run.properties.playRate = null; }, '$.nodes.run.properties.playRate', scalar],
    ['a binding misspelt', (a: any) => { a.nodes.run.properties.playRate = { parameter: 'alpha' }; }, '$.nodes.run.properties.playRate', scalar],
    ['rootMotion as text', (a: any) => { a.clips.walk.rootMotion = 'yes'; }, '$.clips.walk.rootMotion', 'expected true, false or {"bone"?: string, "up"?: "y" | "z"}'],
    ['an additive reference as text', (a: any) => { a.clips.walk.additive = { reference: 'reference' }; }, '$.clips.walk.additive.reference', 'expected "skeleton" or {"clip": string, "frame": integer}'],
    ['a notify with a time and a start', (a: any) => { a.clips.walk.notifies = [{ name: 'step', time: 0.1, start: 0.1 }]; }, '$.clips.walk.notifies[0]', `unexpected key "start": ${notify}`],
    ['a notify with only a start', (a: any) => { a.clips.walk.notifies = [{ name: 'step', start: 0.1 }]; }, '$.clips.walk.notifies[0]', notify],
    ['an input that is no id', (a: any) => { a.nodes.blend.inputs.A = 3; }, '$.nodes.blend.inputs.A', 'expected a node id or a list of node ids'],
  ])('%s', (_what, edit, path, message) => {
    const a = asset();
    edit(a);
    expect(problems(a)).toEqual([{ path, code: 'schema', message }]);
  });

  it('lists every shape of a list property and of a state, and leaves other messages as they were', () => {
    const a = asset();
    a.nodes.list = { type: 'BlendList', inputs: { poses: ['walk', 'run'] }, properties: { blendTimes: 'slow' } };
    a.nodes.sm = { type: 'StateMachine', properties: { entry: 'a', states: { a: { nodes: {}, output: 'x', conduit: true }, b: { conduit: true } }, transitions: [] } };
    a.nodes.blend.inputs = { A: 'list', B: 'sm' };
    a.parameters.alpha = { type: 'double' };
    a.clips.walk.animation = -1;
    expect(problems(a).filter((p) => p.code === 'schema')).toEqual([
      { path: '$.clips.walk.animation', code: 'schema', message: 'Too small: expected number to be >=0' },
      { path: '$.parameters.alpha.type', code: 'schema', message: "Invalid discriminator value. Expected 'float' | 'int' | 'bool' | 'vec3'" },
      { path: '$.nodes.list.properties.blendTimes', code: 'schema', message: 'expected a number or a list of numbers' },
      { path: '$.nodes.sm.properties.states.a', code: 'schema', message: 'expected {"nodes": {…}, "output": string, "editor"?: {…}} or {"conduit": true, "editor"?: {…}}' },
      { path: '$.nodes.sm.properties.states', code: 'schema', message: 'a StateMachine needs at least one state with a pose (not a conduit)' },
    ]);
  });
});

describe('node ids', () => {
  it('reports a node id that could never be linked', () => {
    const a = asset();
    a.nodes['my node'] = { type: 'SequencePlayer', properties: { clip: 'walk' } };
    const p = problems(a);
    expect(p.some((x) => x.path.startsWith('$.nodes') && x.code === 'schema' && x.message.includes('node id'))).toBe(true);
  });

  it('says ids take ASCII letters only, and names the id wherever one is written ($.output said only the rule)', () => {
    const a = asset();
    a.nodes['ñodo'] = a.nodes.copy;
    delete a.nodes.copy;
    a.output = 'ñodo';
    a.nodes.blend.inputs.B = 'ru n';
    const rule = 'ids start with an ASCII letter or _ and contain only ASCII letters, digits, _ . -';
    expect(problems(a)).toEqual([
      { path: '$.output', code: 'schema', message: `'ñodo' is not a node id: ${rule}` },
      { path: '$.nodes.blend.inputs.B', code: 'schema', message: `'ru n' is not a node id: ${rule}` },
      { path: '$.nodes["ñodo"]', code: 'schema', message: `'ñodo' is not a node id: ${rule}` },
    ]);
  });
});

describe('assets given as JavaScript objects', () => {
  const cycle = 'refers to an object that contains it (a reference cycle: not JSON data)';
  /** 2^levels leaves: each level holds the next twice, as `wrap` puts it. */
  const shared = (levels: number, leaf: unknown, wrap: (x: unknown) => unknown) => {
    let x = leaf;
    for (let i = 0; i < levels; i++) x = wrap(x);
    return x;
  };
  const machine = (states: Record<string, unknown>) => ({ type: 'StateMachine', properties: { entry: Object.keys(states)[0], states, transitions: [] as unknown[] } });

  it('reports an object inside itself where it is met again, and stops (the walk hung until out of memory)', () => {
    const a = asset();
    a.nodes.blend.editor.self = a.nodes.blend.editor;
    a.nodes.run.properties.playRate = [];
    a.nodes.run.properties.playRate.push(a.nodes.run.properties.playRate);
    expect(problems(a)).toEqual([
      { path: '$.nodes.run.properties.playRate[0]', code: 'schema', message: cycle },
      { path: '$.nodes.blend.editor.self', code: 'schema', message: cycle },
    ]);
  });

  it('reports a cycle through a transition rule or a state machine holding itself (the checks recursed without end)', () => {
    const rule: any = { not: { and: [true] } };
    rule.not.and.push(rule);
    const m: any = machine({ s: { nodes: {}, output: 'm' } });
    m.properties.states.s.nodes.m = m;
    m.properties.transitions.push({ from: 's', to: 's', rule, allowReentry: true });
    const a = asset();
    a.nodes.sm = m;
    expect(problems(a)).toEqual([
      { path: '$.nodes.sm.properties.states.s.nodes.m', code: 'schema', message: cycle },
      { path: '$.nodes.sm.properties.transitions[0].rule.not.and[1]', code: 'schema', message: cycle },
    ]);
  });

  it('refuses objects shared so much that the asset, written as JSON, would hold more than 1,000,000 values', () => {
    const limit = 'the asset holds more than 1,000,000 values (MAX_ASSET_VALUES), counting a shared object once per place it appears, as its JSON text would';
    // 30 levels each holding the next twice: 2^30 leaves, in an editor block, a rule and nested machines.
    const editor = asset();
    editor.nodes.blend.editor.tree = shared(30, { v: 1 }, (x) => ({ l: x, r: x }));
    const rule = asset();
    rule.nodes.sm = machine({ s: { nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p' } });
    rule.nodes.sm.properties.transitions.push({ from: 's', to: 's', rule: shared(30, true, (x) => ({ and: [x, x] })) });
    const nested = asset();
    nested.nodes.sm = shared(30, { type: 'SequencePlayer', properties: { clip: 'walk' } }, (m) => machine({ a: { nodes: { m }, output: 'm' }, b: { nodes: { m }, output: 'm' } }));
    for (const a of [editor, rule, nested]) {
      const started = cpuMs();
      expect(problems(a)).toEqual([{ path: '$', code: 'schema', message: limit }]);
      expect(cpuMs() - started).toBeLessThan(2000);
    }
  });

  it('loads shared objects below the limit, as their JSON text would', () => {
    const a = asset();
    a.nodes.blend.editor.tree = shared(12, { v: 1 }, (x) => ({ l: x, r: x }));
    a.clips.jog = a.clips.run;
    a.nodes.jog = { type: 'SequencePlayer', properties: a.nodes.run.properties };
    a.nodes.sm = shared(4, { type: 'SequencePlayer', properties: { clip: 'walk' } }, (m) => machine({ a: { nodes: { m }, output: 'm' }, b: { nodes: { m }, output: 'm' } }));
    a.nodes.sm.properties.transitions.push({ from: 'a', to: 'b', rule: shared(5, { param: 'fast' }, (x) => ({ or: [x, { not: x }] })) });
    a.nodes.two = { type: 'BlendTwo', inputs: { A: 'jog', B: 'sm' }, properties: { alpha: 0.5 } };
    a.nodes.blend.inputs.B = 'two';
    a.nodes.blend.inputs.A = 'walk';
    expect(checkGraphAsset(a).ok).toBe(true);
    const instance = loadGraphAsset(a).createInstance();
    instance.update(0.1);
  });
});

describe('custom node types at load: their own code failing is a problem of the node', () => {
  class Still extends LocalPoseNode {
    protected get links() { return NO_LINKS; }
    protected onUpdate() {}
    protected onEvaluate() {}
  }
  /** A type 'T' of one float property whose hooks are `hooks` (create builds a Still by default). */
  const typeT = (hooks: Partial<NodeType>): NodeRegistry => new NodeRegistry([...builtInNodeTypes, {
    type: 'T', space: 'local', properties: { a: { kind: 'float', default: 1 } }, inputs: [],
    create: ({ id }) => new Still(id, 'T'), ...hooks,
  }]);
  /** Two T nodes (the second inside a state machine's state) blended, checked with `registry`. */
  const checked = (registry: NodeRegistry, more: Record<string, unknown> = {}) => {
    const result = checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: {},
      nodes: {
        n: { type: 'T' },
        sm: { type: 'StateMachine', properties: { entry: 's', states: { s: { nodes: { p: { type: 'T' } }, output: 'p' } }, transitions: [] } },
        o: { type: 'BlendTwo', inputs: { A: 'n', B: 'sm' } },
        ...more,
      },
      output: 'o',
    }, { nodeTypes: registry });
    return result.ok ? [] : result.problems;
  };
  const failed = (path: string, message: string): GraphProblem => ({ path, code: 'node-type-failed', message });

  it('reports a check that throws at each node, as a problem, with the asset\'s others (it escaped checkGraphAsset)', () => {
    expect(checked(typeT({ check: () => { throw new Error('my check bug'); } }), { x: { type: 'SequencePlayer' } })).toEqual([
      failed('$.nodes.n', "T 'n': check threw Error: my check bug"),
      { path: '$.nodes.x.properties.clip', code: 'schema', message: 'Invalid input: expected string, received undefined' },
      failed('$.nodes.sm.properties.states.s.nodes.p', "T 'p': check threw Error: my check bug"),
    ]);
  });

  it('reports a prepare that throws at each node ($: "graph failed to instantiate: my prepare bug" named neither)', () => {
    expect(checked(typeT({ prepare: () => { throw new Error('my prepare bug'); } }))).toEqual([
      failed('$.nodes.n', "T 'n': prepare threw Error: my prepare bug"),
      failed('$.nodes.sm.properties.states.s.nodes.p', "T 'sm/s/p': prepare threw Error: my prepare bug"),
    ]);
  });

  it('reports a create that throws, or returns anything but a node of its id and space, at the node', () => {
    expect(checked(typeT({ create: () => { throw new RangeError('bad config'); } }))).toEqual([failed('$.nodes.n', "T 'n': create threw RangeError: bad config")]);
    // undefined was "node 'o' links 'A' to 'n', which is not built before it", at $.
    expect(checked(typeT({ create: () => undefined as never }))).toEqual([
      failed('$.nodes.n', "T 'n': create returned undefined, not a node (a LocalPoseNode or ComponentPoseNode)"),
    ]);
    expect(checked(typeT({ create: () => ({ space: 'local' }) as never }))).toEqual([
      failed('$.nodes.n', "T 'n': create returned an object of class Object, not a node (a LocalPoseNode or ComponentPoseNode)"),
    ]);
    const one = new Still('n', 'T');
    expect(checked(typeT({ create: () => one }))).toEqual([failed('$.nodes.sm.properties.states.s.nodes.p', "T 'sm/s/p': create returned a node of id 'n': give the node the id create receives")]);
    expect(checked(typeT({ space: 'component' }))).toEqual([
      failed('$.nodes.n', "T 'n': create returned a local-space node; the type declares space 'component', which the loader checked links by"),
    ]);
  });

  it('refuses a problem code a node type reports that is not one of NODE_PROBLEM_CODES', () => {
    const report = (code: string) => ({ check: (ctx: NodeCheckContext) => ctx.report(['a'], code as 'schema', 'bad a') });
    expect(checked(typeT(report('unknown-bone')))[0]).toEqual({ path: '$.nodes.n.properties.a', code: 'unknown-bone', message: 'bad a' });
    expect(checked(typeT(report('whatever')))[0]).toEqual(failed('$.nodes.n', [
      "T 'n': check threw AnimGraphError: report([\"a\"], \"whatever\", …): not a problem code a node reports",
      ' (schema, unknown-bone, unknown-clip, file, stale-index, duplicate-sample, collinear-samples, value-range,',
      ' unknown-parameter, parameter-type, unknown-blend-profile, blend-profile-mode, unknown-state, too-deep, too-large,',
      ' not-additive, space-mismatch)',
    ].join('')));
    const prepared = checked(typeT({ prepare: (ctx) => ctx.report([], 'cycle' as 'schema', 'bad') }));
    expect(prepared[0].message).toMatch(/^T 'n': prepare threw AnimGraphError: report\(\[\], "cycle", …\): not a problem code a node reports/);
  });
});

describe('sub-graphs of a custom node type (NodeType.subGraphs), checked and built as a StateMachine\'s states are', () => {
  /** Plays one of its named sub-graphs, `use`. */
  class Pick extends LocalPoseNode {
    constructor(id: string, private readonly pose: PoseLink) {
      super(id, 'Pick');
    }
    protected get links() { return [this.pose]; }
    protected onUpdate(ctx: UpdateContext) { this.pose.update(ctx); }
    protected onEvaluate(out: Pose) { this.pose.evaluate(out); }
  }
  const seen: string[][] = [];
  const layer = z.object({ nodes: z.record(z.string(), z.unknown()), output: z.string() }).strict();
  const PickType = defineNodeType({
    type: 'Pick', space: 'local', inputs: [],
    properties: { layers: { kind: 'object', schema: z.record(z.string(), layer) }, use: { kind: 'object', schema: z.string() } },
    subGraphs: (p) => Object.entries((p.layers ?? {}) as Record<string, unknown>).flatMap(([name, l]) => {
      const parsed = layer.safeParse(l);
      return parsed.success ? [{ name, path: ['layers', name], ...parsed.data }] : [];
    }),
    prepare: (ctx) => { seen.push([...ctx.subGraphs]); },
    create: ({ id, properties: p, subGraphs }) => new Pick(id, subGraphs[p.use!]),
  });
  const registry = (more: NodeType[] = []) => new NodeRegistry([...builtInNodeTypes, PickType, ...more]);
  const asset = (layers: Record<string, unknown>, use = 'a', nodes: Record<string, unknown> = {}) => ({
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    nodes: { pick: { type: 'Pick', properties: { layers, use } }, ...nodes }, output: 'pick',
  });
  const player = (clip: string) => ({ nodes: { p: { type: 'SequencePlayer', properties: { clip } } }, output: 'p' });

  it('builds each sub-graph before the node, which gets their roots by name; the loader names no node type to do it', () => {
    seen.length = 0;
    const graph = loadGraphAsset(asset({ a: player('run'), b: player('walk') }), { nodeTypes: registry() });
    expect(seen).toEqual([['a', 'b']]);
    expect(graph.nodes.map((n) => n.id)).toEqual(['pick/a/p', 'pick/b/p', 'pick', 'output']);
    const picked = graph.createInstance(), alone = loadGraphAsset({ ...asset({}), nodes: { p: { type: 'SequencePlayer', properties: { clip: 'run' } } }, output: 'p' }).createInstance();
    for (const g of [picked, alone]) g.update(0.3);
    expect(picked.evaluate().translations).toEqual(alone.evaluate().translations);
  });

  it('reports problems inside a sub-graph at their paths, and a failure of a node built inside one at that node', () => {
    const problems = (json: unknown, types = registry()) => { const r = checkGraphAsset(json, { nodeTypes: types }); return r.ok ? [] : r.problems.map((p) => [p.path, p.code]); };
    expect(problems(asset({ a: player('sprint'), b: { nodes: { p: { type: 'InertialBlend', inputs: { A: 'x', B: 'x' } } }, output: 'p' } }))).toEqual([
      ['$.nodes.pick.properties.layers.a.nodes.p.properties.clip', 'unknown-clip'],
      ['$.nodes.pick.properties.layers.b.nodes.p.inputs.A', 'dangling-link'],
      ['$.nodes.pick.properties.layers.b.nodes.p.inputs.B', 'dangling-link'],
    ]);
    // A sub-graph that asks for an Inertialization makes its owner ask, reported at the sub-graph.
    const inertial = { nodes: { w: { type: 'SequencePlayer', properties: { clip: 'walk' } }, r: { type: 'SequencePlayer', properties: { clip: 'run' } }, p: { type: 'BlendList', inputs: { poses: ['w', 'r'] }, properties: { blendMode: 'inertial' } } }, output: 'p' };
    expect(problems(asset({ a: player('run'), b: inertial }))).toEqual([['$.nodes.pick.properties.layers.b', 'no-inertialization']]);
    expect(problems({ ...asset({ a: player('run'), b: inertial }), nodes: { ...asset({ a: player('run'), b: inertial }).nodes, i: { type: 'Inertialization', inputs: { pose: 'pick' } } }, output: 'i' })).toEqual([]);
    const Broken = defineNodeType({ type: 'Broken', space: 'local', properties: {}, inputs: [], prepare: () => { throw new Error('no'); }, create: ({ id }) => new Pick(id, null!) });
    expect(problems(asset({ a: { nodes: { t: { type: 'Broken' } }, output: 't' } }), registry([Broken]))).toEqual([['$.nodes.pick.properties.layers.a.nodes.t', 'node-type-failed']]);
  });

  it('reports a subGraphs hook that throws, or answers with no list of sub-graphs, at its node', () => {
    for (const subGraphs of [() => { throw new Error('my bug'); }, () => [{ name: 'a' }] as never, () => [player('run'), player('run')].map((g) => ({ ...g, name: 'a', path: [] }))]) {
      const result = checkGraphAsset(asset({ a: player('run') }), { nodeTypes: new NodeRegistry([...builtInNodeTypes, { ...PickType, subGraphs }]) });
      expect(result.ok ? [] : result.problems.map((p) => [p.path, p.code, p.message.split(':')[0]])).toEqual([['$.nodes.pick', 'node-type-failed', "Pick 'pick'"]]);
    }
  });
});
