import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { measureAllocation } from '../../host/allocation.ts';
import { loadGraphFile } from '../../host/files.ts';
import { runGraph, TimelineError } from '../../host/runner.ts';
import { GraphLoadError } from '../../graphs/loader.ts';
import { AnimGraphError } from '../../runtime/core/errors.ts';
import { checkCrowdEvents, checkEventsPerCharacter } from '../../host/crowd-events.ts';
import * as mainEntry from '../../index.ts';
import * as nodeEntry from '../../node.ts';
import { expectAnimGraphError } from '../support/errors.ts';

const LOCOMOTION = fileURLToPath(new URL('../../graphs/examples/sample-locomotion.json', import.meta.url));

describe('the host throws AnimGraphErrors with a code', () => {
  const graph = loadGraphFile(LOCOMOTION);

  it('a bad argument to runGraph and measureAllocation: the wrong type, or a number out of range', () => {
    expectAnimGraphError(() => runGraph(graph, { fps: 0 }), 'out-of-range', 'fps must be a positive number, got 0');
    expectAnimGraphError(() => runGraph(graph, { fps: '30' as never }), 'invalid-argument', 'fps must be a positive number, got "30"');
    expectAnimGraphError(() => runGraph(graph, { seconds: -1 }), 'out-of-range', 'seconds must be a finite number from 0, got -1');
    expectAnimGraphError(() => runGraph(graph, { frames: 2.5 }), 'out-of-range', 'frames must be a whole number from 1, got 2.5');
    expectAnimGraphError(() => measureAllocation(0, () => {}), 'out-of-range', 'frames must be a whole number of 1 or more; got 0');
    expectAnimGraphError(() => measureAllocation('9' as never, () => {}), 'invalid-argument');
  });

  it('a timeline entry naming an unknown parameter: a TimelineError whose cause is the parameter\'s error', () => {
    const error = expectAnimGraphError(() => runGraph(graph, { frames: 2, timeline: [{ name: 'nope', value: 1 }] }), 'invalid-argument', /^timeline\[0\]: unknown parameter 'nope' \(known: /);
    expect(error).toBeInstanceOf(TimelineError);
    expect(error).toMatchObject({ name: 'TimelineError', index: 0 });
    expect(error.cause).toBeInstanceOf(AnimGraphError);
    expect((error.cause as AnimGraphError).code).toBe('unknown-name');
    const late = expectAnimGraphError(() => runGraph(graph, { frames: 2, timeline: [{ name: 'gait', value: 1, time: 5 }] }), 'invalid-argument');
    expect(late.cause).toBeUndefined();
  });

  it('a graph file that cannot be read', () => {
    const error = expectAnimGraphError(() => loadGraphFile('/nonexistent/graph.json'), 'load-failed');
    expect(error).toBeInstanceOf(GraphLoadError);
    expect((error as GraphLoadError).problems).toMatchObject([{ path: '$', code: 'file' }]);
  });
});

describe('a crowd\'s event options throw AnimGraphErrors with a code (checked before any worker starts)', () => {
  it('an event a crowd cannot forward, events that are no list, a count out of range', () => {
    expectAnimGraphError(() => checkCrowdEvents(['footstep']), 'unknown-name', /^a crowd cannot forward event 'footstep' \(events: sequenceLooped, /);
    expectAnimGraphError(() => checkCrowdEvents(['parameterChanged']), 'invalid-argument', "a crowd does not forward 'parameterChanged': its parameters are set on the calling thread, through the crowd");
    expectAnimGraphError(() => checkCrowdEvents('notify' as never), 'invalid-argument', 'events must be an array of event names; got notify');
    expectAnimGraphError(() => checkEventsPerCharacter(257), 'out-of-range', 'eventsPerCharacter must be a whole number from 1 to 256; got 257');
    expectAnimGraphError(() => checkEventsPerCharacter('8' as never), 'invalid-argument', 'eventsPerCharacter must be a whole number from 1 to 256; got 8');
    expect(checkEventsPerCharacter(undefined)).toBeGreaterThan(0);
  });
});

describe('the entries', () => {
  it('animgraph/node, which exports GraphLoadError and TimelineError, exports their base and its codes too, the same as animgraph\'s', () => {
    expect(nodeEntry.AnimGraphError).toBe(AnimGraphError);
    expect(mainEntry.AnimGraphError).toBe(AnimGraphError);
    expect(nodeEntry.ANIM_GRAPH_ERROR_CODES).toBe(mainEntry.ANIM_GRAPH_ERROR_CODES);
    expect(new nodeEntry.GraphLoadError('g.json', [])).toBeInstanceOf(nodeEntry.AnimGraphError);
  });
});

