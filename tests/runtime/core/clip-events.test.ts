import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../../host/files.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import { ClipCurve } from '../../../runtime/core/clip-events.ts';

/**
 * Issue 17, item 7: notifies and curves authored on clips. The built-in idle lasts 2 s, so steps
 * of 0.25 s land on exact binary times.
 */
type Clips = Record<string, Record<string, unknown>>;

function instance(clips: Clips, nodes: Record<string, unknown>, output: string, parameters: Record<string, unknown> = {}): AnimGraphInstance {
  return loadGraphAsset({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: {
      idle: { source: 'builtin:idle', ...clips.idle },
      walk: { source: 'builtin:walk', ...clips.walk },
      run: { source: 'builtin:run', ...clips.run },
    },
    parameters,
    nodes,
    output,
  }).createInstance();
}

/** Every notify event as [frame, event, name, node, weight], frame counted from 1. */
function record(g: AnimGraphInstance): { log: [number, string, string, string, number][]; frame: { n: number } } {
  const log: [number, string, string, string, number][] = [];
  const frame = { n: 0 };
  for (const event of ['notify', 'notifyBegin', 'notifyEnd'] as const) {
    g.events.on(event, (name, node, weight) => log.push([frame.n, event, name, node, weight]));
  }
  return { log, frame };
}

function run(g: AnimGraphInstance, frame: { n: number }, frames: number, dt = 0.25): void {
  for (let i = 0; i < frames; i++) {
    frame.n++;
    g.update(dt);
  }
}

const idlePlayer = (properties: Record<string, unknown> = {}) => ({ p: { type: 'SequencePlayer', properties: { clip: 'idle', ...properties } } });

describe('clip notifies', () => {
  it('fires a notify once, on the frame the play time reaches it, and once per loop', () => {
    const g = instance({ idle: { notifies: [{ name: 'footL', time: 0.5 }] } }, idlePlayer(), 'p');
    const { log, frame } = record(g);
    run(g, frame, 1);
    expect(log).toEqual([]);
    run(g, frame, 1); // 0.25 -> 0.5
    expect(log).toEqual([[2, 'notify', 'footL', 'p', 1]]);
    run(g, frame, 15); // to 4.25 s: 2.5 s is the second crossing
    expect(log).toEqual([[2, 'notify', 'footL', 'p', 1], [10, 'notify', 'footL', 'p', 1]]);
  });

  it('fires notifies at the start and the end of a looping clip once each per loop', () => {
    const g = instance({ idle: { notifies: [{ name: 'start', time: 0 }, { name: 'end', time: 2 }] } }, idlePlayer(), 'p');
    const { log, frame } = record(g);
    run(g, frame, 9); // the wrap at 2 s is frame 8
    expect(log.map(([f, , name]) => [f, name])).toEqual([[1, 'start'], [8, 'end'], [8, 'start']]);
  });

  it('fires the notify at the end of a non-looping clip on arrival, once, and nothing while held', () => {
    const g = instance({ idle: { notifies: [{ name: 'land', time: 2 }] } }, idlePlayer({ loop: false }), 'p');
    const { log, frame } = record(g);
    run(g, frame, 12);
    expect(log.map(([f, , name]) => [f, name])).toEqual([[8, 'land']]);
  });

  it('fires in reverse play when the time passes the notify going down, across the wrap too', () => {
    const g = instance({ idle: { notifies: [{ name: 'a', time: 0.5 }, { name: 'b', time: 1.5 }] } }, idlePlayer({ playRate: -1 }), 'p');
    const { log, frame } = record(g);
    // 0 -> 1.75 (wrapped), 1.5, ..., 0.5 at frame 6, 0 at 8, 1.75 at 9, 1.5 at 10.
    run(g, frame, 10);
    expect(log.map(([f, , name]) => [f, name])).toEqual([[2, 'b'], [6, 'a'], [10, 'b']]);
  });

  it('begins and ends a range as the time enters and leaves it, in either direction, in crossing order', () => {
    const forward = instance({ idle: { notifies: [{ name: 'swoosh', start: 0.5, end: 1 }, { name: 'hit', time: 0.75 }] } }, idlePlayer(), 'p');
    const f = record(forward);
    run(forward, f.frame, 8);
    expect(f.log.map(([n, event, name]) => [n, event, name])).toEqual([[2, 'notifyBegin', 'swoosh'], [3, 'notify', 'hit'], [4, 'notifyEnd', 'swoosh']]);

    const backward = instance({ idle: { notifies: [{ name: 'swoosh', start: 0.5, end: 1 }] } }, idlePlayer({ playRate: -1 }), 'p');
    const b = record(backward);
    run(backward, b.frame, 8); // 1.75, 1.5, 1.25, 1 (frame 4: enters at the end), 0.75, 0.5 (frame 6: leaves)
    expect(b.log.map(([n, event]) => [n, event])).toEqual([[4, 'notifyBegin'], [6, 'notifyEnd']]);

    // A frame longer than the range crosses both edges: it begins, then ends, in that order.
    const skip = instance({ idle: { notifies: [{ name: 'blink', start: 0.3, end: 0.4 }] } }, idlePlayer(), 'p');
    const s = record(skip);
    run(skip, s.frame, 2);
    expect(s.log.map(([n, event]) => [n, event])).toEqual([[2, 'notifyBegin'], [2, 'notifyEnd']]);
  });

  it('passes the player\'s absolute weight under a blend and fires nothing from a player at weight 0', () => {
    const nodes = (alpha: number) => ({
      a: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      b: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      blend: { type: 'BlendTwo', inputs: { A: 'a', B: 'b' }, properties: { alpha } },
    });
    const clips = { idle: { notifies: [{ name: 'footL', time: 0.5 }] } };
    const g = instance(clips, nodes(0.25), 'blend');
    const { log, frame } = record(g);
    run(g, frame, 2);
    expect(log).toEqual([[2, 'notify', 'footL', 'a', 0.75]]);

    const silent = instance(clips, nodes(1), 'blend');
    const s = record(silent);
    run(silent, s.frame, 10);
    expect(s.log).toEqual([]);
  });

  it('fires from a SequenceEvaluator when the explicit time crosses a notify, not on its first seek', () => {
    const g = instance({ idle: { notifies: [{ name: 'n', time: 0.5 }] } }, {
      e: { type: 'SequenceEvaluator', properties: { clip: 'idle', explicitTime: { param: 't' } } },
    }, 'e', { t: { type: 'float', default: 0.5 } });
    const { log, frame } = record(g);
    run(g, frame, 1); // first seek: a jump, not a move
    g.setParameter('t', 0.25);
    run(g, frame, 1); // 0.5 -> 0.25 backwards: [0.25, 0.5) leaves 0.5 out
    g.setParameter('t', 0.75);
    run(g, frame, 1);
    expect(log.map(([n, , name]) => [n, name])).toEqual([[3, 'n']]);
  });

  it('is fired in the same frames whether or not one event has listeners (only listened ones are emitted)', () => {
    const g = instance({ idle: { notifies: [{ name: 'r', start: 0.5, end: 1 }] } }, idlePlayer(), 'p');
    const ends: number[] = [];
    let frame = 0;
    g.events.on('notifyEnd', () => ends.push(frame));
    for (frame = 1; frame <= 4; frame++) g.update(0.25);
    expect(ends).toEqual([4]);
  });
});

describe('clip curves', () => {
  const curves = {
    idle: { curves: { lean: [[0, 0], [2, 2]] } },
    walk: { curves: { lean: [[0, 4]], arms: [[0, 1], [1.1, 1]] } },
  };
  const blend = (alpha: number) => ({
    a: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    b: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    blend: { type: 'BlendTwo', inputs: { A: 'a', B: 'b' }, properties: { alpha } },
  });

  it('blends curves by the players\' weights (a clip without the curve counts as 0) and resets them each update', () => {
    const g = instance(curves, blend(0.25), 'blend');
    expect(g.graph.curveNames).toEqual(['arms', 'lean']);
    g.update(0.5);
    g.evaluate();
    // idle's lean at 0.5 s is 0.5 (weight 0.75); walk's is 4 (weight 0.25).
    expect(g.curve('lean')).toBeCloseTo(0.75 * 0.5 + 0.25 * 4, 12);
    expect(g.curve('arms')).toBeCloseTo(0.25, 12);
    g.update(0.5);
    expect(g.curve('lean')).toBeCloseTo(0.75 * 1 + 0.25 * 4, 12);
    const idleOnly = instance(curves, blend(0), 'blend');
    idleOnly.update(0.25);
    expect(idleOnly.curve('arms')).toBe(0);
    expect(idleOnly.curve('lean')).toBe(0.25);
  });

  it('holds a curve before its first key and after its last one, linear between', () => {
    const c = new ClipCurve('c', Float64Array.of(0.5, 1, 1.5), Float64Array.of(1, 3, 2));
    expect([0, 0.5, 0.75, 1, 1.25, 1.5, 9].map((t) => c.valueAt(t))).toEqual([1, 1, 2, 3, 2.5, 2, 2]);
    const g = instance({ idle: { curves: { c: [[0.5, 1], [1, 3], [1.5, 2]] } } }, idlePlayer(), 'p');
    const seen: number[] = [];
    for (let i = 0; i < 7; i++) {
      g.update(0.25);
      seen.push(g.curve('c'));
    }
    expect(seen).toEqual([1, 1, 2, 3, 2.5, 2, 2]);
  });

  /**
   * The loader bounds curve keys, so keys near the largest double are put into a loaded graph's
   * curves afterwards: the frame loop's arithmetic must not overflow for any finite keys.
   */
  const withKeys = (g: AnimGraphInstance, clip: string, values: number[]) => g.graph.clipBindings.get(clip)!.clip.curves[0].values.set(values);
  const HUGE = Number.MAX_VALUE;

  it('interpolates between keys of opposite sign near the largest double without overflow (b - a is Infinity there)', () => {
    const c = new ClipCurve('c', Float64Array.of(0, 0.5, 1), Float64Array.of(-1.7e308, 1.7e308, 1.6e308));
    expect([0.25, 0.1, 0.75].map((t) => c.valueAt(t))).toEqual([0, -1.7e308 * (1 - 0.2) + 1.7e308 * 0.2, 1.7e308 + (1.6e308 - 1.7e308) * 0.5]);
    const g = instance({ idle: { curves: { c: [[0, 0], [0.5, 0], [1, 0]] } } }, idlePlayer(), 'p');
    withKeys(g, 'idle', [-1.7e308, 1.7e308, 1.6e308]);
    const seen: number[] = [];
    for (const dt of [0.1, 0.15, 0.5]) {
      g.update(dt);
      seen.push(g.curve('c'));
    }
    // At 0.1 s (0.2 of the way), 0.25 s (half way) and 0.75 s, whose keys are as ordinary values are.
    expect(seen).toEqual([-1.7e308 * (1 - 0.2) + 1.7e308 * 0.2, 0, 1.7e308 + (1.6e308 - 1.7e308) * 0.5]);
  });

  it('sums curve values past the largest double to it, not Infinity, when the weights sum past 1 (a layer over its base)', () => {
    const layered = (keys: [number, number, number], layerWeight = 1) => {
      const g = instance({ idle: { curves: { c: [[0, 0]] } }, walk: { curves: { c: [[0, 0]] } }, run: { curves: { c: [[0, 0]] } } }, {
        a: { type: 'SequencePlayer', properties: { clip: 'idle' } },
        b: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        c: { type: 'SequencePlayer', properties: { clip: 'run' } },
        l: { type: 'LayeredBlendPerBone', inputs: { base: 'a', layers: ['b', 'c'] }, properties: { layers: [{ filters: [{ bone: 'spine_01' }], weight: layerWeight }, { filters: [{ bone: 'neck' }], weight: 1 }] } },
      }, 'l');
      ['idle', 'walk', 'run'].forEach((clip, i) => withKeys(g, clip, [keys[i]]));
      g.update(0.1);
      return g.curve('c');
    };
    // Added in order, each at weight 1: the base, the first layer (the sum held at the largest double), the second.
    expect(layered([HUGE, HUGE, 0])).toBe(HUGE);
    expect(layered([-HUGE, -1e308, 0])).toBe(-HUGE);
    expect(layered([HUGE, HUGE, -HUGE])).toBe(0);
    expect(layered([HUGE, 1e308, -1e308])).toBe(HUGE - 1e308);
    // Ordinary sums as before.
    expect(layered([1e307, 2e307, -3e306], 0.5)).toBe(1e307 + 2e307 * 0.5 + -3e306);
  });

  it('throws for a curve name no clip has, listing those there are', () => {
    const g = instance(curves, blend(0.5), 'blend');
    expect(() => g.curve('leen')).toThrow(/no clip .* has a curve 'leen' \(curves: arms, lean\)/);
  });
});

describe('clip notifies and curves: load errors', () => {
  it('reports notifies outside the clip, ranges ending before they start and unsorted curve keys, all at once', () => {
    const result = checkGraphAsset({
      format: 'animgraph/1',
      skeleton: 'builtin:biped',
      clips: {
        idle: {
          source: 'builtin:idle',
          notifies: [{ name: 'late', time: 2.5 }, { name: 'back', start: 1, end: 0.5 }, { name: 'ok', start: 0, end: 2 }, { name: 'neg', start: -1, end: 3 }],
          curves: { lean: [[0, 0], [1, 1], [1, 2]], ok: [[0, 1]] },
        },
        walk: { source: 'builtin:walk', notifies: [{ name: 'both', time: 1, start: 0 }], curves: { empty: [] } },
      },
      nodes: { p: { type: 'SequencePlayer', properties: { clip: 'idle' } } },
      output: 'p',
    });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems.map((p) => [p.path, p.code]);
    expect(problems).toEqual(expect.arrayContaining([
      ['$.clips.idle.notifies[0].time', 'notify-time'],
      ['$.clips.idle.notifies[1].end', 'notify-time'],
      ['$.clips.idle.notifies[3].start', 'notify-time'],
      ['$.clips.idle.notifies[3].end', 'notify-time'],
      ['$.clips.idle.curves.lean[2][0]', 'curve-keys'],
    ]));
    expect(problems.filter(([path]) => String(path).startsWith('$.clips.walk')).map(([, code]) => code)).toContain('schema');
    expect(problems.filter(([path]) => String(path).startsWith('$.clips.idle'))).toHaveLength(5);
  });
});
