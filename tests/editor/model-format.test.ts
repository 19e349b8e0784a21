import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../host/files.ts';
import { runGraph } from '../../host/runner.ts';
import { formatAsset, type Json, type JsonObject } from '../../editor/model/index.ts';
import { hasSharedData } from '../support/shared-data.ts';

const examplesDir = new URL('../../graphs/examples/', import.meta.url).pathname;
const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.json')).sort();
const text = (file: string) => readFileSync(examplesDir + file, 'utf8');
/** Examples on ../shared/data load only where it is (CI always has it). */
const loadable = (file: string) => hasSharedData || !/^(cmu|robot)-/.test(file);

/** The lines of `b` that differ from `a`'s, as [line number, a's line, b's line], after aligning a common head and tail. */
function changedLines(a: string, b: string): { removed: string[]; added: string[] } {
  const x = a.split('\n'), y = b.split('\n');
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  return { removed: x.slice(head, x.length - tail), added: y.slice(head, y.length - tail) };
}

const poses = (json: unknown) => JSON.stringify(runGraph(loadGraphAsset(json, { baseDir: examplesDir }), { seconds: 1, fps: 30, debug: false }).frames);

describe('formatAsset: the JSON the user would have written', () => {
  for (const file of examples) {
    it(`${file}: unchanged, it saves byte for byte; written afresh it parses to the same asset${loadable(file) ? ' and loads to the same poses' : ''}`, () => {
      const original = text(file);
      const asset = JSON.parse(original) as JsonObject;
      expect(formatAsset(asset, original)).toBe(original);
      const fresh = formatAsset(asset);
      expect(fresh.endsWith('}\n')).toBe(true);
      expect(JSON.parse(fresh)).toEqual(asset);
      // Two-space indentation throughout.
      for (const line of fresh.split('\n')) expect(/^( *)/.exec(line)![1].length % 2).toBe(0);
      if (loadable(file)) expect(poses(JSON.parse(fresh))).toBe(poses(asset));
    });
  }

  it('a changed value changes only its own line, keeping the rest (a "0.0" included) as written', () => {
    const original = text('sample-locomotion.json');
    const asset = JSON.parse(original);
    asset.nodes.walk.properties.clip = 'run';
    const saved = formatAsset(asset, original);
    expect(changedLines(original, saved)).toEqual({
      removed: ['    "walk": { "type": "SequencePlayer", "properties": { "clip": "walk", "playRate": { "param": "speed" } }, "editor": { "position": [0, 120] } },'],
      added: ['    "walk": { "type": "SequencePlayer", "properties": { "clip": "run", "playRate": { "param": "speed" } }, "editor": { "position": [0, 120] } },'],
    });
    expect(saved).toContain('"alpha": 0.0 }');
    // The inverse edit gives the original text back.
    asset.nodes.walk.properties.clip = 'walk';
    expect(formatAsset(asset, original)).toBe(original);
  });

  it('a new node is one new line in place; removing one removes only its lines', () => {
    const original = text('sample-state-machine.json');
    const asset = JSON.parse(original);
    asset.nodes.extra = { type: 'SequencePlayer', properties: { clip: 'walk' } };
    expect(changedLines(original, formatAsset(asset, original))).toEqual({
      removed: ['    }'],
      added: ['    },', '    "extra": { "type": "SequencePlayer", "properties": { "clip": "walk" } }'],
    });
    const lean = JSON.parse(text('sample-additive-lean.json'));
    const leanText = text('sample-additive-lean.json');
    const id = Object.keys(lean.nodes)[0];
    const lines = leanText.split('\n');
    const nodeLine = lines.slice(lines.indexOf('  "nodes": {')).find((l) => l.startsWith(`    ${JSON.stringify(id)}:`))!;
    delete lean.nodes[id];
    const { removed, added } = changedLines(leanText, formatAsset(lean, leanText));
    expect(added).toEqual([]);
    expect(removed[0]).toBe(nodeLine);
  });

  it('puts a new key where the schema orders it, an unknown key last, and keeps unknown keys', () => {
    const original = '{\n  "format": "animgraph/1",\n  "skeleton": "builtin:biped",\n  "nodes": {\n    "b": { "type": "BlendTwo", "inputs": { "A": "x", "B": "y" }, "custom": 1 }\n  },\n  "output": "b",\n  "zzz": true\n}\n';
    const asset = JSON.parse(original);
    asset.nodes.b.properties = { alpha: 0.5 };
    asset.clips = { walk: { source: 'builtin:walk' } };
    asset.name = 'named';
    asset.editor = { positions: { '': { b: [1, 2] } } };
    expect(formatAsset(asset, original)).toBe([
      '{',
      '  "format": "animgraph/1",',
      '  "name": "named",',
      '  "skeleton": "builtin:biped",',
      '  "clips": {',
      '    "walk": { "source": "builtin:walk" }',
      '  },',
      '  "nodes": {',
      '    "b": { "type": "BlendTwo", "properties": { "alpha": 0.5 }, "inputs": { "A": "x", "B": "y" }, "custom": 1 }',
      '  },',
      '  "output": "b",',
      '  "zzz": true,',
      '  "editor": {',
      '    "positions": {',
      '      "": { "b": [1, 2] }',
      '    }',
      '  }',
      '}',
      '',
    ].join('\n'));
  });

  it('orders a new property by its type\'s spec, and breaks a line longer than 160 characters', () => {
    const original = '{\n  "nodes": {\n    "p": { "type": "SequencePlayer", "properties": { "playRate": 2 } }\n  }\n}\n';
    const asset = JSON.parse(original);
    asset.nodes.p.properties.clip = 'walk';
    expect(formatAsset(asset, original)).toBe('{\n  "nodes": {\n    "p": { "type": "SequencePlayer", "properties": { "clip": "walk", "playRate": 2 } }\n  }\n}\n');
    asset.nodes.p.properties.syncGroup = 'x'.repeat(100);
    expect(formatAsset(asset, original)).toBe([
      '{', '  "nodes": {', '    "p": {', '      "type": "SequencePlayer",',
      '      "properties": {', '        "clip": "walk",', '        "playRate": 2,', `        "syncGroup": "${'x'.repeat(100)}"`, '      }', '    }', '  }', '}', '',
    ].join('\n'));
  });

  it('keeps the original\'s indentation unit and line ends', () => {
    const original = '{\r\n    "format": "animgraph/1",\r\n    "nodes": {\r\n        "a": { "type": "SequencePlayer" }\r\n    }\r\n}';
    const asset = JSON.parse(original);
    expect(formatAsset(asset, original)).toBe(original);
    asset.nodes.b = { type: 'BlendTwo' };
    expect(formatAsset(asset, original)).toBe('{\r\n    "format": "animgraph/1",\r\n    "nodes": {\r\n        "a": { "type": "SequencePlayer" },\r\n        "b": { "type": "BlendTwo" }\r\n    }\r\n}\r\n');
  });

  it('writes strings, numbers and odd keys as JSON; text that is not JSON is written afresh', () => {
    const asset: JsonObject = { s: 'a"b\\c\n', n: -0.125e-10, big: 1e21, k: { 'a b': [], '': {} } } as Record<string, Json>;
    const out = formatAsset(asset, '{ not json');
    expect(JSON.parse(out)).toEqual(asset);
    expect(out).toBe('{\n  "s": "a\\"b\\\\c\\n",\n  "n": -1.25e-11,\n  "big": 1e+21,\n  "k": { "a b": [], "": {} }\n}\n');
  });
});
