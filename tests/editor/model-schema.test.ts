import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../graphs/loader.ts';
import { graphJsonSchema } from '../../editor-meta/schema.ts';
import { runGraph } from '../../host/runner.ts';
import { EDITOR_KEY } from '../../editor/model/index.ts';

/** A small valid asset on the built-in biped. */
function asset(): any {
  return {
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.25 } },
    },
    output: 'blend',
  };
}

describe('the editor-only key at the top of an asset', () => {
  it('is accepted with any object and ignored: the graph and its poses are those of the asset without it', () => {
    const plain = loadGraphAsset(asset());
    const edited = loadGraphAsset({ ...asset(), [EDITOR_KEY]: { positions: { '': { walk: [0, 0], '@output': [600, 40] } }, future: [1, 'two'] } });
    const a = runGraph(plain, { seconds: 0.5, fps: 30, debug: false });
    const b = runGraph(edited, { seconds: 0.5, fps: 30, debug: false });
    expect(b.frames).toHaveLength(16);
    expect(JSON.stringify(b.frames)).toBe(JSON.stringify(a.frames));
  });

  it('must be an object: anything else is a schema problem at $.editor', () => {
    for (const bad of [5, 'positions', [1, 2], null]) {
      const result = checkGraphAsset({ ...asset(), editor: bad });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problems.map((p) => [p.path, p.code])).toEqual([['$.editor', 'schema']]);
    }
  });

  it('is in the JSON Schema as an optional object', () => {
    const schema = graphJsonSchema() as any;
    expect(schema.properties.editor.type).toBe('object');
    expect(schema.required).not.toContain('editor');
  });
});
