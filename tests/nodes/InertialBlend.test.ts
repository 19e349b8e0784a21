import { describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../host/files.ts';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { bipedInstance, expectClose, hasNaN } from '../support/graphs.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';
import { runProbe } from '../support/allocation.ts';

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

  it('a switch before any pose was output (no history) is a clean switch without a blend', () => {
    // Chosen before the first update: starts on B.
    const g = biped();
    const started: number[] = [];
    g.events.on('inertializationStarted', (_id, d) => started.push(d));
    g.setParameter('walking', false);
    g.update(DT);
    expectClose(g.evaluate().rotations, pure('run', DT).rotations, 1e-12);
    expectClose(g.evaluate().translations, pure('run', DT).translations, 1e-12);
    expect(line(g).values?.active).toBe(false);
    // Updated on A but never evaluated, then switched: the switch frame has no pose to start from.
    const h = biped();
    h.events.on('inertializationStarted', (_id, d) => started.push(d));
    h.update(0);
    h.setParameter('walking', false);
    h.update(DT);
    const out = h.evaluate();
    expectClose(out.rotations, pure('run', DT).rotations, 1e-12);
    expectClose(out.translations, pure('run', DT).translations, 1e-12);
    expect(line(h).values?.active).toBe(false);
    expect(line(h).description).toBe("'Inactive' Input: B");
    h.update(DT);
    expectClose(h.evaluate().rotations, pure('run', 2 * DT).rotations, 1e-12);
    expect(started).toEqual([]);
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

// The CMU walk and run share subject 2's skeleton. Frame 0 of each take is a T-pose. The clips
// extract root motion, so they play in place: untouched, the walk's root is 0.5 to 2.7 m down the
// room at the switches below while the run's starts 5 cm from the origin, and every comparison
// would measure where the character stands instead of its pose.
const CMU_GRAPH = (blendTime: number) => ({
  format: 'animgraph/1',
  skeleton: { bvh: `${CMU}002_01.bvh` },
  clips: {
    walk: { source: `${CMU}002_01.bvh`, frames: [1, -1], rootMotion: true },
    run: { source: `${CMU}002_03.bvh`, frames: [1, -1], rootMotion: true },
  },
  parameters: { walking: { type: 'bool', default: true } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    ib: { type: 'InertialBlend', inputs: { A: 'walk', B: 'run' }, properties: { useA: { param: 'walking' }, blendTime } },
  },
  output: 'ib',
});

describeWithData('InertialBlend on CMU walk to run', () => {
  it('allocates nothing per frame in a transition applied in JavaScript after a batch applied it in the kernel (plain Node process)', () => {
    const result = runProbe('inertial-sequence-allocation-probe.ts');
    // A boxed curve value per character was 16 B: 4800 B/frame for these 300 characters; the
    // probe's windows leave about 2.5 B/frame of their own.
    expect(result.perFrame).toBeLessThan(8);
  });

  const fps = 60, dt = 1 / fps, blendTime = 0.3, blendFrames = Math.round(blendTime * fps);
  const inertial = loadGraphAsset(CMU_GRAPH(blendTime));
  const instant = loadGraphAsset(CMU_GRAPH(0));
  const only = (clip: string) => loadGraphAsset({ ...CMU_GRAPH(blendTime), nodes: { p: { type: 'SequencePlayer', properties: { clip } } }, output: 'p' });
  const walkOnly = only('walk');
  const runOnly = only('run');

  /**
   * Component-space joint positions relative to the root bone, every frame, switching to the run
   * at frame `at` (frame f is at time f × dt). Relative to the root, so that what is left of the
   * root's own motion (its height) does not count either.
   */
  function run(graph: typeof inertial, at: number, frames: number): Float64Array[] {
    const g = graph.createInstance();
    const out: Float64Array[] = [];
    for (let f = 0; f < frames; f++) {
      if (f === at) g.setParameter('walking', false);
      g.update(f === 0 ? 0 : dt);
      const p = Float64Array.from(g.componentPose().translations);
      const [rx, ry, rz] = [p[0], p[1], p[2]];
      for (let i = 0; i < p.length; i += 3) { p[i] -= rx; p[i + 1] -= ry; p[i + 2] -= rz; }
      out.push(p);
    }
    return out;
  }
  /** The largest distance between the same joint in two poses, in centimetres. */
  const maxJoint = (a: Float64Array, b: Float64Array) => {
    let m = 0;
    for (let i = 0; i < a.length; i += 3) m = Math.max(m, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
    return m;
  };

  it('continues the walk on the switch frame, becomes the pure run after blendTime, and moves far less than an instant switch', () => {
    const walk = run(walkOnly, -1, 160);
    const pureRun = run(runOnly, -1, blendFrames + 12);
    const report: string[] = [];
    for (const at of [20, 45, 70, 95, 120]) {
      const frames = at + blendFrames + 10;
      const blended = run(inertial, at, frames);
      const cut = run(instant, at, frames);
      // The run player is updated from the switch frame on, so at frame f it is at (f - at + 1) × dt.
      const runAt = (f: number) => pureRun[f - at + 1];

      // Switch frame: against the pure walk at the same time (what the walk would have output),
      // within the walk's own motion into that frame. The node outputs its previous pose there
      // (time 0 of the transition), so the difference is one walk step by design; the next check
      // is the one a pop would fail.
      const walkStep = maxJoint(walk[at], walk[at - 1]);
      const atSwitch = maxJoint(blended[at], walk[at]);
      expect(atSwitch).toBeLessThanOrEqual(walkStep + 1e-9);
      expect(maxJoint(blended[at], runAt(at))).toBeGreaterThan(5 * walkStep); // the run is far away
      // The frame after still follows the walk: nearer it than a third of the way to the run.
      const next = blended[at + 1];
      expect(maxJoint(next, walk[at + 1])).toBeLessThan(maxJoint(next, runAt(at + 1)) / 3);

      // From blendTime on: exactly the pure run.
      let afterBlend = 0;
      for (let f = at + blendFrames; f < frames; f++) afterBlend = Math.max(afterBlend, maxJoint(blended[f], runAt(f)));
      expect(afterBlend).toBeLessThan(1e-9);
      expect(maxJoint(blended[at + blendFrames - 1], runAt(at + blendFrames - 1))).toBeGreaterThan(1e-6); // not before

      let worstBlended = 0, worstCut = 0, worstRun = 0;
      for (let f = at; f < frames; f++) {
        worstBlended = Math.max(worstBlended, maxJoint(blended[f], blended[f - 1]));
        worstCut = Math.max(worstCut, maxJoint(cut[f], cut[f - 1]));
        if (f > at) worstRun = Math.max(worstRun, maxJoint(runAt(f), runAt(f - 1)));
      }
      expect(worstBlended).toBeLessThan(worstCut / 3);
      report.push(
        `switch at walk frame ${at}: switch frame ${atSwitch.toFixed(2)} cm from the walk (its step ${walkStep.toFixed(2)} cm); ` +
        `largest joint jump ${worstBlended.toFixed(2)} cm inertial vs ${worstCut.toFixed(2)} cm instant (the run's own largest step ${worstRun.toFixed(2)} cm)`,
      );
    }
    console.log(report.join('\n'));
  });
});

describe('InertialBlend with extreme blend times and delta times (issue 13, item 11)', () => {
  const mixed = () => bipedInstance({
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    mix: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: { param: 'mix' } } },
    ib: { type: 'InertialBlend', inputs: { A: 'mix', B: 'idle' }, properties: { useA: { param: 'useA' }, blendTime: { param: 'bt' } } },
  }, 'ib', { mix: { type: 'float', default: 0 }, useA: { type: 'bool', default: true }, bt: { type: 'float', default: 0.3 } });
  const finite = (g: AnimGraphInstance) => {
    const p = g.evaluate();
    return !hasNaN(p.translations) && !hasNaN(p.rotations) && !hasNaN(p.scales);
  };

  it('a bound blend time of 1e155 s gives a finite pose (held to 1e6 s)', () => {
    const g = mixed();
    g.setParameter('bt', 1e155);
    g.update(0);
    g.update(0.1);
    g.evaluate();
    g.setParameter('useA', false);
    for (let f = 0; f < 3; f++) {
      g.update(0.1);
      expect(finite(g)).toBe(true);
    }
    expect(g.gatherDebug().children[0].values).toMatchObject({ active: true, duration: 1e6 });
  });

  it('a pose jump over a 1e-90 s frame before the switch gives a finite pose, the switch frame repeating it', () => {
    const g = mixed();
    g.update(0);
    g.update(0.1);
    g.evaluate();
    g.setParameter('mix', 1);
    g.update(1e-90); // the walk jumps to the run within 1e-90 s: a "velocity" of 1e90
    const last = Float64Array.from(g.evaluate().rotations);
    g.setParameter('useA', false);
    g.update(0);
    expect(finite(g)).toBe(true);
    expectClose(g.evaluate().rotations, last, 1e-12);
    for (let f = 0; f < 3; f++) {
      g.update(0.1);
      expect(finite(g)).toBe(true);
    }
  });
});
