import { describe, expect, it } from 'vitest';
import {
  BLEND_CURVES, blendCurveSchema, compileBlendCurve, easeAt, namedBlendCurve, reentryShareAt, type BlendCurve, type BlendCurveName,
} from '../../../runtime/core/blend-curve.ts';
import { ClipCurve } from '../../../runtime/core/clip-events.ts';

const at = (curve: BlendCurve, p: number) => {
  const v = Float64Array.of(p);
  easeAt(curve, v, 0);
  return v[0];
};
const named = (name: BlendCurveName, p: number) => at(namedBlendCurve(name), p);

describe('blend curves', () => {
  it('gives Unreal\'s value of each named curve (FAlphaBlend::AlphaToBlendOption) at points worked by hand', () => {
    const cases: [BlendCurveName, number, number][] = [
      ['linear', 0.3, 0.3],
      ['cubic', 0.25, 0.15625], // 3p² − 2p³
      ['hermiteCubic', 0.25, 0.15625],
      ['sinusoidal', 0.25, (1 - Math.SQRT1_2) / 2], // (sin(−π/4) + 1) / 2
      ['quadraticInOut', 0.25, 0.125], // (0.5)² / 2
      ['quadraticInOut', 0.75, 0.875],
      ['cubicInOut', 0.75, 0.9375], // 1 − (0.5)³ / 2
      ['quarticInOut', 0.75, 0.96875],
      ['quinticInOut', 0.25, 0.015625],
      ['circularIn', 0.6, 0.2], // 1 − √(1 − 0.36)
      ['circularOut', 0.4, 0.8], // √(1 − 0.36)
      ['circularInOut', 0.25, (1 - Math.sqrt(0.75)) / 2],
      ['circularInOut', 0.75, (Math.sqrt(0.75) + 1) / 2],
      ['expIn', 0.5, 2 ** -5],
      ['expIn', 0, 0],
      ['expOut', 0.5, 1 - 2 ** -5],
      ['expOut', 1, 1],
      ['expInOut', 0.25, 2 ** -5 / 2],
      ['expInOut', 0.75, (1 - 2 ** -5) / 2 + 0.5],
    ];
    for (const [name, p, expected] of cases) expect(named(name, p), `${name}(${p})`).toBeCloseTo(expected, 14);
  });

  it('runs every named curve from 0 to 1 without a step, clamps the progress, and reads NaN as 0', () => {
    for (const name of BLEND_CURVES) {
      expect(named(name, 0), name).toBe(0);
      expect(named(name, 1), name).toBe(1);
      expect(named(name, 2), name).toBe(1);
      expect(named(name, -1), name).toBe(0);
      expect(named(name, Number.NaN), name).toBe(0);
      let previous = 0;
      for (let i = 1; i <= 1000; i++) {
        const v = named(name, i / 1000);
        expect(v, `${name} at ${i / 1000}`).toBeGreaterThanOrEqual(previous);
        previous = v;
      }
    }
  });

  it('reads a custom curve over its keys\' time span, linear between keys, clamped to [0, 1]', () => {
    const keys = compileBlendCurve({ keys: [[2, 0], [3, 0.8], [4, 1.5]] }, () => undefined) as BlendCurve;
    expect(at(keys, 0.25)).toBeCloseTo(0.4, 14); // time 2.5
    expect(at(keys, 0.75)).toBe(1); // 1.15, clamped
    const clip = compileBlendCurve({ clip: 'walk', curve: 'ease' }, (name) => (name === 'walk' ? [new ClipCurve('ease', Float64Array.of(0, 0.5, 1), Float64Array.of(0, 0.2, 1))] : undefined)) as BlendCurve;
    expect(at(clip, 0.25)).toBeCloseTo(0.1, 14);
    expect(at(clip, 0.75)).toBeCloseTo(0.6, 14);
    expect(compileBlendCurve({ clip: 'walk', curve: 'nope' }, () => [])).toBe("clip 'walk' has no curve 'nope' (it has none)");
    expect(compileBlendCurve({ clip: 'run', curve: 'x' }, () => undefined)).toBe("unknown clip 'run'");
    expect(compileBlendCurve({ keys: [[0, 0], [0, 1]] }, () => undefined)).toBe("the keys' times must increase (key 1 at 0 after 0)");
    expect(blendCurveSchema.safeParse('smoothstep').success).toBe(false);
  });

  it('shortens a blend into a state at weight w to 1 − w of its time, and hermiteCubic by Unreal\'s cubic of 1 − w', () => {
    const share = (name: BlendCurveName, w: number) => {
      const v = Float64Array.of(w);
      reentryShareAt(namedBlendCurve(name), v, 0);
      return v[0];
    };
    expect(share('linear', 0.74)).toBeCloseTo(0.26, 14);
    expect(share('cubic', 0.74)).toBeCloseTo(0.26, 14);
    const f = 0.26;
    expect(share('hermiteCubic', 0.74)).toBeCloseTo((4 / 3) * f ** 3 - 2 * f ** 2 + (5 / 3) * f, 14);
    expect(share('hermiteCubic', 0)).toBeCloseTo(1, 14);
    expect(share('linear', 1)).toBe(0);
  });
});
