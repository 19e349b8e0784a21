import { describe, expect, it } from 'vitest';
import { builtInNodeTypes } from '../../../nodes/index.ts';
import { SequencePlayer } from '../../../nodes/SequencePlayer.ts';
import type { Clip } from '../../../runtime/core/clip.ts';
import { AnimGraphError } from '../../../runtime/core/errors.ts';
import { sampleClip, sampleSkeleton } from '../../../runtime/import/sample-data.ts';
import type { CompiledNode } from '../../../runtime/graph/definition.ts';
import { AnimGraph } from '../../../runtime/graph/graph.ts';
import { defineNodeType, NodeBuildError, NodePrepareError, type NodeType } from '../../../runtime/node/node.ts';
import { expectAnimGraphError } from '../../support/errors.ts';

const typeOf = (name: string): NodeType => builtInNodeTypes.find((t) => t.type === name)!;

/** A graph built in code on the sample biped and its walk (no loader checks it). */
function graphOf(nodes: CompiledNode[], clips: ReadonlyMap<string, Clip> = new Map([['walk', sampleClip('walk')]])): AnimGraph {
  return new AnimGraph({ name: 'code', skeleton: sampleSkeleton(), parameters: {}, clips, nodes });
}

const walk: CompiledNode = { id: 'walk', nodeType: typeOf('SequencePlayer'), properties: { clip: 'walk' }, inputs: {} };

describe('the graph throws AnimGraphErrors with a code', () => {
  it('a definition that cannot make a graph: no nodes, a link to a node not built before it, a bone the skeleton lacks', () => {
    expectAnimGraphError(() => graphOf([]), 'invalid-data', 'a graph needs at least one node');
    const slot = (inputs: Record<string, string>, properties: Record<string, string>): CompiledNode => ({ id: 'slot', nodeType: typeOf('Slot'), properties, inputs });
    expectAnimGraphError(() => graphOf([walk, slot({ source: 'nowhere' }, {})]).createInstance(), 'invalid-data', "node 'slot' links 'source' to 'nowhere', which is not built before it");
    expectAnimGraphError(() => graphOf([walk, slot({ source: 'walk' }, { filterBone: 'tail' })]).createInstance(), 'unknown-name', "unknown bones: slot: 'tail'");
    const copy: CompiledNode = { id: 'copy', nodeType: typeOf('CopyBone'), properties: { source: 'hand_r', target: 'head' }, inputs: { pose: 'walk' } };
    expectAnimGraphError(() => graphOf([walk, copy]).createInstance(), 'invalid-data', "the root node 'copy' must produce a local-space pose");
  });

  it('a bad argument to createInstance and createInstances', () => {
    const graph = graphOf([walk]);
    expectAnimGraphError(() => graph.createInstances('2' as never), 'invalid-argument', 'a batch needs a whole number of characters, at least 1; got "2"');
    expectAnimGraphError(() => graph.createInstances(0), 'out-of-range', 'a batch needs a whole number of characters, at least 1; got 0');
    expectAnimGraphError(() => graph.createInstance({ frameNumbersAt: 1 }), 'invalid-argument', 'frameNumbersAt: expected a whole number from 0, and frameNumbers storage with it; got 1');
    expectAnimGraphError(() => graph.createInstance({ frameNumbers: new Float64Array(4), frameNumbersAt: -1 }), 'out-of-range', /^frameNumbersAt: expected a whole number from 0/);
    expectAnimGraphError(() => graph.createInstance({ frameNumbers: new Float64Array(graph.frameNumberCount + 1) }), 'invalid-argument', /^frameNumbers storage: expected \d+ numbers, all 0/);
  });

  it('a node type\'s code failing on a node: a NodeBuildError (create), a NodePrepareError (prepare), code node-build', () => {
    const thrown = new Error('my bug');
    const Throws = defineNodeType({ type: 'Throws', space: 'local', properties: {}, inputs: [], create: () => { throw thrown; } });
    const built = expectAnimGraphError(() => graphOf([{ id: 't', nodeType: Throws, properties: {}, inputs: {} }]).createInstance(), 'node-build', "Throws 't': create threw Error: my bug");
    expect(built).toBeInstanceOf(NodeBuildError);
    expect(built.cause).toBe(thrown);
    // Library code a node type calls fails with its own code, the NodeBuildError's cause.
    const unknownClip = expectAnimGraphError(() => graphOf([{ ...walk, properties: { clip: 'jog' } }]).createInstance(), 'node-build', `SequencePlayer 'walk': create threw AnimGraphError: node 'walk': no clip named "jog"`);
    expect(unknownClip.cause).toMatchObject({ code: 'unknown-name' });
    const Reads = defineNodeType({
      type: 'Reads', space: 'local', properties: {}, inputs: [],
      prepare: (ctx) => ctx.readFile('data.bin'),
      create: ({ id }) => new SequencePlayer(id, undefined as never, { slot: -1, constant: 1 }, { slot: -1, constant: 1 }, { slot: -1, constant: 0 }),
    });
    const prepared = expectAnimGraphError(() => graphOf([{ id: 'r', nodeType: Reads, properties: {}, inputs: {} }]), 'node-build');
    expect(prepared).toBeInstanceOf(NodePrepareError);
    const [failure] = (prepared as NodePrepareError).failures;
    expect(failure.message).toBe("Reads 'r': prepare threw AnimGraphError: no file access to read 'data.bin': the graph definition has no readFile (graphs/loader.ts gives one)");
    expect(failure.cause).toBeInstanceOf(AnimGraphError);
    expect((failure.cause as AnimGraphError).code).toBe('not-supported');
  });
});
