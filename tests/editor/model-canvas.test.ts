import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NodeRegistry } from '../../graphs/loader.ts';
import { builtInNodeTypes } from '../../nodes/index.ts';
import type { NodeType } from '../../runtime/node/node.ts';
import { ANY_STATE_ID, canvas, canvasKey, ENTRY_ID, OUTPUT_ID, ruleText, type Canvas, type CanvasPath, type JsonObject } from '../../editor/model/index.ts';

const examplesDir = new URL('../../graphs/examples/', import.meta.url).pathname;
const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.json')).sort();
const read = (file: string): JsonObject => JSON.parse(readFileSync(examplesDir + file, 'utf8'));

/** Counts straight from the JSON, written independently of the model: [path, nodes, wires] per canvas. */
function countCanvases(graph: any, path: string[] = []): [string, number, number][] {
  const ids = Object.keys(graph.nodes);
  let wires = typeof graph.output === 'string' && ids.includes(graph.output) ? 1 : 0;
  const out: [string, number, number][] = [];
  for (const [id, node] of Object.entries<any>(graph.nodes)) {
    for (const v of Object.values<any>(node.inputs ?? {})) wires += Array.isArray(v) ? v.length : 1;
    if (node.type === 'UseCachedPose' && ids.includes(node.properties?.cache)) wires += 1;
    if (node.type === 'StateMachine') {
      const { states, transitions, entry } = node.properties;
      out.push([[...path, id].join('/'), Object.keys(states).length + 2, transitions.length + (entry in states ? 1 : 0)]);
      for (const [name, state] of Object.entries<any>(states)) if (!state.conduit) out.push(...countCanvases(state, [...path, id, name]));
    }
  }
  return [[path.join('/'), ids.length + 1, wires], ...out];
}

/** Every canvas the model reaches by following `opens` from the top. */
function allCanvases(asset: JsonObject, path: CanvasPath = []): Canvas[] {
  const c = canvas(asset, path);
  return [c, ...c.nodes.flatMap((n) => (n.opens ? allCanvases(asset, n.opens) : []))];
}

describe('canvas: the graph drawn', () => {
  it('finds the examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(13);
  });

  for (const file of examples) {
    it(`${file}: every canvas has the asset's nodes and wires`, () => {
      const asset = read(file);
      const drawn = allCanvases(asset).map((c): [string, number, number] => [c.path.join('/'), c.nodes.length, c.edges.length]);
      expect(drawn.sort()).toEqual(countCanvases(asset).sort());
      for (const c of allCanvases(asset)) {
        const ids = new Set(c.nodes.map((n) => n.id));
        // Every edge joins drawn nodes, ends at a pin of its target, and ids are unique.
        expect(ids.size).toBe(c.nodes.length);
        expect(new Set(c.edges.map((e) => e.id)).size).toBe(c.edges.length);
        for (const e of c.edges) {
          expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
          if (e.kind === 'link') expect(c.nodes.find((n) => n.id === e.target)!.inputs.map((p) => p.handle)).toContain(e.targetHandle);
        }
        for (const n of c.nodes) expect(Number.isFinite(n.x) && Number.isFinite(n.y)).toBe(true);
      }
    });
  }

  it('sample-state-machine.json: the machine canvas has its states, entry and any-state, and rules on transitions', () => {
    const asset = read('sample-state-machine.json');
    const top = canvas(asset, []);
    expect(top.nodes.map((n) => [n.id, n.kind, n.opens])).toEqual([['locomotion', 'node', ['locomotion']], [OUTPUT_ID, 'output', undefined]]);
    const machine = canvas(asset, ['locomotion']);
    expect(machine.kind).toBe('machine');
    expect(machine.nodes.map((n) => [n.id, n.kind])).toEqual([
      [ENTRY_ID, 'entry'], [ANY_STATE_ID, 'any-state'], ['idle', 'state'], ['walk', 'state'], ['run', 'state'], ['jump', 'state'], ['land', 'conduit'],
    ]);
    expect(machine.nodes.find((n) => n.id === 'land')!.opens).toBeUndefined();
    expect(machine.nodes.find((n) => n.id === 'walk')!.opens).toEqual(['locomotion', 'walk']);
    const edges = Object.fromEntries(machine.edges.map((e) => [e.id, [e.source, e.target, e.label]]));
    expect(edges.entry).toEqual([ENTRY_ID, 'idle', undefined]);
    expect(edges['transition:0']).toEqual(['idle', 'walk', 'speed > 10 · 0.25 s']);
    expect(edges['transition:5']).toEqual([ANY_STATE_ID, 'jump', 'jump · 0.1 s']);
    expect(edges['transition:6']).toEqual(['jump', 'land', 'at end · 0.2 s']);
    expect(edges['transition:8']).toEqual(['land', 'walk', 'speed > 10 and speed <= 250 · 0.2 s']);
    expect(edges['transition:9']).toEqual(['land', 'run', 'always · 0.2 s']);
    expect(machine.edges.find((e) => e.id === 'transition:3')!.jsonPath).toBe('$.nodes.locomotion.properties.transitions[3]');
    // The entry is laid out left of every state.
    const x = (id: string) => machine.nodes.find((n) => n.id === id)!.x;
    for (const n of machine.nodes) if (n.id !== ENTRY_ID) expect(x(ENTRY_ID)).toBeLessThan(n.x);
    const walk = canvas(asset, ['locomotion', 'walk']);
    expect(walk.title).toBe('locomotion › walk');
    expect(walk.nodes.map((n) => [n.id, n.jsonPath])).toEqual([
      ['clip', '$.nodes.locomotion.properties.states.walk.nodes.clip'], [OUTPUT_ID, '$.nodes.locomotion.properties.states.walk.output'],
    ]);
  });

  it('sample-locomotion.json: inputs lie left of what they feed, the output right of everything; pins and list pins from the meta', () => {
    const asset = read('sample-locomotion.json');
    const c = canvas(asset, []);
    const byId = new Map(c.nodes.map((n) => [n.id, n]));
    for (const e of c.edges) expect(byId.get(e.source)!.x + byId.get(e.source)!.width).toBeLessThanOrEqual(byId.get(e.target)!.x);
    const output = byId.get(OUTPUT_ID)!;
    for (const n of c.nodes) if (n !== output) expect(n.x).toBeLessThan(output.x);
  });

  it('moves laid-out nodes by the saved ones\' mean offset, so they land beside them', () => {
    const asset: JsonObject = {
      format: 'animgraph/1', nodes: { a: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'a',
    };
    const auto = canvas(asset, []).nodes.map((n) => [n.id, n.x, n.y]);
    expect(auto).toEqual([['a', 20, 20], [OUTPUT_ID, 300, 20]]);
    const saved = canvas({ ...asset, editor: { positions: { '': { a: [1000, 500] } } } }, []).nodes.map((n) => [n.id, n.x, n.y]);
    expect(saved).toEqual([['a', 1000, 500], [OUTPUT_ID, 1280, 500]]);
  });

  it('draws list inputs as one pin per entry and one to add, and pose pins from the meta', () => {
    const asset: JsonObject = {
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: {
        a: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        b: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        list: { type: 'BlendList', inputs: { poses: ['a', 'b'] }, properties: { activeIndex: 0 } },
        two: { type: 'BlendTwo', inputs: { A: 'list', B: 'nowhere' } },
      },
      output: 'two',
    };
    const c = canvas(asset, []);
    const list = c.nodes.find((n) => n.id === 'list')!;
    expect(list.inputs.map((p) => [p.handle, p.index, p.listAdd, p.jsonPath])).toEqual([
      ['poses:0', 0, undefined, '$.nodes.list.inputs.poses[0]'], ['poses:1', 1, undefined, '$.nodes.list.inputs.poses[1]'], ['poses:+', undefined, true, '$.nodes.list.inputs.poses'],
    ]);
    const two = c.nodes.find((n) => n.id === 'two')!;
    expect(two.inputs.map((p) => [p.handle, p.title])).toEqual([['A', 'A'], ['B', 'B']]);
    expect([two.title, two.category, two.color, two.type]).toEqual(['Blend', 'Blends', '#3b77c4', 'BlendTwo']);
    // A link to a node that does not exist is not drawn (the loader reports it at the pin).
    expect(c.edges.map((e) => [e.id, e.source, e.target, e.targetHandle])).toEqual([
      ['link:list:poses:0', 'a', 'list', 'poses:0'], ['link:list:poses:1', 'b', 'list', 'poses:1'], ['link:two:A', 'list', 'two', 'A'], [`link:${OUTPUT_ID}:pose`, 'two', OUTPUT_ID, 'pose'],
    ]);
  });

  it('pairs cached poses: the save node, each use naming it, an edge from save to use laid out left to right', () => {
    const asset: JsonObject = {
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        cached: { type: 'SaveCachedPose', inputs: { pose: 'walk' } },
        use1: { type: 'UseCachedPose', properties: { cache: 'cached' } },
        use2: { type: 'UseCachedPose', properties: { cache: 'cached' } },
        blend: { type: 'BlendTwo', inputs: { A: 'use1', B: 'use2' } },
      },
      output: 'blend',
    };
    const c = canvas(asset, []);
    expect(c.nodes.filter((n) => n.cachedPose).map((n) => [n.id, n.cachedPose])).toEqual([
      ['cached', { name: 'cached', role: 'save' }], ['use1', { name: 'cached', role: 'use' }], ['use2', { name: 'cached', role: 'use' }],
    ]);
    const caches = c.edges.filter((e) => e.kind === 'cached-pose');
    expect(caches.map((e) => [e.id, e.source, e.target, e.jsonPath])).toEqual([
      ['cache:use1', 'cached', 'use1', '$.nodes.use1.properties.cache'], ['cache:use2', 'cached', 'use2', '$.nodes.use2.properties.cache'],
    ]);
    const x = (id: string) => c.nodes.find((n) => n.id === id)!.x;
    expect(x('walk')).toBeLessThan(x('cached'));
    expect(x('cached')).toBeLessThan(x('use1'));
    expect(x('use1')).toBeLessThan(x('blend'));
  });

  it('uses saved positions where the asset has them, and lays out only the others', () => {
    const asset = read('sample-locomotion.json');
    const auto = canvas(asset, []);
    // The nodes' own editor.position blocks count as saved.
    expect(auto.nodes.slice(0, 5).map((n) => [n.id, n.x, n.y])).toEqual([['idle', 0, 0], ['walk', 0, 120], ['run', 0, 240], ['locomotion', 300, 120], ['headFollowsHand', 600, 120]]);
    const first = auto.nodes[0];
    const saved = { ...asset, editor: { positions: { '': { [first.id]: [-500, 77], [OUTPUT_ID]: [1000, 5] } } } };
    const c = canvas(saved, []);
    expect([c.nodes[0].x, c.nodes[0].y]).toEqual([-500, 77]);
    expect(c.nodes.find((n) => n.id === OUTPUT_ID)!.x).toBe(1000);
    expect(c.nodes.slice(1, -1).map((n) => [n.x, n.y])).toEqual(auto.nodes.slice(1, -1).map((n) => [n.x, n.y]));
    // The layout is deterministic: drawing twice gives the same positions.
    expect(canvas(asset, []).nodes.map((n) => [n.x, n.y])).toEqual(auto.nodes.map((n) => [n.x, n.y]));
  });

  it('draws custom types with their meta, or as Custom with names for titles; unknown types with the inputs they write', () => {
    // Drawing never builds a node: a built-in type's create serves.
    const Fancy: NodeType = { ...builtInNodeTypes.find((t) => t.type === 'Inertialization')!, type: 'Fancy', inputs: [{ name: 'src', kind: 'pose', space: 'local' }] };
    const registry = new NodeRegistry([...builtInNodeTypes, Fancy]);
    const asset: JsonObject = {
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, f: { type: 'Fancy', inputs: { src: 'walk' } }, m: { type: 'Mystery', inputs: { x: 'f' } } },
      output: 'm',
    };
    const plain = canvas(asset, [], registry);
    expect(plain.nodes.map((n) => [n.id, n.title, n.category, n.inputs.map((p) => p.title)])).toEqual([
      ['walk', 'Sequence Player', 'Pose sources', []], ['f', 'Fancy', 'Custom', ['src']], ['m', 'Mystery', undefined, ['x']], [OUTPUT_ID, 'Output', 'Output', ['Pose']],
    ]);
    expect(plain.edges).toHaveLength(3);
    const metas = [{ type: 'Fancy', title: 'Fancy Blend', category: 'Blends' as const, description: '', pins: { src: { title: 'Source', description: 'in' } }, properties: {} }];
    const documented = canvas(asset, [], { registry, metas });
    expect(documented.nodes[1].title).toBe('Fancy Blend');
    expect(documented.nodes[1].inputs[0].title).toBe('Source');
  });

  it('draws malformed assets as far as they go, without throwing (a graph with problems still edits)', () => {
    const broken: any = {
      nodes: {
        a: 5, b: null, c: [], d: { type: 7 }, e: { type: 'BlendTwo', inputs: 5 }, f: { type: 'BlendList', inputs: { poses: 'a' } }, g: { type: 'BlendTwo', properties: [] },
        sm: { type: 'StateMachine', properties: { entry: 5, states: { s: 5, t: { nodes: 5 }, u: { conduit: true } }, transitions: [5, { from: 5 }, { from: 't', to: 'zz' }, { from: 't', to: 'u', rule: { and: 5 } }] } },
      },
      output: 5,
      editor: { positions: { '': { a: [1], b: [1, 2] } } },
    };
    const top = canvas(broken, []);
    expect(top.nodes.map((n) => n.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'sm', OUTPUT_ID]);
    expect(top.edges).toEqual([]);
    expect(top.nodes.find((n) => n.id === 'b')).toMatchObject({ x: 1, y: 2 });
    const machine = canvas(broken, ['sm']);
    expect(machine.nodes.map((n) => [n.id, n.kind, n.opens])).toEqual([
      [ENTRY_ID, 'entry', undefined], [ANY_STATE_ID, 'any-state', undefined], ['s', 'state', undefined], ['t', 'state', ['sm', 't']], ['u', 'conduit', undefined],
    ]);
    expect(machine.edges.map((e) => [e.id, e.label])).toEqual([['transition:3', '{"and":5} · 0.2 s']]);
    expect(canvas(broken, ['sm', 't']).nodes.map((n) => n.id)).toEqual([OUTPUT_ID]);
    expect(canvas({}, []).nodes.map((n) => n.id)).toEqual([OUTPUT_ID]);
  });

  it('refuses a path that names no canvas', () => {
    const asset = read('sample-state-machine.json');
    expect(() => canvas(asset, ['nope'])).toThrow('is not a StateMachine node');
    expect(() => canvas(asset, ['locomotion', 'land'])).toThrow('is not a state with a sub-graph');
    expect(() => canvas(asset, ['locomotion', 'walk', 'clip'])).toThrow('is not a StateMachine node');
  });

  it('keys canvases with / between names, escaping / and ~', () => {
    expect(canvasKey([])).toBe('');
    expect(canvasKey(['sm', 'walk'])).toBe('sm/walk');
    expect(canvasKey(['sm', 'a/b~c'])).toBe('sm/a~1b~0c');
  });

  it('writes rules as text', () => {
    expect(ruleText(true)).toBe('always');
    expect(ruleText(false)).toBe('never');
    expect(ruleText('atEnd')).toBe('at end');
    expect(ruleText({ timeRemaining: 0.3 })).toBe('time left ≤ 0.3 s');
    expect(ruleText({ param: 'speed', op: '>', value: 10 })).toBe('speed > 10');
    expect(ruleText({ param: 'jump' })).toBe('jump');
    expect(ruleText({ param: 'armed', op: '==', value: false })).toBe('armed == false');
    expect(ruleText({ or: [{ param: 'a' }, { and: [{ param: 'b' }, { not: { param: 'c' } }] }] })).toBe('a or (b and not c)');
    expect(ruleText({ not: { or: [{ param: 'a' }, { param: 'b' }] } })).toBe('not (a or b)');
  });
});
