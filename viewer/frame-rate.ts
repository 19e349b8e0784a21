/**
 * How often the 3D view simulates and draws. On a GPU, every frame the display shows. On a
 * software WebGL renderer (SwiftShader, llvmpipe: a machine or virtual machine without a GPU,
 * headless Chromium) every second frame of a 60 Hz display, about 30 a second, because there each
 * frame drawn costs the CPU far more than the graph's evaluation: in headless Chromium on a 2-core
 * AMD EPYC VM the sample graph playing at 60 frames a second kept 1.7 cores busy, and 1.0 at 30.
 * The character moves by the time that passed, so it plays at the same speed either way. `?fps=N`
 * on the page's URL asks for about N frames a second (10 or more) whatever the renderer, `?fps=0`
 * for every frame the display shows.
 */
import { SOFTWARE_RENDERER } from './antialias.ts';

/** The frame rate the view keeps to on a software renderer (chooseFrameRate). */
export const SOFTWARE_FRAME_RATE = 30;

/**
 * The lowest rate `?fps=` sets: the pages step a character by at most 0.1 s a frame (so that a
 * long pause, a background tab, is one short step rather than a jump), so below 10 frames a
 * second the character would play slower than time passes.
 */
export const MIN_FRAME_RATE = 10;

/**
 * About how many frames a second the view simulates and draws (0: every display frame): `?fps=` from
 * `search` where it is a number from 0 up (0 as it is, one between 0 and MIN_FRAME_RATE raised to
 * it), else SOFTWARE_FRAME_RATE on a software renderer (SOFTWARE_RENDERER) and 0 elsewhere.
 */
export function chooseFrameRate(search: string, renderer: string | null): number {
  const asked = new URLSearchParams(search).get('fps');
  if (asked !== null && asked.trim() !== '') {
    const n = Number(asked);
    if (Number.isFinite(n) && n >= 0) return n === 0 ? 0 : Math.max(n, MIN_FRAME_RATE);
  }
  return renderer !== null && SOFTWARE_RENDERER.test(renderer) ? SOFTWARE_FRAME_RATE : 0;
}

/**
 * Which display frames (requestAnimationFrame callbacks) the view takes, to keep to about `rate`
 * frames a second (0: all of them). A frame is taken once the interval 1/rate has passed since the
 * last one taken, less 5 ms (at most half the interval): display frames come at a steady rate with
 * some jitter, so waiting for the whole interval would skip one frame more whenever a callback came
 * a little early (on a 60 Hz display, 30 a second would fall to 20).
 */
export class FramePacer {
  private last = -Infinity;
  private readonly early: number;
  constructor(readonly rate: number) {
    const interval = rate > 0 ? 1000 / rate : 0;
    this.early = interval - Math.min(5, interval / 2);
  }

  /** Whether the display frame at `now` (milliseconds, requestAnimationFrame's time) is one to simulate and draw. */
  due(now: number): boolean {
    if (!(this.rate > 0)) return true;
    if (now - this.last < this.early) return false;
    this.last = now;
    return true;
  }
}
