import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, NodeRegistry } from '../../graphs/loader.ts';
import { builtInNodeTypeNames, builtInNodeTypes } from '../../nodes/index.ts';
import type { NodeType } from '../../runtime/node/node.ts';
import { checkGraphAsset as checkGraphOnDisk } from '../../host/files.ts';
import { describeWithData } from '../support/shared-data.ts';
import {
  assetChoices, assetRowOf, blendProfileExample, canvas, clipExample, montageExample, setAssetEntry, ENTRY_ID, locateProblem, OUTPUT_ID, palette, propertyFields, setProperty, type JsonObject, type ProblemTarget,
} from '../../editor/model/index.ts';

const examplesDir = new URL('../../graphs/examples/', import.meta.url).pathname;
const read = (file: string): any => JSON.parse(readFileSync(examplesDir + file, 'utf8'));

/** The loader's problems with an asset, each with where the editor puts it. */
function located(asset: JsonObject): [string, string, ProblemTarget][] {
  const result = checkGraphAsset(asset);
  if (result.ok) throw new Error('expected problems');
  return result.problems.map((p) => [p.code, p.path, locateProblem(asset, p.path)]);
}

/** The target exists where it says: the canvas, its node, the node's pin or property. */
function expectDrawn(asset: JsonObject, target: ProblemTarget): void {
  const c = canvas(asset, target.canvas);
  if (target.nodeId === undefined) return;
  const node = c.nodes.find((n) => n.id === target.nodeId);
  expect(node, `${target.nodeId} on ${JSON.stringify(target.canvas)}`).toBeDefined();
  if (target.handle !== undefined) expect(node!.inputs.map((p) => p.handle)).toContain(target.handle);
  if (target.property !== undefined) expect(propertyFields(asset, target.canvas, target.nodeId).map((f) => f.name)).toContain(target.property);
}

describe('assetRowOf: problems outside the nodes, on the asset panel\'s rows', () => {
  it('lands a problem of a montage, a clip, a blend profile or a single value on its row, and nothing else', () => {
    const asset = read('sample-montage.json');
    asset.montages.combo.sections[1].start = 99;
    asset.clips.walk = { source: 42 };
    asset.units = 'feet';
    asset.blendProfiles = { upper: { mode: 'sideways' } };
    const result = checkGraphAsset(asset);
    if (result.ok) throw new Error('expected problems');
    const rows = result.problems.map((p) => [p.path, assetRowOf(p.path)]);
    expect(rows).toEqual(expect.arrayContaining([
      ['$.montages.combo.sections[1].start', { section: 'montages', name: 'combo' }],
      ['$.units', { key: 'units' }],
    ]));
    for (const [path, row] of rows) {
      if (String(path).startsWith('$.clips.walk')) expect(row).toEqual({ section: 'clips', name: 'walk' });
      if (String(path).startsWith('$.blendProfiles.upper')) expect(row).toEqual({ section: 'blendProfiles', name: 'upper' });
    }
    expect(rows.some(([path]) => String(path).startsWith('$.clips.walk'))).toBe(true);
    expect(rows.some(([path]) => String(path).startsWith('$.blendProfiles.upper'))).toBe(true);
    expect(assetRowOf('$.nodes.locomotion.properties.entry')).toBeUndefined();
    expect(assetRowOf('$.output')).toBeUndefined();
    expect(assetRowOf('$.montages')).toEqual({ section: 'montages' });
    expect(assetRowOf('$.mirror.pairs[0]')).toEqual({ key: 'mirror' });
    expect(assetRowOf('$["clips"]["a.b"]')).toEqual({ section: 'clips', name: 'a.b' });
  });
});

describe('locateProblem: the loader\'s problems on the canvas', () => {
  it('an unknown clip on a player inside a state lands on that state\'s canvas, node and property', () => {
    const asset = read('sample-state-machine.json');
    asset.nodes.locomotion.properties.states.jump.nodes.clip.properties.clip = 'leap';
    const problems = located(asset);
    expect(problems).toEqual([[
      'unknown-clip', '$.nodes.locomotion.properties.states.jump.nodes.clip.properties.clip',
      { canvas: ['locomotion', 'jump'], nodeId: 'clip', property: 'clip' },
    ]]);
    expectDrawn(asset, problems[0][2]);
  });

  it('missing and dangling links land on their pins, a bad output on the output node', () => {
    const asset = read('sample-locomotion.json');
    asset.nodes.locomotion.inputs.poses[1] = 'nowhere';
    delete asset.nodes.headFollowsHand.inputs;
    asset.output = 'gone';
    const problems = located(asset);
    const targets = Object.fromEntries(problems.map(([code, path, t]) => [`${code} ${path}`, t]));
    expect(targets).toEqual({
      'dangling-link $.nodes.locomotion.inputs.poses[1]': { canvas: [], nodeId: 'locomotion', handle: 'poses:1' },
      'missing-link $.nodes.headFollowsHand.inputs.pose': { canvas: [], nodeId: 'headFollowsHand', handle: 'pose' },
      'dangling-link $.output': { canvas: [], nodeId: OUTPUT_ID, handle: 'pose' },
    });
    for (const [, , t] of problems) expectDrawn(asset, t);
  });

  it('a machine\'s entry, transitions and states land on its canvas; clips and parameters on the top one', () => {
    const asset = read('sample-state-machine.json');
    asset.nodes.locomotion.properties.entry = 'sleep';
    asset.nodes.locomotion.properties.transitions[2].to = 'sprint';
    asset.clips.walk.frames = [5, 2];
    const problems = located(asset);
    const byCode = (code: string) => problems.filter(([c]) => c === code).map(([, path, t]) => [path, t]);
    expect(byCode('unknown-state')).toEqual([
      ['$.nodes.locomotion.properties.entry', { canvas: ['locomotion'], nodeId: ENTRY_ID }],
      ['$.nodes.locomotion.properties.transitions[2].to', { canvas: ['locomotion'], transition: 2 }],
    ]);
    for (const [, , t] of problems) expectDrawn(asset, t);
    expect(locateProblem(asset, '$.clips.walk.frames')).toEqual({ canvas: [] });
    expect(locateProblem(asset, '$.nodes.locomotion.properties.states.land.conduit')).toEqual({ canvas: ['locomotion'], nodeId: 'land' });
    expect(locateProblem(asset, '$.nodes.locomotion.properties.states.walk.output')).toEqual({ canvas: ['locomotion', 'walk'], nodeId: OUTPUT_ID, handle: 'pose' });
    expect(locateProblem(asset, '$.nodes["odd id"].properties.x')).toEqual({ canvas: [], nodeId: 'odd id', property: 'x' });
    expect(locateProblem(asset, 'not a path')).toEqual({ canvas: [] });
  });
});

describe('propertyFields: the details panel from the runtime spec and editor-meta', () => {
  it('BlendTwo and SequencePlayer: kinds, ranges, defaults, bindings and values as written', () => {
    const asset = read('sample-state-machine.json');
    asset.nodes.blend = { type: 'BlendTwo', properties: { alpha: { param: 'speed' } } };
    expect(propertyFields(asset, [], 'blend')).toEqual([{
      name: 'alpha', title: 'Alpha', description: expect.stringContaining('Weight of B'), kind: 'number', min: 0, max: 1, default: 0.5,
      bindable: true, bindableFrom: ['float', 'int'], required: false, value: { param: 'speed' }, jsonPath: '$.nodes.blend.properties.alpha',
    }]);
    const player = propertyFields(asset, ['locomotion', 'jump'], 'clip');
    expect(player.map((f) => [f.name, f.kind, f.required, f.value, f.default])).toEqual([
      ['clip', 'clip', true, 'run', undefined], ['playRate', 'number', false, 2, 1], ['loop', 'bool', false, false, true],
      ['startTime', 'number', false, undefined, 0], ['syncGroup', 'json', false, undefined, undefined], ['mirror', 'bool', false, undefined, false],
    ]);
    expect(player[0].jsonPath).toBe('$.nodes.locomotion.properties.states.jump.nodes.clip.properties.clip');
    expect(player[2].bindableFrom).toEqual(['bool']);
  });

  it('a property bound to a curve shows the binding as written, and an edit of another property keeps it', () => {
    const asset = read('sample-curve-driven.json');
    const [alpha] = propertyFields(asset, [], 'lean');
    expect([alpha.name, alpha.bindable, alpha.value]).toEqual(['alpha', true, { curve: 'lean' }]);
    const edited = setProperty(asset, [], 'walk', 'playRate', 1.5);
    if (!edited.ok) throw new Error(edited.reason);
    expect((edited.asset.nodes as any).lean.properties.alpha).toEqual({ curve: 'lean' });
    expect(checkGraphAsset(edited.asset).ok).toBe(true);
    // A misspelt curve is reported at the property the panel shows.
    const misspelt = setProperty(asset, [], 'lean', 'alpha', { curve: 'leen' });
    if (!misspelt.ok) throw new Error(misspelt.reason);
    expect(located(misspelt.asset)).toEqual([['unknown-curve', '$.nodes.lean.properties.alpha.curve', { canvas: [], nodeId: 'lean', property: 'alpha' }]]);
  });

  it('a cached pose use picks among the saves in reach; a machine\'s entry among its states', () => {
    const asset = read('sample-state-machine.json');
    asset.nodes.top = { type: 'SaveCachedPose', inputs: { pose: 'x' } };
    asset.nodes.locomotion.properties.states.walk.nodes.inner = { type: 'SaveCachedPose' };
    asset.nodes.locomotion.properties.states.walk.nodes.use = { type: 'UseCachedPose', properties: { cache: 'top' } };
    const use = propertyFields(asset, ['locomotion', 'walk'], 'use');
    expect(use.map((f) => [f.name, f.kind, f.options, f.value])).toEqual([['cache', 'enum', ['inner', 'top'], 'top']]);
    const machine = propertyFields(asset, [], 'locomotion');
    expect(machine.find((f) => f.name === 'entry')).toMatchObject({ kind: 'enum', options: ['idle', 'walk', 'run', 'jump', 'land'], value: 'idle' });
    expect(assetChoices(asset)).toEqual({
      clips: ['idle', 'walk', 'run'], parameters: [{ name: 'speed', type: 'float' }, { name: 'jump', type: 'bool' }],
      blendProfiles: ['legsFirst'], cachedPoses: ['inner', 'top'], slots: [],
    });
    // The slots a montage can name: each Slot's `name`, its id without one.
    const montage = read('sample-montage.json');
    expect(assetChoices(montage).slots).toEqual(['upperBody']);
    montage.nodes.extra = { type: 'Slot', inputs: { source: 'locomotion' } };
    expect(assetChoices(montage).slots).toEqual(['upperBody', 'extra']);
  });

  it('a custom type without meta gets its property names as titles; an unknown type has no fields', () => {
    const Custom: NodeType = { ...builtInNodeTypes.find((t) => t.type === 'BlendTwo')!, type: 'Custom' };
    const registry = new NodeRegistry([...builtInNodeTypes, Custom]);
    const asset = { format: 'animgraph/1', nodes: { c: { type: 'Custom' }, u: { type: 'Unknown' } }, output: 'c' };
    expect(propertyFields(asset, [], 'c', registry).map((f) => [f.name, f.title, f.description, f.kind])).toEqual([['alpha', 'alpha', '', 'number']]);
    expect(propertyFields(asset, [], 'u', registry)).toEqual([]);
    expect(propertyFields(asset, [], 'nope')).toEqual([]);
  });
});

describe('palette', () => {
  it('lists every built-in type once, grouped by category in the node list\'s order', () => {
    const groups = palette();
    expect(groups.map((g) => g.category)).toEqual(['Pose sources', 'Blends', 'Skeletal controls', 'Cached poses']);
    expect(groups.flatMap((g) => g.types.map((t) => t.type)).sort()).toEqual([...builtInNodeTypeNames].sort());
    expect(groups[0].types[0]).toEqual({ type: 'SequencePlayer', title: 'Sequence Player', summary: expect.any(String) });
    for (const g of groups) for (const t of g.types) expect(t.summary.length).toBeGreaterThan(0);
  });

  it('adds custom types: with their meta\'s category, or under Custom', () => {
    const A: NodeType = { ...builtInNodeTypes[0], type: 'MyPlayer' };
    const B: NodeType = { ...builtInNodeTypes[0], type: 'Mystery' };
    const registry = new NodeRegistry([...builtInNodeTypes, A, B]);
    const metas = [{ type: 'MyPlayer', title: 'My player', category: 'Pose sources' as const, summary: 'mine', description: '', pins: {}, properties: {} }];
    const groups = palette({ registry, metas });
    expect(groups.find((g) => g.category === 'Pose sources')!.types.map((t) => t.type)).toEqual(['SequencePlayer', 'SequenceEvaluator', 'PoseSnapshot', 'BlendSpace1D', 'BlendSpace2D', 'PoseSearchBlend', 'MyPlayer']);
    expect(groups.at(-1)).toEqual({ category: 'Custom', types: [{ type: 'Mystery', title: 'Mystery', summary: '' }] });
  });
});

/** `asset` with entry `name` of `section` set to `spec`, checked by the loader with the files beside the examples. */
function checkedWith(asset: JsonObject, section: 'clips' | 'blendProfiles' | 'montages', name: string, spec: JsonObject) {
  const edited = setAssetEntry(asset, section, name, spec);
  if (!edited.ok) throw new Error(edited.reason);
  return checkGraphOnDisk(edited.asset, { baseDir: examplesDir });
}

describe('the asset panel\'s add rows start from the asset\'s own names', () => {
  it('a clip repeats the form of the asset\'s first clip, without what is that clip\'s own; the built-in walk without clips', () => {
    const sample = read('sample-montage.json');
    expect(clipExample(sample)).toEqual({ source: 'builtin:idle' });
    expect(clipExample({ clips: { lean: { source: 'a.bvh', frames: [1, -1], curves: { lean: [[0, 0]] }, syncMarkers: [], additive: { space: 'mesh' }, notifies: [] } } }))
      .toEqual({ source: 'a.bvh', frames: [1, -1] });
    expect(clipExample({})).toEqual({ source: 'builtin:walk' });
    expect(clipExample({ clips: { broken: { frames: [0, 1] } } })).toEqual({ source: 'builtin:walk' });
    expect(checkedWith(sample, 'clips', 'idle2', clipExample(sample)).ok).toBe(true);
  });

  it('a blend profile names the skeleton\'s second bone, the root\'s first child; a montage the first clip in the first Slot\'s slot', () => {
    const sample = read('sample-montage.json');
    const loaded = checkGraphAsset(sample);
    if (!loaded.ok) throw new Error('the sample does not load');
    const bones = loaded.graph.skeleton.boneNames;
    expect(blendProfileExample(bones)).toEqual({ mode: 'timeFactor', branches: [{ bone: 'pelvis', scale: 0.5 }] });
    expect(blendProfileExample(['only'])).toEqual({ mode: 'timeFactor', branches: [{ bone: 'only', scale: 0.5 }] });
    expect(blendProfileExample([])).toEqual({ mode: 'timeFactor', branches: [{ bone: 'spine_01', scale: 0.5 }] });
    expect(checkedWith(sample, 'blendProfiles', 'fresh', blendProfileExample(bones)).ok).toBe(true);
    expect(montageExample(assetChoices(sample))).toEqual({ clip: 'idle', slot: 'upperBody' });
    expect(montageExample({ clips: ['a'], slots: [] })).toEqual({ clip: 'walk', slot: 'DefaultSlot' });
    expect(checkedWith(sample, 'montages', 'fresh', montageExample(assetChoices(sample))).ok).toBe(true);
  });
});

describeWithData('the add rows on the shared data\'s captures and characters', () => {
  for (const [file, expected] of [
    ['robot-locomotion.json', { clip: { source: '../../../shared/data/gltf/RobotExpressive.glb', animation: 'Idle' } }],
    ['cmu-walk-run.json', { clip: { source: '../../../shared/data/bvh/cmu/002_01.bvh', frames: [1, -1] } }],
  ] as const) {
    it(`${file}: a clip of the first clip's file that loads, a blend profile at a child of the root that loads`, () => {
      const asset = read(file);
      expect(clipExample(asset)).toEqual(expected.clip);
      expect(checkedWith(asset, 'clips', 'another', clipExample(asset)).ok).toBe(true);
      const loaded = checkGraphOnDisk(asset, { baseDir: examplesDir });
      if (!loaded.ok) throw new Error(`${file} does not load`);
      const skeleton = loaded.graph.skeleton;
      const profile = blendProfileExample(skeleton.boneNames);
      expect(skeleton.parents[skeleton.boneNames.indexOf((profile.branches as any)[0].bone)]).toBe(0);
      expect(checkedWith(asset, 'blendProfiles', 'fresh', profile).ok).toBe(true);
    });
  }
});
