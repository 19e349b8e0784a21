import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, NodeRegistry } from '../../graphs/loader.ts';
import { checkGraphAsset as checkGraphFileAsset, loadGraphAsset } from '../../host/files.ts';
import { runGraph } from '../../host/runner.ts';
import { builtInNodeTypes } from '../../nodes/index.ts';
import type { DebugNode, NodeType } from '../../runtime/node/node.ts';
import {
  addNode, addState, addTransition, ANY_STATE_ID, canvas, connect, copyNodes, disconnect, ENTRY_ID, formatAsset, History, moveNodes, OUTPUT_ID,
  pasteNodes, removeNodes, removeState, renameBlendProfile, renameClip, renameMontage, renameNode, renameParameter, renameState, setAssetEntry, setAssetValue, setClip, setParameter, setProperty, setTransition,
  type EditResult, type Json, type JsonObject,
} from '../../editor/model/index.ts';
import { hasSharedData } from '../support/shared-data.ts';

const examplesDir = new URL('../../graphs/examples/', import.meta.url).pathname;
const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.json')).sort();
const text = (file: string) => readFileSync(examplesDir + file, 'utf8');

/** Frozen all the way down: an edit that changed its argument would throw. */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) frozen(v);
    Object.freeze(value);
  }
  return value;
}
const read = (file: string): JsonObject => frozen(JSON.parse(text(file)));

function applied(result: EditResult): JsonObject {
  if (!result.ok) throw new Error(`refused: ${result.reason}`);
  return result.asset;
}
function refused(result: EditResult): { reason: string; path?: string } {
  if (result.ok) throw new Error('expected a refusal');
  return result;
}
const problems = (asset: unknown, registry?: NodeRegistry) => {
  const r = checkGraphAsset(asset, registry ? { nodeTypes: registry } : {});
  return r.ok ? [] : r.problems.map((p) => ({ ...p }));
};

describe('edits', () => {
  it('addNode: a fresh id from the type, required properties only, and the canvas\'s positions as drawn', () => {
    const asset = read('sample-inertial.json');
    const before = canvas(asset, []);
    const a = addNode(asset, [], 'BlendTwo', { x: 500, y: -40 });
    expect(a.ok && a.ids).toEqual(['blendTwo']);
    const first = applied(a);
    expect((first.nodes as JsonObject).blendTwo).toEqual({ type: 'BlendTwo' });
    const positions = (first.editor as any).positions[''];
    expect(positions).toEqual({
      ...Object.fromEntries(before.nodes.map((n) => [n.id, [n.x, n.y]])),
      blendTwo: [500, -40],
    });
    const second = applied(addNode(first, [], 'BlendTwo', { x: 0, y: 0 }));
    expect(Object.keys(second.nodes as JsonObject)).toEqual(['walk', 'run', 'gait', 'blendTwo', 'blendTwo2']);
    // A player names the first clip; the asset then still loads.
    const player = applied(addNode(asset, [], 'SequencePlayer', { x: 0, y: 0 }));
    expect((player.nodes as any).sequencePlayer).toEqual({ type: 'SequencePlayer', properties: { clip: 'walk' } });
    expect(problems(player)).toEqual([]);
    // A use of a cached pose names the first SaveCachedPose in reach, here none.
    expect((applied(addNode(asset, [], 'UseCachedPose', { x: 0, y: 0 })).nodes as any).useCachedPose).toEqual({ type: 'UseCachedPose', properties: { cache: '' } });
    expect(refused(addNode(asset, [], 'Nope', { x: 0, y: 0 })).reason).toBe('unknown node type "Nope": it is not built in nor registered');
    expect(refused(addNode(asset, ['gait'], 'BlendTwo', { x: 0, y: 0 })).reason).toContain('is not a StateMachine node');
  });

  it('adds a BlendTwo between two players, wires it to the output, sets its alpha: the saved file passes the loader', () => {
    const original = text('sample-inertial.json');
    let asset = read('sample-inertial.json');
    asset = applied(removeNodes(asset, [], ['gait']));
    expect(asset.output).toBe('');
    asset = applied(addNode(asset, [], 'BlendTwo', { x: 300, y: 0 }));
    asset = applied(connect(asset, [], 'walk', 'blendTwo', 'A'));
    asset = applied(connect(asset, [], 'run', 'blendTwo', 'B'));
    asset = applied(connect(asset, [], 'blendTwo', OUTPUT_ID, 'pose'));
    asset = applied(setProperty(asset, [], 'blendTwo', 'alpha', 0.25));
    const saved = formatAsset(asset, original);
    const parsed = JSON.parse(saved);
    expect(parsed.nodes.blendTwo).toEqual({ type: 'BlendTwo', properties: { alpha: 0.25 }, inputs: { A: 'walk', B: 'run' } });
    expect(parsed.output).toBe('blendTwo');
    expect(checkGraphFileAsset(saved, { baseDir: examplesDir }).ok).toBe(true);
    expect(canvas(parsed, []).edges.map((e) => e.id)).toEqual(['link:blendTwo:A', 'link:blendTwo:B', `link:${OUTPUT_ID}:pose`]);
  });

  it('connect refuses what the loader refuses, with the loader\'s own message and path', () => {
    const asset = read('sample-locomotion.json');
    // A node feeding the output already, fed back into the list below it: the loader's first word is the shared link.
    const cycle = refused(connect(asset, [], 'headFollowsHand', 'locomotion', 'poses:+'));
    const candidate = JSON.parse(text('sample-locomotion.json'));
    candidate.nodes.locomotion.inputs.poses.push('headFollowsHand');
    const expected = problems(candidate).find((p) => p.code === 'cycle' || p.code === 'shared-link')!;
    expect(cycle).toEqual({ ok: false, reason: expected.message, path: expected.path });
    expect(cycle.reason).toBe("node 'headFollowsHand' already feeds $.nodes.locomotion.inputs.poses[3]; a pose can feed one input only (add another node for each use)");
    // A cycle: gait feeds a blend that feeds gait.
    let inertial = applied(disconnect(read('sample-inertial.json'), [], `link:${OUTPUT_ID}:pose`));
    inertial = applied(addNode(inertial, [], 'BlendTwo', { x: 0, y: 0 }));
    inertial = applied(connect(inertial, [], 'gait', 'blendTwo', 'B'));
    const loop = refused(connect(inertial, [], 'blendTwo', 'gait', 'A'));
    const loopCandidate = { ...inertial, nodes: { ...(inertial.nodes as JsonObject), gait: { ...((inertial.nodes as any).gait), inputs: { A: 'blendTwo', B: 'walk' } } } };
    const loopProblem = problems(loopCandidate).find((p) => p.code === 'cycle')!;
    expect(loop).toEqual({ ok: false, reason: loopProblem.message, path: loopProblem.path });
    expect(loop.reason).toContain('cycle');
    // A node that feeds an input already may not feed a second.
    const shared = refused(connect(applied(addNode(asset, [], 'BlendTwo', { x: 0, y: 0 })), [], 'walk', 'blendTwo', 'A'));
    expect(shared.reason).toMatch(/walk/);
    const sharedCandidate = JSON.parse(text('sample-locomotion.json'));
    sharedCandidate.nodes.blendTwo = { type: 'BlendTwo', inputs: { A: 'walk' } };
    expect(problems(sharedCandidate).map((p) => p.message)).toContain(shared.reason);
    // Nothing links to a SaveCachedPose.
    let cached = applied(addNode(asset, [], 'SaveCachedPose', { x: 0, y: 0 }));
    cached = applied(addNode(cached, [], 'BlendTwo', { x: 0, y: 0 }));
    const notLinkable = refused(connect(cached, [], 'saveCachedPose', 'blendTwo', 'B'));
    expect(problems({ ...cached, nodes: { ...(cached.nodes as JsonObject), blendTwo: { type: 'BlendTwo', inputs: { B: 'saveCachedPose' } } } })
      .filter((p) => p.code === 'not-linkable').map((p) => [p.message, p.path])).toEqual([[notLinkable.reason, notLinkable.path]]);
    // A source that is no node, or the target itself: the loader's words too.
    expect(refused(connect(asset, [], 'nope', 'locomotion', 'poses:+'))).toEqual({
      ok: false, reason: "links to 'nope', which is not a node of this graph", path: '$.nodes.locomotion.inputs.poses[3]',
    });
    const loose = applied(disconnect(read('sample-inertial.json'), [], `link:${OUTPUT_ID}:pose`));
    const self = refused(connect(loose, [], 'gait', 'gait', 'A'));
    expect([self.reason, self.path]).toEqual(['links form a cycle: gait -> gait', '$.nodes.gait.inputs']);
    // A pin or target that does not exist is refused before the loader runs: there is nowhere to write the link.
    expect(refused(connect(asset, [], 'walk', OUTPUT_ID, 'x')).reason).toBe('the output has no pin "x"');
    expect(refused(connect(asset, [], 'walk', 'nope', 'A')).reason).toBe('no node "nope" on this canvas');
  });

  it('connect refuses a link from a node of a space the pin does not accept', () => {
    // A custom type whose input takes component space only; players are local.
    const Picky: NodeType = { ...builtInNodeTypes.find((t) => t.type === 'Inertialization')!, type: 'Picky', inputs: [{ name: 'pose', kind: 'pose', space: 'component', accepts: ['component'] }] };
    const registry = new NodeRegistry([...builtInNodeTypes, Picky]);
    const asset = applied(addNode(read('sample-inertial.json'), [], 'Picky', { x: 0, y: 0 }, registry));
    const free = applied(removeNodes(asset, [], ['gait']));
    const result = refused(connect(free, [], 'walk', 'picky', 'pose', registry));
    expect(result.path).toBe('$.nodes.picky.inputs.pose');
    expect(problems({ ...free, nodes: { ...(free.nodes as JsonObject), picky: { type: 'Picky', inputs: { pose: 'walk' } } } }, registry)
      .find((p) => p.code === 'space-mismatch')!.message).toBe(result.reason);
  });

  it('connect takes a valid link in a graph that has problems already', () => {
    let asset = read('sample-inertial.json');
    asset = applied(setProperty(asset, [], 'walk', 'clip', 'nowhere'));
    expect(problems(asset).map((p) => p.code)).toEqual(['unknown-clip']);
    asset = applied(removeNodes(asset, [], ['gait']));
    asset = applied(connect(asset, [], 'walk', OUTPUT_ID, 'pose'));
    expect(asset.output).toBe('walk');
  });

  it('connect and disconnect on list pins: append, replace, remove the entry', () => {
    const asset = read('sample-locomotion.json');
    let a = applied(removeNodes(asset, [], ['headFollowsHand']));
    a = applied(connect(a, [], 'locomotion', OUTPUT_ID, 'pose'));
    const list = (x: JsonObject) => ((x.nodes as any).locomotion.inputs.poses as string[]);
    const times = (x: JsonObject) => ((x.nodes as any).locomotion.properties.blendTimes as number[]);
    expect(times(a)).toEqual([0.3, 0.25, 0.2]);
    a = applied(disconnect(a, [], 'link:locomotion:poses:1'));
    expect(list(a)).toEqual(['idle', 'run']);
    expect(times(a)).toEqual([0.3, 0.2]);
    a = applied(connect(a, [], 'walk', 'locomotion', 'poses:+'));
    expect(list(a)).toEqual(['idle', 'run', 'walk']);
    expect(times(a)).toEqual([0.3, 0.2, 0.2]);
    expect(problems(a)).toEqual([]);
    a = applied(disconnect(a, [], 'link:locomotion:poses:0'));
    a = applied(connect(a, [], 'idle', 'locomotion', 'poses:1'));
    expect(list(a)).toEqual(['run', 'idle']);
    a = applied(disconnect(a, [], `link:${OUTPUT_ID}:pose`));
    expect(a.output).toBe('');
    expect(refused(disconnect(a, [], 'link:locomotion:poses:7')).reason).toBe('"locomotion" has no pin "poses:7"');
    expect(refused(connect(a, [], 'walk', 'locomotion', 'poses:2')).reason).toBe('"locomotion" has no pin "poses:2"');
  });

  it('removeNodes drops the links to them and their saved positions; a machine takes its canvases\' positions along', () => {
    let asset = read('sample-state-machine.json');
    asset = applied(moveNodes(asset, ['locomotion'], { idle: { x: 1, y: 2 } }));
    asset = applied(moveNodes(asset, ['locomotion', 'walk'], { clip: { x: 3, y: 4 } }));
    asset = applied(moveNodes(asset, [], { locomotion: { x: 5, y: 6 } }));
    expect(Object.keys((asset.editor as any).positions)).toEqual(['locomotion', 'locomotion/walk', '']);
    const removed = applied(removeNodes(asset, [], ['locomotion']));
    expect(removed.nodes).toEqual({});
    expect(removed.output).toBe('');
    expect((removed.editor as any).positions).toEqual({ '': { [OUTPUT_ID]: (asset.editor as any).positions[''][OUTPUT_ID] } });
    expect(applied(removeNodes(asset, [], [OUTPUT_ID, 'nope']))).toBe(asset);
  });

  it('moveNodes writes every position of the canvas, rounded; the rest of the asset is shared', () => {
    const asset = read('sample-state-machine.json');
    const moved = applied(moveNodes(asset, ['locomotion'], { walk: { x: 10.4, y: -3.6 } }));
    const positions = (moved.editor as any).positions.locomotion;
    expect(Object.keys(positions)).toEqual([ENTRY_ID, ANY_STATE_ID, 'idle', 'walk', 'run', 'jump', 'land']);
    expect(positions.walk).toEqual([10, -4]);
    expect(moved.nodes).toBe(asset.nodes);
    expect(canvas(moved, ['locomotion']).nodes.find((n) => n.id === 'walk')).toMatchObject({ x: 10, y: -4 });
    expect(refused(moveNodes(asset, [], { x: { x: Number.NaN, y: 0 } })).reason).toContain('not a pair of finite numbers');
  });

  it('setProperty, setParameter, setClip set and remove', () => {
    const asset = read('sample-inertial.json');
    const a = applied(setProperty(asset, [], 'gait', 'blendTime', 0.5));
    expect((a.nodes as any).gait.properties).toEqual({ useA: { param: 'running' }, blendTime: 0.5 });
    const b = applied(setProperty(applied(setProperty(a, [], 'gait', 'blendTime', undefined)), [], 'gait', 'useA', undefined));
    expect((b.nodes as any).gait).toEqual({ type: 'InertialBlend', inputs: { A: 'run', B: 'walk' } });
    expect(applied(setProperty(asset, [], 'gait', 'blendTime', 0.3))).toBe(asset);
    expect(refused(setProperty(asset, [], 'nope', 'x', 1)).reason).toBe('no node "nope" on this canvas');
    const p = applied(setParameter(asset, 'speed', { type: 'float', default: 2 }));
    expect(p.parameters).toEqual({ running: { type: 'bool', default: false }, speed: { type: 'float', default: 2 } });
    expect(applied(setParameter(p, 'running', undefined)).parameters).toEqual({ speed: { type: 'float', default: 2 } });
    const c = applied(setClip(asset, 'idle', { source: 'builtin:idle' }));
    expect(Object.keys(c.clips as JsonObject)).toEqual(['walk', 'run', 'idle']);
    expect(Object.keys(applied(setClip(c, 'walk', undefined)).clips as JsonObject)).toEqual(['run', 'idle']);
  });

  it('setAssetEntry: montages and blend profiles added in the format\'s order, checked by the loader, removed with their section', () => {
    const asset = read('sample-locomotion.json');
    expect(asset.montages).toBeUndefined();
    const added = applied(setAssetEntry(asset, 'montages', 'wave', { clip: 'walk', slot: 'upperBody' }));
    // A section the asset lacked goes where the format lists it: before the clips.
    const keys = Object.keys(added);
    expect(keys.indexOf('montages')).toBe(keys.indexOf('clips') - 1);
    // The loader's word on the spec, at its JSON path: this graph has no Slot.
    expect(problems(added).map((p) => [p.code, p.path])).toEqual([['unknown-slot', '$.montages.wave.slot']]);
    const profile = applied(setAssetEntry(added, 'blendProfiles', 'upper', { mode: 'timeFactor', branches: [{ bone: 'spine_01', scale: 0.5 }] }));
    expect(Object.keys(profile).indexOf('blendProfiles')).toBe(Object.keys(profile).indexOf('montages') - 1);
    // Removing the last entry removes the section; removing what is not there changes nothing.
    const removed = applied(setAssetEntry(profile, 'montages', 'wave', undefined));
    expect(Object.keys(removed)).toEqual(Object.keys(profile).filter((k) => k !== 'montages'));
    expect(problems(removed)).toEqual([]);
    expect(applied(setAssetEntry(asset, 'montages', 'nope', undefined))).toBe(asset);
    expect(refused(setAssetEntry(asset, 'montages', '', {})).reason).toBe('an entry of montages needs a name');
    expect(refused(setAssetEntry(asset, 'nodes' as 'clips', 'x', {})).reason).toBe('no asset section "nodes"');

    // On a graph with the Slot: a second montage plays.
    const montages = applied(setAssetEntry(read('sample-montage.json'), 'montages', 'wave', { clip: 'walk', slot: 'upperBody', sections: [{ name: 'a', start: 0 }, { name: 'b', start: 0.5 }] }));
    expect(problems(montages)).toEqual([]);
    const instance = loadGraphAsset(montages).createInstance();
    expect(instance.montageNames).toEqual(['combo', 'wave']);
    instance.playMontage('wave', { section: 'b' });
    instance.update(0.1);
    const slot = (function find(n: DebugNode): DebugNode | undefined { return n.values?.montage !== undefined ? n : n.children.map(find).find((x) => x !== undefined); })(instance.gatherDebug());
    expect(slot?.values).toMatchObject({ montage: 'wave', section: 'b' });
    const bad = applied(setAssetEntry(montages, 'montages', 'wave', { clip: 'walk', slot: 'upperBody', sections: [{ name: 'a', start: 99 }] }));
    expect(problems(bad).map((p) => p.path)).toEqual(['$.montages.wave.sections[0].start']);
  });

  it('renameMontage renames in place; setAssetValue sets the graph\'s own values, never removing its skeleton', () => {
    const asset = read('sample-montage.json');
    const renamed = applied(renameMontage(asset, 'combo', 'attack'));
    expect(Object.keys(renamed.montages as JsonObject)).toEqual(['attack']);
    expect((renamed.montages as JsonObject).attack).toBe((asset.montages as JsonObject).combo);
    expect(problems(renamed)).toEqual([]);
    expect(refused(renameMontage(asset, 'nope', 'x')).reason).toBe('no montage "nope"');
    expect(refused(renameMontage(asset, 'combo', '')).reason).toBe('a montage needs a name');
    expect(applied(renameMontage(asset, 'combo', 'combo'))).toBe(asset);

    const described = applied(setAssetValue(asset, 'description', 'A combo.'));
    expect(described.description).toBe('A combo.');
    expect(Object.keys(described)).toEqual(Object.keys(asset));
    const metres = applied(setAssetValue(asset, 'units', 'm'));
    // Added after the skeleton, as the format lists it.
    expect(Object.keys(metres).indexOf('units')).toBe(Object.keys(metres).indexOf('skeleton') + 1);
    expect(problems(applied(setAssetValue(asset, 'units', 'feet'))).map((p) => p.path)).toEqual(['$.units']);
    expect(applied(setAssetValue(asset, 'name', undefined)).name).toBeUndefined();
    expect(refused(setAssetValue(asset, 'skeleton', undefined)).reason).toBe('every graph has a skeleton');
    expect(refused(setAssetValue(asset, 'nodes' as 'name', 1)).reason).toBe('no asset value "nodes"');
  });

  it('states: add, rename (entry, transitions, positions follow), remove (transitions go), transitions set and removed', () => {
    let asset = read('sample-state-machine.json');
    const m = ['locomotion'];
    const added = addState(asset, m, undefined, { x: 0, y: 0 });
    expect(added.ok && added.ids).toEqual(['state']);
    asset = applied(added);
    expect((asset.nodes as any).locomotion.properties.states.state).toEqual({ nodes: {}, output: '' });
    asset = applied(addState(asset, m, 'hop', { x: 0, y: 0 }, true));
    expect((asset.nodes as any).locomotion.properties.states.hop).toEqual({ conduit: true });
    expect(refused(addState(asset, m, 'hop', { x: 0, y: 0 })).reason).toBe('a state "hop" exists already');
    asset = applied(moveNodes(asset, ['locomotion', 'idle'], { clip: { x: 1, y: 1 } }));
    asset = applied(renameState(asset, m, 'idle', 'rest'));
    const sm = (asset.nodes as any).locomotion.properties;
    expect(Object.keys(sm.states)).toEqual(['rest', 'walk', 'run', 'jump', 'land', 'state', 'hop']);
    expect(sm.entry).toBe('rest');
    expect(sm.transitions.map((t: any) => `${t.from}>${t.to}`)).toEqual(['rest>walk', 'walk>rest', 'walk>run', 'run>walk', 'run>rest', '*>jump', 'jump>land', 'land>rest', 'land>walk', 'land>run']);
    expect(Object.keys((asset.editor as any).positions)).toEqual(['locomotion', 'locomotion/rest']);
    expect(Object.keys((asset.editor as any).positions.locomotion)).toContain('rest');
    // The renamed machine still loads (after the two new states are gone again).
    let clean = applied(removeState(applied(removeState(asset, m, 'state')), m, 'hop'));
    expect(problems(clean)).toEqual([]);
    clean = applied(removeState(clean, m, 'land'));
    expect((clean.nodes as any).locomotion.properties.transitions.map((t: any) => `${t.from}>${t.to}`)).toEqual(['rest>walk', 'walk>rest', 'walk>run', 'run>walk', 'run>rest', '*>jump']);
    clean = applied(addTransition(clean, m, ANY_STATE_ID, 'rest'));
    expect((clean.nodes as any).locomotion.properties.transitions[6]).toEqual({ from: '*', to: 'rest', rule: true });
    clean = applied(setTransition(clean, m, 6, { from: 'jump', to: 'rest', rule: 'atEnd', duration: 0.2 }));
    expect(problems(clean)).toEqual([]);
    clean = applied(setTransition(clean, m, 0, undefined));
    expect((clean.nodes as any).locomotion.properties.transitions).toHaveLength(6);
    expect(refused(setTransition(clean, m, 6, undefined)).reason).toBe('no transition 6 in this machine');
    expect(refused(renameState(clean, m, 'walk', 'run')).reason).toBe('a state "run" exists already');
    // On a machine canvas connect adds a transition (checked) or sets the entry; disconnect removes them.
    const linked = applied(connect(clean, m, 'run', 'jump', ''));
    expect((linked.nodes as any).locomotion.properties.transitions.at(-1)).toEqual({ from: 'run', to: 'jump', rule: true });
    const entered = applied(connect(clean, m, ENTRY_ID, 'walk', ''));
    expect((entered.nodes as any).locomotion.properties.entry).toBe('walk');
    expect((applied(disconnect(entered, m, 'entry')).nodes as any).locomotion.properties.entry).toBe('');
    expect(refused(connect(clean, m, 'jump', 'nowhere', '')).reason).toBe('no state "nowhere" in this machine');
  });

  it('copy and paste: fresh ids, links among the pasted kept, others dropped, placed at the point', () => {
    const asset = read('sample-locomotion.json');
    const clip = copyNodes(asset, [], ['walk', 'locomotion']);
    const pasted = pasteNodes(asset, [], clip, { x: 1000, y: 500 });
    expect(pasted.ok && pasted.ids).toEqual(['walk2', 'locomotion2']);
    const next = applied(pasted);
    expect((next.nodes as any).locomotion2).toEqual({
      type: 'BlendList', inputs: { poses: ['walk2'] }, properties: (asset.nodes as any).locomotion.properties, editor: (asset.nodes as any).locomotion.editor,
    });
    const positions = (next.editor as any).positions[''];
    // walk at [0, 120] and locomotion at [300, 120] in the asset: the group's corner goes to the point.
    expect([positions.walk2, positions.locomotion2]).toEqual([[1000, 500], [1300, 500]]);
    // Pasted into a state's sub-graph, where the ids are free.
    const machine = read('sample-state-machine.json');
    const inState = applied(pasteNodes(machine, ['locomotion', 'walk'], clip, { x: 0, y: 0 }));
    expect(Object.keys((inState.nodes as any).locomotion.properties.states.walk.nodes)).toEqual(['clip', 'walk', 'locomotion2']);
    expect(refused(pasteNodes(asset, [], 'hello', { x: 0, y: 0 })).reason).toBe('the clipboard holds no copied nodes');
  });

  it('pastes a cached pose pair with the use naming the pasted save', () => {
    let asset = read('sample-inertial.json');
    asset = applied(addNode(asset, [], 'SaveCachedPose', { x: 0, y: 0 }));
    asset = applied(addNode(asset, [], 'UseCachedPose', { x: 100, y: 0 }));
    expect((asset.nodes as any).useCachedPose.properties.cache).toBe('saveCachedPose');
    const pasted = applied(pasteNodes(asset, [], copyNodes(asset, [], ['saveCachedPose', 'useCachedPose']), { x: 0, y: 300 }));
    expect((pasted.nodes as any).useCachedPose2.properties.cache).toBe('saveCachedPose2');
    expect(canvas(pasted, []).edges.filter((e) => e.kind === 'cached-pose').map((e) => e.id)).toEqual(['cache:useCachedPose', 'cache:useCachedPose2']);
    const cut = applied(disconnect(pasted, [], 'cache:useCachedPose2'));
    expect((cut.nodes as any).useCachedPose2).toEqual({ type: 'UseCachedPose' });
    expect(refused(disconnect(pasted, [], 'cache:walk')).reason).toBe('no edge "cache:walk" on this canvas');
  });

  for (const file of examples) {
    it(`${file}: edits and their undo give the original text back byte for byte`, () => {
      const original = text(file);
      const asset = read(file);
      const history = new History(asset);
      const first = canvas(asset, []);
      const node = first.nodes.find((n) => n.kind === 'node')!;
      history.push(applied(moveNodes(history.current, [], { [node.id]: { x: node.x + 50, y: node.y } })));
      history.push(applied(setProperty(history.current, [], node.id, 'zzz', 1)));
      history.push(applied(addNode(history.current, [], 'BlendTwo', { x: 0, y: 0 })));
      const edited = formatAsset(history.current, original);
      expect(edited).not.toBe(original);
      expect(JSON.parse(edited)).toEqual(history.current);
      while (history.canUndo) history.undo();
      expect(history.current).toBe(asset);
      expect(formatAsset(history.current, original)).toBe(original);
      // The edited file, with its problem (the unknown property, the unlinked blend), still checks and lists them;
      // after the move alone it loads, to the poses of the original.
      if (hasSharedData || !/^(cmu|robot)-/.test(file)) {
        history.redo();
        const moved = formatAsset(history.current, original);
        expect(moved).toContain('"positions"');
        const load = (t: string) => JSON.stringify(runGraph(loadGraphAsset(t, { baseDir: examplesDir }), { seconds: 0.5, fps: 30, debug: false }).frames);
        expect(load(moved)).toBe(load(original));
        while (history.canRedo) history.redo();
        const result = checkGraphFileAsset(edited, { baseDir: examplesDir });
        expect(result.ok).toBe(false);
        if (!result.ok) {
          expect(result.problems.find((p) => p.path === `$.nodes.${node.id}.properties`)?.message).toContain('zzz');
          expect(result.problems.map((p) => p.path)).toContain('$.nodes.blendTwo.inputs.A');
        }
      }
    });
  }
});

describe('renaming', () => {
  it('renameClip and renameBlendProfile rename every name of them: each example, all its clips and profiles renamed, loads and plays as before', () => {
    let renamedClips = 0, renamedProfiles = 0;
    for (const file of examples) {
      if (!hasSharedData && /^(cmu|robot)-/.test(file)) continue;
      const original = read(file);
      let asset = original;
      for (const name of Object.keys((asset.clips ?? {}) as JsonObject)) {
        asset = applied(renameClip(asset, name, `${name}Renamed`));
        renamedClips++;
      }
      for (const name of Object.keys((asset.blendProfiles ?? {}) as JsonObject)) {
        asset = applied(renameBlendProfile(asset, name, `${name}Renamed`));
        renamedProfiles++;
      }
      const result = checkGraphFileAsset(asset, { baseDir: examplesDir });
      expect(result.ok ? [] : result.problems, file).toEqual([]);
      const play = (a: JsonObject) => JSON.stringify(runGraph(loadGraphAsset(a, { baseDir: examplesDir }), { seconds: 0.3, fps: 30, debug: false }).frames);
      expect(play(asset), file).toBe(play(original));
    }
    expect(renamedClips).toBeGreaterThan(30);
    expect(renamedProfiles).toBeGreaterThan(0);
    const asset = read('sample-montage.json');
    expect(refused(renameClip(asset, 'nope', 'x')).reason).toBe('no clip "nope"');
    expect(refused(renameClip(asset, 'walk', 'run')).reason).toBe('a clip "run" exists already');
    expect(refused(renameBlendProfile(asset, 'nope', 'x')).reason).toBe('no blend profile "nope"');
    expect(applied(renameClip(asset, 'walk', 'walk'))).toBe(asset);
    // The names it follows, in place.
    const renamed = applied(renameClip(asset, 'aimPoses', 'aims'));
    expect(Object.keys(renamed.clips as JsonObject).indexOf('aims')).toBe(Object.keys(asset.clips as JsonObject).indexOf('aimPoses'));
    expect((renamed.clips as any).aimLeft.additive.reference.clip).toBe('aims');
    expect((applied(renameClip(asset, 'run', 'sprint')).montages as any).combo.clip).toBe('sprint');
    // A node property of the blendProfile kind (the examples name profiles in transitions only).
    const profiled = applied(setProperty(applied(setAssetEntry(read('sample-locomotion.json'), 'blendProfiles', 'legsFirst', (read('sample-state-machine.json').blendProfiles as JsonObject).legsFirst)), [], 'locomotion', 'blendProfile', 'legsFirst'));
    expect(problems(profiled)).toEqual([]);
    const profileRenamed = applied(renameBlendProfile(profiled, 'legsFirst', 'legs'));
    expect((profileRenamed.nodes as any).locomotion.properties.blendProfile).toBe('legs');
    expect(problems(profileRenamed)).toEqual([]);
  });

  it('renameNode: the key in place, links, the output, node properties in reach, positions; a bad or taken id refused', () => {
    let asset = read('sample-locomotion.json');
    asset = applied(moveNodes(asset, [], {}));
    asset = applied(renameNode(asset, [], 'walk', 'stroll'));
    expect(Object.keys(asset.nodes as JsonObject)).toEqual(['idle', 'stroll', 'run', 'locomotion', 'headFollowsHand']);
    expect((asset.nodes as any).locomotion.inputs.poses).toEqual(['idle', 'stroll', 'run']);
    expect(Object.keys((asset.editor as any).positions[''])).toEqual(['idle', 'stroll', 'run', 'locomotion', 'headFollowsHand', OUTPUT_ID]);
    asset = applied(renameNode(asset, [], 'headFollowsHand', 'head'));
    expect(asset.output).toBe('head');
    expect(problems(asset)).toEqual([]);
    const bad = refused(renameNode(asset, [], 'head', '1head'));
    const loaderSays = problems({ ...asset, nodes: { ...(asset.nodes as JsonObject), '1head': { type: 'BlendTwo' } } }).map((p) => p.message);
    expect(loaderSays).toContain(bad.reason);
    expect(refused(renameNode(asset, [], 'head', 'idle')).reason).toBe('a node "idle" exists already');
  });

  it('renameNode: a state\'s use of an outer cache follows; a state with its own node of that name keeps its own', () => {
    const asset = read('sample-state-machine.json') as any;
    const edited = JSON.parse(JSON.stringify(asset));
    edited.nodes.save = { type: 'SaveCachedPose', inputs: { pose: 'locomotion' } };
    edited.nodes.locomotion.properties.states.walk.nodes.use = { type: 'UseCachedPose', properties: { cache: 'save' } };
    edited.nodes.locomotion.properties.states.run.nodes.save = { type: 'SaveCachedPose', inputs: { pose: 'clip' } };
    edited.nodes.locomotion.properties.states.run.nodes.use = { type: 'UseCachedPose', properties: { cache: 'save' } };
    const renamed = applied(renameNode(frozen(edited), [], 'save', 'shared')) as any;
    expect(renamed.nodes.locomotion.properties.states.walk.nodes.use.properties.cache).toBe('shared');
    expect(renamed.nodes.locomotion.properties.states.run.nodes.use.properties.cache).toBe('save');
    expect(renamed.nodes.locomotion.properties.states.run).toBe(edited.nodes.locomotion.properties.states.run);
  });

  it('renameParameter: the declaration in place, bindings and transition rules', () => {
    let asset = read('sample-state-machine.json');
    asset = applied(renameParameter(asset, 'speed', 'velocity'));
    expect(Object.keys(asset.parameters as JsonObject)).toEqual(['velocity', 'jump']);
    const transitions = (asset.nodes as any).locomotion.properties.transitions;
    expect(transitions[0].rule).toEqual({ param: 'velocity', op: '>', value: 10 });
    expect(transitions[8].rule.and.map((r: any) => r.param)).toEqual(['velocity', 'velocity']);
    expect(transitions[5].rule).toEqual({ param: 'jump' });
    expect(problems(asset)).toEqual([]);
    expect(refused(renameParameter(asset, 'velocity', 'jump')).reason).toBe('a parameter "jump" exists already');
    expect(refused(renameParameter(asset, 'nope', 'x')).reason).toBe('no parameter "nope"');
  });
});

describe('hostile names', () => {
  it('a node called __proto__ or toString is an ordinary node to every edit; a node called @output is not drawn', () => {
    const text = '{"format":"animgraph/1","skeleton":"builtin:biped","clips":{"walk":{"source":"builtin:walk"}},'
      + '"nodes":{"__proto__":{"type":"SequencePlayer","properties":{"clip":"walk"}},"toString":{"type":"BlendTwo"},"@output":{"type":"BlendTwo"}},"output":"toString"}';
    let asset = frozen(JSON.parse(text) as JsonObject);
    expect(canvas(asset, []).nodes.map((n) => n.id)).toEqual(['__proto__', 'toString', OUTPUT_ID]);
    asset = applied(connect(asset, [], '__proto__', 'toString', 'A'));
    asset = applied(moveNodes(asset, [], JSON.parse('{"__proto__": { "x": 7, "y": 8 }}')));
    const positions = (asset.editor as any).positions[''];
    expect(Object.hasOwn(positions, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(positions)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(positions, '__proto__')!.value).toEqual([7, 8]);
    const copied = applied(pasteNodes(asset, [], copyNodes(asset, [], ['__proto__', 'toString']), { x: 0, y: 0 }));
    expect(Object.keys(copied.nodes as JsonObject)).toEqual(['__proto__', 'toString', '@output', '__proto__2', 'toString2']);
    expect((copied.nodes as any).toString2.inputs).toEqual({ A: '__proto__2' });
    const removed = applied(removeNodes(asset, [], ['__proto__']));
    expect(Object.keys(removed.nodes as JsonObject)).toEqual(['toString', '@output']);
    expect((removed.nodes as any).toString.inputs).toEqual({});
    expect(JSON.parse(formatAsset(asset, text)).nodes.toString.inputs).toEqual({ A: '__proto__' });
  });
});

describe('History', () => {
  it('undoes and redoes, drops redo steps on a new edit, and takes the current asset again as no step', () => {
    const a = frozen({ n: 1 } as JsonObject), b = { n: 2 } as JsonObject, c = { n: 3 } as JsonObject, d = { n: 4 } as JsonObject;
    const h = new History(a);
    expect([h.canUndo, h.canRedo, h.undo(), h.redo()]).toEqual([false, false, undefined, undefined]);
    h.push(b);
    h.push(b);
    h.push(c);
    expect(h.undo()).toBe(b);
    expect(h.undo()).toBe(a);
    expect(h.undo()).toBeUndefined();
    expect(h.redo()).toBe(b);
    expect([h.canUndo, h.canRedo]).toEqual([true, true]);
    h.push(d);
    expect(h.canRedo).toBe(false);
    expect(h.current).toBe(d);
    expect(h.undo()).toBe(b);
    expect(h.undo()).toBe(a);
  });
});

void ({} as Json);
