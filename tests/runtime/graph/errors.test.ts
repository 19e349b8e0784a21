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

  it('instance calls given what they cannot take: an unknown name, a value out of range or of the wrong type', () => {
    const slot: CompiledNode = { id: 'slot', nodeType: typeOf('Slot'), properties: {}, inputs: { source: 'walk' } };
    const g = graphOf([walk, slot]).createInstance();
    expectAnimGraphError(() => g.playSlot('upper', 'walk'), 'unknown-name', "graph 'code' has no Slot node named 'upper' (slots: slot)");
    expectAnimGraphError(() => g.playSlot('slot', 'jog'), 'unknown-name', "playSlot('slot'): no clip 'jog' in graph 'code'");
    expectAnimGraphError(() => g.isSlotPlaying('upper'), 'unknown-name');
    expectAnimGraphError(() => g.playSlot('slot', 'walk', { playRate: 0 }), 'out-of-range', "playSlot('slot'): playRate must be above 0 and finite (got 0)");
    expectAnimGraphError(() => g.playSlot('slot', 'walk', { blendIn: '0.2' as never }), 'invalid-argument', `playSlot('slot'): blendIn, blendOut and playRate are numbers (got "0.2", undefined, undefined)`);
    expectAnimGraphError(() => g.stopSlot('slot', -1), 'out-of-range', "stopSlot('slot'): blendOut is seconds, 0 or more (got -1)");
    expectAnimGraphError(() => g.stopSlot('slot', '0.5' as unknown as number), 'invalid-argument', "stopSlot('slot'): blendOut is a number of seconds (got \"0.5\")");
    expectAnimGraphError(() => g.curve('lean'), 'unknown-name', "no clip of graph 'code' has a curve 'lean' (curves: none)");
    expectAnimGraphError(() => g.setUpdateRate(0), 'out-of-range', 'an update rate is a whole number of frames from 1 (every frame) to 255; got 0');
    expectAnimGraphError(() => g.setUpdateRate(2, 0.5), 'out-of-range', 'an update phase is a whole number of frames; got 0.5');
    expectAnimGraphError(() => g.setUpdateRate(2, 0, { interpolate: 1 as never }), 'invalid-argument', 'update rate option interpolate is true or false; got 1');
    expect(g.updateRate).toBe(1);
  });

  it('an update from a listener of the instance\'s own events, during its update: invalid-state', () => {
    const g = graphOf([walk]).createInstance();
    let nested: unknown;
    g.events.on('nodeBecameRelevant', () => {
      try {
        g.update(1 / 60);
      } catch (e) {
        nested = e;
      }
    });
    g.update(1 / 60);
    expectAnimGraphError(() => { throw nested; }, 'invalid-state', "graph 'code': update called from a listener of this instance's events, during its update; call it after update returns");
  });
});
