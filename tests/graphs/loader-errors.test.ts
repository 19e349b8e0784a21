import { describe, expect, it } from 'vitest';
import { GraphLoadError, loadGraph, loadGraphAsset } from '../../graphs/loader.ts';
import { AnimGraphError } from '../../runtime/core/errors.ts';
import { expectAnimGraphError, expectAnimGraphRejection } from '../support/errors.ts';

function asset(): any {
  return {
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' } },
    parameters: { alpha: { type: 'float', default: 0.25 } },
    nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'alpha' } } } },
    output: 'walk',
  };
}

describe('the loader throws a GraphLoadError, code load-failed, whose problems keep their own codes and paths', () => {
  it('loads the asset these tests break', () => {
    expect(loadGraphAsset(asset()).nodes.length).toBeGreaterThan(0);
  });

  it('an unknown name: a parameter and a clip', () => {
    const a = asset();
    a.nodes.walk.properties = { clip: 'jog', playRate: { param: 'speed' } };
    const error = expectAnimGraphError(() => loadGraphAsset(a, { source: 'g.json' }), 'load-failed', /^g\.json: 2 problems\n/);
    expect(error).toBeInstanceOf(GraphLoadError);
    expect(error.name).toBe('GraphLoadError');
    expect((error as GraphLoadError).problems.map((p) => [p.path, p.code])).toEqual([
      ['$.nodes.walk.properties.clip', 'unknown-clip'],
      ['$.nodes.walk.properties.playRate.param', 'unknown-parameter'],
    ]);
  });

  it('a bad file the asset names, read through a resolver', () => {
    const a = asset();
    a.clips.walk.source = 'walk.bvh';
    const error = expectAnimGraphError(() => loadGraphAsset(a, { resolveSync: () => 'MOTION\n' }), 'load-failed') as GraphLoadError;
    expect(error.problems).toEqual([{ path: '$.clips.walk.source', code: 'bvh', message: "malformed BVH walk.bvh line 1: expected 'HIERARCHY' at the start of the file" }]);
  });

  it('a bad argument: an asset that is not one, loaded asynchronously', async () => {
    const error = await expectAnimGraphRejection(loadGraph('[1, 2'), 'load-failed');
    expect(error).toBeInstanceOf(AnimGraphError);
    expect((error as GraphLoadError).problems[0]).toMatchObject({ path: '$', code: 'schema' });
  });
});
