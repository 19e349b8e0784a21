/** A Crowd's events: every character's, on the calling thread once the frame is over, as instances alone fire them. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Crowd } from '../../host/crowd.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import type { CrowdEventName } from '../../host/crowd-events.ts';
import { notifyWalkGraph, twoSlotsGraph } from '../support/crowd-graphs.ts';
import { closedAfterAll, SUPPORT } from '../support/crowd-tests.ts';

const { crowds } = closedAfterAll();

/** Every event of `names` an instance fires, as [character, event, ...arguments], into `log`. */
function recordAlone(instance: AnimGraphInstance, character: number, names: readonly CrowdEventName[], log: unknown[][]): void {
  for (const name of names) instance.events.on(name, (...args: unknown[]) => log.push([character, name, ...args]));
}

/** Every event of `names` a crowd delivers (eventsDropped included), as [character, event, ...arguments], into `log`. */
function recordCrowd(crowd: Crowd, names: readonly CrowdEventName[], log: unknown[][]): void {
  for (const name of names) crowd.events.on(name, (character: number, ...args: unknown[]) => log.push([character, name, ...args]));
  crowd.events.on('eventsDropped', (count) => log.push([-1, 'eventsDropped', count]));
}

describe('Crowd events', () => {
  const NAMES: CrowdEventName[] = ['notify', 'notifyBegin', 'notifyEnd', 'sequenceLooped', 'slotEnded', 'nodeBecameRelevant'];
  for (const [workers, componentSpace] of [[0, true], [1, false], [2, true]] as const) {
    it(`with ${workers} worker thread(s)${componentSpace ? ', component space' : ''}: delivers every character's named events on the calling thread once the frame is over, as the instance alone fires them, characters in order`, async () => {
      const count = 5;
      const crowd = await Crowd.create({ source: { module: SUPPORT, export: 'notifyWalkGraph' }, count, workers, componentSpace, events: NAMES });
      crowds.push(crowd);
      const graph = notifyWalkGraph();
      const alone = Array.from({ length: count }, () => graph.createInstance());
      const crowdLog: unknown[][] = [], aloneLog: unknown[][] = [];
      recordCrowd(crowd, NAMES, crowdLog);
      alone.forEach((g, i) => recordAlone(g, i, NAMES, aloneLog));
      for (let i = 0; i < count; i++) {
        crowd.setParameter(i, 'rate', 0.8 + 0.15 * i);
        alone[i].setParameter('rate', 0.8 + 0.15 * i);
      }
      for (let f = 0; f < 100; f++) {
        const before = aloneLog.length;
        // Slot calls: the idle (2 s) on the last character on every frame from the 2nd to the
        // 29th, each cutting the last short (slotEnded, interrupted: from the second on while
        // the one before still blends out, which ends at the call, before the other characters'
        // frame events), and the last one running out.
        if (f >= 2 && f < 30) {
          crowd.playSlot(count - 1, 'fullBody', 'idle', { blendIn: 0.1, blendOut: 0.1 });
          alone[count - 1].playSlot('fullBody', 'idle', { blendIn: 0.1, blendOut: 0.1 });
        }
        crowd.update(1 / 30);
        alone.forEach((g) => g.update(1 / 30));
        // The frame's events, the calls' included, characters in order (a stable sort of the instances' by character).
        const frame = aloneLog.slice(before).map((e, k) => [e, k] as const).sort((a, b) => (a[0][0] as number) - (b[0][0] as number) || a[1] - b[1]).map(([e]) => e);
        expect(crowdLog.splice(0)).toEqual(frame);
      }
      // What was compared: every kind, from every character, the worker's last character's slot ends among them.
      const kinds = new Set(aloneLog.map((e) => e[1]));
      expect([...kinds].sort()).toEqual([...NAMES].sort());
      expect(new Set(aloneLog.map((e) => e[0]))).toEqual(new Set([0, 1, 2, 3, 4]));
      const slotEnd = (interrupted: boolean) => [4, 'slotEnded', 'fullBody', 'fullBody', 'idle', interrupted];
      expect(aloneLog.filter((e) => e[1] === 'slotEnded')).toEqual([...Array(27).fill(slotEnd(true)), slotEnd(false)]);
      expect(aloneLog.filter((e) => e[1] === 'notify').length).toBeGreaterThan(10);
    });
  }

  it('delivers each event of a montage once, on a slot name two Slots show, as the instance alone fires them', async () => {
    const names: CrowdEventName[] = ['montageStarted', 'montageSectionChanged', 'montageNotify', 'notify', 'montageBlendingOut', 'montageEnded'];
    const crowd = await Crowd.create({ source: { module: SUPPORT, export: 'twoSlotsGraph' }, count: 2, workers: 1, events: names });
    crowds.push(crowd);
    const alone = twoSlotsGraph().createInstance();
    const crowdLog: unknown[][] = [], aloneLog: unknown[][] = [];
    recordCrowd(crowd, names, crowdLog);
    recordAlone(alone, 1, names, aloneLog);
    // Character 1, on the worker: the montage shown by one Slot, then both (a crossfade), then the other.
    crowd.playMontage(1, 'attack');
    alone.playMontage('attack');
    for (let frame = 1; frame <= 17; frame++) {
      crowd.setParameter(1, 'pick', frame >= 6 ? 1 : 0);
      alone.setParameter('pick', frame >= 6 ? 1 : 0);
      crowd.update(0.125);
      alone.update(0.125);
    }
    // Character 0 plays no montage (its idle's own notifies are its events).
    expect(crowdLog.filter((e) => e[0] === 1)).toEqual(aloneLog);
    expect(aloneLog.map((e) => [e[1], e[2], e[e[1] === 'montageNotify' ? 4 : 3]])).toEqual([
      ['montageStarted', 'attack', 'upperSlot'],
      ['montageSectionChanged', 'attack', 'upperSlot'],
      ['montageNotify', 'hit', 'upperSlot'],
      ['notify', 'breath', 'upperSlot'],
      ['montageSectionChanged', 'attack', 'upperSlot'],
      ['montageNotify', 'late', 'upperSlot'],
      ['montageBlendingOut', 'attack', 'upperSlot'],
      ['montageEnded', 'attack', 'upperSlot'],
    ]);
  });

  it('keeps eventsPerCharacter per character of each thread\'s share, delivers the first in order and reports the rest as eventsDropped', async () => {
    const crowd = await Crowd.create({ source: { module: SUPPORT, export: 'notifyWalkGraph' }, count: 4, workers: 1, events: ['nodeBecameRelevant'], eventsPerCharacter: 1 });
    crowds.push(crowd);
    const log: unknown[][] = [];
    recordCrowd(crowd, ['nodeBecameRelevant'], log);
    crowd.update(1 / 60);
    // Each character's first update makes its three nodes relevant: twelve events; each thread has room for two.
    expect(log).toEqual([
      [0, 'nodeBecameRelevant', 'output', 'Output'], [0, 'nodeBecameRelevant', 'fullBody', 'Slot'],
      [2, 'nodeBecameRelevant', 'output', 'Output'], [2, 'nodeBecameRelevant', 'fullBody', 'Slot'],
      [-1, 'eventsDropped', 8],
    ]);
    log.length = 0;
    crowd.update(1 / 60);
    expect(log).toEqual([]); // nothing new became relevant; the count starts again each frame
  });

  it('reports as dropped an event whose text does not fit its thread\'s string log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-crowd-events-'));
    const file = join(dir, 'long-id.json');
    const long = 'p'.repeat(70_000);
    writeFileSync(file, JSON.stringify({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: { [long]: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: long,
    }));
    const crowd = await Crowd.create({ source: { file }, count: 2, workers: 1, events: ['nodeBecameRelevant'] });
    crowds.push(crowd);
    const log: unknown[][] = [];
    recordCrowd(crowd, ['nodeBecameRelevant'], log);
    crowd.update(1 / 60);
    expect(log).toEqual([[0, 'nodeBecameRelevant', 'output', 'Output'], [1, 'nodeBecameRelevant', 'output', 'Output'], [-1, 'eventsDropped', 2]]);
  });

  it('checks the events asked for and their room, and refuses an update from its own listener, which the next update survives', async () => {
    const source = { module: SUPPORT, export: 'notifyWalkGraph' };
    await expect(Crowd.create({ source, count: 2, events: ['footstep' as CrowdEventName] })).rejects.toThrow(/cannot forward event 'footstep' \(events: sequenceLooped, .*transitionStarted\)/);
    await expect(Crowd.create({ source, count: 2, events: ['parameterChanged' as CrowdEventName] })).rejects.toThrow(/does not forward 'parameterChanged'/);
    await expect(Crowd.create({ source, count: 2, events: ['notify'], eventsPerCharacter: 0 })).rejects.toThrow(/eventsPerCharacter must be a whole number from 1 to 256; got 0/);
    await expect(Crowd.create({ source, count: 2, events: ['notify'], eventsPerCharacter: 257 })).rejects.toThrow(/got 257/);
    await expect(Crowd.create({ source, count: 2, events: 'notify' as unknown as CrowdEventName[] })).rejects.toThrow(/events must be an array of event names; got notify/);
    await expect(Crowd.create({ source, count: 2, eventsPerCharacter: 1.5 })).rejects.toThrow(/got 1.5/);
    const crowd = await Crowd.create({ source, count: 2, workers: 1, events: ['nodeBecameRelevant', 'nodeBecameRelevant'] });
    crowds.push(crowd);
    const seen: number[] = [];
    crowd.events.on('nodeBecameRelevant', (character) => {
      seen.push(character);
      crowd.update(1 / 60);
    });
    expect(() => crowd.update(1 / 60)).toThrow(/Crowd\.update called from a listener of its events; call it after update returns/);
    expect(seen).toEqual([0]); // named twice, forwarded once; the listener's throw stopped the delivery
    crowd.events.removeAllListeners();
    crowd.setParameter(1, 'rate', 2);
    crowd.playSlot(1, 'fullBody', 'idle');
    const after: unknown[][] = [];
    recordCrowd(crowd, ['nodeBecameRelevant'], after);
    crowd.update(1 / 60);
    expect(after).toEqual([]);
    expect(crowd.getParameter(1, 'rate')).toBe(2);
  });
});

