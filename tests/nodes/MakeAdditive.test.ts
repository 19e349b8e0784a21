import { describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../host/files.ts';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import { quatMultiply } from '../../runtime/core/math.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { expectClose } from '../support/graphs.ts';

const skeleton = sampleSkeleton();
const sample = (clip: string, time: number) => sampleClip(new Pose(22), new ClipBinding(builtinClip(clip), skeleton), time, true);

function biped(nodes: Record<string, unknown>, output: string, clips: Record<string, unknown> = {}) {
  return loadGraphAsset({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' }, ...clips },
    nodes,
    output,
  }).createInstance();
}

/** Compares rotations up to sign (q and -q are one rotation). */
function expectSameRotations(a: Float64Array, b: Float64Array, tolerance: number): void {
  for (let o = 0; o < a.length; o += 4) {
    const dot = a[o] * b[o] + a[o + 1] * b[o + 1] + a[o + 2] * b[o + 2] + a[o + 3] * b[o + 3];
    expectClose(a.subarray(o, o + 4).map((x) => (dot < 0 ? -x : x)), b.subarray(o, o + 4), tolerance);
  }
}

describe('MakeAdditive', () => {
  it('outputs T − Tref and R · Rref⁻¹ per bone (reference: a clip frame, local space)', () => {
    const g = biped({
      run: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: 0.25 } },
      delta: { type: 'MakeAdditive', inputs: { pose: 'run' }, properties: { reference: { clip: 'walk', frame: -1 } } },
    }, 'delta');
    g.update(0);
    const out = g.evaluate(), run = sample('run', 0.25), walkLast = sample('walk', builtinClip('walk').duration);
    for (let i = 0; i < 66; i++) expect(out.translations[i]).toBeCloseTo(run.translations[i] - walkLast.translations[i], 12);
    const thigh = skeleton.indexOf('thigh_l') * 4;
    const expected = quatMultiply(new Float64Array(4), 0, run.rotations, thigh, Float64Array.of(-walkLast.rotations[thigh], -walkLast.rotations[thigh + 1], -walkLast.rotations[thigh + 2], walkLast.rotations[thigh + 3]), 0);
    expectClose(out.rotations.subarray(thigh, thigh + 4), expected, 1e-15);
    expect(Array.from(out.scales)).toEqual(new Array(66).fill(1));
    expect(g.gatherDebug().children[0].description).toBe("Reference: 'walk' frame -1 (local)");
  });

  it('of the reference pose itself is the identity pose', () => {
    const g = biped({
      run: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: 0 } },
      delta: { type: 'MakeAdditive', inputs: { pose: 'run' }, properties: { reference: { clip: 'run', frame: 0 }, space: 'mesh' } },
    }, 'delta');
    g.update(0);
    const out = g.evaluate(), identity = new Pose(22);
    expectClose(out.translations, identity.translations, 1e-12);
    expectSameRotations(out.rotations, identity.rotations, 1e-12);
  });

  describe('a clip marked additive plays what MakeAdditive of its player gives', () => {
    const clips = {
      runLocal: { source: 'builtin:run', additive: {} },
      runFromWalk: { source: 'builtin:run', additive: { reference: { clip: 'walk', frame: 5 } } },
      runMesh: { source: 'builtin:run', additive: { reference: { clip: 'run', frame: 0 }, space: 'mesh' } },
    };
    const cases = [
      { clip: 'runLocal', reference: 'skeleton', space: 'local' },
      { clip: 'runFromWalk', reference: { clip: 'walk', frame: 5 }, space: 'local' },
      { clip: 'runMesh', reference: { clip: 'run', frame: 0 }, space: 'mesh' },
    ];
    for (const c of cases) {
      it(`${c.clip} (${c.space})`, () => {
        // Local deltas commute with interpolation (right-multiplying by a constant rotation keeps a
        // slerp a slerp), so they agree at any time; mesh deltas only at the keys.
        const dt = c.space === 'mesh' ? 1 / 30 : 0.0173;
        const additive = biped({ p: { type: 'SequencePlayer', properties: { clip: c.clip } } }, 'p', clips);
        const made = biped({
          p: { type: 'SequencePlayer', properties: { clip: 'run' } },
          delta: { type: 'MakeAdditive', inputs: { pose: 'p' }, properties: { reference: c.reference, space: c.space } },
        }, 'delta', clips);
        for (let f = 0; f < 30; f++) {
          additive.update(dt);
          made.update(dt);
          const a = additive.evaluate(), m = made.evaluate();
          expectClose(a.translations, m.translations, 1e-12);
          expectClose(a.scales, m.scales, 1e-12);
          expectSameRotations(a.rotations, m.rotations, 1e-12);
        }
      });
    }
  });

  it('reads a reference clip marked additive as authored', () => {
    const clips = { lean: { source: 'builtin:run', additive: {} } };
    const nodes = (clip: string) => ({
      p: { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: 0.3 } },
      delta: { type: 'MakeAdditive', inputs: { pose: 'p' }, properties: { reference: { clip, frame: 2 } } },
    });
    const fromAdditive = biped(nodes('lean'), 'delta', clips), fromRun = biped(nodes('run'), 'delta', clips);
    fromAdditive.update(0);
    fromRun.update(0);
    expect(Array.from(fromAdditive.evaluate().rotations)).toEqual(Array.from(fromRun.evaluate().rotations));
  });
});
