import { describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../../host/files.ts';
import { checkGraphAsset } from '../../../graphs/loader.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import { AnimGraphError } from '../../../runtime/core/errors.ts';

/**
 * Montages on the built-in biped: the idle clip (2 s) cut into sections. Steps of 0.125 s, which
 * doubles add exactly, so that every crossing is at a known frame.
 */
function asset(montage: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' } },
    montages: {
      attack: {
        clip: 'idle', slot: 'upper', blendIn: 0, blendOut: 0,
        sections: [{ name: 'windup', start: 0 }, { name: 'swing', start: 0.5 }, { name: 'recover', start: 1.5 }],
        ...montage,
      },
      ...extra,
    },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      slot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'upper' } },
    },
    output: 'slot',
  };
}

type Event = (string | number | boolean)[];
function record(g: AnimGraphInstance): Event[] {
  const events: Event[] = [];
  const at = () => g.montagePosition();
  g.events.on('montageStarted', (m) => events.push(['started', m]));
  g.events.on('montageSectionChanged', (m, _n, section, previous) => events.push(['section', previous, section, at()]));
  g.events.on('montageNotify', (name, _m, _n, branching) => events.push(['notify', name, branching, at()]));
  g.events.on('montageBlendingOut', (m, _n, interrupted) => events.push(['blendingOut', m, interrupted]));
  g.events.on('montageEnded', (m, _n, interrupted) => events.push(['ended', m, interrupted]));
  return events;
}

describe('montages', () => {
  it('plays its sections in time order by default and ends at the last', () => {
    const g = loadGraphAsset(asset()).createInstance();
    const events = record(g);
    g.playMontage('attack');
    const sections: (string | null)[] = [];
    for (let i = 0; i < 17; i++) {
      g.update(0.125);
      sections.push(g.currentMontageSection());
    }
    expect(events).toEqual([
      ['started', 'attack'],
      ['section', 'windup', 'swing', 0.5],
      ['section', 'swing', 'recover', 1.5],
      ['blendingOut', 'attack', false],
      ['ended', 'attack', false],
    ]);
    expect(sections.slice(0, 4)).toEqual(['windup', 'windup', 'windup', 'swing']);
    expect(g.isMontagePlaying()).toBe(false);
  });
});
