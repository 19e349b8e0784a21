/**
 * chooseFrameRate and FramePacer: how often the viewer and the editor's preview simulate and draw,
 * by the WebGL renderer's name and the page's query. (In headless Chromium, tests/view/viewer.test.ts
 * checks what the page reports on SwiftShader and with `?fps=`.)
 */
import { describe, expect, it } from 'vitest';
import { chooseFrameRate, FramePacer, MIN_FRAME_RATE, SOFTWARE_FRAME_RATE } from '../../viewer/frame-rate.ts';

const SWIFTSHADER = 'ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)';
const LLVMPIPE = 'llvmpipe (LLVM 15.0.6, 256 bits)';
const NVIDIA = 'ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 (0x00002504) Direct3D11 vs_5_0 ps_5_0, D3D11)';

/** Which of `count` display frames at `hz` (first at t0, each `jitter(i)` ms off its time) a pacer at `rate` takes. */
function taken(rate: number, hz: number, count: number, jitter: (i: number) => number = () => 0, t0 = 1000): number[] {
  const pacer = new FramePacer(rate), out: number[] = [];
  for (let i = 0; i < count; i++) if (pacer.due(t0 + (i * 1000) / hz + jitter(i))) out.push(i);
  return out;
}

describe('chooseFrameRate', () => {
  it('keeps to 30 frames a second on a software renderer, and to the display on a GPU or an unnamed one', () => {
    expect(SOFTWARE_FRAME_RATE).toBe(30);
    expect(chooseFrameRate('', SWIFTSHADER)).toBe(30);
    expect(chooseFrameRate('', LLVMPIPE)).toBe(30);
    expect(chooseFrameRate('', NVIDIA)).toBe(0);
    expect(chooseFrameRate('', null)).toBe(0);
  });

  it('does as the page\'s ?fps says, whatever the renderer; any other value leaves the choice to the renderer', () => {
    for (const renderer of [SWIFTSHADER, NVIDIA, null]) {
      expect(chooseFrameRate('?fps=0', renderer)).toBe(0);
      expect(chooseFrameRate('?x=1&fps=12', renderer)).toBe(12);
      expect(chooseFrameRate('?fps=59.5', renderer)).toBe(59.5);
      // Below 10 a second, the pages' 0.1 s cap on a frame's step would slow the character down.
      expect(chooseFrameRate('?fps=2', renderer)).toBe(MIN_FRAME_RATE);
      expect(chooseFrameRate('?fps=0.001', renderer)).toBe(10);
    }
    for (const junk of ['?fps=', '?fps=-5', '?fps=fast', '?fps=Infinity', '?fps=%20']) {
      expect(chooseFrameRate(junk, SWIFTSHADER), junk).toBe(30);
      expect(chooseFrameRate(junk, NVIDIA), junk).toBe(0);
    }
  });
});

describe('FramePacer', () => {
  it('takes every display frame at rate 0', () => {
    expect(taken(0, 60, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('takes every second frame of a 60 Hz display at 30, every fourth at 15, the first frame always', () => {
    expect(taken(30, 60, 10)).toEqual([0, 2, 4, 6, 8]);
    expect(taken(15, 60, 12)).toEqual([0, 4, 8]);
    expect(taken(10, 60, 13)).toEqual([0, 6, 12]);
    expect(taken(30, 60, 1, () => 0, 0)).toEqual([0]);
  });

  it('keeps every second frame of a 60 Hz display when callbacks come up to 2 ms early or late', () => {
    // Second frames come 29.3 to 37.3 ms after the last taken (the threshold is 28.3), first ones 12.7 to 20.7.
    expect(taken(30, 60, 12, (i) => (i % 2 === 0 ? 2 : -2))).toEqual([0, 2, 4, 6, 8, 10]);
    expect(taken(30, 60, 12, (i) => (i % 2 === 0 ? -2 : 2))).toEqual([0, 2, 4, 6, 8, 10]);
  });

  it('takes every frame of a display slower than the rate (a busy machine dropping frames)', () => {
    expect(taken(30, 20, 6)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('takes every fourth frame of a 120 Hz display at 30, every third of a 75 Hz one (25 a second), every fifth of a 144 Hz one (28.8)', () => {
    expect(taken(30, 120, 10)).toEqual([0, 4, 8]);
    expect(taken(30, 75, 10)).toEqual([0, 3, 6, 9]);
    expect(taken(30, 144, 11)).toEqual([0, 5, 10]);
  });

  it('allows half the interval early at high rates: every frame of a 240 Hz display at 240', () => {
    expect(taken(240, 240, 6, (i) => (i % 2 === 0 ? 1 : -1))).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
