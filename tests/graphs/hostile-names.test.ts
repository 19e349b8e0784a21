import { describe, expect, it } from 'vitest';
import { type GraphProblem } from '../../graphs/loader.ts';
import { checkGraphAsset, loadGraphAsset } from '../../host/files.ts';
import { main, type Io } from '../../cli/main.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Names that Object.prototype already has (toString, constructor,
 * hasOwnProperty, valueOf) are ordinary names, looked up as own properties only; `__proto__`
 * is refused by name wherever it is a key.
 */
const INHERITED = ['toString', 'constructor', 'hasOwnProperty', 'valueOf'];

function asset(): any {
  return {
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    parameters: { alpha: { type: 'float', default: 0.25 } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: { param: 'alpha' } } },
    },
    output: 'blend',
  };
}

function problems(json: unknown): GraphProblem[] {
  const result = checkGraphAsset(json);
  if (result.ok) throw new Error('expected the asset to be rejected');
  return [...result.problems];
}

/** JSON text round trip, as a file would be read: `__proto__` keys become own keys. */
const reparse = (text: string) => JSON.parse(text);

describe.each(INHERITED)("a name inherited from Object.prototype ('%s')", (name) => {
  it('is a dangling link when no node has it', () => {
    const a = asset();
    a.nodes.blend.inputs.A = name;
    expect(problems(a)).toEqual([{ path: '$.nodes.blend.inputs.A', code: 'dangling-link', message: `links to '${name}', which is not a node of this graph` }]);
  });

  it('is a dangling output when no node has it', () => {
    const a = asset();
    a.output = name;
    expect(problems(a)).toEqual([{ path: '$.output', code: 'dangling-link', message: `output names '${name}', which is not a node of this graph` }]);
  });

  it('is an unknown parameter when bound but not declared', () => {
    const a = asset();
    a.nodes.blend.properties.alpha = { param: name };
    expect(problems(a)).toEqual([{ path: '$.nodes.blend.properties.alpha.param', code: 'unknown-parameter', message: `unknown parameter '${name}' (declared: alpha)` }]);
  });

  it('is an unknown clip, node type, input, property and bone', () => {
    const a = asset();
    a.nodes.walk.properties.clip = name;
    a.nodes.run.type = name;
    a.nodes.copy = { type: 'CopyBone', inputs: { pose: 'blend' }, properties: { sourceBone: name, targetBone: 'head' } };
    a.output = 'copy';
    const p = problems(reparse(JSON.stringify(a).replace('"inputs":{"A"', `"inputs":{"${name}":"run","A"`).replace('"properties":{"alpha"', `"properties":{"${name}":1,"alpha"`)));
    const codes = Object.fromEntries(p.map((x) => [x.path, x.code]));
    expect(codes).toEqual({
      '$.nodes.walk.properties.clip': 'unknown-clip',
      '$.nodes.run.type': 'unknown-node-type',
      [`$.nodes.blend.inputs.${name}`]: 'unknown-input',
      '$.nodes.blend.properties': 'schema',
      '$.nodes.copy.properties.sourceBone': 'unknown-bone',
    });
    expect(p.find((x) => x.path === '$.nodes.blend.properties')!.message).toContain(name);
  });

  it('works as a node id, clip name and parameter name when the asset defines it', () => {
    const text = JSON.stringify(asset())
      .replaceAll('"walk"', `"${name}"`) // clip and node
      .replaceAll('"alpha"', `"${name}"`); // parameter, bound to the blend's alpha property
    const graph = loadGraphAsset(reparse(text.replace(`"properties":{"${name}":{"param"`, `"properties":{"alpha":{"param"`)));
    expect(graph.nodes.map((n) => n.id)).toEqual([name, 'run', 'blend', 'output']);
    expect(graph.clipBindings.has(name)).toBe(true);
    const instance = graph.createInstance();
    expect(instance.getParameter(name)).toBe(0.25);
    instance.setParameter(name, 0.75);
    instance.update(0.1);
    expect(instance.gatherDebug().children[0].children[0].weight).toBeCloseTo(0.25, 12);
  });

  it('is an unknown parameter for the CLI --set (exit 2 with the parameter list)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-names-'));
    const file = join(dir, 'g.json');
    writeFileSync(file, JSON.stringify(asset()));
    let err = '';
    const io: Io = { out: () => {}, err: (t) => { err += t; }, errIsTty: false };
    expect(await main(['run', file, '--frames', '1', '--set', `${name}=1`], io)).toBe(2);
    expect(err).toContain(`unknown parameter '${name}' (parameters: alpha)`);
  });
});

describe("'__proto__' as a key", () => {
  const message = "'__proto__' cannot be a name or key in an asset (JavaScript objects treat it specially): rename it";
  it.each([
    // Renamed where defined and where used, so that the name itself is the only problem.
    ['a node id', [['"walk":{"type"', '"__proto__":{"type"'], ['"A":"walk"', '"A":"__proto__"']], '$.nodes.__proto__'],
    ['a clip name', [['"walk":{"source"', '"__proto__":{"source"'], ['"clip":"walk"', '"clip":"__proto__"']], '$.clips.__proto__'],
    ['a parameter name', [['"alpha":{"type"', '"__proto__":{"type"'], ['"param":"alpha"', '"param":"__proto__"']], '$.parameters.__proto__'],
    ['an input name', [['"inputs":{"A"', '"inputs":{"__proto__":"walk","A"']], '$.nodes.blend.inputs.__proto__'],
    ['a property name', [['"properties":{"alpha"', '"properties":{"__proto__":1,"alpha"']], '$.nodes.blend.properties.__proto__'],
    ['a key of the envelope', [['"format"', '"__proto__":{},"format"']], '$.__proto__'],
  ])('is refused as %s, once, at its own path', (_what, edits, path) => {
    let text = JSON.stringify(asset());
    for (const [from, to] of edits as string[][]) text = text.replace(from, to);
    const p = problems(reparse(text));
    expect(p.filter((x) => x.path === path)).toEqual([{ path, code: 'schema', message }]);
    // Nothing else is reported (zod's "Unrecognized key" for it is not repeated).
    expect(p).toHaveLength(1);
  });

  it('is an unknown name where it is a reference (link, output, binding, clip)', () => {
    const a = asset();
    a.nodes.blend.inputs.A = '__proto__';
    a.nodes.blend.properties.alpha = { param: '__proto__' };
    a.nodes.run.properties.clip = '__proto__';
    expect(Object.fromEntries(problems(a).map((x) => [x.path, x.code]))).toEqual({
      '$.nodes.blend.inputs.A': 'dangling-link',
      '$.nodes.blend.properties.alpha.param': 'unknown-parameter',
      '$.nodes.run.properties.clip': 'unknown-clip',
    });
  });
});

describe('names echoed in messages', () => {
  // Issue: a 1 MB clip name made a 1 MB message line, and an unknown clip's message listed every
  // declared clip (20,000 of them, 149 KB). Names are cut at 80 characters, lists at 20 names.
  it('cuts a long name at 80 characters with an ellipsis', () => {
    const a = asset();
    a.nodes.walk.properties.clip = 'x'.repeat(1_000_000);
    a.nodes.run.properties.clip = `${'y'.repeat(79)}😀z`; // the cut falls inside the emoji's surrogate pair: it is dropped whole
    expect(problems(a)).toEqual([
      { path: '$.nodes.walk.properties.clip', code: 'unknown-clip', message: `unknown clip '${'x'.repeat(80)}…' (declared: walk, run)` },
      { path: '$.nodes.run.properties.clip', code: 'unknown-clip', message: `unknown clip '${'y'.repeat(79)}…' (declared: walk, run)` },
    ]);
  });

  it('lists the first 20 names and counts the rest', () => {
    const a = asset();
    for (let i = 0; i < 50; i++) a.clips[`clip${i}`] = { source: 'builtin:walk' };
    a.nodes.walk.properties.clip = 'nope';
    const listed = ['walk', 'run', ...Array.from({ length: 18 }, (_, i) => `clip${i}`)].join(', ');
    expect(problems(a)).toEqual([
      { path: '$.nodes.walk.properties.clip', code: 'unknown-clip', message: `unknown clip 'nope' (declared: ${listed} and 32 more)` },
    ]);
  });

  it('cuts and counts the keys of zod\'s unrecognized-key message alike', () => {
    const a = asset();
    for (let i = 0; i < 25; i++) a.nodes.blend.properties[`extra${i}`] = 1;
    a.nodes.run.properties['k'.repeat(100)] = 1;
    const keys = Array.from({ length: 20 }, (_, i) => `"extra${i}"`).join(', ');
    expect(problems(a)).toEqual([
      { path: '$.nodes.run.properties', code: 'schema', message: `Unrecognized key: "${'k'.repeat(80)}…"` },
      { path: '$.nodes.blend.properties', code: 'schema', message: `Unrecognized keys: ${keys} and 5 more` },
    ]);
  });
});
