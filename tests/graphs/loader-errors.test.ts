import { describe, expect, it } from 'vitest';
import { GraphLoadError, loadGraph, loadGraphAsset, NodeRegistry, type ResolvedFile } from '../../graphs/loader.ts';
import { builtInNodeTypes } from '../../nodes/index.ts';
import { AnimGraphError } from '../../runtime/core/errors.ts';
import type { Pose } from '../../runtime/core/pose.ts';
import { defineNodeType, LocalPoseNode, type PoseLink, type UpdateContext } from '../../runtime/node/node.ts';
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

describe('what a node type\'s readFile throws during a load: the resolver\'s own error, or an AnimGraphError', () => {
  class Pass extends LocalPoseNode {
    constructor(id: string, private readonly pose: PoseLink) {
      super(id, 'Reads');
    }
    protected get links() { return [this.pose]; }
    protected onUpdate(ctx: UpdateContext) { this.pose.update(ctx); }
    protected onEvaluate(out: Pose) { this.pose.evaluate(out); }
  }
  /** What readFile threw for each path a Reads node's prepare read (its `data` file, then `also`). */
  const thrown: unknown[] = [];
  const registry = new NodeRegistry([...builtInNodeTypes, defineNodeType({
    type: 'Reads', space: 'local', properties: { data: { kind: 'file' } }, inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
    prepare: (ctx) => {
      for (const path of [ctx.properties.data ?? '', 'also.bin']) {
        try {
          ctx.readFile(path);
        } catch (e) {
          thrown.push(e);
        }
      }
      return {};
    },
    create: ({ id, inputs }) => new Pass(id, inputs.pose),
  })]);
  const reads = (): any => {
    const a = asset();
    a.nodes.r = { type: 'Reads', properties: { data: 'data.bin' }, inputs: { pose: 'walk' } };
    a.output = 'r';
    return a;
  };
  const threw = (load: () => unknown): unknown[] => {
    thrown.length = 0;
    load();
    return [...thrown];
  };

  it('no resolver: a NoResolverError, code not-supported', () => {
    const [error] = threw(() => loadGraphAsset(reads(), { nodeTypes: registry }));
    expectAnimGraphError(() => { throw error; }, 'not-supported', /^no file resolver was given \(pass `resolve` to loadGraph/);
    expect((error as Error).name).toBe('NoResolverError');
  });

  it('an asynchronous load: a file the asset does not name is not-supported (it was not fetched before)', async () => {
    thrown.length = 0;
    await loadGraph(reads(), { nodeTypes: registry, resolve: async () => new Uint8Array(1) });
    expect(thrown).toHaveLength(1);
    expectAnimGraphError(() => { throw thrown[0]; }, 'not-supported', "'also.bin' was not fetched before the load (only files the asset names in its skeleton, clips and file properties are)");
  });

  it('a resolver answering what is no file is invalid-argument; its own error is thrown as it is', () => {
    const [wrong] = threw(() => loadGraphAsset(reads(), { nodeTypes: registry, resolveSync: () => ({}) as ResolvedFile }));
    expectAnimGraphError(() => { throw wrong; }, 'invalid-argument', "the resolver gave Object for 'data.bin', not text, an ArrayBuffer or a Uint8Array");
    const missing = Object.assign(new Error("ENOENT: no such file or directory, open 'data.bin'"), { code: 'ENOENT' });
    const [own] = threw(() => loadGraphAsset(reads(), { nodeTypes: registry, resolveSync: () => { throw missing; } }));
    expect(own).toBe(missing);
  });
});

