import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphFile } from '../../host/files.ts';
import type { GraphProblem } from '../../graphs/loader.ts';
import type { BlendSpace2D } from '../../nodes/BlendSpace2D.ts';
import { triangulate } from '../../runtime/jobs/delaunay.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { bipedInstance } from '../support/graphs.ts';
import { describeWithData } from '../support/shared-data.ts';

// A square of corners and its centre: 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1), 4 (0.5,0.5); on axes of
// different units (x 0..400, y -90..90), which the node scales to the unit square.
const square = [[0, -90], [400, -90], [0, 90], [400, 90], [200, 0]];
const samples = square.map(([x, y], i) => ({ clip: ['idle', 'walk', 'run'][i % 3], x, y }));
const space = (properties: Record<string, unknown> = {}) => bipedInstance(
  { bs: { type: 'BlendSpace2D', properties: { samples, x: { param: 'x' }, y: { param: 'y' }, ...properties } } }, 'bs',
  { x: { type: 'float', default: 0 }, y: { type: 'float', default: 0 } },
);
const node = (g: AnimGraphInstance) => g.nodes.get('bs') as BlendSpace2D;
const weightsAt = (x: number, y: number) => {
  const g = space();
  g.setParameter('x', x);
  g.setParameter('y', y);
  g.update(0);
  return Array.from(node(g).weights);
};
const close = (actual: number[], expected: number[]) => actual.forEach((w, i) => expect(w).toBeCloseTo(expected[i], 12));

/** The load problems of a BlendSpace2D over idle and walk with these samples. */
function sampleProblems(list: unknown[]): readonly GraphProblem[] {
  const result = checkGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' } },
    nodes: { bs: { type: 'BlendSpace2D', properties: { samples: list } } },
    output: 'bs',
  });
  return result.ok ? [] : result.problems;
}

describe('BlendSpace2D', () => {
  it('triangulates a square with its centre into four triangles around the centre', () => {
    const t = Array.from(triangulate([0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.5]));
    expect(t.length).toBe(12);
    const triangles = [0, 3, 6, 9].map((k) => t.slice(k, k + 3).sort().join(','));
    expect(triangles.sort()).toEqual(['0,1,4', '0,2,4', '1,3,4', '2,3,4']);
  });

  it('weighs the triangle holding the input by barycentric coordinates', () => {
    close(weightsAt(200, -45), [0.25, 0.25, 0, 0, 0.5]); // (0.5, 0.25) in the unit square
    close(weightsAt(200, 0), [0, 0, 0, 0, 1]);
    close(weightsAt(400, 90), [0, 0, 0, 1, 0]);
    close(weightsAt(100, 0), [0.25, 0, 0.25, 0, 0.5]); // (0.25, 0.5): on the left triangle
  });

  it('outside the samples, projects the input to the nearest point of their hull', () => {
    close(weightsAt(800, 0), [0, 0.5, 0, 0.5, 0]); // right of the square: the middle of its right edge
    close(weightsAt(-100, -500), [1, 0, 0, 0, 0]); // beyond a corner: the corner
    close(weightsAt(100, 200), [0, 0, 0.75, 0.25, 0]); // above the top edge at x 0.25
  });

  it('smooths each axis by its own half-life', () => {
    const g = space({ xSmoothingTime: 0.5 });
    g.update(0.1);
    g.setParameter('x', 400);
    g.setParameter('y', 90);
    g.update(0.5);
    expect(node(g).coordinates[0]).toBeCloseTo(200, 12);
    expect(node(g).coordinates[1]).toBe(90);
  });

  it('reports a debug line with both inputs', () => {
    const g = space();
    g.setParameter('x', 200);
    g.update(0.1);
    expect(g.gatherDebug().children[0].description).toBe("X: 200.000 Y: 0.000 Leader: 'walk' Play Time: 0.100");
  });

  it('reports a sample without a y (or x) at its path, with any coordinate out of range', () => {
    // It was reported by no one (the sample schema, shared with BlendSpace1D, leaves y optional), and
    // create failed with "its samples have no triangle (the loader reports why)"; a malformed sample
    // also hid another's coordinate beyond the range.
    expect(sampleProblems([{ clip: 'idle', x: 0 }, { clip: 'walk', x: 1e300, y: 0 }, { clip: 'walk', x: 0, y: 1 }])).toEqual([
      { path: '$.nodes.bs.properties.samples[1].x', code: 'value-range', message: 'sample 1 is at x = 1e+300, beyond ±1e15' },
      { path: '$.nodes.bs.properties.samples[0].y', code: 'schema', message: 'a BlendSpace2D sample needs a number y: its place on the y axis' },
    ]);
  });

  it('rejects duplicate samples at their paths and all-collinear samples at samples, at once', () => {
    const check = (list: unknown[]) => sampleProblems(list).map((p) => `${p.path} [${p.code}]`);
    expect(check([{ clip: 'idle', x: 0, y: 0 }, { clip: 'walk', x: 1, y: 0 }, { clip: 'walk', x: 0, y: 1 }, { clip: 'idle', x: 1, y: 0 }]))
      .toEqual(['$.nodes.bs.properties.samples[3] [duplicate-sample]']);
    expect(check([{ clip: 'idle', x: 0, y: 0 }, { clip: 'walk', x: 1, y: 2 }, { clip: 'walk', x: 2, y: 4 }, { clip: 'walk', x: 0, y: 0 }]))
      .toEqual(['$.nodes.bs.properties.samples[3] [duplicate-sample]', '$.nodes.bs.properties.samples [collinear-samples]']);
    expect(check([{ clip: 'idle', x: 0, y: 0 }, { clip: 'walk', x: 1, y: 1 }, { clip: 'walk', x: 0, y: 1 }])).toEqual([]);
  });

  it('rejects a coordinate beyond ±1e15 at its path, not as collinear samples (the triangulation overflowed), and triangulates at ±1e15', () => {
    const check = sampleProblems;
    expect(check([{ clip: 'idle', x: -1e308, y: 0 }, { clip: 'walk', x: 1e308, y: 0 }, { clip: 'walk', x: 0, y: 1e308 }])).toEqual([
      { path: '$.nodes.bs.properties.samples[0].x', code: 'value-range', message: 'sample 0 is at x = -1e+308, beyond ±1e15' },
      { path: '$.nodes.bs.properties.samples[1].x', code: 'value-range', message: 'sample 1 is at x = 1e+308, beyond ±1e15' },
      { path: '$.nodes.bs.properties.samples[2].y', code: 'value-range', message: 'sample 2 is at y = 1e+308, beyond ±1e15' },
    ]);
    expect(check([{ clip: 'idle', x: -1e15, y: 0 }, { clip: 'walk', x: 1e15, y: 0 }, { clip: 'walk', x: 0, y: 1e15 }])).toEqual([]);
  });
});

describeWithData('graphs/examples/robot-blend-space-2d.json (RobotExpressive)', () => {
  const graph = loadGraphFile(fileURLToPath(new URL('../../graphs/examples/robot-blend-space-2d.json', import.meta.url)));
  const at = (speed: number, wave: number) => {
    const g = graph.createInstance();
    g.setParameter('speed', speed);
    g.setParameter('wave', wave);
    g.update(0); // the first update takes the input as it is (no smoothing yet)
    return { g, weights: Array.from((g.nodes.get('space') as BlendSpace2D).weights) };
  };

  it('weighs the corners of the triangle holding the input by barycentric coordinates: idle, walk, run, wave', () => {
    // (0.25, 0.25) in idle (0,0), walk (1,0), wave (0,1): 1 − 0.25 − 0.25, 0.25, 0.25.
    close(at(0.25, 0.25).weights, [0.5, 0.25, 0, 0.25]);
    // (1.2, 0.3) in walk (1,0), run (2,0), wave (0,1): wave 0.3, then walk + 2 run = 1.2 with walk + run = 0.7.
    close(at(1.2, 0.3).weights, [0, 0.2, 0.5, 0.3]);
    const { g } = at(1.2, 0.3);
    for (let f = 0; f < 30; f++) g.update(1 / 30);
    expect(Array.from(g.evaluate().rotations).every(Number.isFinite)).toBe(true);
  });
});
