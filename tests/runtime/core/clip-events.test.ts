import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../../host/files.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import { ClipCurve } from '../../../runtime/core/clip-events.ts';
import { MAX_NOTIFY_LOOPS } from '../../../runtime/jobs/clip-playback.ts';
import { runProbe } from '../../support/allocation.ts';
import { CMU, describeWithData } from '../../support/shared-data.ts';

/**
 * Notifies and curves authored on clips. The built-in idle lasts 2 s, so steps
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

type Notify = { name: string; time: number } | { name: string; start: number; end: number };
type Fired = [frame: number, event: string, name: string];

/**
 * The notify events a looping clip of `duration` fires when frame f (from 1) moves its play time by
 * steps[f - 1], worked out on the unwrapped time line rather than by wrapping: a notify at clip
 * time t sits at t + k × duration for every whole k, and fires on each frame whose move reaches one
 * of them, in the order reached. Forwards a frame covers (before, after], backwards [after, before);
 * the first frame of a player covers its start time too (not a seek's or a sync follower's, which
 * start with a jump). A notify at the clip's end sits just before the next loop's start.
 */
function crossings(notifies: readonly Notify[], duration: number, steps: readonly number[], { start = 0, fromStart = true } = {}): Fired[] {
  const edges: { t: number; name: string; kind: number; order: number }[] = [];
  for (const n of notifies) {
    if ('time' in n) edges.push({ t: n.time, name: n.name, kind: 0, order: edges.length });
    else {
      edges.push({ t: n.start, name: n.name, kind: 1, order: edges.length });
      edges.push({ t: n.end, name: n.name, kind: 2, order: edges.length });
    }
  }
  const fired: Fired[] = [];
  let before = start;
  steps.forEach((step, index) => {
    const after = before + step, forward = step >= 0, first = index === 0 && fromStart;
    const hits: { x: number; order: number; event: string; name: string }[] = [];
    for (const e of edges) {
      const from = Math.floor(Math.min(before, after) / duration) - 1, to = Math.ceil(Math.max(before, after) / duration) + 1;
      for (let k = from; k <= to; k++) {
        const x = e.t === duration ? (k + 1) * duration - 1e-9 * duration : e.t + k * duration;
        const reached = forward
          ? (x > before || (first && x === before)) && x <= after
          : x >= after && (x < before || (first && x === before));
        if (reached) hits.push({ x, order: e.order, name: e.name, event: e.kind === 0 ? 'notify' : (e.kind === 1) === forward ? 'notifyBegin' : 'notifyEnd' });
      }
    }
    hits.sort((a, b) => (forward ? a.x - b.x || a.order - b.order : b.x - a.x || b.order - a.order));
    for (const h of hits) fired.push([index + 1, h.event, h.name]);
    before = after;
  });
  return fired;
}

/** Whether every range notify ends after it begins and begins again only once ended. */
function balanced(log: readonly (readonly unknown[])[]): boolean {
  const open = new Set<unknown>();
  for (const [, event, name] of log) {
    if (event === 'notifyBegin') {
      if (open.has(name)) return false;
      open.add(name);
    } else if (event === 'notifyEnd') {
      if (!open.delete(name)) return false;
    }
  }
  return true;
}

const fired = (log: readonly [number, string, string, string, number][]): Fired[] => log.map(([f, event, name]) => [f, event, name]);

describe('clip notifies over steps of several loops', () => {
  // builtin:run's first 9 frames at 30 fps: a loop of 8 / 30 = 0.267 s.
  const short = (notifies: Notify[], playRate: number) => instance(
    { run: { frames: [0, 8], notifies } }, { p: { type: 'SequencePlayer', properties: { clip: 'run', playRate } } }, 'p',
  );
  // Times chosen so that no crossing is within 1/60 s of clip time of a frame's end (exactly, 30t + 8k - 10f is never 0).
  const marks: Notify[] = [{ name: 'n', time: 0.1 }, { name: 'r', start: 0.05, end: 0.15 }];

  it('fires each crossing once, in order, when a frame crosses more than one loop (0.267 s at rate 10 and 30 fps)', () => {
    const g = short(marks, 10);
    const { log, frame } = record(g);
    run(g, frame, 100, 1 / 30);
    // 100 frames of 1/3 s of clip time: 33.33 s, so the notify at 0.1 s is crossed floor((33.33 - 0.1) / 0.2667) + 1 times.
    expect(log.filter(([, event]) => event === 'notify')).toHaveLength(125);
    expect(fired(log)).toEqual(crossings(marks, 8 / 30, Array(100).fill(10 / 30)));
    expect(balanced(log)).toBe(true);
    expect(log.every(([, , , node, weight]) => node === 'p' && weight === 1)).toBe(true);
  });

  it('fires each crossing once, in reverse order, playing backwards over more than one loop a frame', () => {
    const g = short(marks, -10);
    const { log, frame } = record(g);
    run(g, frame, 100, 1 / 30);
    expect(log.filter(([, event]) => event === 'notify')).toHaveLength(125);
    expect(fired(log)).toEqual(crossings(marks, 8 / 30, Array(100).fill(-10 / 30)));
    expect(balanced(log)).toBe(true);
  });

  it('fires every crossing of one long backwards frame (7.3 s of a 2 s clip)', () => {
    const notifies: Notify[] = [{ name: 'n', time: 0.5 }, { name: 'r', start: 1.2, end: 1.6 }];
    const g = instance({ idle: { notifies } }, idlePlayer({ playRate: -1 }), 'p');
    const { log, frame } = record(g);
    run(g, frame, 1, 7.3);
    // 0.5 is crossed at -1.5, -3.5 and -5.5; the range [1.2, 1.6] entered at -0.4 and left at -0.8, and so on.
    expect(log.filter(([, event]) => event === 'notify')).toHaveLength(3);
    expect(fired(log)).toEqual(crossings(notifies, 2, [-7.3]));
    expect(log.filter(([, event]) => event === 'notifyBegin')).toHaveLength(4);
    expect(balanced(log)).toBe(true);
  });

  it('fires every loop of a step of many loops, ranges balanced, then goes on from where the step ended', () => {
    const notifies: Notify[] = [{ name: 'n', time: 0.5 }, { name: 'r', start: 1, end: 1.5 }];
    const g = instance({ idle: { notifies } }, idlePlayer(), 'p');
    const { log, frame } = record(g);
    run(g, frame, 1, 21); // 10.5 loops
    run(g, frame, 2, 0.5); // the step ended on the range's start (21 s): it ends at 21.5 s
    expect(log.filter(([, event]) => event === 'notify')).toHaveLength(11);
    expect(log.filter(([, event]) => event === 'notifyBegin')).toHaveLength(11);
    expect(fired(log)).toEqual(crossings(notifies, 2, [21, 0.5, 0.5]));
    expect(balanced(log)).toBe(true);
  });

  it('fires each crossing once as the rate changes speed and direction, notifies at the ends and exactly on frame times included', () => {
    // Times on the grid of the steps (multiples of 0.25 s), except the range's edges: a play time
    // that turns back exactly on a range's edge does not cross it again (see docs/asset-format.md).
    const notifies: Notify[] = [{ name: 'start', time: 0 }, { name: 'end', time: 2 }, { name: 'half', time: 0.5 }, { name: 'r', start: 1.125, end: 1.625 }];
    const g = instance({ idle: { notifies } }, idlePlayer({ playRate: { param: 'rate' } }), 'p', { rate: { type: 'float', default: 1 } });
    const { log, frame } = record(g);
    const rates = [1, 1, 1, -16, -16, 20, -1, 0, 3, -9, 8, 1];
    for (const rate of rates) {
      g.setParameter('rate', rate);
      run(g, frame, 1);
    }
    expect(fired(log)).toEqual(crossings(notifies, 2, rates.map((rate) => rate * 0.25)));
    expect(log.length).toBeGreaterThan(30);
    expect(balanced(log)).toBe(true);
  });

  it('fires a notify at the clip\'s start once per wrap, the one at its end just before it, a step landing exactly on a loop\'s end included', () => {
    const notifies: Notify[] = [{ name: 'start', time: 0 }, { name: 'end', time: 2 }];
    const forward = instance({ idle: { notifies } }, idlePlayer(), 'p');
    const f = record(forward);
    run(forward, f.frame, 1, 4); // two loops exactly: the play time is 0 again
    expect(f.log.map(([, , name]) => name)).toEqual(['start', 'end', 'start', 'end', 'start']);
    run(forward, f.frame, 1, 0.5); // leaves 0 without crossing it again
    expect(f.log).toHaveLength(5);

    const backward = instance({ idle: { notifies } }, idlePlayer({ playRate: -1 }), 'p');
    const b = record(backward);
    run(backward, b.frame, 1, 4);
    expect(b.log.map(([, , name]) => name)).toEqual(['start', 'end', 'start', 'end', 'start']);
    run(backward, b.frame, 1, 0.5); // leaves 0 downwards: crosses into the loop before, at its end
    expect(fired(b.log)).toEqual(crossings(notifies, 2, [-4, -0.5]));
  });

  it('fires each notify of a non-looping clip at most once per pass, whatever the step', () => {
    const notifies: Notify[] = [{ name: 'start', time: 0 }, { name: 'n', time: 0.5 }, { name: 'r', start: 1, end: 1.5 }, { name: 'end', time: 2 }];
    const g = instance({ idle: { notifies } }, idlePlayer({ loop: false, playRate: { param: 'rate' } }), 'p', { rate: { type: 'float', default: 1 } });
    const { log, frame } = record(g);
    run(g, frame, 2, 100);
    g.setParameter('rate', -1);
    run(g, frame, 2, 100);
    expect(fired(log)).toEqual([
      [1, 'notify', 'start'], [1, 'notify', 'n'], [1, 'notifyBegin', 'r'], [1, 'notifyEnd', 'r'], [1, 'notify', 'end'],
      // Back from the end, which fired on arrival: the range entered at its end, the start reached.
      [3, 'notifyBegin', 'r'], [3, 'notifyEnd', 'r'], [3, 'notify', 'n'], [3, 'notify', 'start'],
    ]);
  });

  it('fires every crossing of an explicit time that moves several loops in one update (SequenceEvaluator)', () => {
    const notifies: Notify[] = [{ name: 'n', time: 0.5 }, { name: 'r', start: 1, end: 1.5 }];
    const g = instance({ idle: { notifies } }, {
      e: { type: 'SequenceEvaluator', properties: { clip: 'idle', explicitTime: { param: 't' }, loop: true } },
    }, 'e', { t: { type: 'float', default: 0.25 } });
    const { log, frame } = record(g);
    run(g, frame, 1); // the first seek: a jump, not a move
    for (const t of [6.75, -3.25, 0.75]) {
      g.setParameter('t', t);
      run(g, frame, 1);
    }
    const expected = crossings(notifies, 2, [6.5, -10, 4], { start: 0.25, fromStart: false }).map(([f, event, name]): Fired => [f + 1, event, name]);
    expect(fired(log)).toEqual(expected);
    expect(log.filter(([f, event]) => f === 2 && event === 'notify')).toHaveLength(4);
    expect(balanced(log)).toBe(true);
  });

  it('fires every crossing of a sync group\'s follower whose leader crosses more than one loop a frame', () => {
    const notifies: Notify[] = [{ name: 'n', time: 0.2 }, { name: 'r', start: 0.45, end: 0.6 }];
    const g = instance({ run: { notifies } }, {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk', syncGroup: 'gait' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run', syncGroup: 'gait' } },
      blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.3 } },
    }, 'blend');
    const { log, frame } = record(g);
    // The walk (1.1 s) leads, 1.3 loops a frame; the run (0.7 s) follows it at the same phase.
    run(g, frame, 40, 1.43);
    expect(fired(log)).toEqual(crossings(notifies, 0.7, Array(40).fill(1.3 * 0.7), { fromStart: false }));
    expect(log.filter(([, event]) => event === 'notify')).toHaveLength(52);
    expect(balanced(log)).toBe(true);
    // Backwards likewise.
    const back = instance({ run: { notifies } }, {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk', syncGroup: 'gait', playRate: -1 } },
      run: { type: 'SequencePlayer', properties: { clip: 'run', syncGroup: 'gait' } },
      blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.3 } },
    }, 'blend');
    const b = record(back);
    run(back, b.frame, 40, 1.43);
    expect(fired(b.log)).toEqual(crossings(notifies, 0.7, Array(40).fill(-1.3 * 0.7), { fromStart: false }));
  });

  it('fires every crossing of each of a blend space\'s samples, named by the blend space, when a frame crosses more than one loop', () => {
    const walkMarks: Notify[] = [{ name: 'w', time: 0.3 }, { name: 'wr', start: 0.5, end: 0.9 }];
    const runMarks: Notify[] = [{ name: 'n', time: 0.2 }];
    const g = instance({ walk: { notifies: walkMarks }, run: { notifies: runMarks } }, {
      // At x 0.25 the walk weighs 0.75 and the run 0.25: a mean length of 1 s, so a frame of 1.3 s is 1.3 loops.
      bs: { type: 'BlendSpace1D', properties: { samples: [{ clip: 'walk', x: 0 }, { clip: 'run', x: 1 }], x: 0.25 } },
    }, 'bs');
    const { log, frame } = record(g);
    run(g, frame, 30, 1.3);
    const walk = crossings(walkMarks, 1.1, Array(30).fill(1.3 * 1.1));
    const runs = crossings(runMarks, 0.7, Array(30).fill(1.3 * 0.7), { fromStart: false });
    // Each frame the samples report in the order written: the walk's, then the run's.
    const expected = Array.from({ length: 30 }, (_, i) => [...walk, ...runs].filter(([f]) => f === i + 1)).flat();
    expect(fired(log)).toEqual(expected);
    expect(log.filter(([, , name]) => name === 'n')).toHaveLength(39);
    expect(log.every(([, , , node]) => node === 'bs')).toBe(true);
    expect(balanced(log)).toBe(true);
  });

  it(`fires at most ${MAX_NOTIFY_LOOPS} whole loops a step, skipping the rest whole, and does not hang on a huge step`, () => {
    const notifies: Notify[] = [{ name: 'n', time: 0.5 }, { name: 'r', start: 1, end: 1.5 }];
    // A step of MAX_NOTIFY_LOOPS + 1 wraps fires every crossing: the loop it starts in, the whole loops, the loop it ends in.
    const full = instance({ idle: { notifies } }, idlePlayer(), 'p');
    const f = record(full);
    run(full, f.frame, 1, 2 * (MAX_NOTIFY_LOOPS + 1) + 1);
    expect(fired(f.log)).toEqual(crossings(notifies, 2, [2 * (MAX_NOTIFY_LOOPS + 1) + 1]));
    expect(f.log.filter(([, event]) => event === 'notify')).toHaveLength(MAX_NOTIFY_LOOPS + 2);
    // One wrap more: a whole loop is skipped, every notify of it, so ranges stay balanced.
    const capped = instance({ idle: { notifies } }, idlePlayer(), 'p');
    const c = record(capped);
    run(capped, c.frame, 1, 2 * (MAX_NOTIFY_LOOPS + 2) + 1);
    expect(c.log.filter(([, event]) => event === 'notify')).toHaveLength(MAX_NOTIFY_LOOPS + 2);
    expect(fired(c.log)).toEqual(fired(f.log));
    expect(balanced(c.log)).toBe(true);
    // Then it goes on from where the step ended, the range's start (1 s into the loop), to its end.
    run(capped, c.frame, 1, 0.5);
    expect(fired(c.log).slice(MAX_NOTIFY_LOOPS * 3 + 5)).toEqual([[2, 'notifyEnd', 'r']]);

    // 1e6 s of a 0.1 s clip (builtin:run's first 4 frames), forwards and backwards, and a rate near
    // the largest double whose step overflows: ten million loops and more, in a bounded number of events.
    for (const [rate, dt] of [[1, 1e6], [-1, 1e6], [1.7e308, 10]]) {
      const g = instance({ run: { frames: [0, 3], notifies: [{ name: 'n', time: 0.05 }, { name: 'r', start: 0.02, end: 0.08 }] } },
        { p: { type: 'SequencePlayer', properties: { clip: 'run', playRate: { param: 'rate' } } } }, 'p', { rate: { type: 'float', default: 1 } });
      g.setParameter('rate', rate);
      const { log, frame } = record(g);
      run(g, frame, 3, dt);
      for (const f of [1, 2, 3]) {
        const count = log.filter(([n, event]) => n === f && event === 'notify').length;
        expect(count).toBeGreaterThanOrEqual(MAX_NOTIFY_LOOPS);
        expect(count).toBeLessThanOrEqual(MAX_NOTIFY_LOOPS + 2);
      }
      expect(balanced(log)).toBe(true);
      expect(Number.isFinite(g.gatherDebug().children[0].values?.time as number)).toBe(true);
    }
  });
});

describe('clip notifies over steps of several loops: allocation', () => {
  it('allocates nothing per frame firing every loop of long steps, listened to, the cap reached, V8 inlining as it likes or only small functions', () => {
    for (const flags of [[], ['--max-inlined-bytecode-size=50']]) {
      const result = runProbe<{ perFrame: number; eventsPerFrame: number; byNode: Record<string, number> }>('notify-allocation-probe.ts', flags);
      expect(result.perFrame, flags.join(' ')).toBeLessThan(1);
      // The capped player alone fires its notify MAX_NOTIFY_LOOPS times a frame and more.
      expect(result.eventsPerFrame).toBeGreaterThan(MAX_NOTIFY_LOOPS);
      expect(Object.keys(result.byNode).sort()).toEqual(['back', 'capped', 'follow', 'lead', 'seek', 'space']);
    }
  }, 120_000);
});

describeWithData('clip notifies over steps of several loops, on CMU captures', () => {
  const take = (file: string, frames: number[], notifies: Notify[], playRate: number) => loadGraphAsset({
    format: 'animgraph/1', skeleton: { bvh: `${CMU}${file}.bvh` },
    clips: { c: { source: `${CMU}${file}.bvh`, frames, notifies } },
    nodes: { p: { type: 'SequencePlayer', properties: { clip: 'c', playRate } } }, output: 'p',
  }).createInstance();

  it('fires all 125 crossings of 100 frames at 30 fps of a 0.267 s run cycle at rate 10 (it fired 101, one a frame)', () => {
    const notifies: Notify[] = [{ name: 'n', time: 0.1 }];
    const g = take('002_03', [1, 17], notifies, 10);
    const duration = g.graph.clipBindings.get('c')!.clip.duration;
    expect(duration).toBeCloseTo(0.2667, 4);
    const { log, frame } = record(g);
    run(g, frame, 100, 1 / 30);
    expect(log).toHaveLength(Math.floor((100 * (10 / 30) - 0.1) / duration) + 1);
    expect(log).toHaveLength(125);
    expect(fired(log)).toEqual(crossings(notifies, duration, Array(100).fill(10 / 30)));
  });

  it('fires all 3 crossings of one 7.3 s backwards frame of a 2.8 s walk (it fired one)', () => {
    const notifies: Notify[] = [{ name: 'n', time: 1.5 }];
    const g = take('002_01', [1, -1], notifies, -1);
    const duration = g.graph.clipBindings.get('c')!.clip.duration;
    const { log, frame } = record(g);
    run(g, frame, 1, 7.3);
    expect(fired(log)).toEqual([[1, 'notify', 'n'], [1, 'notify', 'n'], [1, 'notify', 'n']]);
    expect(fired(log)).toEqual(crossings(notifies, duration, [-7.3]));
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
