import { describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../../host/files.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import { hasNaN } from '../../support/graphs.ts';

/**
 * What BlendSpace1D and BlendSpace2D share (runtime/jobs/blend-space.ts): playback in step, the leading
 * sample's rate scaled by its length over the weighted mean length. walk lasts 1.1 s, run 0.7 s.
 */
function instance(nodes: Record<string, unknown>, output: string): AnimGraphInstance {
  return loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: {
      walk: { source: 'builtin:walk', syncMarkers: [{ name: 'footL', time: 0.1 }, { name: 'footR', time: 0.65 }] },
      run: { source: 'builtin:run', syncMarkers: [{ name: 'footL', time: 0.3 }, { name: 'footR', time: 0.6 }] },
      still: { source: 'builtin:walk', frames: [0, 0] }, // one frame: no length
    },
    parameters: { rate: { type: 'float', default: 1 }, loop: { type: 'bool', default: true } },
    nodes, output,
  }).createInstance();
}
const rate = { param: 'rate' }, loop = { param: 'loop' };
const space1D = (a = 'walk', b = 'run') => ({ type: 'BlendSpace1D', properties: { samples: [{ clip: a, x: 0 }, { clip: b, x: 1 }], x: 0.5, playRate: rate, loop } });
const space2D = { type: 'BlendSpace2D', properties: { samples: [{ clip: 'walk', x: 0, y: 0 }, { clip: 'run', x: 1, y: 0 }, { clip: 'still', x: 0, y: 1 }], x: 0.25, y: 0.25, playRate: rate, loop } };
const player = (clip: string, playRate: unknown) => ({ type: 'SequencePlayer', properties: { clip, playRate, loop } });
const HUGE = Number.MAX_VALUE;

/** Every number of the debug tree, the pose and the root motion is finite. */
function expectFinite(g: AnimGraphInstance): void {
  const numbers: number[] = [];
  JSON.stringify(g.gatherDebug(), (_, v) => (typeof v === 'number' && numbers.push(v), v));
  expect(numbers.every(Number.isFinite)).toBe(true);
  expect(g.gatherDebug().children[0].description).not.toMatch(/NaN|Infinity/);
  const pose = g.evaluate();
  expect([pose.translations, pose.rotations, pose.scales, g.rootMotion].some(hasNaN)).toBe(false);
}

describe('blend space playback', () => {
  it('plays a leader whose scaled rate overflows as a SequencePlayer at the largest rate does: no NaN play time', () => {
    // At x 0.5 the walk leads (the first of equal weights) and is longer than the 0.9 s mean, so
    // 1.7e308 × 1.1 / 0.9 overflows: the leader's time was NaN from the first frame on.
    for (const value of [1.7e308, -1.7e308, HUGE, -HUGE]) {
      for (const looping of [true, false]) {
        const g = instance({ o: space1D() }, 'o');
        const p = instance({ o: player('walk', value > 0 ? HUGE : -HUGE) }, 'o');
        g.setParameter('rate', value);
        g.setParameter('loop', looping);
        p.setParameter('loop', looping);
        for (const dt of [0, 5e-324, 1 / 30, 1e6, 0.25]) {
          g.update(dt);
          p.update(dt);
          expectFinite(g);
          const values = g.gatherDebug().children[0].values!, [walk, run] = values.times as number[];
          expect(values.leader).toBe(0);
          expect(walk).toBe(p.gatherDebug().children[0].values!.time);
          // The run follows at the same fraction between the same markers (footL at 0.1 s, footR at 0.65 s).
          if (walk >= 0.1 && walk < 0.65) expect(run).toBe(0.3 + ((walk - 0.1) / (0.65 - 0.1)) * (0.6 - 0.3));
        }
      }
    }
  });

  it('keeps ordinary rates exactly as they were: rate × leader length / mean length', () => {
    const g = instance({ o: space1D() }, 'o');
    g.setParameter('rate', 1.5);
    g.update(0.1);
    expect(g.gatherDebug().children[0].values!.time).toBe(0 + 0.1 * (1.5 * (1.1 / (0.5 * 1.1 + 0.5 * 0.7))));
  });

  it('stays finite for hostile rates, delta times and a clip of no length, in 1D, 2D and a sync group', () => {
    const graphs: [string, Record<string, unknown>][] = [
      ['1D', { o: space1D() }],
      ['1D, a clip of no length leading', { o: space1D('still', 'walk') }],
      ['1D, a clip of no length following', { o: space1D('walk', 'still') }],
      ['2D', { o: space2D }],
      ['1D leading a sync group', {
        bs: { ...space1D(), properties: { ...space1D().properties, syncGroup: 'gait' } },
        p: { ...player('run', rate), properties: { ...player('run', rate).properties, syncGroup: 'gait' } },
        o: { type: 'BlendTwo', inputs: { A: 'bs', B: 'p' }, properties: { alpha: 0.25 } },
      }],
      ['2D following a sync group', {
        p: { ...player('run', rate), properties: { ...player('run', rate).properties, syncGroup: 'gait' } },
        bs: { ...space2D, properties: { ...space2D.properties, syncGroup: 'gait' } },
        o: { type: 'BlendTwo', inputs: { A: 'p', B: 'bs' }, properties: { alpha: 0.25 } },
      }],
    ];
    for (const [, nodes] of graphs) {
      for (const value of [1.7e308, -1.7e308, 5e-324, -5e-324, 1e300]) {
        for (const looping of [true, false]) {
          const g = instance(nodes, 'o');
          g.setParameter('rate', value);
          g.setParameter('loop', looping);
          for (const dt of [0, 5e-324, 1e6, 1 / 30, 1e6, 0]) {
            g.update(dt);
            expectFinite(g);
          }
        }
      }
    }
  });
});
