import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../../host/files.ts';
import { expectClose } from '../../support/graphs.ts';
import { Clip } from '../../../runtime/core/clip.ts';
import { quatFromAxisAngle } from '../../../runtime/core/math.ts';
import { addRootVelocity, extractRootMotion, integrateRootMotion, rootMotionDelta } from '../../../runtime/jobs/root-motion.ts';
import { runGraph } from '../../../host/runner.ts';
import { CMU, describeWithData } from '../../support/shared-data.ts';
import { loadBvh } from '../../../runtime/import/bvh.ts';
import { axisAngle, gaitBvh, qmul, writeGait, type GaitOptions } from '../../support/gait-bvh.ts';

/** A root that walks 10 units along +Z per key while turning 90 degrees over the clip (5 keys at 4 fps). */
function turningClip(): Clip {
  const c = new Clip({ name: 'turn', frameRate: 4, frameCount: 5, tracks: [{ bone: 'root', translation: true, rotation: true, scale: false }] });
  for (let f = 0; f < 5; f++) {
    c.translations.set([0, 90, 10 * f], f * 3);
    quatFromAxisAngle(c.rotations, f * 4, 0, 1, 0, (Math.PI / 2) * (f / 4));
  }
  return c;
}

describe('root motion', () => {
  it('takes the horizontal translation and heading out of the root, keeping its height', () => {
    const c = turningClip();
    const motion = extractRootMotion(c, 'root');
    expect(Array.from(c.translations.subarray(6, 9))).toEqual([0, 90, 0]);
    expectClose(c.rotations.subarray(8, 12), [0, 0, 0, 1], 1e-12);
    expect(motion.headings[4]).toBeCloseTo(Math.PI / 2, 12);
    expect(motion.translations[4 * 3 + 2]).toBe(40);
  });

  it('gives deltas in the character frame at the start, and wraps across a loop', () => {
    const c = turningClip();
    const motion = extractRootMotion(c, 'root');
    const out = new Float64Array(4);
    // From key 2 (heading 45 degrees) to key 3: 10 along world +Z is, in a frame turned 45 degrees, (-sin45, cos45) * 10.
    rootMotionDelta(out, c, motion, Float64Array.of(0.5, 0.75, 0, 1));
    expect(out[0]).toBeCloseTo(-10 * Math.SQRT1_2, 12);
    expect(out[2]).toBeCloseTo(10 * Math.SQRT1_2, 12);
    expect(out[3]).toBeCloseTo(Math.PI / 8, 12);
    // Looping from 0.75 s to 0.25 s (wrapped): the last quarter then the first, heading change 45 degrees in all.
    rootMotionDelta(out, c, motion, Float64Array.of(0.75, 0.25, 1, 1));
    expect(out[3]).toBeCloseTo(Math.PI / 4, 12);
    // Leg one: world +Z seen from heading 67.5 degrees; leg two: +Z from heading 0, turned by the 22.5 degrees so far.
    const a = (67.5 * Math.PI) / 180, b = (22.5 * Math.PI) / 180;
    expect(out[0]).toBeCloseTo(-10 * Math.sin(a) + 10 * Math.sin(b), 12);
    expect(out[2]).toBeCloseTo(10 * Math.cos(a) + 10 * Math.cos(b), 12);
  });

  it('counts every whole loop a long step crosses, forwards and backwards, in closed form', () => {
    const c = turningClip();
    const motion = extractRootMotion(c, 'root');
    // Loops of the turning clip one at a time, as small steps compose them...
    const stepwise = (from: number, loops: number, to: number, forward: boolean) => {
      const world = Float64Array.of(0, 0, 0, 0, 0, 0, 1), d = new Float64Array(4), dir = forward ? 1 : -1;
      integrateRootMotion(world, rootMotionDelta(d, c, motion, Float64Array.of(from, forward ? 1 : 0, 0, dir)));
      for (let k = 0; k < loops; k++) integrateRootMotion(world, rootMotionDelta(d, c, motion, Float64Array.of(forward ? 0 : 1, forward ? 1 : 0, 0, dir)));
      integrateRootMotion(world, rootMotionDelta(d, c, motion, Float64Array.of(forward ? 0 : 1, to, 0, dir)));
      return world;
    };
    // ...and as one wrapping span with the whole loops counted.
    for (const [from, loops, to, forward] of [[0.75, 3, 0.25, true], [0.5, 1, 0.5, true], [0.25, 6, 0.75, false], [0.1, 41, 0.9, true]] as const) {
      const d = rootMotionDelta(new Float64Array(4), c, motion, Float64Array.of(from, to, 2, forward ? 1 : -1, 1, loops));
      const world = Float64Array.of(0, 0, 0, 0, 0, 0, 1);
      integrateRootMotion(world, d);
      expectClose(world, stepwise(from, loops, to, forward), 1e-9);
    }
    // A clip that does not turn: k loops are k times one loop's travel.
    const straight = new Clip({ name: 'straight', frameRate: 4, frameCount: 5, tracks: [{ bone: 'root', translation: true, rotation: false, scale: false }] });
    for (let f = 0; f < 5; f++) straight.translations.set([0, 90, 10 * f], f * 3);
    const m = extractRootMotion(straight, 'root');
    const d = rootMotionDelta(new Float64Array(4), straight, m, Float64Array.of(0.5, 0.5, 2, 1, 1, 1000));
    expectClose(d, [0, 0, 40 * 1001, 0], 1e-6);
  });

  it('integrates deltas into a world transform that follows the original root path', () => {
    const c = turningClip();
    const motion = extractRootMotion(c, 'root');
    const world = Float64Array.of(0, 0, 0, 0, 0, 0, 1);
    const d = new Float64Array(4);
    for (let k = 0; k < 4; k++) integrateRootMotion(world, rootMotionDelta(d, c, motion, Float64Array.of(k / 4, (k + 1) / 4, 0, 1)));
    expect(world[2]).toBeCloseTo(40, 9); // heading 0 at the start, so the world path is the clip's
    expect(world[0]).toBeCloseTo(0, 9);
    expect(2 * Math.atan2(world[4], world[6])).toBeCloseTo(Math.PI / 2, 12);
  });

  it('reports a still root\'s velocity as 0 at any pace, and a moving one\'s at a pace near the largest double without NaN', () => {
    // Pace × weight / window overflowed for a pace near the largest double over a window under a
    // second, and the still root's displacement, 0, times Infinity was NaN.
    const still = new Clip({ name: 'still', frameRate: 4, frameCount: 5, tracks: [{ bone: 'root', translation: true, rotation: true, scale: false }] });
    for (let f = 0; f < 5; f++) still.translations.set([0, 90, 0], f * 3);
    for (let f = 0; f < 5; f++) still.rotations.set([0, 0, 0, 1], f * 4);
    const velocity = (clip: Clip, pace: number) => {
      const out = new Float64Array(4);
      addRootVelocity(out, clip, extractRootMotion(clip, 'root'), Float64Array.of(0.5, pace, 0.25, 1));
      return Array.from(out);
    };
    for (const pace of [Number.MAX_VALUE, -Number.MAX_VALUE, 1e300]) expect(velocity(still, pace)).toEqual([0, 0, 0, 1]);
    const turning = turningClip();
    const huge = velocity(turning, Number.MAX_VALUE);
    expect(huge.some(Number.isNaN)).toBe(false);
    expect(huge[2]).toBe(Number.POSITIVE_INFINITY); // forward, beyond a double
    // Ordinary paces as before: pace × weight / window, times the window's displacement.
    expect(velocity(turning, 2).slice(0, 3)).toEqual(velocity(turning, 1).slice(0, 3).map((v) => 2 * v));
  });

  it('takes the motion from the first bone the clip moves, and is a load error when a named bone does not move', () => {
    // The built-in clips play in place: their root has no track, so the pelvis is the one that moves.
    const asset = (clips: Record<string, unknown>) => checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips,
      nodes: { p: { type: 'SequencePlayer', properties: { clip: Object.keys(clips)[0] } } }, output: 'p',
    });
    const walk = asset({ walk: { source: 'builtin:walk', rootMotion: true } });
    expect(walk.ok && walk.graph.clipBindings.get('walk')!.clip.rootMotion!.track).toBe(1);
    const result = asset({ walk: { source: 'builtin:walk', rootMotion: { bone: 'root' } }, run: { source: 'builtin:run', rootMotion: { bone: 'tail' } } });
    expect(!result.ok && result.problems.map((p) => [p.path, p.code])).toEqual([
      ['$.clips.walk.rootMotion.bone', 'no-root-motion'], ['$.clips.run.rootMotion.bone', 'unknown-bone'],
    ]);
  });
});

describe('root motion below a static root bone (hand-made BVH)', () => {
  const run = (staticRoot: number[]) => gaitBvh({
    order: 'ZXY', up: 'y', unit: 100, headingDeg: 30, pitchDeg: 15, rollDeg: 8, strides: 3, framesPerStride: 70, fps: 100,
    speed: 3, reference: axisAngle([1, 0.3, 0.5], 1.2), staticRoot,
  });
  const load = (file: string, rootMotion: unknown) => checkGraphAsset({
    format: 'animgraph/1', skeleton: { bvh: file }, clips: { run: { source: file, rootMotion } },
    nodes: { p: { type: 'SequencePlayer', properties: { clip: 'run', loop: true } } }, output: 'p',
  });

  // A root at the origin that never moves (as exporters write one), upright or in a Z-up rig's
  // rotation of -90 degrees about X; the hips below it carry the motion.
  for (const [name, rotation] of [['upright', [0, 0, 0, 1]], ['rotated', axisAngle([1, 0, 0], -Math.PI / 2)]] as const) {
    it(`extracts the hips' motion in component space under a still ${name} root`, () => {
      const file = writeGait(run([...rotation]));
      const result = load(file, true);
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      const clip = result.graph.clipBindings.get('run')!.clip;
      const motion = clip.rootMotion!;
      expect(clip.tracks[motion.track].bone).toBe('Hips');
      const headings = Array.from(motion.headings);
      expect(Math.max(...headings) - Math.min(...headings)).toBeLessThan(1e-9);
      // 3 m/s for 2.1 s, in centimetres, along the capture's heading of 30 degrees.
      const last = (clip.frameCount - 1) * 3;
      expect(motion.translations[last] - motion.translations[0]).toBeCloseTo(630 * Math.sin(Math.PI / 6), 6);
      expect(motion.translations[last + 2] - motion.translations[2]).toBeCloseTo(630 * Math.cos(Math.PI / 6), 6);
      const frames = runGraph(result.graph, { seconds: 5, fps: 30, debug: false }).frames;
      const hips = 1;
      for (const frame of frames) {
        const [x, y, z] = frame.component![hips];
        expect(Math.hypot(x, z)).toBeLessThan(1e-9); // in place, in component space
        expect(y).toBeGreaterThan(90);
        expectClose(frame.root!.slice(3), [0, 0, 0, 1], 1e-12);
      }
      const end = frames[frames.length - 1].root!;
      expect(Math.hypot(end[0], end[2])).toBeCloseTo(1500, 6);
    });
  }

  it("measures the heading from the skeleton's reference rotation of the bone when it has one", () => {
    // A skeleton asset whose hips carry the rig rotation in their bind pose: the heading is exact
    // even for a lean and a tilt that are not symmetric over the clip.
    const reference = axisAngle([1, 0.3, 0.5], 1.2);
    const gait = gaitBvh({
      order: 'YXZ', up: 'y', unit: 100, headingDeg: 30, pitchDeg: 15, rollDeg: 8, pitchPhase: 0.7, leanDeg: 6,
      strides: 3, framesPerStride: 70, fps: 100, speed: 3, reference,
    });
    const file = writeGait(gait);
    const skeleton = join(dirname(file), 'skeleton.json');
    writeFileSync(skeleton, JSON.stringify({ bones: [{ name: 'Hips', translation: [0, 95, 0], rotation: reference }] }));
    const graph = loadGraphAsset({
      format: 'animgraph/1', skeleton: { file: skeleton }, clips: { run: { source: file, rootMotion: true } },
      nodes: { p: { type: 'SequencePlayer', properties: { clip: 'run' } } }, output: 'p',
    });
    for (const h of graph.clipBindings.get('run')!.clip.rootMotion!.headings) expect(h).toBeCloseTo(Math.PI / 6, 12);
  });

  it('is a load error to name the still root', () => {
    const file = writeGait(run([0, 0, 0, 1]));
    const result = load(file, { bone: 'Root' });
    expect(!result.ok && result.problems.map((p) => [p.path, p.code, p.message])).toEqual([
      ['$.clips.run.rootMotion.bone', 'no-root-motion', "clip 'run' does not move bone 'Root', so it has no root motion to extract"],
    ]);
  });
});

describeWithData('root motion on the CMU walk', () => {
  const asset = (rootMotion: boolean, nodes?: Record<string, unknown>) => loadGraphAsset({
    format: 'animgraph/1',
    skeleton: { bvh: `${CMU}002_01.bvh` },
    clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1], rootMotion } },
    nodes: nodes ?? { p: { type: 'SequencePlayer', properties: { clip: 'walk', loop: false } } },
    output: nodes ? 'b' : 'p',
  });

  it('plays in place, and root + component space puts the feet where the capture had them', () => {
    const withMotion = asset(true);
    const plain = runGraph(asset(false), { frames: 160, fps: 60, debug: false });
    const moved = runGraph(withMotion, { frames: 160, fps: 60, debug: false });
    const motion = withMotion.clipBindings.get('walk')!.clip.rootMotion!;
    const [h0x, , h0z] = motion.translations;
    const yaw0 = motion.headings[0];
    const foot = plain.bones.indexOf('CC_Base_L_Foot');
    let travelled = 0;
    for (const f of [0, 40, 80, 159]) {
      const root = moved.frames[f].root!;
      const rootBone = moved.frames[f].component![0];
      expect(Math.abs(rootBone[0]) + Math.abs(rootBone[2])).toBeLessThan(1e-9); // in place horizontally
      // World foot = root transform applied to the in-place component-space foot.
      const [fx, fy, fz] = moved.frames[f].component![foot];
      const [qx, qy, qz, qw] = root.slice(3);
      const tx = 2 * (qy * fz - qz * fy), ty = 2 * (qz * fx - qx * fz), tz = 2 * (qx * fy - qy * fx);
      const wx = root[0] + fx + qw * tx + (qy * tz - qz * ty);
      const wy = root[1] + fy + qw * ty + (qz * tx - qx * tz);
      const wz = root[2] + fz + qw * tz + (qx * ty - qy * tx);
      // The capture's foot, seen from the character's start (its first root position and heading).
      const [px, py, pz] = plain.frames[f].component![foot];
      const dx = px - h0x, dz = pz - h0z, c = Math.cos(-yaw0), s = Math.sin(-yaw0);
      const ex = c * dx + s * dz, ez = -s * dx + c * dz;
      expect(Math.hypot(wx - ex, wy - py, wz - ez)).toBeLessThan(1e-6);
      travelled = Math.hypot(root[0], root[2]);
    }
    expect(travelled).toBeGreaterThan(100); // the walk covers more than a metre
  });

  it('keeps the heading along the line of travel on straight walks and a run', () => {
    // The takes go straight; the heading swings with the pelvis' yaw within a stride (about ±8
    // degrees) but its mean stays on the line the root travels.
    for (const take of ['002_01', '002_03', '007_04', '007_12']) {
      const graph = loadGraphAsset({
        format: 'animgraph/1', skeleton: { bvh: `${CMU}${take}.bvh` },
        clips: { c: { source: `${CMU}${take}.bvh`, frames: [1, -1], rootMotion: true } },
        nodes: { p: { type: 'SequencePlayer', properties: { clip: 'c' } } }, output: 'p',
      });
      const { headings, translations: t } = graph.clipBindings.get('c')!.clip.rootMotion!;
      const n = headings.length;
      const travel = Math.atan2(t[(n - 1) * 3] - t[0], t[(n - 1) * 3 + 2] - t[2]);
      const mean = headings.reduce((sum, h) => sum + h, 0) / n;
      expect(Math.abs(mean - travel)).toBeLessThan((5 * Math.PI) / 180);
      for (const h of headings) expect(Math.abs(h - travel)).toBeLessThan((15 * Math.PI) / 180);
    }
  });

  it('gives one long update the root motion of many short ones, whole loops included (CMU walk)', () => {
    const graph = loadGraphAsset({
      format: 'animgraph/1', skeleton: { bvh: `${CMU}002_01.bvh` },
      clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1], rootMotion: true } },
      nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 10 } } }, output: 'p',
    });
    const duration = graph.clipBindings.get('walk')!.clip.duration;
    // 0.95 s at play rate 10 is 9.5 s of clip: three whole loops of the 2.8 s walk inside one update.
    const once = graph.createInstance(), many = graph.createInstance();
    const worldOnce = Float64Array.of(0, 0, 0, 0, 0, 0, 1), worldMany = Float64Array.of(0, 0, 0, 0, 0, 0, 1);
    once.update(0);
    many.update(0);
    once.update(0.95);
    integrateRootMotion(worldOnce, once.rootMotion);
    for (let k = 0; k < 95; k++) {
      many.update(0.01);
      integrateRootMotion(worldMany, many.rootMotion);
    }
    expect(Math.floor(9.5 / duration)).toBe(3);
    expectClose(worldOnce, worldMany, 1e-6);
    // The walk travels several metres in that time: the loops were not lost.
    expect(Math.hypot(worldOnce[0], worldOnce[2])).toBeGreaterThan(3 * 200);
  });

  it('blends root motion by weight', () => {
    const nodes = {
      a: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      c: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 0 } },
      b: { type: 'BlendTwo', inputs: { A: 'a', B: 'c' }, properties: { alpha: 0.25 } },
    };
    const blended = asset(true, nodes).createInstance();
    const single = asset(true).createInstance();
    blended.update(0.1);
    single.update(0.1);
    for (let k = 0; k < 4; k++) expect(blended.rootMotion[k]).toBeCloseTo(single.rootMotion[k] * 0.75, 12);
    expect(Math.abs(single.rootMotion[2]) + Math.abs(single.rootMotion[0])).toBeGreaterThan(1);
  });
});

describe('heading of a pitching and rolling root with a rig rotation (hand-made BVH)', () => {
  // A straight run at 3 m/s, heading 30 degrees, the hips pitching ±15 degrees twice per stride and
  // rolling ±8 degrees once per stride, in a rig whose hips are rotated 69 degrees about a tilted
  // axis (an upright body is not the identity), with position channels on every joint.
  const run = (o: Partial<GaitOptions>): GaitOptions => ({
    order: 'ZXY', up: 'y', unit: 1, headingDeg: 30, pitchDeg: 15, rollDeg: 8, strides: 3, framesPerStride: 70, fps: 100,
    speed: 3, reference: axisAngle([1, 0.3, 0.5], 1.2), ...o,
  });
  const cases: [string, Partial<GaitOptions>][] = [
    ['ZXY channels, Y up, metres', { order: 'ZXY' }],
    ['YXZ channels, Y up, centimetres', { order: 'YXZ', unit: 100 }],
    ['ZYX channels, Z up, centimetres', { order: 'ZYX', up: 'z', unit: 100 }],
    ['ZXY channels, Z up, metres', { order: 'ZXY', up: 'z' }],
  ];
  for (const [name, options] of cases) {
    it(`extracts a constant heading and runs straight across loop wraps: ${name}`, () => {
      const o = run(options);
      const gait = gaitBvh(o);
      const file = writeGait(gait);
      const graph = loadGraphAsset({
        format: 'animgraph/1', units: o.unit === 1 ? 'm' : 'cm', skeleton: { bvh: file },
        clips: { run: { source: file, rootMotion: { up: o.up } } },
        nodes: { p: { type: 'SequencePlayer', properties: { clip: 'run', loop: true } } }, output: 'p',
      });
      const clip = graph.clipBindings.get('run')!.clip;
      const motion = clip.rootMotion!;
      expect(clip.tracks[motion.track].bone).toBe('Hips');
      expect(graph.skeleton.metresPerUnit * o.unit).toBe(1);
      const headings = Array.from(motion.headings);
      expect(Math.max(...headings) - Math.min(...headings)).toBeLessThan(1e-9);

      // What stays in the pose recomposes with the heading to the captured rotation, and keeps the height.
      const source = loadBvh(gait.text, 'run').clip;
      const n = clip.tracks.length, u = o.up === 'y' ? 1 : 2;
      for (let f = 0; f < clip.frameCount; f += 7) {
        const r = f * n * 4;
        const turned = qmul(axisAngle(gait.axes.up, headings[f]), Array.from(clip.rotations.subarray(r, r + 4)));
        const original = Array.from(source.rotations.subarray(r, r + 4));
        const sign = Math.sign(turned[3] * original[3] + turned[0] * original[0] + turned[1] * original[1] + turned[2] * original[2]);
        expectClose(turned.map((x) => x * sign), original, 1e-12);
        for (let k = 0; k < 3; k++) expect(clip.translations[f * n * 3 + k]).toBe(k === u ? source.translations[f * n * 3 + k] : 0);
      }

      // 3 loops of 2.1 s: the character's path is a straight line and it never turns.
      const result = runGraph(graph, { seconds: 6.5, fps: 30, debug: false });
      const last = result.frames[result.frames.length - 1].root!;
      const length = Math.hypot(last[0], last[1], last[2]);
      expect(length).toBeCloseTo(3 * 6.5 * o.unit, 6);
      for (const frame of result.frames) {
        const [x, y, z, qx, qy, qz, qw] = frame.root!;
        // Distance from the line through the start and the end: |p × end| / |end|.
        const lateral = Math.hypot(y * last[2] - z * last[1], z * last[0] - x * last[2], x * last[1] - y * last[0]) / length;
        expect(lateral).toBeLessThan(1e-9 * o.unit);
        expectClose([qx, qy, qz, qw], [0, 0, 0, 1], 1e-12);
      }
    });
  }

  it('measures the heading from the reference given, whatever the tilt', () => {
    // A tilt that is not symmetric over the clip and a constant forward lean: with the rig rotation
    // known (a skeleton's bind pose), the heading is exact. Estimated from the clip, the mean lean
    // counts as upright, and the roll about the world's forward axis composed with the lean's
    // removal leaves a twist of 0.84 degrees peak to peak (0.008 without the lean); taking the
    // rig rotation as the identity, as a BVH skeleton's reference pose has it, wobbles 13.6 degrees.
    const o = run({ pitchPhase: 0.7, leanDeg: 6, order: 'YXZ' });
    const gait = gaitBvh(o);
    const given = extractRootMotion(loadBvh(gait.text, 'g').clip, 'Hips', 'y', { reference: o.reference });
    for (const h of given.headings) expect(h).toBeCloseTo(Math.PI / 6, 12);
    const estimated = Array.from(extractRootMotion(loadBvh(gait.text, 'g').clip, 'Hips', 'y').headings);
    expect(Math.max(...estimated) - Math.min(...estimated)).toBeLessThan(Math.PI / 180);
    const identity = Array.from(extractRootMotion(loadBvh(gait.text, 'g').clip, 'Hips', 'y', { reference: [0, 0, 0, 1] }).headings);
    expect(Math.max(...identity) - Math.min(...identity)).toBeGreaterThan(10 * Math.PI / 180);
  });
});
