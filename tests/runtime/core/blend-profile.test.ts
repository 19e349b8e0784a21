import { describe, expect, it } from 'vitest';
import { blendProfileProblems, resolveBlendProfile, type BlendProfileJson } from '../../../runtime/core/blend-profile.ts';
import { LINEAR_BLEND, namedBlendCurve } from '../../../runtime/core/blend-curve.ts';
import { Crossfade } from '../../../runtime/jobs/crossfade.ts';
import type { UpdateContext } from '../../../runtime/node/node.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { runProbe } from '../../support/allocation.ts';

// Bone A is the root, B its child, C B's child.
const skeleton = new Skeleton(['A', 'B', 'C'], [-1, 0, 1]);
const frame = (deltaTime: number) => ({ deltaTime }) as UpdateContext;
const profile = (json: BlendProfileJson) => resolveBlendProfile('p', json, skeleton);
/** Weight of input `input` on bone `bone` (3 bones per input). */
const boneWeight = (f: Crossfade, input: number, bone: number) => f.boneWeights[input * 3 + bone];

/** A crossfade of two inputs, settled on input 0, then fading to 1 over 1 s with `json`. */
function fadeWith(json: BlendProfileJson | null, cubic = false): Crossfade {
  const f = new Crossfade(2, 3);
  f.jumpTo(0);
  f.advance(frame(0));
  f.duration = 1;
  f.curve = cubic ? namedBlendCurve('cubic') : LINEAR_BLEND;
  f.profile = json && profile(json);
  f.fadeTo(1);
  return f;
}

describe('blend profiles: resolving', () => {
  it('sets bones, branches (with or without descendants) and leaves the rest at the mode default', () => {
    expect(Array.from(profile({ mode: 'timeFactor', bones: { B: 0.5 } }).scales)).toEqual([1, 0.5, 1]);
    expect(Array.from(profile({ mode: 'timeFactor', branches: [{ bone: 'B', scale: 0.25 }] }).scales)).toEqual([1, 0.25, 0.25]);
    expect(Array.from(profile({ mode: 'weightFactor', branches: [{ bone: 'A', scale: 2, includeDescendants: false }], bones: { C: 0 } }).scales)).toEqual([2, 1, 0]);
    // A blendMask is 0 where not set; filters ramp with blend depth as the layered blend's do.
    expect(Array.from(profile({ mode: 'blendMask', bones: { B: 0.5 } }).scales)).toEqual([0, 0.5, 0]);
    expect(Array.from(profile({ mode: 'blendMask', filters: [{ bone: 'A', depth: 3 }], bones: { C: 0.1 } }).scales)).toEqual([1 / 3, 2 / 3, 0.1]);
  });

  it('reports unknown bones, out-of-range scales and filters outside a blendMask, each at its path', () => {
    const problems = blendProfileProblems({
      mode: 'timeFactor', bones: { X: 0.5, B: 2 }, branches: [{ bone: 'Y', scale: 0.5 }], filters: [{ bone: 'A', depth: 0 }],
    }, skeleton);
    expect(problems.map((p) => [p.path.join('.'), p.code])).toEqual([
      ['bones.X', 'unknown-bone'], ['bones.B', 'schema'], ['branches.0.bone', 'unknown-bone'], ['filters', 'schema'],
    ]);
    expect(blendProfileProblems({ mode: 'weightFactor', bones: { B: 5 } }, skeleton)).toEqual([]);
    expect(blendProfileProblems({ mode: 'blendMask', filters: [{ bone: 'Z', depth: 0 }] }, skeleton).map((p) => p.path.join('.'))).toEqual(['filters.0.bone']);
  });
});

describe('blend profiles: crossfade per bone', () => {
  it('timeFactor: bone B at 0.5 finishes at half the duration, A and C at the full one', () => {
    const f = fadeWith({ mode: 'timeFactor', bones: { B: 0.5 } });
    f.advance(frame(0.25));
    expect(boneWeight(f, 1, 0)).toBeCloseTo(0.25, 12);
    expect(boneWeight(f, 1, 1)).toBeCloseTo(0.5, 12);
    expect(boneWeight(f, 0, 1)).toBeCloseTo(0.5, 12);
    f.advance(frame(0.25));
    expect(boneWeight(f, 1, 1)).toBe(1);
    expect(boneWeight(f, 0, 1)).toBe(0);
    expect(boneWeight(f, 1, 0)).toBeCloseTo(0.5, 12);
    expect(boneWeight(f, 1, 2)).toBeCloseTo(0.5, 12);
    // An input weighs what its most-used bone does, normalised: input 0 still has A and C at 0.5.
    expect(Array.from(f.weights)).toEqual([0.5 / 1.5, 1 / 1.5]);
    expect(f.perBone).toBe(true);
    expect(f.advance(frame(0.5))).toBe(true);
    expect(f.perBone).toBe(false);
    expect(Array.from(f.weights)).toEqual([0, 1]);
  });

  it('timeFactor with the cubic curve eases each bone over its own time', () => {
    const f = fadeWith({ mode: 'timeFactor', bones: { B: 0.5 } }, true);
    f.advance(frame(0.125)); // B at a quarter of its 0.5 s
    expect(boneWeight(f, 1, 1)).toBeCloseTo(0.25 * 0.25 * (3 - 0.5), 12);
    expect(boneWeight(f, 1, 0)).toBeCloseTo(0.125 * 0.125 * (3 - 0.25), 12);
  });

  it('timeFactor 0 switches the bone at once; a zero duration switches every bone, without NaN', () => {
    const f = fadeWith({ mode: 'timeFactor', bones: { C: 0 } });
    f.advance(frame(0));
    expect(boneWeight(f, 1, 2)).toBe(1);
    expect(boneWeight(f, 1, 0)).toBe(0);
    const g = new Crossfade(2, 3);
    g.jumpTo(0);
    g.duration = 0;
    g.profile = profile({ mode: 'timeFactor', bones: { C: 0 } });
    g.fadeTo(1);
    expect(g.advance(frame(0))).toBe(true);
    expect(Array.from(g.weights)).toEqual([0, 1]);
  });

  it('weightFactor: the incoming weight times the scale, renormalised against the outgoing (Unreal)', () => {
    const f = fadeWith({ mode: 'weightFactor', bones: { B: 2, C: 0 } });
    f.advance(frame(0.25));
    expect(boneWeight(f, 1, 0)).toBeCloseTo(0.25, 12);
    // 0.25 × 2 against 0.75: 0.5 / 1.25.
    expect(boneWeight(f, 1, 1)).toBeCloseTo(0.4, 12);
    expect(boneWeight(f, 0, 1)).toBeCloseTo(0.6, 12);
    // Scale 0 holds the bone on the old pose until the fade ends.
    expect(boneWeight(f, 1, 2)).toBe(0);
    f.advance(frame(0.5));
    expect(boneWeight(f, 1, 1)).toBeCloseTo(1.5 / 1.75, 12);
    expect(boneWeight(f, 1, 2)).toBe(0);
    expect(f.advance(frame(0.25))).toBe(true);
    expect(Array.from(f.weights)).toEqual([0, 1]);
  });

  it('a fade interrupting a profiled one continues every bone from where it was (no pop)', () => {
    const f = new Crossfade(3, 3);
    f.jumpTo(0);
    f.duration = 1;
    f.profile = profile({ mode: 'timeFactor', bones: { B: 0.5 } });
    f.fadeTo(1);
    f.advance(frame(0.3));
    const before = Array.from(f.boneWeights);
    // Interrupted by a fade to input 2 without a profile: every bone from its own weights.
    f.profile = null;
    f.duration = 0.5;
    f.fadeTo(2);
    f.advance(frame(0));
    expect(Array.from(f.boneWeights)).toEqual(before);
    f.advance(frame(0.25));
    for (let b = 0; b < 3; b++) {
      expect(boneWeight(f, 0, b)).toBeCloseTo(before[b] * 0.5, 12);
      expect(boneWeight(f, 1, b)).toBeCloseTo(before[3 + b] * 0.5, 12);
      expect(boneWeight(f, 2, b)).toBeCloseTo(0.5, 12);
    }
    // Interrupted again by a profiled fade back to 0: again from each bone's weights.
    const mid = Array.from(f.boneWeights);
    f.profile = profile({ mode: 'timeFactor', bones: { A: 0 } });
    f.duration = 1;
    f.fadeTo(0);
    f.advance(frame(1e-9));
    for (let k = 0; k < 9; k++) if (k % 3 !== 0) expect(f.boneWeights[k]).toBeCloseTo(mid[k], 6);
    expect(boneWeight(f, 0, 0)).toBe(1); // A's scale 0: at once
  });

  it('restrictBones renormalises per bone over the inputs evaluated; a bone only a dropped input used goes to the first kept', () => {
    const f = fadeWith({ mode: 'timeFactor', bones: { B: 0.5 } });
    f.advance(frame(0.5)); // B all on input 1; A and C half and half
    f.restrictBones(Float64Array.of(0, 1));
    expect(Array.from(f.evaluateBoneWeights)).toEqual([0, 0, 0, 1, 1, 1]);
    f.restrictBones(Float64Array.of(1, 0));
    expect(Array.from(f.evaluateBoneWeights)).toEqual([1, 1, 1, 0, 0, 0]);
  });

  it('without a profile or per-bone state it is the plain crossfade (no per-bone arrays touched)', () => {
    const f = fadeWith(null);
    expect(f.perBone).toBe(false);
    f.advance(frame(0.25));
    expect(Array.from(f.weights)).toEqual([0.75, 0.25]);
  });
});

describe('blend profiles allocate nothing per frame', () => {
  it('in a plain Node process, while profiled crossfades, transitions and inertializations keep interrupting each other', () => {
    const result = runProbe('blend-profile-allocation-probe.ts');
    expect(result.switches / result.frames).toBeGreaterThan(0.4);
    // Filling each bone's start weight with TypedArray.fill boxed the weight at switches: 0.28 B/frame
    // here (most switches interrupt a per-bone fade, which copies instead). About 0.12 is the floor.
    expect(result.perFrame).toBeLessThan(0.25);
    expect(result.finite).toBe(true);
    // The probe stopped with profiles in use.
    expect(result.nodes.inert.blendProfile).toBe('legsFirst');
    expect(result.nodes.list.blendProfile).toBe('legsFirst');
  });
});
