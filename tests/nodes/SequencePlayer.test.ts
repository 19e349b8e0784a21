import { describe, expect, it } from 'vitest';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import { CLOCK_NUMBERS, ClipPlayback } from '../../runtime/jobs/clip-playback.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { bipedInstance, expectClose, hasNaN } from '../support/graphs.ts';

const walk = builtinClip('walk'); // 1.1 s, 34 frames at 30 fps
const reference = (time: number, loop = true) => {
  const pose = new Pose(22);
  return sampleClip(pose, new ClipBinding(walk, sampleSkeleton()), time, loop);
};

describe('SequencePlayer', () => {
  it('advances by delta time × play rate and samples the clip there', () => {
    const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 0.5 } } }, 'p');
    for (let i = 0; i < 10; i++) g.update(0.1);
    const pose = g.evaluate();
    expect(g.gatherDebug().children[0].values?.time).toBeCloseTo(0.5, 12);
    expectClose(pose.rotations, reference(0.5).rotations, 1e-12);
    // A different time would not pass: the walk moves between 0.5 s and 0.55 s.
    expect(() => expectClose(pose.rotations, reference(0.55).rotations, 1e-6)).toThrow();
  });

  it('keeps its clip clock in its instance\'s per-frame numbers, each player apart, the clock\'s values carried over', () => {
    const g = bipedInstance({
      a: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 0.5, startTime: 0.25 } },
      b: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 2 } },
      blend: { type: 'BlendTwo', inputs: { A: 'a', B: 'b' }, properties: { alpha: 0.5 } },
    }, 'blend');
    for (let i = 0; i < 3; i++) g.update(0.1);
    const times = g.gatherDebug().children[0].children.map((c) => c.values?.time as number);
    expect(times[0]).toBeCloseTo(0.25 + 0.15, 12);
    expect(times[1]).toBeCloseTo(0.6 % builtinClip('run').duration, 12);
    // Each time is in the instance's numbers, once: the two clocks do not share numbers.
    const numbers = Array.from(g.frameNumbers);
    expect(numbers.filter((v) => v === times[0])).toHaveLength(1);
    expect(numbers.filter((v) => v === times[1])).toHaveLength(1);
    // A clock moved into such numbers carries its values over and then reads and writes them there.
    const clock = new ClipPlayback(new ClipBinding(walk, sampleSkeleton()));
    clock.time = 0.3;
    clock.rate = 2;
    const into = new Float64Array(16);
    clock.useNumbers(into, -1); // a node without a reservation keeps its own
    expect(into[0]).toBe(0);
    clock.useNumbers(into, 5);
    expect(Array.from(into.subarray(5, 5 + CLOCK_NUMBERS))).toEqual([0.3, 2, 0, 1, 0, 0, 0, 0]);
    clock.time = 0.7;
    expect(into[5]).toBe(0.7);
    expect(clock.weight).toBe(1);
  });

  it('wraps when looping and emits sequenceLooped with the wrapped time', () => {
    const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'p');
    const loops: [string, string, number][] = [];
    g.events.on('sequenceLooped', (id, clip, time) => loops.push([id, clip, time]));
    g.update(1.0);
    g.update(0.3); // 1.3 s into a 1.1 s loop
    expect(loops).toHaveLength(1);
    expect(loops[0][0]).toBe('p');
    expect(loops[0][2]).toBeCloseTo(0.2, 12);
  });

  it('emits sequenceLooped once for an update that crosses several loops, with the wrapped time', () => {
    const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'p');
    const times: number[] = [];
    g.events.on('sequenceLooped', (_id, _clip, time) => times.push(time));
    g.update(3.5); // three wraps of the 1.1 s loop, in one update
    expect(times).toHaveLength(1);
    expect(times[0]).toBeCloseTo(3.5 - 3 * 1.1, 12);
  });

  it('plays backwards with a negative rate, wrapping below zero', () => {
    const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: -1, startTime: 0.1 } } }, 'p');
    g.update(0.3);
    expect(g.gatherDebug().children[0].values?.time).toBeCloseTo(0.9, 12);
  });

  it('holds the last frame without looping and emits sequenceEnded once', () => {
    const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk', loop: false } } }, 'p');
    let ended = 0;
    g.events.on('sequenceEnded', () => ended++);
    for (let i = 0; i < 30; i++) g.update(0.1);
    expect(ended).toBe(1);
    expect(g.gatherDebug().children[0].values?.time).toBe(1.1 * 1); // clip duration
    expect(Array.from(g.evaluate().rotations)).toEqual(Array.from(reference(1.1, false).rotations));
  });

  it('binds play rate and loop to parameters, read every frame', () => {
    const g = bipedInstance(
      { p: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'rate' }, loop: { param: 'loop' } } } },
      'p', { rate: { type: 'float', default: 2 }, loop: { type: 'bool', default: true } },
    );
    g.update(0.25);
    g.setParameter('rate', 0);
    g.update(0.25);
    expect(g.gatherDebug().children[0].values?.time).toBeCloseTo(0.5, 12);
  });

  it('starts at startTime (clamped to the clip) and returns there on reset', () => {
    const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk', startTime: 5 } } }, 'p');
    expect(g.gatherDebug().children[0].values?.time).toBeCloseTo(1.1, 12);
    g.update(0.05);
    g.reset();
    expect(g.gatherDebug().children[0].values?.time).toBeCloseTo(1.1, 12);
  });

  it('treats zero, negative and NaN delta time as no time passing, without NaN', () => {
    const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk', startTime: 0.3 } } }, 'p');
    for (const dt of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) g.update(dt);
    expect(g.gatherDebug().children[0].values?.time).toBeCloseTo(0.3, 12);
    const pose = g.evaluate();
    expect(hasNaN(pose.translations) || hasNaN(pose.rotations) || hasNaN(pose.scales)).toBe(false);
  });

  it('keeps a finite time in the clip when play rate × delta time overflows (issue 13, item 11)', () => {
    // 1.7e308 × 2 s is Infinity, and Infinity % duration is NaN: the time then stayed NaN for ever.
    for (const rate of [1.7e308, -1.7e308]) {
      const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'rate' } } } }, 'p', { rate: { type: 'float', default: rate } });
      for (const dt of [2, 0.1, 1e300, 1 / 30]) {
        g.update(dt);
        const time = g.gatherDebug().children[0].values?.time as number;
        expect(time).toBeGreaterThanOrEqual(0);
        expect(time).toBeLessThanOrEqual(1.1);
        expect(hasNaN(g.evaluate().rotations)).toBe(false);
      }
    }
    // The overflowing advance wraps as the exact product would: dt modulo one loop's period (1.1 s / rate), times the rate.
    // (1e303 × 1e6 s, the longest delta time an update takes, overflows.)
    const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 1e303 } } }, 'p');
    g.update(1e6);
    expect(g.gatherDebug().children[0].values?.time).toBe(((1e6 % (1.1 / 1e303)) * 1e303) % 1.1);
  });

  it('debug line names the clip and play time', () => {
    const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'p');
    g.update(0.5333);
    const line = g.gatherDebug().children[0];
    expect(line).toMatchObject({ type: 'SequencePlayer', id: 'p', weight: 1, description: "'walk' Play Time: 0.533", poseSource: true });
  });
});
