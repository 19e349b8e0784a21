import { describe, expect, it } from 'vitest';
import { Clip, ClipBinding } from '../../../runtime/core/clip.ts';
import { CLIP_ENDED, CLIP_LOOPED, ClipPlayback } from '../../../runtime/jobs/clip-playback.ts';
import { Crossfade } from '../../../runtime/jobs/crossfade.ts';
import { InertialTransition, TRANSITION_INTERRUPTED, TRANSITION_STARTED } from '../../../runtime/jobs/inertial-transition.ts';
import type { UpdateContext } from '../../../runtime/node/node.ts';
import { Pose } from '../../../runtime/core/pose.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';

const skeleton = new Skeleton(['root'], [-1]);
// 11 keys at 10 fps: a clip of exactly 1 s.
const clip = new Clip({ name: 'one', frameRate: 10, frameCount: 11, tracks: [{ bone: 'root', translation: true, rotation: false, scale: false }] });
const binding = new ClipBinding(clip, skeleton);
const frame = (deltaTime: number) => ({ deltaTime }) as UpdateContext;

describe('ClipPlayback', () => {
  it('wraps a looping clip, reporting the loop, and holds a non-looping one at its end, reporting the arrival once', () => {
    const p = new ClipPlayback(binding);
    p.looping = true;
    p.time = 0.75;
    expect(p.advance(frame(0.5))).toBe(CLIP_LOOPED);
    expect(p.time).toBeCloseTo(0.25, 15);
    expect(p.previousTime).toBe(0.75);
    expect(p.wrapped).toBe(true);
    // The flags share one field: each reads back as set, whatever the others do.
    expect([p.looping, p.direction, p.moved, p.paceKnown, p.atEnd]).toEqual([true, 1, true, true, false]);
    p.looping = false;
    expect([p.looping, p.wrapped, p.moved]).toEqual([false, true, true]);
    p.rate = 2;
    expect(p.advance(frame(0.25))).toBe(0);
    expect(p.time).toBeCloseTo(0.75, 15);
    expect(p.advance(frame(0.25))).toBe(CLIP_ENDED);
    expect(p.time).toBe(1);
    expect(p.pace).toBe(0);
    expect([p.atEnd, p.wrapped, p.looping, p.direction]).toEqual([true, false, false, 1]);
    // Held at the end, including across a frame of no time: no second arrival.
    expect(p.advance(frame(0))).toBe(0);
    expect(p.advance(frame(0.25))).toBe(0);
    p.rate = -1;
    expect(p.advance(frame(0.25))).toBe(0);
    expect(p.time).toBe(0.75);
    expect(p.direction).toBe(-1);
    expect(p.atEnd).toBe(false);
    p.restart();
    expect([p.moved, p.atEnd, p.direction]).toEqual([false, false, -1]);
  });

  it('records the clip time an advance covers, the whole loops a wrap hides included (what notifies are fired over)', () => {
    const p = new ClipPlayback(binding);
    p.looping = true;
    p.time = 0.75;
    p.rate = 2;
    expect(p.advance(frame(1.5))).toBe(CLIP_LOOPED); // 0.75 + 3: three wraps
    expect(p.time).toBeCloseTo(0.75, 15);
    expect(p.timeStep).toBe(3);
    p.rate = -0.5;
    p.advance(frame(0.25));
    expect(p.timeStep).toBe(-0.125);
    // Held at either end of a clip that does not loop, only what it moved.
    p.looping = false;
    p.rate = 4;
    p.time = 0.25;
    expect(p.advance(frame(1))).toBe(CLIP_ENDED);
    expect(p.timeStep).toBe(0.75);
    p.advance(frame(1));
    expect(p.timeStep).toBe(0);
  });

  it('seeks to an explicit time, counting the whole loops a wrap hides, with no span before a predecessor', () => {
    const p = new ClipPlayback(binding);
    p.looping = true;
    p.seekTime = 0.25;
    p.seek(frame(0.1));
    expect(p.moved).toBe(false);
    expect(p.timeStep).toBe(0);
    p.seekTime = 2.5;
    p.seek(frame(0.1));
    expect(p.time).toBeCloseTo(0.5, 15);
    expect(p.timeStep).toBe(2.25);
    expect(p.wrapped).toBe(true);
    expect(p.pace).toBeCloseTo(22.5, 12);
    p.forgetSeek();
    p.seekTime = 0.75;
    p.seek(frame(0));
    expect(p.moved).toBe(false);
    expect(p.paceKnown).toBe(false);
  });
});

describe('Crossfade', () => {
  it('fades linearly to the target and, interrupted, fades on from the weights it had', () => {
    const f = new Crossfade(3);
    f.jumpTo(0);
    f.duration = 1;
    f.fadeTo(1);
    expect(f.advance(frame(0.25))).toBe(false);
    expect(Array.from(f.weights)).toEqual([0.75, 0.25, 0]);
    f.duration = 0.5;
    f.fadeTo(2);
    expect(f.advance(frame(0.25))).toBe(false);
    expect(Array.from(f.weights)).toEqual([0.375, 0.125, 0.5]);
    expect(f.advance(frame(0.25))).toBe(true);
    expect(Array.from(f.weights)).toEqual([0, 0, 1]);
    expect(f.fading).toBe(false);
  });

  it('switches at once for a duration of 0 or NaN', () => {
    const f = new Crossfade(2);
    f.jumpTo(0);
    f.duration = Number.NaN;
    f.fadeTo(1);
    // fadeTo reads no number (see its comment): the NaN stays, and advance takes it as 0.
    expect(f.fading).toBe(false);
    expect(f.advance(frame(1 / 60))).toBe(true);
    expect(Array.from(f.weights)).toEqual([0, 1]);
    f.duration = 0;
    f.fadeTo(0);
    expect(f.advance(frame(0))).toBe(true);
    expect(Array.from(f.weights)).toEqual([1, 0]);
  });
});

describe('InertialTransition', () => {
  it('records poses the time updated apart, once per update however often evaluated', () => {
    const t = new InertialTransition(1);
    const at = (x: number) => { const p = new Pose(1); p.translations[0] = x; return p; };
    t.update(frame(0.1));
    t.evaluate(at(1));
    // Two updates before the next evaluate (a character not drawn for a frame): 0.2 s apart.
    t.update(frame(0.1));
    t.update(frame(0.1));
    t.evaluate(at(3));
    expect(Array.from(t.history.deltaTimes)).toEqual([0.2, 0]);
    // Evaluated again before the next update: the pose replaces the last, 0.2 s after the first still.
    t.evaluate(at(4));
    expect(Array.from(t.history.deltaTimes)).toEqual([0.2, 0]);
    expect([t.history.previous.translations[0], t.history.older.translations[0]]).toEqual([4, 1]);
    t.update(frame(0.1));
    t.evaluate(at(5));
    expect(Array.from(t.history.deltaTimes)).toEqual([0.1, 0.2]);
    expect([t.history.previous.translations[0], t.history.older.translations[0]]).toEqual([5, 4]);
  });

  it('starts a requested transition at evaluate from the poses recorded, and reports one it interrupts', () => {
    const t = new InertialTransition(1);
    const pose = new Pose(1);
    pose.translations[0] = 1;
    t.update(frame(1 / 60));
    expect(t.evaluate(pose)).toBe(0);
    const target = new Pose(1);
    t.duration = 0.5;
    expect(t.update(frame(1 / 60), true)).toBe(false);
    expect(t.evaluate(target)).toBe(TRANSITION_STARTED);
    expect(t.startedDuration).toBe(0.5);
    // The switch frame is time 0 of the transition: it outputs the last pose.
    expect(target.translations[0]).toBeCloseTo(1, 12);
    t.duration = 0.25;
    expect(t.update(frame(1 / 60), true)).toBe(false);
    expect(t.evaluate(new Pose(1))).toBe(TRANSITION_STARTED | TRANSITION_INTERRUPTED);
    expect(t.interruptedDuration).toBe(0.5);
    expect(t.startedDuration).toBe(0.25);
    let ended = false;
    for (let i = 0; i < 20 && !ended; i++) ended = t.update(frame(1 / 60));
    expect(ended).toBe(true);
    expect(t.active).toBe(false);
  });
});
