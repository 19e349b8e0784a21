import { describe, expect, it } from 'vitest';
import { loadGraphAsset, loadGraphFile } from '../../../host/files.ts';
import { checkGraphAsset } from '../../../graphs/loader.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import { rootMotionDelta } from '../../../runtime/jobs/root-motion.ts';
import { CMU, describeWithData } from '../../support/shared-data.ts';
import { PROBES_TEST_TIMEOUT, runProbe } from '../../support/allocation.ts';
import { Crowd } from '../../../host/crowd.ts';
import { expectRowsLikeAlone, stepLikeAlone } from '../../support/batch-rows.ts';

/**
 * Montages on the built-in biped: the idle clip (2 s) cut into sections. Steps of 0.125 s, which
 * doubles add exactly, so that every crossing is at a known frame.
 */
function asset(montage: Record<string, unknown> = {}, extra: Record<string, unknown> = {}, lowerSlot = false): Record<string, unknown> {
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
      // The lower slot under the upper one: their events come in the order the graph updates them.
      ...(lowerSlot ? { lower: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'lower' } } } : {}),
      slot: { type: 'Slot', inputs: { source: lowerSlot ? 'lower' : 'walk' }, properties: { name: 'upper' } },
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

  it('follows links, loops a section linked to itself, and leaves the loop when relinked', () => {
    const g = loadGraphAsset(asset({
      sections: [{ name: 'windup', start: 0 }, { name: 'swing', start: 0.5, next: 'swing' }, { name: 'recover', start: 1.5 }],
    })).createInstance();
    const events = record(g);
    g.playMontage('attack', { section: 'swing' });
    for (let i = 0; i < 24; i++) g.update(0.125);
    // 3 s from 0.5 in a 1 s loop: three loops, back at 0.5.
    expect(events.filter((e) => e[0] === 'section')).toEqual([
      ['section', 'swing', 'swing', 0.5], ['section', 'swing', 'swing', 0.5], ['section', 'swing', 'swing', 0.5],
    ]);
    expect(g.montagePosition()).toBe(0.5);
    expect(g.setNextSection('swing', 'recover')).toBe(true);
    for (let i = 0; i < 8; i++) g.update(0.125);
    expect(g.currentMontageSection()).toBe('recover');
    expect(g.montagePosition()).toBe(1.5);
    for (let i = 0; i < 4; i++) g.update(0.125);
    expect(events.slice(-3)).toEqual([['section', 'swing', 'recover', 1.5], ['blendingOut', 'attack', false], ['ended', 'attack', false]]);
    // A link to null ends the montage at the end of that section.
    g.playMontage('attack');
    g.setNextSection('windup', null);
    for (let i = 0; i < 4; i++) g.update(0.125);
    expect(events.slice(-2)).toEqual([['blendingOut', 'attack', false], ['ended', 'attack', false]]);
  });

  it('jumps to a section between frames and, from a branching point, within the frame', () => {
    const g = loadGraphAsset(asset()).createInstance();
    const events = record(g);
    g.playMontage('attack');
    g.update(0.25);
    expect(g.jumpToSection('recover')).toBe(true);
    // Changed at once; the next update plays on from the section's start.
    expect(g.currentMontageSection()).toBe('recover');
    expect(g.montagePosition()).toBe(1.5);
    g.update(0.125);
    expect(g.montagePosition()).toBe(1.625);
    expect(events.slice(1)).toEqual([['section', 'windup', 'recover', 1.5]]);

    // A listener of a notify jumps: a branching point stops the move at its time, a notify once it has passed.
    for (const branchingPoint of [true, false]) {
      const b = loadGraphAsset(asset({ notifies: [{ name: 'cancel', time: 0.3, branchingPoint }] })).createInstance();
      const seen = record(b);
      b.events.on('montageNotify', () => b.jumpToSection('recover'));
      b.playMontage('attack');
      b.update(0.4);
      expect(seen.slice(1)).toEqual([['notify', 'cancel', branchingPoint, branchingPoint ? 0.3 : 0.4], ['section', 'windup', 'recover', 1.5]]);
      expect(b.montagePosition()).toBeCloseTo(branchingPoint ? 1.6 : 1.5, 12);
    }
  });

  it('fires notifies in order once per crossing, a notify on a section boundary once', () => {
    const g = loadGraphAsset(asset({
      notifies: [{ name: 'end', time: 2 }, { name: 'start', time: 0 }, { name: 'boundary', time: 0.5 }, { name: 'hit', time: 0.75, branchingPoint: true }],
    })).createInstance();
    const events = record(g);
    g.playMontage('attack');
    for (let i = 0; i < 16; i++) g.update(0.125);
    expect(events).toEqual([
      ['started', 'attack'],
      ['notify', 'start', false, 0.125],
      ['notify', 'boundary', false, 0.5],
      ['section', 'windup', 'swing', 0.5],
      ['notify', 'hit', true, 0.75],
      ['section', 'swing', 'recover', 1.5],
      // No blend-out time: it starts at the end, once the frame's move has crossed the last notify.
      ['notify', 'end', false, 2],
      ['blendingOut', 'attack', false],
      ['ended', 'attack', false],
    ]);
  });

  it('blends in and out along its curves, the blend out starting by itself', () => {
    const g = loadGraphAsset(asset({ sections: undefined, blendIn: { time: 0.5, curve: 'cubic' }, blendOut: { time: 0.5, curve: 'cubic' } })).createInstance();
    const weights: number[] = [];
    g.playMontage('attack');
    for (let i = 0; i < 17; i++) {
      g.update(0.125);
      const values = g.gatherDebug().children[0].values!;
      weights.push(values.playing ? values.weight as number : 0);
    }
    // cubic(p) = 3p² − 2p³: 0.15625, 0.5, 0.84375 at a quarter, half and three quarters.
    expect(weights).toEqual([0.15625, 0.5, 0.84375, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.84375, 0.5, 0.15625, 0, 0]);
  });

  it('stops with its blend out or the one given, and is interrupted by a montage of its group', () => {
    const g = loadGraphAsset(asset({}, {
      kick: { clip: 'walk', slot: 'lower', blendIn: 0.25, blendOut: 0 },
      wave: { clip: 'walk', slot: 'lower', group: 'Other', blendIn: 0, blendOut: 0 },
    }, true)).createInstance();
    const events = record(g);
    g.playMontage('attack');
    g.update(0.125);
    g.playMontage('wave');
    expect(g.isMontagePlaying('attack')).toBe(true);
    g.playMontage('kick');
    // kick (DefaultGroup, slot lower) interrupts attack in slot upper, and wave in its own slot.
    expect(events.slice(1)).toEqual([
      ['started', 'wave'], ['blendingOut', 'attack', true], ['blendingOut', 'wave', true], ['started', 'kick'],
    ]);
    expect(g.isMontagePlaying('attack')).toBe(false);
    g.update(0.125);
    g.update(0.125);
    // The upper slot's source (the lower slot) is updated before it settles its own ends.
    expect(events.slice(5)).toEqual([['ended', 'wave', true], ['ended', 'attack', true]]);
    g.stopMontage(0);
    g.update(0.125);
    expect(events.slice(7)).toEqual([['blendingOut', 'kick', true], ['ended', 'kick', true]]);
  });

  it('throws typed errors for unknown names and bad options, changing nothing', () => {
    const g = loadGraphAsset(asset()).createInstance();
    g.playMontage('attack');
    g.update(0.125);
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as { code?: string }).code;
      }
      return 'no error';
    };
    expect(code(() => g.playMontage('nope'))).toBe('unknown-name');
    expect(code(() => g.playMontage('attack', { section: 'nope' }))).toBe('unknown-name');
    expect(code(() => g.playMontage('attack', { rate: 0 }))).toBe('out-of-range');
    expect(code(() => g.playMontage('attack', { rate: '1' as unknown as number }))).toBe('invalid-argument');
    expect(code(() => g.playMontage('attack', { sectoin: 'swing' } as never))).toBe('invalid-argument');
    expect(code(() => g.jumpToSection('nope'))).toBe('unknown-name');
    expect(code(() => g.jumpToSection('swing', 'nope'))).toBe('unknown-name');
    expect(code(() => g.setNextSection('swing', 'nope'))).toBe('unknown-name');
    expect(code(() => g.stopMontage(-1))).toBe('out-of-range');
    expect(code(() => g.stopMontage('0.1' as unknown as number))).toBe('invalid-argument');
    expect(code(() => g.montagePosition('nope'))).toBe('unknown-name');
    expect(g.montagePosition()).toBe(0.125);
    expect(g.currentMontageSection()).toBe('windup');
  });

  it('allocates nothing per frame, a section changing every 18 frames and jumps from code every 20', () => {
    for (const flags of [[], ['--max-inlined-bytecode-size=50']]) {
      const result = runProbe('montage-allocation-probe.ts', flags);
      // About 0.13 B a frame is the measuring floor; a boxed double would be 16 B a section change.
      expect(result.perFrameLoop).toBeLessThan(0.5);
      expect(result.sections).toBeGreaterThan(1000);
      // The montage in the state left plays on: its looping section of 0.5 s, one change in 30 frames.
      expect(result.unseenSections).toBeGreaterThan(500);
      // With playMontage and stopMontage every 200 frames: the numbers they read from their
      // arguments, in code that runs once in 200 frames, are boxed (some 230 B a cycle).
      expect(result.perFrameCalls).toBeLessThan(2);
    }
  }, PROBES_TEST_TIMEOUT);

  it('reports problems at their JSON paths when the asset loads', () => {
    const result = checkGraphAsset(asset({
      sections: [{ name: 'a', start: 0.1 }, { name: 'a', start: 0.05, next: 'zz' }, { name: 'c', start: 3 }],
      notifies: [{ name: 'late', time: 2.5 }],
    }, { other: { clip: 'nope', slot: 'nowhere' }, cut: { clip: 'idle', slot: 'nowhere' } }));
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems.map((p) => [p.path, p.code]);
    expect(problems).toEqual([
      ['$.montages.attack.sections[0].start', 'section-time'],
      ['$.montages.attack.sections[1].name', 'duplicate-key'],
      ['$.montages.attack.sections[1].start', 'section-time'],
      ['$.montages.attack.sections[2].start', 'section-time'],
      ['$.montages.attack.sections[1].next', 'unknown-section'],
      ['$.montages.attack.notifies[0].time', 'notify-time'],
      ['$.montages.other.clip', 'unknown-clip'],
    ]);
    const slots = checkGraphAsset(asset({}, { cut: { clip: 'idle', slot: 'nowhere' } }));
    expect(slots.ok ? [] : slots.problems.map((p) => [p.path, p.code])).toEqual([['$.montages.cut.slot', 'unknown-slot']]);
  });
});

/**
 * asset()'s montage, its Slot in the state `armed` of a state machine and not in `relaxed`
 * (parameter `armed` > 0.5 switches to it, below to the other, each at once): leaving `armed`
 * leaves the Slot without weight, neither updated nor evaluated.
 */
function stateAsset(montage: Record<string, unknown>, source = 'walk'): Record<string, unknown> {
  const base = asset(montage);
  return {
    ...base,
    parameters: { armed: { type: 'float', default: 1 } },
    nodes: {
      machine: {
        type: 'StateMachine',
        properties: {
          entry: 'armed',
          states: {
            armed: {
              nodes: {
                walk: { type: 'SequencePlayer', properties: { clip: source } },
                slot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'upper' } },
              },
              output: 'slot',
            },
            relaxed: { nodes: { walk: { type: 'SequencePlayer', properties: { clip: source } } }, output: 'walk' },
          },
          transitions: [
            { from: 'armed', to: 'relaxed', rule: { param: 'armed', op: '<', value: 0.5 }, duration: 0 },
            { from: 'relaxed', to: 'armed', rule: { param: 'armed', op: '>', value: 0.5 }, duration: 0 },
          ],
        },
      },
    },
    output: 'machine',
  };
}

/** The Slot's debug values (its montage's weight), from the node itself: the debug tree shows only states with weight. */
function slotValues(g: AnimGraphInstance): Record<string, unknown> {
  const slot = [...g.nodes.values()].find((n) => n.type === 'Slot')!;
  return slot.gatherDebug().values!;
}

describe('a montage whose Slot is not updated', () => {
  // Sections at 0, 0.5 and 1.5 of the 2 s idle clip; a branching point in swing, a notify in recover;
  // blend in over 0.25 s, out over the last 0.25 s. Steps of 0.125 s: frame f (from 1) ends at f / 8.
  const montage = {
    notifies: [{ name: 'hit', time: 0.75, branchingPoint: true }, { name: 'late', time: 1.625 }],
    blendIn: 0.25, blendOut: 0.25,
  };

  /** Plays the montage for 18 frames, `armed` set per frame by `armedAt` (null: a graph without it); each event with its frame. */
  function run(g: AnimGraphInstance, armedAt: ((frame: number) => boolean) | null) {
    const events = record(g), frames: number[] = [], positions: number[] = [], weights: number[] = [], sections: (string | null)[] = [];
    let frame = 0;
    for (const name of ['montageSectionChanged', 'montageNotify', 'montageBlendingOut', 'montageEnded'] as const) g.events.on(name, () => frames.push(frame));
    g.playMontage('attack');
    for (frame = 1; frame <= 18; frame++) {
      if (armedAt !== null) g.setParameter('armed', armedAt(frame) ? 1 : 0);
      g.update(0.125);
      positions.push(g.montagePosition());
      sections.push(g.currentMontageSection());
      const values = slotValues(g);
      weights.push(values.playing ? values.weight as number : 0);
    }
    return { events: events.slice(1).map((e, i) => [frames[i], ...e]), positions, weights, sections };
  }

  it('plays on as where its Slot stays updated: position, sections, blends, notifies and end at the same frames', () => {
    const seen = run(loadGraphAsset(asset(montage)).createInstance(), null);
    // Known times: swing at 0.5 (frame 4), the branching point at 0.75 (6), recover at 1.5 (12), the
    // notify at 1.625 (13), the blend out from 1.75 (14), the end at 2 (16).
    expect(seen.events).toEqual([
      [4, 'section', 'windup', 'swing', 0.5],
      [6, 'notify', 'hit', true, 0.75],
      [12, 'section', 'swing', 'recover', 1.5],
      [13, 'notify', 'late', false, 1.625],
      [14, 'blendingOut', 'attack', false],
      [16, 'ended', 'attack', false],
    ]);
    // Blending out from frame 14 (at 1 still, the blend out's first moment), 0.5 at 15, 0 at 16.
    expect(seen.weights).toEqual([0.5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.5, 0, 0, 0]);
    // Left after its first frame and never entered again: its Slot is never updated after frame 1.
    const left = run(loadGraphAsset(stateAsset(montage)).createInstance(), (f) => f <= 1);
    expect(left).toEqual(seen);
    // Left for frames 2 to 9, entered again at 10.
    const back = run(loadGraphAsset(stateAsset(montage)).createInstance(), (f) => f <= 1 || f >= 10);
    expect(back).toEqual(seen);
    // Updated every third frame (update-rate LOD), by three frames' time: the same again.
    const third = (json: Record<string, unknown>) => {
      const g = loadGraphAsset(json).createInstance();
      g.setUpdateRate(3);
      return g;
    };
    const seenThird = run(third(asset(montage)), null);
    // Every event, on the frames of the graph's updates (which run ahead of the frame shown).
    expect(seenThird.events.map((e) => e.slice(1, 3))).toEqual(seen.events.map((e) => e.slice(1, 3)));
    expect(seenThird.events.map((e) => e[0])).toEqual([3, 6, 12, 12, 12, 15]);
    expect(run(third(stateAsset(montage)), (f) => f <= 1 || f >= 10)).toEqual(seenThird);
  });

  it('shows the montage where it has got to when its state is entered again, not where it stopped', () => {
    const g = loadGraphAsset(stateAsset(montage)).createInstance(), ref = loadGraphAsset(asset(montage)).createInstance();
    g.playMontage('attack');
    ref.playMontage('attack');
    const gaps: number[] = [];
    for (let frame = 1; frame <= 13; frame++) {
      g.setParameter('armed', frame <= 2 || frame >= 10 ? 1 : 0);
      g.update(0.125);
      ref.update(0.125);
      const a = g.evaluate(), b = ref.evaluate();
      let gap = 0;
      for (let k = 0; k < a.rotations.length; k++) gap = Math.max(gap, Math.abs(a.rotations[k] - b.rotations[k]));
      gaps.push(gap);
    }
    // At full weight (frames 2 to 13) the Slot shows the montage's clip alone: the same pose, bit
    // for bit, as where the Slot stays updated, on the frames the state is entered again (10: clip
    // time 1.25) and after. Frame 1 blends it over the walk, which in `armed` differs from the
    // reference's from frame 10 on (its player restarts when the state is entered).
    expect(g.montagePosition()).toBe(1.625);
    expect(gaps.slice(9)).toEqual([0, 0, 0, 0]);
    expect(gaps[1]).toBe(0);
    // Left (frames 3 to 9) the machine shows the walk: the montage is not in the pose.
    expect(gaps[5]).toBeGreaterThan(0.05);
    // A reset is a new start: it stops the montage, wherever its Slot is, and says so (interrupted).
    const said: unknown[][] = [];
    g.events.on('montageBlendingOut', (...e) => said.push(['montageBlendingOut', ...e]));
    g.events.on('montageEnded', (...e) => said.push(['montageEnded', ...e]));
    g.reset();
    expect(g.isMontagePlaying()).toBe(false);
    expect(said.map((e) => [e[0], e[1], e[3]])).toEqual([['montageBlendingOut', 'attack', true], ['montageEnded', 'attack', true]]);
    // Nothing plays after a reset: a second one says nothing.
    g.reset();
    expect(said.length).toBe(2);
  });

  it('a reset ends a montage already blending out, and a clip from playSlot, interrupted, once', () => {
    const g = loadGraphAsset(asset(montage)).createInstance();
    const said: unknown[][] = [];
    for (const name of ['montageBlendingOut', 'montageEnded', 'slotEnded'] as const) g.events.on(name, (...e: unknown[]) => said.push([name, ...e]));
    g.playMontage('attack');
    g.update(0.125);
    g.stopMontage(0.5);
    g.update(0.125);
    expect(said.map((e) => e[0])).toEqual(['montageBlendingOut']);
    g.reset();
    expect(said.slice(1).map((e) => [e[0], e[1], e[3]])).toEqual([['montageEnded', 'attack', true]]);
    g.update(0.125);
    expect(said.length).toBe(2);
    g.playSlot('upper', 'walk', { blendIn: 0.1, blendOut: 0.1 });
    g.update(0.125);
    g.reset();
    expect(said.slice(2)).toEqual([['slotEnded', 'upper', 'slot', 'walk', true]]);
  });

  it('plays on in an InstanceBatch as in an instance alone, bit for bit', () => {
    const graph = loadGraphAsset(stateAsset(montage));
    const batch = graph.createInstances(2, { componentSpace: true }), alone = [graph.createInstance(), graph.createInstance()];
    const ends: string[] = [];
    batch.instances[1].events.on('montageEnded', () => ends.push('batch'));
    alone[1].events.on('montageEnded', () => ends.push('alone'));
    for (const c of [batch.instances[1], alone[1]]) c.playMontage('attack');
    stepLikeAlone(batch, alone, 16, 0.125, (frame) => {
      for (const c of [batch.instances[1], alone[1]]) c.setParameter('armed', frame <= 2 || frame >= 12 ? 1 : 0);
    });
    expectRowsLikeAlone(batch, alone);
    expect(ends).toEqual(['batch', 'alone']);
  });

  it('moves once a frame in a cached branch, which the cache updates after the rest of the graph', () => {
    const json = asset(montage);
    json.nodes = {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      slot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'upper' } },
      cache: { type: 'SaveCachedPose', inputs: { pose: 'slot' } },
      use: { type: 'UseCachedPose', properties: { cache: 'cache' } },
    };
    json.output = 'use';
    expect(run(loadGraphAsset(json).createInstance(), null)).toEqual(run(loadGraphAsset(asset(montage)).createInstance(), null));
  });

  it('plays a clip of playSlot on too: it ends at the same frame, its state left or not', () => {
    const ends = (armedAt: (frame: number) => boolean) => {
      const g = loadGraphAsset(stateAsset(montage)).createInstance(), seen: [number, string, boolean][] = [];
      let frame = 0;
      g.events.on('slotEnded', (_slot, _node, clip, interrupted) => seen.push([frame, clip, interrupted]));
      // The walk (1.1 s) at rate 2: 0.55 s, ended on frame 5 (0.625 s).
      g.playSlot('upper', 'walk', { blendIn: 0.1, blendOut: 0.1, playRate: 2 });
      for (frame = 1; frame <= 8; frame++) {
        g.setParameter('armed', armedAt(frame) ? 1 : 0);
        g.update(0.125);
      }
      return seen;
    };
    expect(ends(() => true)).toEqual([[5, 'walk', false]]);
    expect(ends((f) => f === 1)).toEqual([[5, 'walk', false]]);
  });

  it('fires its clip\'s notifies at its own weight, and adds no root motion and no curves', () => {
    // The montage plays the walk (root motion, turning only, a curve, two notifies) over the idle (none of them).
    const json = stateAsset({ clip: 'walk', sections: undefined, blendIn: 0.5 }, 'idle');
    json.clips = {
      idle: { source: 'builtin:idle' },
      walk: { source: 'builtin:walk', rootMotion: true, notifies: [{ name: 'wave', time: 0.25 }, { name: 'late', time: 0.75 }], curves: { lean: [[0, 1]] } },
    };
    const graph = loadGraphAsset(json);
    const play = (armedAt: (frame: number) => boolean) => {
      const g = graph.createInstance(), notifies: (string | number)[][] = [], motion: number[] = [], lean: number[] = [];
      let frame = 0;
      g.events.on('notify', (name, _node, weight) => notifies.push([frame, name, weight]));
      g.playMontage('attack');
      for (frame = 1; frame <= 8; frame++) {
        g.setParameter('armed', armedAt(frame) ? 1 : 0);
        g.update(0.125);
        motion.push(Math.hypot(g.rootMotion[0], g.rootMotion[1], g.rootMotion[2], g.rootMotion[3]));
        lean.push(g.curve('lean'));
      }
      return { notifies, motion, lean };
    };
    const seen = play(() => true), unseen = play((f) => f === 1);
    // At the blend in's 0.5 at 0.25 s (frame 2), at full weight at 0.75 s (frame 6).
    expect(seen.notifies).toEqual([[2, 'wave', 0.5], [6, 'late', 1]]);
    expect(unseen.notifies).toEqual(seen.notifies);
    expect(seen.lean).toEqual([0.25, 0.5, 0.75, 1, 1, 1, 1, 1]);
    expect(seen.motion.every((m) => m > 0.001)).toBe(true);
    // Seen on frame 1 only: then the idle's nothing.
    expect(unseen.lean).toEqual([0.25, 0, 0, 0, 0, 0, 0, 0]);
    expect(unseen.motion[0]).toBe(seen.motion[0]);
    expect(unseen.motion.slice(1)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });
});

describeWithData('montage root motion on CMU 002_01', () => {
  it('adds the motion within the section left and within the section entered, never the clip between', () => {
    const graph = loadGraphAsset({
      format: 'animgraph/1',
      skeleton: { bvh: `${CMU}002_01.bvh` },
      clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1], rootMotion: true } },
      montages: {
        dash: {
          clip: 'walk', slot: 'full', blendIn: 0, blendOut: 0,
          sections: [{ name: 'start', start: 0, next: 'finish' }, { name: 'skipped', start: 0.55 }, { name: 'finish', start: 1.2 }],
        },
      },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        slot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'full' } },
      },
      output: 'slot',
    });
    const clip = graph.clipBindings.get('walk')!.clip, motion = clip.rootMotion!;
    const delta = (from: number, to: number) => rootMotionDelta(new Float64Array(4), clip, motion, Float64Array.of(from, to, 0, 1));
    const g = graph.createInstance();
    g.playMontage('dash');
    const frames: Float64Array[] = [];
    for (let i = 0; i < 8; i++) {
      g.update(0.1);
      frames.push(Float64Array.from(g.rootMotion));
    }
    // Frame 6 goes from 0.5 to 0.55, jumps, and on from 1.2 to 1.25.
    const left = delta(0.5, 0.55), entered = delta(1.2, 1.25), between = delta(0.5, 1.25);
    for (let k = 0; k < 4; k++) expect(frames[5][k]).toBeCloseTo(left[k] + entered[k], 9);
    // Two frames of real walking differ from the clip's motion over the skipped section.
    expect(Math.hypot(frames[5][0] - between[0], frames[5][2] - between[2])).toBeGreaterThan(10);
    expect(Math.hypot(frames[5][0], frames[5][2])).toBeGreaterThan(0.5);
    // Every frame is the motion of its spans of the sections it played in: 0 to 0.55, then 1.2 on.
    const spans = [[0, 0.1], [0.1, 0.2], [0.2, 0.3], [0.3, 0.4], [0.4, 0.5], [0.5, 0.55, 1.2, 1.25], [1.25, 1.35], [1.35, 1.45]];
    spans.forEach((span, f) => {
      const expected = delta(span[0], span[1]);
      if (span.length > 2) {
        const more = delta(span[2], span[3]);
        for (let k = 0; k < 4; k++) expected[k] += more[k];
      }
      for (let k = 0; k < 4; k++) expect(frames[f][k]).toBeCloseTo(expected[k], 9);
    });
  });
});

describe('graphs/examples/sample-montage.json', () => {
  it('plays the combo over locomotion and aim, its strike looping until a branching point\'s listener jumps out', () => {
    const graph = loadGraphFile(new URL('../../../graphs/examples/sample-montage.json', import.meta.url).pathname);
    const g = graph.createInstance(), plain = graph.createInstance();
    for (const c of [g, plain]) {
      c.setParameter('speed', 120);
      c.setParameter('yaw', 30);
    }
    const events = record(g);
    let windows = 0;
    g.events.on('montageNotify', (name) => {
      if (name === 'comboWindow' && ++windows === 3) g.jumpToSection('recover');
    });
    g.playMontage('combo');
    let differs = 0;
    for (let i = 0; i < 90; i++) {
      g.update(1 / 60);
      plain.update(1 / 60);
      const a = g.evaluate().rotations, b = plain.evaluate().rotations;
      let gap = 0;
      for (let k = 0; k < a.length; k++) gap = Math.max(gap, Math.abs(a[k] - b[k]));
      if (gap > 0.01) differs++;
    }
    // windup to 0.25 s, the strike three times (the third cut at its window, 0.45), recover to 0.7.
    expect(events.map((e) => e.slice(0, 3))).toEqual([
      ['started', 'combo'],
      ['section', 'windup', 'strike'], ['notify', 'hit', false], ['notify', 'comboWindow', true],
      ['section', 'strike', 'strike'], ['notify', 'hit', false], ['notify', 'comboWindow', true],
      ['section', 'strike', 'strike'], ['notify', 'hit', false], ['notify', 'comboWindow', true],
      ['section', 'strike', 'recover'],
      ['blendingOut', 'combo', false], ['ended', 'combo', false],
    ]);
    // The branching point's jump lands exactly on the section's start.
    expect(events[10][3]).toBe(0.5);
    // The montage showed (over the walk and the aim) for most of its 1.15 s.
    expect(differs).toBeGreaterThan(40);
    expect(g.isMontagePlaying()).toBe(false);
  });
});

describe('montages in a Crowd', () => {
  it('plays, jumps and stops montages on a worker thread as on an instance, checked on the calling thread', async () => {
    const crowd = await Crowd.create({
      source: { module: new URL('../../support/crowd-graphs.ts', import.meta.url).href, export: 'montageExampleGraph' },
      count: 2, workers: 1, events: ['montageSectionChanged', 'montageEnded'],
    });
    try {
      const seen: Event[] = [];
      crowd.events.on('montageSectionChanged', (character, montage, _node, section, previous) => seen.push([character, montage, previous, section]));
      crowd.events.on('montageEnded', (character, montage, _node, interrupted) => seen.push([character, montage, 'ended', interrupted]));
      expect(() => crowd.playMontage(1, 'nope')).toThrow(/no montage 'nope'/);
      expect(() => crowd.jumpToSection(1, 'combo', 'nope')).toThrow(/no section 'nope'/);
      expect(() => crowd.stopMontage(1, -1)).toThrow(/0 or more/);
      // Character 1 (on the worker) from the strike, which loops; character 0 untouched.
      crowd.playMontage(1, 'combo', { section: 'strike', rate: 1 });
      // Two loops of its 0.25 s (frames 15 and 30, give or take a rounding of 1/60).
      for (let i = 0; i < 36; i++) crowd.update(1 / 60);
      crowd.jumpToSection(1, 'combo', 'recover');
      for (let i = 0; i < 15; i++) crowd.update(1 / 60);
      crowd.playMontage(1, 'combo');
      crowd.update(1 / 60);
      crowd.stopMontage(1, 0);
      crowd.update(1 / 60);
      expect(seen).toEqual([
        [1, 'combo', 'strike', 'strike'], [1, 'combo', 'strike', 'strike'], [1, 'combo', 'strike', 'recover'],
        [1, 'combo', 'ended', false], [1, 'combo', 'ended', true],
      ]);
    } finally {
      await crowd.close();
    }
  });
});
