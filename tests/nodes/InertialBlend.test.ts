import { describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../graphs/loader.ts';
import { ClipBinding, sampleClip } from '../../runtime/clip.ts';
import type { AnimGraphInstance } from '../../runtime/graph.ts';
import { Pose } from '../../runtime/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/sample-data.ts';
import { bipedInstance, expectClose, hasNaN } from '../support/graphs.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';

const DT = 1 / 30;
const biped = (blendTime: unknown = 0.2) => bipedInstance({
  walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
  run: { type: 'SequencePlayer', properties: { clip: 'run' } },
  ib: { type: 'InertialBlend', inputs: { A: 'walk', B: 'run' }, properties: { useA: { param: 'walking' }, blendTime } },
}, 'ib', { walking: { type: 'bool', default: true }, bt: { type: 'float', default: 0.2 } });
const line = (g: AnimGraphInstance) => g.gatherDebug().children[0];
const pure = (clip: string, time: number) => sampleClip(new Pose(22), new ClipBinding(builtinClip(clip), sampleSkeleton()), time, true);
/** Largest change of any local translation or rotation component between two poses. */
const jump = (a: Pose, b: Pose) => {
  let m = 0;
  for (let i = 0; i < a.rotations.length; i++) m = Math.max(m, Math.abs(a.rotations[i] - b.rotations[i]));
  for (let i = 0; i < a.translations.length; i++) m = Math.max(m, Math.abs(a.translations[i] - b.translations[i]) / 100);
  return m;
};
const copy = (p: Pose) => { const c = new Pose(p.boneCount); c.translations.set(p.translations); c.rotations.set(p.rotations); c.scales.set(p.scales); return c; };

describe('InertialBlend', () => {
  it('starts on the chosen input without a blend and updates only the active input', () => {
    const g = biped();
    g.update(0);
    expect(line(g).description).toBe("'Inactive' Input: A");
    g.update(DT);
    expectClose(g.evaluate().rotations, pure('walk', DT).rotations, 1e-12);
    expect(line(g).children.map((c) => c.weight)).toEqual([1, 0]);
    expect(line(g).children[1].values?.time).toBe(0);
  });

  it('continues the old motion at the switch and equals the new input from blendTime on', () => {
    const g = biped();
    const events: unknown[] = [];
    g.events.on('inertializationStarted', (id, d) => events.push(['start', id, d]));
    g.events.on('inertializationEnded', (id, d, interrupted) => events.push(['end', id, d, interrupted]));
    for (let i = 0; i < 10; i++) { g.update(DT); g.evaluate(); }
    const before = copy(g.evaluate());
    g.setParameter('walking', false);
    g.update(DT);
    const at = copy(g.evaluate());
    expect(line(g).description).toBe("'Active' Time: 0.000 / 0.200 (0%) Input: B");
    // The switch frame is time 0 of the transition: it repeats the last pose output.
    expectClose(at.rotations, before.rotations, 1e-12);
    g.update(DT);
    expect(line(g).description).toBe("'Active' Time: 0.033 / 0.200 (17%) Input: B");
    const next = copy(g.evaluate());
    // Then it moves on from there, toward the run: nearer the walk than the run at first.
    expect(jump(next, pure('run', 2 * DT))).toBeGreaterThan(2 * jump(next, at));
    for (let i = 0; i < 5; i++) { g.update(DT); g.evaluate(); } // 6 frames after the switch = 0.2 s
    expect(line(g).values?.active).toBe(false);
    expectClose(g.evaluate().rotations, pure('run', 7 * DT).rotations, 1e-12);
    expect(events).toEqual([['start', 'ib', 0.2], ['end', 'ib', 0.2, false]]);
  });

  it('switching back mid-transition starts from the pose actually output (no pop)', () => {
    const g = biped();
    for (let i = 0; i < 10; i++) { g.update(DT); g.evaluate(); }
    g.setParameter('walking', false);
    const frames: Pose[] = [];
    for (let i = 0; i < 3; i++) { g.update(DT); frames.push(copy(g.evaluate())); }
    g.setParameter('walking', true);
    g.update(DT);
    frames.push(copy(g.evaluate()));
    const steps = frames.slice(1).map((f, i) => jump(f, frames[i]));
    const instant = jump(pure('walk', 14 * DT), frames[2]);
    expect(steps[2]).toBeLessThan(instant / 3);
  });

  it('a blend time of 0 or less switches instantly; zero delta time and 180-degree flips stay finite', () => {
    for (const bt of [0, -1]) {
      const g = biped({ param: 'bt' });
      g.setParameter('bt', bt);
      g.update(DT); g.evaluate();
      g.setParameter('walking', false);
      g.update(DT);
      expectClose(g.evaluate().rotations, pure('run', DT).rotations, 1e-12);
      expect(line(g).values?.active).toBe(false);
    }
    const g = biped();
    g.update(DT); g.evaluate();
    g.update(0); g.evaluate(); // a paused frame: no velocity can be measured from it
    g.setParameter('walking', false);
    g.update(0);
    let p = g.evaluate();
    expect(hasNaN(p.rotations) || hasNaN(p.translations)).toBe(false);
    // A bone turned half a turn between the two inputs: q and -q are the same rotation, the axis is still defined.
    for (let i = 0; i < 8; i++) { g.update(DT); p = g.evaluate(); }
    expect(hasNaN(p.rotations) || hasNaN(p.translations)).toBe(false);
  });
});

// The CMU walk and run share subject 2's skeleton. Frame 0 of each take is a T-pose.
const CMU_GRAPH = (blendTime: number) => ({
  format: 'animgraph/1',
  skeleton: { bvh: `${CMU}002_01.bvh` },
  clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1] }, run: { source: `${CMU}002_03.bvh`, frames: [1, -1] } },
  parameters: { walking: { type: 'bool', default: true } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    ib: { type: 'InertialBlend', inputs: { A: 'walk', B: 'run' }, properties: { useA: { param: 'walking' }, blendTime } },
  },
  output: 'ib',
});

describeWithData('InertialBlend on CMU walk to run', () => {
  const fps = 60, dt = 1 / fps, blendTime = 0.3;
  const inertial = loadGraphAsset(CMU_GRAPH(blendTime));
  const instant = loadGraphAsset(CMU_GRAPH(0));
  const only = (clip: string) => loadGraphAsset({ ...CMU_GRAPH(blendTime), nodes: { p: { type: 'SequencePlayer', properties: { clip } } }, output: 'p' });
  const walkOnly = only('walk');
  const runOnly = only('run');

  /** Component-space joint positions of every frame, switching to the run at frame `at`. */
  function run(graph: typeof inertial, at: number, frames: number): Float64Array[] {
    const g = graph.createInstance();
    const out: Float64Array[] = [];
    for (let f = 0; f < frames; f++) {
      if (f === at) g.setParameter('walking', false);
      g.update(f === 0 ? 0 : dt);
      out.push(Float64Array.from(g.componentPose().translations));
    }
    return out;
  }
  const maxJoint = (a: Float64Array, b: Float64Array) => {
    let m = 0;
    for (let i = 0; i < a.length; i += 3) m = Math.max(m, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
    return m;
  };

  it('continues the walk on the switch frame, becomes the pure run after blendTime, and moves far less than an instant switch', () => {
    const walk = run(walkOnly, -1, 160);
    const report: string[] = [];
    for (const at of [20, 45, 70, 95, 120]) {
      const frames = at + Math.round(blendTime * fps) + 10;
      const blended = run(inertial, at, frames);
      const cut = run(instant, at, frames);
      const pureRun = run(runOnly, 0, frames - at + 1);
      // Switch frame: within the walk's own frame-to-frame motion of the pure walk.
      const walkStep = maxJoint(walk[at], walk[at - 1]);
      expect(maxJoint(blended[at], walk[at])).toBeLessThanOrEqual(walkStep + 1e-9);
      // From blendTime on: the pure run (its player starts at the switch, so frame at+k is run frame k+1... see below).
      for (let f = at + Math.round(blendTime * fps); f < frames; f++) {
        // The run player is updated from the switch frame on: at frame f it has advanced (f - at + 1) frames.
        expect(maxJoint(blended[f], pureRun[f - at + 1])).toBeLessThan(1e-9);
      }
      let worstBlended = 0, worstCut = 0;
      for (let f = at; f < frames; f++) {
        worstBlended = Math.max(worstBlended, maxJoint(blended[f], blended[f - 1]));
        worstCut = Math.max(worstCut, maxJoint(cut[f], cut[f - 1]));
      }
      expect(worstBlended).toBeLessThan(worstCut / 3);
      report.push(`switch at walk frame ${at}: largest joint jump ${worstBlended.toFixed(2)} cm inertial vs ${worstCut.toFixed(2)} cm instant`);
    }
    console.log(report.join('\n'));
  });
});
