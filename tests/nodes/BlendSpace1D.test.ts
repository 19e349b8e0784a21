import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { runGraph } from '../../host/runner.ts';
import type { BlendSpace1D } from '../../nodes/BlendSpace1D.ts';
import { AnimGraph } from '../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { bipedInstance, hasNaN } from '../support/graphs.ts';

// Written out of order: the node sorts its samples by x.
const samples = [{ clip: 'run', x: 400 }, { clip: 'idle', x: 0 }, { clip: 'walk', x: 150 }];
const space = (properties: Record<string, unknown> = {}) => bipedInstance(
  { bs: { type: 'BlendSpace1D', properties: { samples, x: { param: 'speed' }, ...properties } } }, 'bs',
  { speed: { type: 'float', default: 0 } },
);
const node = (g: AnimGraphInstance) => g.nodes.get('bs') as BlendSpace1D;
const weightsAt = (speed: number) => {
  const g = space();
  g.setParameter('speed', speed);
  g.update(0);
  return Array.from(node(g).weights);
};

describe('BlendSpace1D', () => {
  it('weighs the two samples around x linearly, clamped outside (weights in the order written: run, idle, walk)', () => {
    expect(weightsAt(75)).toEqual([0, 0.5, 0.5]);
    expect(weightsAt(150)).toEqual([0, 0, 1]);
    expect(weightsAt(212.5)).toEqual([0.25, 0, 0.75]);
    expect(weightsAt(-10)).toEqual([0, 1, 0]);
    expect(weightsAt(1000)).toEqual([1, 0, 0]);
    expect(weightsAt(400)).toEqual([1, 0, 0]);
  });

  it('smooths the input by its half-life; the first update takes the input as it is', () => {
    const g = space({ smoothingTime: 0.5 });
    g.update(0.1);
    expect(node(g).coordinates[0]).toBe(0);
    g.setParameter('speed', 100);
    g.update(0.5);
    expect(node(g).coordinates[0]).toBeCloseTo(50, 12);
    g.update(0.25);
    expect(node(g).coordinates[0]).toBeCloseTo(50 + 50 * (1 - Math.SQRT1_2), 12);
  });

  it('smooths between inputs further apart than a double holds, and recovers: no NaN, however large (found by the fuzz test)', () => {
    const g = space({ smoothingTime: 0.1 });
    g.setParameter('speed', -1e300);
    g.update(1e-9);
    g.setParameter('speed', Number.MAX_VALUE);
    g.update(0); // no time: the input holds (the gap itself overflows to Infinity, and Infinity × 0 was a NaN)
    expect(node(g).coordinates[0]).toBe(-1e300);
    g.update(0.1); // one half-life: half way, weighed from both ends
    expect(node(g).coordinates[0]).toBe(-1e300 * 0.5 + Number.MAX_VALUE * 0.5);
    expect(Array.from(node(g).weights)).toEqual([1, 0, 0]);
    g.setParameter('speed', 75);
    for (let i = 0; i < 1100; i++) g.update(0.1); // 1100 half-lives: back from 9e307 (2^1023) to the input
    expect(node(g).coordinates[0]).toBeCloseTo(75, 9);
    expect(Array.from(node(g).weights)).toEqual([0, expect.closeTo(0.5, 9), expect.closeTo(0.5, 9)]);
    const pose = g.evaluate();
    expect([pose.translations, pose.rotations, pose.scales].some(hasNaN)).toBe(false);
  });

  it('weighs samples further apart than a double holds (-1.7e308 and 1.7e308) linearly too: no NaN weight', () => {
    // The loader bounds coordinates to ±1e15 (value-range); a graph built in code has no loader, so
    // the node keeps its own guarantee: built here from a loaded one's definition, samples swapped.
    const loaded = bipedInstance({ bs: { type: 'BlendSpace1D', properties: { samples: [{ clip: 'walk', x: -1 }, { clip: 'run', x: 1 }], x: { param: 'speed' } } } }, 'bs',
      { speed: { type: 'float', default: 0 } }).graph;
    const g = new AnimGraph({
      name: 'wide', skeleton: loaded.skeleton, parameters: loaded.parameterDefinitions,
      clips: new Map([...loaded.clipBindings].map(([name, binding]) => [name, binding.clip])),
      nodes: loaded.nodes.map((n) => (n.id !== 'bs' ? n : { ...n, properties: { ...n.properties, samples: [{ clip: 'walk', x: -1.7e308 }, { clip: 'run', x: 1.7e308 }] } })),
    }).createInstance();
    const at = (x: number) => {
      g.setParameter('speed', x);
      g.update(0.1);
      expect(hasNaN(g.evaluate().rotations)).toBe(false);
      return Array.from(node(g).weights);
    };
    // Half way was all walk (the span, Infinity, over a finite distance), and 8.5e307 NaN (Infinity / Infinity).
    expect(at(0)).toEqual([0.5, 0.5]);
    const t = (8.5e307 * 0.5 - -1.7e308 * 0.5) / (1.7e308 * 0.5 - -1.7e308 * 0.5);
    expect(at(8.5e307)).toEqual([1 - t, t]);
    expect(t).toBeCloseTo(0.75, 15);
    expect(at(-1e308)).toEqual([1 - (-1e308 * 0.5 - -1.7e308 * 0.5) / 1.7e308, (-1e308 * 0.5 - -1.7e308 * 0.5) / 1.7e308]);
  });

  it('with one sample, plays it at any x', () => {
    const g = bipedInstance({ bs: { type: 'BlendSpace1D', properties: { samples: [{ clip: 'walk', x: 3 }], x: -50 } } }, 'bs');
    g.update(0.25);
    expect(Array.from(node(g).weights)).toEqual([1]);
    expect(node(g).gatherDebug().values?.time).toBeCloseTo(0.25, 12);
  });

  it('plays its samples in step: the cycle takes the weighted mean length, every sample at the same phase', () => {
    const g = space();
    g.setParameter('speed', 275); // walk (1.1 s) 0.5, run (0.7 s) 0.5: a 0.9 s cycle
    for (let i = 0; i < 3; i++) g.update(0.1);
    const times = g.gatherDebug().children[0].values?.times as number[];
    expect(times[2] / 1.1).toBeCloseTo(0.3 / 0.9, 12); // walk
    expect(times[0] / 0.7).toBeCloseTo(0.3 / 0.9, 12); // run
    expect(times[1] / 2).toBeCloseTo(0.3 / 0.9, 12); // idle, at weight 0, keeps the phase too
    for (let i = 0; i < 7; i++) g.update(0.1); // one second: past the end of the cycle
    const after = g.gatherDebug().children[0].values?.times as number[];
    expect(after[2] / 1.1).toBeCloseTo(1 / 0.9 - 1, 12);
    expect(after[0] / 0.7).toBeCloseTo(1 / 0.9 - 1, 12);
  });

  it('at a sample, gives that clip\'s pose and root motion exactly as a SequencePlayer does', () => {
    const asset = (nodes: Record<string, unknown>) => loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk', rootMotion: { bone: 'pelvis' } }, run: { source: 'builtin:run', rootMotion: { bone: 'pelvis' } } },
      nodes, output: 'n',
    }).createInstance();
    const bs = asset({ n: { type: 'BlendSpace1D', properties: { samples, x: 150 } } });
    const player = asset({ n: { type: 'SequencePlayer', properties: { clip: 'walk' } } });
    for (let i = 0; i < 40; i++) {
      bs.update(1 / 30);
      player.update(1 / 30);
      expect(Array.from(bs.rootMotion)).toEqual(Array.from(player.rootMotion));
      expect(Array.from(bs.evaluate().rotations)).toEqual(Array.from(player.evaluate().rotations));
    }
    // Between walk and run, the root motion is each clip's over its own step, by weight.
    const blend = asset({ n: { type: 'BlendSpace1D', properties: { samples, x: 275 } } });
    const pair = asset({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 1.1 / 0.9 } },
      run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 0.7 / 0.9 } },
      n: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.5 } },
    });
    let moved = 0;
    for (let i = 0; i < 20; i++) {
      blend.update(0.1);
      pair.update(0.1);
      for (let k = 0; k < 4; k++) expect(blend.rootMotion[k]).toBeCloseTo(pair.rootMotion[k], 9);
      moved += Math.abs(blend.rootMotion[3]);
    }
    expect(moved).toBeGreaterThan(0.1); // the built-in clips sway the pelvis heading: root motion in heading only
  });

  it('reports a debug line with the input, the leading sample and its time', () => {
    const g = space();
    g.setParameter('speed', 300);
    g.update(0.2);
    const debug = g.gatherDebug().children[0];
    expect(debug.description).toMatch(/^X: 300\.000 Leader: 'run' Play Time: 0\.\d{3}$/);
    expect(debug.values?.weights).toEqual([0.6, 0, 0.4]);
    expect(debug.values?.leader).toBe(0);
  });

  it('is deterministic', () => {
    const run = () => {
      const g = space({ smoothingTime: 0.2 });
      const out: number[] = [];
      for (let i = 0; i < 30; i++) {
        g.setParameter('speed', i * 17);
        g.update(1 / 30);
        out.push(...g.evaluate().rotations);
      }
      return out;
    };
    expect(run()).toEqual(run());
  });

  it('rejects samples at the same x, each at its path, with other problems at once', () => {
    const result = checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' } },
      nodes: { bs: { type: 'BlendSpace1D', properties: { samples: [{ clip: 'idle', x: 0 }, { clip: 'walk', x: 1 }, { clip: 'walk', x: 0 }, { clip: 'nope', x: 2 }] } } },
      output: 'bs',
    });
    expect(result.ok).toBe(false);
    const problems = !result.ok ? result.problems.map((p) => `${p.path} [${p.code}]`) : [];
    expect(problems).toEqual(['$.nodes.bs.properties.samples[3].clip [unknown-clip]', '$.nodes.bs.properties.samples[2].x [duplicate-sample]']);
  });

  it('rejects a sample x beyond ±1e15 at its path (samples at ±1e308 weighed an input between them NaN), and takes ±1e15', () => {
    const asset = (xs: number[]) => ({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' } },
      parameters: { speed: { type: 'float', default: 0 } },
      nodes: { bs: { type: 'BlendSpace1D', properties: { samples: xs.map((x, i) => ({ clip: ['idle', 'walk'][i % 2], x })), x: { param: 'speed' } } } },
      output: 'bs',
    });
    const result = checkGraphAsset(asset([-1e308, 1e308]));
    expect(result.ok ? [] : result.problems).toEqual([
      { path: '$.nodes.bs.properties.samples[0].x', code: 'value-range', message: 'sample 0 is at x = -1e+308, beyond ±1e15' },
      { path: '$.nodes.bs.properties.samples[1].x', code: 'value-range', message: 'sample 1 is at x = 1e+308, beyond ±1e15' },
    ]);
    const g = loadGraphAsset(asset([-1e15, 1e15])).createInstance();
    g.setParameter('speed', 1e15);
    g.update(0.1);
    expect(Array.from((g.nodes.get('bs') as BlendSpace1D).weights)).toEqual([0, 1]);
  });

  it('runs the example graph (sample-blend-space.json): weights by speed, smoothed, walk and run in step', () => {
    const graph = loadGraphFile(new URL('../../graphs/examples/sample-blend-space.json', import.meta.url).pathname);
    const result = runGraph(graph, {
      seconds: 1, fps: 20, debug: true,
      timeline: [{ name: 'speed', value: 275, time: 0 }, { name: 'speed', value: 400, time: 0.5 }],
    });
    const values = (frame: number) => result.frames[frame].debug!.children[0].values!;
    // 275 cm/s lies half way between the walk (150) and the run (400); the first update takes it as it is.
    expect(values(0).weights).toEqual([0, 0.5, 0.5]);
    // In step: one cycle lasts the weighted mean length, 0.5 × 1.1 + 0.5 × 0.7 = 0.9 s, so a frame of
    // 0.05 s moves the walk (1.1 s) 0.05 × 1.1 / 0.9 s on and the run (0.7 s) to the same phase.
    const [, walk, run] = values(5).times as number[];
    expect(walk).toBeCloseTo(5 * 0.05 * 1.1 / 0.9, 12);
    expect(walk / 1.1).toBeCloseTo(run / 0.7, 12);
    // 400 from 0.5 s, smoothed with a 0.1 s half-life: one frame of 0.05 s covers 1 − 2^(−1/2) of the way.
    const x = 275 + 125 * (1 - 2 ** -0.5);
    expect((values(10).coordinates as number[])[0]).toBeCloseTo(x, 9);
    expect((values(10).weights as number[])[2]).toBeCloseTo((x - 150) / 250, 9);
    expect(values(10).leader).toBe(2); // the run now weighs more and leads
    expect((values(11).coordinates as number[])[0]).toBeCloseTo(337.5, 9); // half of the 125 after 0.1 s
    for (const frame of result.frames) expect(frame.component!.flat().every(Number.isFinite)).toBe(true);
  });
});
