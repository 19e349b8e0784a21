import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../host/files.ts';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { Pose, poseBlendTwo } from '../../runtime/core/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { expectClose, hasNaN } from '../support/graphs.ts';
import { PROBES_TEST_TIMEOUT, runProbe } from '../support/allocation.ts';
import { expectRowsLikeAlone, stepLikeAlone } from '../support/batch-rows.ts';
import { twoSlotsGraph } from '../support/crowd-graphs.ts';
import { NodeRegistry } from '../../graphs/loader.ts';
import { builtInNodeTypes } from '../../nodes/index.ts';
import { LocalPoseNode, type Link, type NodeType, type PoseLink, type UpdateContext } from '../../runtime/node/node.ts';
import type { SlotPlayer } from '../../runtime/node/slot-player.ts';

/** One-shot clips played over the graph from code. Steps of 0.25 s over the 2 s idle. */
const skeleton = sampleSkeleton();
const sample = (clip: string, time: number, loop = true) => sampleClip(new Pose(22), new ClipBinding(builtinClip(clip), skeleton), time, loop);

function instance(slot: Record<string, unknown> = {}, clips: Record<string, Record<string, unknown>> = {}): AnimGraphInstance {
  return loadGraphAsset({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: {
      idle: { source: 'builtin:idle', ...clips.idle },
      walk: { source: 'builtin:walk', ...clips.walk },
      run: { source: 'builtin:run', ...clips.run },
    },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      slot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'upperBody', ...slot } },
    },
    output: 'slot',
  }).createInstance();
}

const slotDebug = (g: AnimGraphInstance) => g.gatherDebug().children[0];

describe('Slot', () => {
  it('passes its source through, bit for bit, while nothing plays', () => {
    const g = instance();
    g.update(0.25);
    expect(Array.from(g.evaluate().rotations)).toEqual(Array.from(sample('walk', 0.25).rotations));
    expect(slotDebug(g).description).toBe("'upperBody' (source)");
    expect(g.isSlotPlaying('upperBody')).toBe(false);
    // Stopped before anything played: nothing to end, no event, the source still shown as it is.
    const ended: unknown[] = [];
    g.events.on('slotEnded', (...e) => ended.push(e));
    g.stopSlot('upperBody', 0.1);
    g.update(0.25);
    expect(ended).toEqual([]);
    expect(Array.from(g.evaluate().rotations)).toEqual(Array.from(sample('walk', 0.5).rotations));
    expect(slotDebug(g).values).toMatchObject({ playing: false, sourceWeight: 1 });
  });

  it('blends a clip in and out at the times asked and ends by itself, once', () => {
    const g = instance();
    const ended: [string, string, string, boolean][] = [];
    g.events.on('slotEnded', (...args) => ended.push(args));
    g.playSlot('upperBody', 'idle', { blendIn: 0.5, blendOut: 0.5 });
    const weights: number[] = [];
    for (let i = 1; i <= 9; i++) {
      g.update(0.25);
      g.evaluate();
      const values = slotDebug(g).values!;
      weights.push(values.playing ? values.weight as number : 0);
      if (i === 1) {
        // Half the idle at 0.25 s over the walk at 0.25 s.
        const expected = sample('walk', 0.25);
        poseBlendTwo(expected, expected, sample('idle', 0.25, false), Float64Array.of(0.5, 0.5));
        expectClose(g.evaluate().rotations, expected.rotations, 1e-12);
        expect(slotDebug(g).description).toBe("'upperBody' 'idle' 50.0% Play Time: 0.250");
      }
      if (i === 8) expect(ended).toEqual([['upperBody', 'slot', 'idle', false]]);
    }
    expect(weights).toEqual([0.5, 1, 1, 1, 1, 1, 0.5, 0, 0]);
    expect(ended).toHaveLength(1);
    expect(g.isSlotPlaying('upperBody')).toBe(false);
    // Back on the source alone: the walk was paused while the clip had all the weight (frames 2
    // to 6, as under any blend), so it is at 1 s.
    expect(Array.from(g.evaluate().rotations)).toEqual(Array.from(sample('walk', 1).rotations));
  });

  it('scales the blend times by nothing but plays the clip at playRate', () => {
    const g = instance();
    g.playSlot('upperBody', 'idle', { blendIn: 0, blendOut: 0, playRate: 2 });
    g.update(0.25);
    expect(slotDebug(g).values).toMatchObject({ time: 0.5, weight: 1, sourceWeight: 0 });
    // The source is not updated at a nil share: the walk is paused under the clip.
    expect(g.nodes.get('walk')!.weight).toBe(0);
    expectClose(g.evaluate().rotations, sample('idle', 0.5, false).rotations, 1e-15);
    for (let i = 0; i < 3; i++) g.update(0.25);
    expect(g.isSlotPlaying('upperBody')).toBe(false);
  });

  it('puts a second clip on top while the first blends out from its weight, with no pop', () => {
    const g = instance();
    const ended: boolean[] = [];
    g.events.on('slotEnded', (_s, _n, _c, interrupted) => ended.push(interrupted));
    g.playSlot('upperBody', 'idle', { blendIn: 0 });
    g.update(0.25);
    const before = g.evaluate().rotations.slice();
    g.playSlot('upperBody', 'run', { blendIn: 0.5, blendOut: 0.1, playRate: 0.5 });
    g.update(0);
    expectClose(g.evaluate().rotations, before, 1e-12);
    g.update(0.25);
    // The run at 0.5 on top; the idle blends out from 1 over 0.5 s: 0.5, so the walk has 0.25.
    expect(slotDebug(g).values).toMatchObject({ clip: 'run', weight: 0.5, previousClip: 'idle', previousWeight: 0.5, sourceWeight: 0.25 });
    expect(slotDebug(g).description).toBe("'upperBody' 'run' 50.0% Play Time: 0.125, 'idle' 50.0% out");
    g.update(0.25);
    expect(ended).toEqual([true]);
    expect(slotDebug(g).values).toMatchObject({ clip: 'run', weight: 1, sourceWeight: 0 });
    g.stopSlot('upperBody', 0.5);
    g.update(0.25);
    expect(slotDebug(g).values).toMatchObject({ weight: 0.5, blendingOut: true });
    g.update(0.25);
    expect(ended).toEqual([true, true]);
    expect(g.isSlotPlaying('upperBody')).toBe(false);
  });

  it('with a filter, plays the clip on the filtered branch only, ramping over the blend depth', () => {
    const g = instance({ filterBone: 'spine_01', filterDepth: 2 });
    g.playSlot('upperBody', 'idle', { blendIn: 0.5 });
    g.update(0.25);
    const out = g.evaluate();
    const walk = sample('walk', 0.25), idle = sample('idle', 0.25, false);
    // The source keeps its whole weight under a filter.
    expect(g.nodes.get('walk')!.weight).toBe(1);
    const bone = (name: string) => skeleton.indexOf(name);
    for (const name of ['pelvis', 'thigh_l', 'foot_r', 'root']) {
      const b = bone(name);
      expect(Array.from(out.rotations.subarray(b * 4, b * 4 + 4))).toEqual(Array.from(walk.rotations.subarray(b * 4, b * 4 + 4)));
    }
    // spine_01 at 0.5 × 1/2, spine_02 and below at 0.5.
    for (const [name, w] of [['spine_01', 0.25], ['spine_02', 0.5], ['head', 0.5], ['hand_l', 0.5]] as const) {
      const b = bone(name);
      const a = walk.rotations.subarray(b * 4, b * 4 + 4), c = idle.rotations.subarray(b * 4, b * 4 + 4);
      const sign = a[0] * c[0] + a[1] * c[1] + a[2] * c[2] + a[3] * c[3] < 0 ? -1 : 1;
      const q = [0, 1, 2, 3].map((k) => a[k] * (1 - w) + c[k] * w * sign);
      const len = Math.hypot(...q);
      expectClose(out.rotations.subarray(b * 4, b * 4 + 4), q.map((x) => x / len), 1e-12);
    }
    expect(hasNaN(out.rotations)).toBe(false);
  });

  it('fires the clip\'s notifies at the clip\'s weight and blends its curves over the source\'s, filtered or not', () => {
    const clips = { idle: { notifies: [{ name: 'wave', time: 0.5 }], curves: { lean: [[0, 1]] } }, walk: { curves: { lean: [[0, 4]] } } };
    for (const filter of [{}, { filterBone: 'spine_01' }]) {
      const g = instance(filter, clips);
      const fired: [string, string, number][] = [];
      g.events.on('notify', (...args) => fired.push(args));
      g.playSlot('upperBody', 'idle', { blendIn: 1 });
      g.update(0.25);
      // Weight 0.25: the walk's lean (4) at 0.75, the idle's (1) at 0.25.
      expect(g.curve('lean')).toBeCloseTo(0.75 * 4 + 0.25, 12);
      g.update(0.25);
      expect(fired).toEqual([['wave', 'slot', 0.5]]);
      expect(g.curve('lean')).toBeCloseTo(0.5 * 4 + 0.5, 12);
    }
  });

  it('fires the clip\'s notifies at its weight in the slot, not at the Slot\'s weight in the graph', () => {
    const g = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk' }, idle: { source: 'builtin:idle', notifies: [{ name: 'wave', time: 0.5 }] } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        slot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'upperBody' } },
        walk2: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        blend: { type: 'BlendTwo', inputs: { A: 'walk2', B: 'slot' }, properties: { alpha: 0.25 } },
      },
      output: 'blend',
    }).createInstance();
    const fired: [string, string, number][] = [];
    g.events.on('notify', (...args) => fired.push(args));
    g.playSlot('upperBody', 'idle', { blendIn: 0.5 });
    g.update(0.25);
    g.update(0.25);
    // At 0.5 s the clip has blended in fully: weight 1 in the slot, while the Slot has 0.25 of the pose.
    expect(g.nodes.get('slot')!.weight).toBe(0.25);
    expect(fired).toEqual([['wave', 'slot', 1]]);
  });

  it('filtered, blends its source\'s curves over what came before it without overflow, whatever the change', () => {
    // A filtered Slot takes its source's change to the curves by the source's share. Here the base
    // adds -HUGE before it and its source (a layer over a base, each adding HUGE) +2 HUGE, held at
    // HUGE: a change from -HUGE to HUGE overflows, and Infinity × a zero share (the voice at full
    // weight) was NaN. The loader bounds curve keys, so the keys are set after loading.
    const HUGE = Number.MAX_VALUE;
    const g = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { idle: { source: 'builtin:idle', curves: { c: [[0, 0]] } }, walk: { source: 'builtin:walk', curves: { c: [[0, 0]] } }, run: { source: 'builtin:run', curves: { c: [[0, 0]] } } },
      nodes: {
        base: { type: 'SequencePlayer', properties: { clip: 'idle' } },
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run' } },
        source: { type: 'LayeredBlendPerBone', inputs: { base: 'walk', layers: ['run'] }, properties: { layers: [{ filters: [{ bone: 'spine_01' }] }] } },
        slot: { type: 'Slot', inputs: { source: 'source' }, properties: { name: 'upperBody', filterBone: 'spine_01' } },
        top: { type: 'LayeredBlendPerBone', inputs: { base: 'base', layers: ['slot'] }, properties: { layers: [{ filters: [{ bone: 'spine_01' }] }] } },
      },
      output: 'top',
    }).createInstance();
    for (const [clip, key] of [['idle', -HUGE], ['walk', HUGE], ['run', HUGE]] as const) g.graph.clipBindings.get(clip)!.clip.curves[0].values[0] = key;
    g.update(0.25);
    expect(g.curve('c')).toBe(HUGE); // nothing playing: the source's change taken whole
    g.playSlot('upperBody', 'idle', { blendIn: 0.5 });
    g.update(0.25);
    // Half the change (to 0), then the idle's -HUGE at half weight.
    expect(g.curve('c')).toBe(-HUGE * (1 - 0.5) + HUGE * 0.5 + -HUGE * 0.5);
    g.update(0.25);
    // None of the change, then the idle's -HUGE at full weight: held at -HUGE.
    expect(g.curve('c')).toBe(-HUGE);
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
  });

  it('throws for an unknown slot or clip and options out of range, and reports an unknown filter bone at its path', () => {
    const g = instance();
    expect(() => g.playSlot('lowerBody', 'idle')).toThrow(/no Slot node named 'lowerBody' \(slots: upperBody\)/);
    expect(() => g.playSlot('upperBody', 'dance')).toThrow(/no clip 'dance'/);
    expect(() => g.playSlot('upperBody', 'idle', { playRate: 0 })).toThrow(/playRate/);
    expect(() => g.playSlot('upperBody', 'idle', { blendIn: -1 })).toThrow(/blendIn/);
    expect(() => g.stopSlot('upperBody', NaN)).toThrow(/blendOut/);
    expect(g.isSlotPlaying('upperBody')).toBe(false);
    const result = checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        slot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: '', filterBone: 'spine_9', filterDepth: -1 } },
      },
      output: 'slot',
    });
    expect(result.ok ? [] : result.problems.map((p) => [p.path, p.code])).toEqual(expect.arrayContaining([
      ['$.nodes.slot.properties.name', 'schema'],
      ['$.nodes.slot.properties.filterBone', 'unknown-bone'],
      ['$.nodes.slot.properties.filterDepth', 'schema'],
    ]));
  });

  it('names the slot after the node by default, and plays on every Slot of a name', () => {
    const g = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' }, idle: { source: 'builtin:idle' } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        a: { type: 'Slot', inputs: { source: 'walk' } },
        b: { type: 'Slot', inputs: { source: 'a' }, properties: { name: 'a' } },
      },
      output: 'b',
    }).createInstance();
    g.playSlot('a', 'idle', { blendIn: 0.5 });
    g.update(0.25);
    const b = g.gatherDebug().children[0], a = b.children[0];
    expect([b.values!.weight, a.weight, a.values!.weight, a.values!.sourceWeight]).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it('shows one play on every Slot of a name, its dropped clip ended once, when a slotEnded listener plays another slot mid-call', () => {
    const g = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk' }, idle: { source: 'builtin:idle' }, run: { source: 'builtin:run' } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        a: { type: 'Slot', inputs: { source: 'walk' } },
        b: { type: 'Slot', inputs: { source: 'a' }, properties: { name: 'a' } },
        c: { type: 'Slot', inputs: { source: 'b' } },
      },
      output: 'c',
    }).createInstance();
    g.playSlot('a', 'idle', { blendIn: 0.5 });
    g.update(0.25);
    g.playSlot('a', 'run', { blendIn: 1 });
    g.update(0.1);
    // Slot name a now blends the idle out under the run, so the next playSlot ends it (interrupted)
    // once, in the name of a, the name's first Slot; the listener then plays slot c with other
    // timing, inside that call.
    const ended: string[] = [];
    g.events.on('slotEnded', (slot, node) => {
      ended.push(node);
      if (slot === 'a') g.playSlot('c', 'run', { blendIn: 0.9, blendOut: 0.1, playRate: 0.5 });
    });
    g.playSlot('a', 'walk', { blendIn: 0.5, blendOut: 0.2, playRate: 1 });
    g.update(0.25);
    const c = g.gatherDebug().children[0], b = c.children[0], a = b.children[0];
    expect([a.values!.clip, a.values!.weight, a.values!.time]).toEqual(['walk', 0.5, 0.25]);
    expect([b.values!.clip, b.values!.weight, b.values!.time]).toEqual(['walk', 0.5, 0.25]);
    expect([c.values!.clip, c.values!.time]).toEqual(['run', 0.125]);
    expect(c.values!.weight).toBeCloseTo(0.25 / 0.9, 15);
    // The idle ended once (a and b show one timeline), so c's run was played once and not cut.
    expect(ended).toEqual(['a']);
  });

  describe('two Slots of one name', () => {
    const graph = twoSlotsGraph;
    type Logged = (string | number | boolean)[];
    function record(g: AnimGraphInstance, frame: () => number): Logged[] {
      const log: Logged[] = [];
      g.events.on('montageStarted', (m, node) => log.push([frame(), 'started', m, node]));
      g.events.on('montageSectionChanged', (m, node, section, previous) => log.push([frame(), 'section', previous, section, node]));
      g.events.on('montageNotify', (name, _m, node) => log.push([frame(), 'montageNotify', name, node]));
      g.events.on('notify', (name, node, weight) => log.push([frame(), 'notify', name, node, weight]));
      g.events.on('montageBlendingOut', (m, node, interrupted) => log.push([frame(), 'blendingOut', m, node, interrupted]));
      g.events.on('montageEnded', (m, node, interrupted) => log.push([frame(), 'ended', m, node, interrupted]));
      g.events.on('slotEnded', (slot, node, clip, interrupted) => log.push([frame(), 'slotEnded', slot, node, clip, interrupted]));
      return log;
    }
    const values = (g: AnimGraphInstance, id: string) => g.nodes.get(id)!.gatherDebug().values!;

    it('fire each event of a montage once, in order, in the first Slot\'s name, and show it at one position', () => {
      const g = graph().createInstance();
      let frame = 0;
      const log = record(g, () => frame);
      g.playMontage('attack');
      const positions: number[] = [];
      for (frame = 1; frame <= 17; frame++) {
        // The layered branch alone to frame 5, both in the crossfade (frames 6 and 7), then the other alone.
        g.setParameter('pick', frame >= 6 ? 1 : 0);
        g.update(0.125);
        positions.push(g.montagePosition());
        const upper = values(g, 'upperSlot'), full = values(g, 'fullSlot');
        expect(full).toEqual(upper);
        if (frame <= 13) expect([upper.time, upper.section]).toEqual([frame / 8, frame <= 3 ? 'windup' : frame <= 11 ? 'swing' : 'recover']);
      }
      // Moved once a frame whichever Slots the frame reached: one Slot (1 to 5), both (6, 7), the other (8 on).
      expect(positions).toEqual([0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1, 1.125, 1.25, 1.375, 1.5, 1.625, -1, -1, -1, -1]);
      expect(log).toEqual([
        [0, 'started', 'attack', 'upperSlot'],
        [4, 'section', 'windup', 'swing', 'upperSlot'],
        // The montage's notify as the move crosses it, then the clip's, once, at the montage's
        // weight in the slot (1), not at either Slot's weight in the graph (0.5 each in the crossfade).
        [6, 'montageNotify', 'hit', 'upperSlot'],
        [6, 'notify', 'breath', 'upperSlot', 1],
        [12, 'section', 'swing', 'recover', 'upperSlot'],
        [13, 'montageNotify', 'late', 'upperSlot'],
        [14, 'blendingOut', 'attack', 'upperSlot', false],
        [16, 'ended', 'attack', 'upperSlot', false],
      ]);
      expect(g.nodes.get('upperSlot')!.weight).toBe(0);
      // A reset stops what plays once, though both Slots are initialized again.
      g.playMontage('attack');
      g.update(0.125);
      log.length = 0;
      g.reset();
      expect(log).toEqual([[18, 'blendingOut', 'attack', 'upperSlot', true], [18, 'ended', 'attack', 'upperSlot', true]]);
    });

    it('show one playSlot clip and end it once, whichever of them the frames reach, a listener chaining the next', () => {
      const g = graph().createInstance();
      let frame = 0;
      const log = record(g, () => frame);
      // The walk's end plays the idle (2 s) at rate 4, once: 0.5 s, four frames.
      g.events.on('slotEnded', (_slot, _node, clip, interrupted) => {
        if (clip === 'walk' && !interrupted) g.playSlot('Default', 'idle', { blendIn: 0, blendOut: 0, playRate: 4 });
      });
      g.playSlot('Default', 'walk', { blendIn: 0.25, blendOut: 0.25 });
      const clips: unknown[] = [];
      for (frame = 1; frame <= 14; frame++) {
        g.setParameter('pick', frame >= 3 ? 1 : 0);
        g.update(0.125);
        expect(values(g, 'fullSlot')).toEqual(values(g, 'upperSlot'));
        clips.push(values(g, 'fullSlot').clip ?? null);
      }
      // The walk (1.1 s at 30 fps: 33 frames) ends at 1.125 s, frame 9; the idle from there to frame
      // 13, its notify at clip time 0.75 crossed on frame 11 (clip time 1), once.
      expect(log).toEqual([
        [9, 'slotEnded', 'Default', 'upperSlot', 'walk', false],
        [11, 'notify', 'breath', 'upperSlot', 1],
        [13, 'slotEnded', 'Default', 'upperSlot', 'idle', false],
      ]);
      expect(clips).toEqual([...Array(8).fill('walk'), 'idle', 'idle', 'idle', 'idle', null, null]);
      expect(g.isSlotPlaying('Default')).toBe(false);
    });

    it('name the first of them instance.nodes lists, whatever order the asset writes them in', () => {
      const g = loadGraphAsset({
        format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' }, idle: { source: 'builtin:idle' } },
        nodes: {
          outer: { type: 'Slot', inputs: { source: 'inner' }, properties: { name: 'x' } },
          inner: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'x' } },
          walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        },
        output: 'outer',
      }).createInstance();
      // Every node after those it links to: the inner Slot first.
      expect([...g.nodes.keys()].filter((id) => id === 'inner' || id === 'outer')).toEqual(['inner', 'outer']);
      const ended: string[] = [];
      g.events.on('slotEnded', (_slot, node) => ended.push(node));
      g.playSlot('x', 'idle', { blendIn: 0, blendOut: 0, playRate: 4 });
      for (let i = 0; i < 4; i++) g.update(0.125);
      expect(ended).toEqual(['inner']);
    });

    it('share one play beside a custom slot player of the name listed before them, which is played on by itself', () => {
      /** A slot player of its own (no `follow`): passes its source through and counts the clips played on it. */
      class Counter extends LocalPoseNode implements SlotPlayer {
        readonly slotName = 'Default';
        readonly played: string[] = [];
        constructor(id: string, private readonly source: PoseLink) {
          super(id, 'Counter');
        }
        protected get links(): readonly Link[] {
          return [this.source];
        }
        protected onUpdate(ctx: UpdateContext): void {
          this.source.update(ctx);
        }
        protected onEvaluate(out: Pose): void {
          this.source.evaluate(out);
        }
        playClip(clip: ClipBinding): void {
          this.played.push(clip.clip.name);
        }
        stopClips(): void {}
        get playing(): boolean {
          return false;
        }
      }
      const CounterType: NodeType = {
        type: 'Counter', space: 'local', properties: {}, inputs: [{ name: 'source', kind: 'pose', space: 'local' }],
        create: ({ id, inputs }) => new Counter(id, inputs.source as PoseLink),
      };
      const g = loadGraphAsset({
        format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' }, idle: { source: 'builtin:idle' } },
        nodes: {
          walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
          counter: { type: 'Counter', inputs: { source: 'walk' } },
          a: { type: 'Slot', inputs: { source: 'counter' }, properties: { name: 'Default' } },
          b: { type: 'Slot', inputs: { source: 'a' }, properties: { name: 'Default' } },
        },
        output: 'b',
      }, { nodeTypes: new NodeRegistry([...builtInNodeTypes, CounterType]) }).createInstance();
      const ended: string[] = [];
      g.events.on('slotEnded', (_slot, node) => ended.push(node));
      g.playSlot('Default', 'idle', { blendIn: 0, blendOut: 0, playRate: 4 });
      for (let i = 0; i < 4; i++) g.update(0.125);
      // The counter got the play once; b follows a (the first Slot), not the counter.
      expect((g.nodes.get('counter') as Counter).played).toEqual(['idle']);
      expect(ended).toEqual(['a']);
    });

    it('play in an InstanceBatch as alone, bit for bit, and fire each event once below full update rate', () => {
      const shared = graph();
      const batch = shared.createInstances(2, { componentSpace: true }), alone = [shared.createInstance(), shared.createInstance()];
      for (const c of [batch.instances[1], alone[1]]) c.playMontage('attack');
      stepLikeAlone(batch, alone, 17, 0.125, (frame) => {
        for (const c of [batch.instances[1], alone[1]]) c.setParameter('pick', frame >= 6 ? 1 : 0);
      });
      expectRowsLikeAlone(batch, alone);
      // Updated on one frame in three, by three frames' time: the same events, each once.
      const kinds = (rate: number) => {
        const g = shared.createInstance();
        g.setUpdateRate(rate);
        const log = record(g, () => 0);
        g.playMontage('attack');
        for (let frame = 1; frame <= 20; frame++) {
          g.setParameter('pick', frame >= 6 ? 1 : 0);
          g.update(0.125);
        }
        return log.map((e) => e.slice(1, 3));
      };
      expect(kinds(3)).toEqual(kinds(1));
      expect(kinds(1)).toEqual([
        ['started', 'attack'], ['section', 'windup'], ['montageNotify', 'hit'], ['notify', 'breath'],
        ['section', 'swing'], ['montageNotify', 'late'], ['blendingOut', 'attack'], ['ended', 'attack'],
      ]);
    });

    it('add the root motion and curves of the montage by each one\'s weight in the graph: once in all, as one Slot alone', () => {
      // The walk (root motion: turning) as the montage, on two unfiltered Slots crossfaded by a
      // BlendList, against the same montage on one Slot.
      const asset = (two: boolean) => ({
        format: 'animgraph/1', skeleton: 'builtin:biped',
        clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk', rootMotion: true, curves: { lean: [[0, 1], [1.1, 3]] } } },
        parameters: { pick: { type: 'int', default: 0 } },
        montages: { turn: { clip: 'walk', slot: 'Default', blendIn: 0, blendOut: 0 } },
        nodes: two ? {
          idleA: { type: 'SequencePlayer', properties: { clip: 'idle' } },
          a: { type: 'Slot', inputs: { source: 'idleA' }, properties: { name: 'Default' } },
          idleB: { type: 'SequencePlayer', properties: { clip: 'idle' } },
          b: { type: 'Slot', inputs: { source: 'idleB' }, properties: { name: 'Default' } },
          list: { type: 'BlendList', inputs: { poses: ['a', 'b'] }, properties: { activeIndex: { param: 'pick' }, blendTimes: [0.5, 0.5] } },
        } : {
          idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
          a: { type: 'Slot', inputs: { source: 'idle' }, properties: { name: 'Default' } },
        },
        output: two ? 'list' : 'a',
      });
      const g = loadGraphAsset(asset(true)).createInstance(), one = loadGraphAsset(asset(false)).createInstance();
      g.playMontage('turn');
      one.playMontage('turn');
      let turned = 0;
      for (let frame = 1; frame <= 8; frame++) {
        g.setParameter('pick', frame >= 2 ? 1 : 0);
        g.update(0.125);
        one.update(0.125);
        // Frames 2 to 5 in the crossfade: each Slot at its share of the BlendList.
        if (frame === 3) expect([g.nodes.get('a')!.weight, g.nodes.get('b')!.weight]).toEqual([0.5, 0.5]);
        for (let k = 0; k < 4; k++) expect(g.rootMotion[k]).toBeCloseTo(one.rootMotion[k], 12);
        // The lean rises from 1 by 2 per 1.1 s of clip time.
        expect(g.curve('lean')).toBeCloseTo(1 + (2 * frame * 0.125) / 1.1, 12);
        turned += Math.abs(one.rootMotion[3]);
      }
      expect(turned).toBeGreaterThan(0.01);
    });
  });

  it('ends every clip it plays once, when a slotEnded listener plays on the same slot', () => {
    const g = instance();
    const played: string[] = [], ended: [string, boolean][] = [];
    const play = (clip: string, blendIn: number) => {
      played.push(clip);
      g.playSlot('upperBody', clip, { blendIn });
    };
    // On the run being dropped, play the idle: inside the playSlot that drops it.
    g.events.on('slotEnded', (_slot, _node, clip, interrupted) => {
      ended.push([clip, interrupted]);
      if (clip === 'run' && interrupted) play('idle', 0.2);
    });
    play('run', 0.1);
    g.update(0.05);
    play('walk', 0.3);
    g.update(0.05);
    // The run blends out under the walk, so this drops it; the listener's idle then goes on top of
    // this one (just started, at weight 0), which ends at the next update.
    play('idle', 0.3);
    expect(ended).toEqual([['run', true], ['walk', true]]);
    g.update(0.05);
    expect(ended).toEqual([['run', true], ['walk', true], ['idle', true]]);
    // The listener's idle plays, blending in over its own 0.2 s.
    expect(slotDebug(g).values).toMatchObject({ clip: 'idle', time: 0.05, weight: 0.25, sourceWeight: 0.75 });
    for (let i = 0; i < 200; i++) g.update(1 / 60);
    expect(played).toEqual(['run', 'walk', 'idle', 'idle']);
    expect(ended).toEqual([['run', true], ['walk', true], ['idle', true], ['idle', false]]);
  });

  it('emits both slotEnded of an update in that update, a listener playing again between them', () => {
    const g = instance();
    const log: (string | [string, boolean])[] = [];
    g.events.on('slotEnded', (_slot, _node, clip, interrupted) => {
      log.push([clip, interrupted]);
      if (clip === 'run') g.playSlot('upperBody', 'walk', { blendIn: 0.5 });
    });
    g.playSlot('upperBody', 'run', { blendIn: 0 });
    g.update(0.25);
    g.playSlot('upperBody', 'idle', { blendIn: 0.5 });
    g.update(0.25);
    // The run blends out over 0.5 s, the idle now over 0.25 s: both reach 0 at the next update.
    g.stopSlot('upperBody', 0.25);
    g.update(0.25);
    log.push('frame');
    expect(log).toEqual([['run', true], ['idle', true], 'frame']);
    expect(slotDebug(g).values).toEqual({ slot: 'upperBody', playing: true, clip: 'walk', time: 0, weight: 0, blendingOut: false, sourceWeight: 1 });
    g.update(0.25);
    expect(slotDebug(g).values).toMatchObject({ clip: 'walk', time: 0.25, weight: 0.5 });
  });

  it('plays a montage as a voice: over a clip it interrupts, named with its section in the debug values', () => {
    const g = loadGraphAsset({
      format: 'animgraph/1',
      skeleton: 'builtin:biped',
      clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      montages: { wave: { clip: 'idle', slot: 'upperBody', blendIn: 0.5, sections: [{ name: 'a', start: 0 }, { name: 'b', start: 1 }] } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        slot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'upperBody' } },
      },
      output: 'slot',
    }).createInstance();
    const ended: unknown[] = [];
    g.events.on('slotEnded', (_s, _n, clip, interrupted) => ended.push([clip, interrupted]));
    g.playSlot('upperBody', 'run', { blendIn: 0 });
    g.update(0.25);
    g.playMontage('wave');
    g.update(0.25);
    // Half blended in over the run, which blends out over the montage's 0.5 s from its full weight.
    expect(slotDebug(g).values).toEqual({
      slot: 'upperBody', playing: true, clip: 'idle', montage: 'wave', section: 'a', time: 0.25, weight: 0.5, blendingOut: false,
      previousClip: 'run', previousWeight: 0.5, sourceWeight: 0.25,
    });
    // The pose: the walk toward the run by 0.5, then toward the idle at 0.25 by 0.5.
    const expected = sample('walk', 0.25);
    poseBlendTwo(expected, expected, sample('run', 0.5, false), Float64Array.of(0.5, 0.5));
    poseBlendTwo(expected, expected, sample('idle', 0.25, false), Float64Array.of(0.5, 0.5));
    expectClose(g.evaluate().rotations, expected.rotations, 1e-12);
    g.update(0.25);
    expect(ended).toEqual([['run', true]]);
  });

  it('allocates nothing per frame with notifies, curves and slots playing, interrupting and ending', () => {
    const run = (...flags: string[]) => runProbe('slot-allocation-probe.ts', flags);
    const result = run();
    expect(result.perFrame).toBeLessThan(1);
    // A Crowd's playSlot and stopSlot calls, applied in its update.
    expect(result.perFrameCrowd).toBeLessThan(1);
    // Whether V8 inlines a call depends on what it compiled before, which a loaded run changes: a
    // playSlot that passed its three numbers as arguments to a call left out of line boxed them
    // (2.26 B a frame here). Inlining only small functions makes that case happen every time.
    const outOfLine = run('--max-inlined-bytecode-size=50');
    expect(outOfLine.perFrame).toBeLessThan(1);
    // Each stopSlot call a crowd applies passes its blend time to the instance's stopSlot: 16 bytes
    // when that call is out of line, once in 45 frames here.
    expect(outOfLine.perFrameCrowd).toBeLessThan(1);
    // With listeners, only the weight each emit passes is boxed (16 bytes per notify).
    expect(result.perFrameListened).toBeLessThan(8);
    expect(result.notifies).toBeGreaterThan(1000);
    expect(result.ended).toBeGreaterThan(1000);
    expect(result.lean).toBeGreaterThan(0);
  }, PROBES_TEST_TIMEOUT);

  it('allocates next to nothing for a lone character playing a clip now and then, the playing code cold', () => {
    const { windows } = runProbe<{ windows: number[] }>('slot-allocation-probe.ts', ['--no-concurrent-recompilation'], ['slow']);
    // Median window from the 20,000th frame: 0.97 B a frame, most of it playSlot's own (its options'
    // numbers read in code that runs once in 300 frames: about 180 B a call). 3.3 with the voices'
    // blend in a function called only while a clip plays, and for-of and a destructuring in
    // playSlot and the Slot's start (see CONTRIBUTING.md, "Numbers in the frame loop").
    expect([...windows].sort((a, b) => a - b)[1]).toBeLessThan(1.5);
  });
});
