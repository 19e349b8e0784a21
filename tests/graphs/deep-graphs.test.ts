import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { GraphLoadError, shortJsonPath, type GraphProblem } from '../../graphs/loader.ts';
import { MAX_ASSET_DEPTH } from '../../graphs/loader/problems.ts';
import { checkGraphAsset, loadGraphAsset } from '../../host/files.ts';
import { AnimGraph } from '../../runtime/graph/graph.ts';
import { MAX_GRAPH_DEPTH } from '../../runtime/graph/definition.ts';
import { formatDebugTree } from '../../host/runner.ts';
import { hasNaN } from '../support/graphs.ts';
import { expectAnimGraphError } from '../support/errors.ts';
import { cpuMs } from '../support/cpu-time.ts';

/**
 * Graphs deeper than MAX_GRAPH_DEPTH are a typed load error (`too-deep`),
 * found without recursion, so that update and evaluate (which recurse per level) stay inside the
 * stack; a graph at the limit runs.
 */

/**
 * A chain of `levels` nodes from the output down to a player: CopyBone (component space) and
 * BlendTwo (local space, with a player on B) alternate, so every level converts between spaces.
 */
function chain(levels: number): any {
  const nodes: Record<string, unknown> = { n0: { type: 'SequencePlayer', properties: { clip: 'walk' } } };
  for (let i = 1; i < levels; i++) {
    if (i % 2 === 1) nodes[`n${i}`] = { type: 'CopyBone', inputs: { pose: `n${i - 1}` }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r', alpha: 0.5 } };
    else {
      nodes[`p${i}`] = { type: 'SequencePlayer', properties: { clip: 'run' } };
      nodes[`n${i}`] = { type: 'BlendTwo', inputs: { A: `n${i - 1}`, B: `p${i}` }, properties: { alpha: 0.1 } };
    }
  }
  return {
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    nodes, output: `n${levels - 1}`,
  };
}

/** `levels` state machines, each the output of the one state of the machine above; a player inside. */
function nested(levels: number): any {
  let nodes: Record<string, unknown> = { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } };
  let output = 'p';
  for (let i = 0; i < levels; i++) {
    nodes = { sm: { type: 'StateMachine', properties: { entry: 's', states: { s: { nodes, output } }, transitions: [] } } };
    output = 'sm';
  }
  return { format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } }, nodes, output };
}

const TOO_DEEP = 'nests objects and arrays more than 1,000 levels deep (MAX_ASSET_DEPTH); this value is level 1,001, and nothing more is checked';

function problems(json: unknown): GraphProblem[] {
  const result = checkGraphAsset(json);
  if (result.ok) throw new Error('expected the asset to be rejected');
  return [...result.problems];
}

describe('deep graphs', () => {
  it('has a documented limit of 500 levels', () => {
    expect(MAX_GRAPH_DEPTH).toBe(500);
  });

  it('runs a chain at the limit: update, evaluate, component pose and debug tree, all finite', () => {
    const instance = loadGraphAsset(chain(MAX_GRAPH_DEPTH)).createInstance();
    for (let f = 0; f < 3; f++) {
      instance.update(1 / 30);
      expect(hasNaN(instance.evaluate().rotations)).toBe(false);
    }
    expect(hasNaN(instance.componentPose().translations)).toBe(false);
    const lines = formatDebugTree(instance.gatherDebug());
    // Output, the 500 chain nodes and the 249 players on the blends' B pins.
    expect(lines).toHaveLength(1 + MAX_GRAPH_DEPTH + 249);
    expect(lines.find((l) => l.includes('[n0]'))).toMatch(/^ {1000}SequencePlayer\[n0\]/);
  });

  it('reports one level more as too-deep, at the link that crosses the limit', () => {
    const p = problems(chain(MAX_GRAPH_DEPTH + 1));
    // n500 is level 1, so n1 is level 500 and its link to n0 leads to level 501.
    expect(p).toEqual([{
      path: '$.nodes.n1.inputs.pose', code: 'too-deep',
      message: "the graph is 501 nodes deep from its output 'n500'; at most 500 are allowed, and this link to 'n0' is level 501",
    }]);
  });

  it('names the pin (and index) of the deepest branch, not the first one', () => {
    const a = chain(MAX_GRAPH_DEPTH + 1);
    // Put the deep branch on the B pin of a top blend, behind a shallow A.
    a.nodes.top = { type: 'BlendList', inputs: { poses: ['shallow', 'n500'] } };
    a.nodes.shallow = { type: 'SequencePlayer', properties: { clip: 'walk' } };
    a.output = 'top';
    expect(problems(a).map((x) => [x.path, x.code])).toEqual([['$.nodes.n2.inputs.A', 'too-deep']]);
  });

  it('rejects a 10,000-node chain fast, with the typed error instead of a stack overflow', () => {
    const start = cpuMs();
    const p = problems(chain(10_000));
    expect(p.map((x) => [x.path, x.code])).toEqual([['$.nodes.n9500.inputs.A', 'too-deep']]);
    expect(cpuMs() - start).toBeLessThan(5000);
  });

  it('finds a cycle through 10,000 nodes without recursion', () => {
    const a = chain(1);
    for (let i = 0; i < 10_000; i++) {
      a.nodes[`c${i}`] = { type: 'CopyBone', inputs: { pose: `c${(i + 9_999) % 10_000}` }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r' } };
    }
    const p = problems(a);
    expect(p.map((x) => [x.path, x.code])).toEqual([['$.nodes.c0.inputs', 'cycle']]);
    expect(p[0].message).toMatch(/^links form a cycle: c0 -> c9999 -> c9998 -> .* -> c1 -> c0$/);
  });

  it('reports a property value nested 100,000 deep as too-deep at its first level over the limit, not a stack overflow', () => {
    // JSON.parse reads it fine; the check for a non-finite number inside a malformed value recursed.
    const a = chain(2);
    a.nodes.n1.properties.alpha = JSON.parse(`${'['.repeat(100_000)}1e400${']'.repeat(100_000)}`);
    a.nodes.n1.properties.sourceBone = JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    const p = problems(a);
    // The first value in the asset's order (the properties' keys in insertion order: sourceBone is
    // written before alpha) 1,001 keys deep; nothing else is checked.
    expect(p).toEqual([{ path: `$.nodes.n1.properties.sourceBone${'.a'.repeat(MAX_ASSET_DEPTH - 3)}`, code: 'too-deep', message: TOO_DEEP }]);
  });

  it('has a documented limit of 1,000 levels of JSON nesting', () => {
    expect(MAX_ASSET_DEPTH).toBe(1000);
  });

  it('reports state machines nested 1,200 deep as too-deep before any schema parsing, with a short message', () => {
    // They threw "RangeError: Maximum call stack size exceeded" from zod, through checkGraphAsset.
    const a = nested(1200);
    const start = cpuMs();
    const p = problems(a);
    expect(cpuMs() - start).toBeLessThan(2000);
    expect(p).toHaveLength(1);
    expect(p[0].code).toBe('too-deep');
    expect(p[0].message).toBe(TOO_DEEP);
    // The path: 1,001 keys, down the machines (5 keys a level) to the first value past the limit.
    expect(p[0].path).toBe(`$${'.nodes.sm.properties.states.s'.repeat(200)}.nodes`);
    // A GraphLoadError's message, as the CLI prints it, cuts a path that long.
    const error = new GraphLoadError('deep.json', p);
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).toMatch(/^deep\.json: 1 problem\n {2}\$\.nodes\.sm\.properties\.states\.s\.nodes\.sm.* characters cut\).*\.states\.s\.nodes: nests/);
    expect(shortJsonPath(p[0].path)).toHaveLength(error.message.split('\n')[1].indexOf(': nests') - 2);
  });

  it('animgraph validate prints the problem, its path cut, with no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-deep-'));
    const file = join(dir, 'deep.json');
    // Written out by hand: JSON.stringify recurses, and overflows at this depth itself.
    const open = '{"sm":{"type":"StateMachine","properties":{"entry":"s","states":{"s":{"nodes":';
    const close = (output: string) => `,"output":"${output}"}},"transitions":[]}}}`;
    const player = '{"p":{"type":"SequencePlayer","properties":{"clip":"walk"}}}';
    const text = `{"format":"animgraph/1","skeleton":"builtin:biped","clips":{"walk":{"source":"builtin:walk"}},"nodes":${open.repeat(1200)}${player}`
      + `${close('p')}${close('sm').repeat(1199)},"output":"sm"}`;
    writeFileSync(file, text);
    let out = '', err = '';
    const io: Io = { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false };
    expect(await main(['validate', file], io)).toBe(1);
    expect(out).toBe('');
    const lines = err.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`${file}: 1 problem`);
    expect(lines[1]).toMatch(/^ {2}\$\.nodes\.sm\..*characters cut\).*: nests objects and arrays more than 1,000 levels deep .* \[too-deep\]$/);
    expect(lines[1].length).toBeLessThan(400);
  });

  it('checks state machines nested as deep as the limit allows (199), quickly', () => {
    // 199 machines, each in a state of the one above: the deepest value, the player's clip, is at 999 keys.
    const start = cpuMs();
    const instance = loadGraphAsset(nested(199)).createInstance();
    instance.update(1 / 30);
    expect(hasNaN(instance.evaluate().rotations)).toBe(false);
    expect(cpuMs() - start).toBeLessThan(5000);
  });

  it('AnimGraph built without the loader refuses a chain deeper than the limit', () => {
    const graph = loadGraphAsset(chain(MAX_GRAPH_DEPTH));
    const nodes = [...graph.nodes];
    const output = nodes.pop()!;
    // One more CopyBone on top of the deepest node makes 501 levels below the Output node.
    const copy = graph.nodes.find((n) => n.id === 'n1')!;
    const top = { ...copy, id: 'top', inputs: { pose: nodes.at(-1)!.id } };
    expectAnimGraphError(
      () => new AnimGraph({ name: 'deep', skeleton: graph.skeleton, parameters: {}, clips: new Map(), nodes: [...nodes, top, { ...output, inputs: { pose: 'top' } }] }),
      'out-of-range', 'the graph is 502 nodes deep; at most 500 (plus the output node) are allowed',
    );
  });

  it('counts the levels inside state machine states: too deep only through a state is reported inside it', () => {
    // 250 levels above a machine whose state holds a chain of 300: 551 levels from the output.
    const state = chain(300);
    const nodes: Record<string, unknown> = {
      sm: { type: 'StateMachine', properties: { entry: 'deep', states: { deep: { nodes: state.nodes, output: 'n299' } }, transitions: [] } },
    };
    let below = 'sm';
    for (let i = 1; i <= 250; i++) {
      nodes[`t${i}`] = i % 2 === 1
        ? { type: 'CopyBone', inputs: { pose: below }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r', alpha: 0.5 } }
        : { type: 'BlendTwo', inputs: { A: below, B: `q${i}` }, properties: { alpha: 0.1 } };
      if (i % 2 === 0) nodes[`q${i}`] = { type: 'SequencePlayer', properties: { clip: 'run' } };
      below = `t${i}`;
    }
    const asset = { ...state, nodes, output: 't250' };
    const p = problems(asset);
    expect(p.map((x) => [x.path, x.code])).toEqual([['$.nodes.sm.properties.states.deep.nodes.n51', 'too-deep']]);
    expect(p[0].message).toContain('the graph is 551 nodes deep');
    // 199 levels in the state instead: 450 in all, which loads and runs.
    const shallow = chain(199);
    const ok = { ...asset, nodes: { ...nodes, sm: { type: 'StateMachine', properties: { entry: 'deep', states: { deep: { nodes: shallow.nodes, output: 'n198' } }, transitions: [] } } } };
    const instance = loadGraphAsset(ok).createInstance();
    instance.update(1 / 30);
    expect(hasNaN(instance.evaluate().rotations)).toBe(false);
  });
});
