import { describe, expect, it, vi } from 'vitest';
import { Crowd } from '../../../host/crowd.ts';
import { loadGraphAsset } from '../../../host/files.ts';
import { OutputType } from '../../../nodes/index.ts';
import { SequencePlayerType } from '../../../nodes/SequencePlayer.ts';
import { Clip } from '../../../runtime/core/clip.ts';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { AnimGraph } from '../../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import { quatFromAxisAngle } from '../../../runtime/core/math.ts';
import { extractRootMotion } from '../../../runtime/jobs/root-motion.ts';
import type { Pose } from '../../../runtime/core/pose.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { rateWalkGraph } from '../../support/crowd-graphs.ts';
import { CMU, describeWithData } from '../../support/shared-data.ts';
import { runProbe } from '../../support/allocation.ts';
import { expectAnimGraphError } from '../../support/errors.ts';

const DT = 1 / 60;

/**
 * Two bones; the child moves 1 cm per second along x and turns 9 degrees per second about y (keys
 * 10 s apart); the root, with `rootMotion`, walks 10 cm per second along z as root motion.
 */
function linearGraph(rootMotion = false): AnimGraph {
  const skeleton = Skeleton.fromDefinitions([
    { name: 'root', parent: null, translation: [0, 0, 0] },
    { name: 'arm', parent: 'root', translation: [0, 10, 0] },
  ]);
  const clip = new Clip({
    name: 'line', frameRate: 0.1, frameCount: 2, interpolation: 'slerp',
    tracks: [{ bone: 'arm', translation: true, rotation: true, scale: false }, { bone: 'root', translation: true, rotation: false, scale: false }],
  });
  clip.translations.set([0, 10, 0, 0, 0, 0, 10, 10, 0, 0, 0, 100]);
  quatFromAxisAngle(clip.rotations, 0, 0, 1, 0, 0);
  quatFromAxisAngle(clip.rotations, 8, 0, 1, 0, Math.PI / 2);
  if (rootMotion) clip.rootMotion = extractRootMotion(clip, 'root');
  return new AnimGraph({
    name: 'line', skeleton, parameters: {}, clips: new Map([['line', clip]]),
    nodes: [
      { id: 'p', nodeType: SequencePlayerType, properties: { clip: 'line', playRate: 1, loop: false }, inputs: {} },
      { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'p' } },
    ],
  });
}

/** Largest angle between two rotation arrays' quaternions, degrees. */
function quatAngle(a: Float64Array, b: Float64Array): number {
  let dot = 1;
  for (let o = 0; o < a.length; o += 4) dot = Math.min(dot, Math.abs(a[o] * b[o] + a[o + 1] * b[o + 1] + a[o + 2] * b[o + 2] + a[o + 3] * b[o + 3]));
  return (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI;
}

/** Largest angle between two poses' local rotations (degrees) and largest distance between their translations. */
function localDifference(a: Pose, b: Pose): { degrees: number; distance: number } {
  let dot = 1, distance = 0;
  for (let o = 0; o < a.rotations.length; o += 4) {
    const d = Math.abs(a.rotations[o] * b.rotations[o] + a.rotations[o + 1] * b.rotations[o + 1] + a.rotations[o + 2] * b.rotations[o + 2] + a.rotations[o + 3] * b.rotations[o + 3]);
    dot = Math.min(dot, d);
  }
  for (let i = 0; i < a.translations.length; i += 3) {
    distance = Math.max(distance, Math.hypot(a.translations[i] - b.translations[i], a.translations[i + 1] - b.translations[i + 1], a.translations[i + 2] - b.translations[i + 2]));
  }
  return { degrees: (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI, distance };
}

describe('update rate (URO)', () => {
  it('rejects rates and phases that are not whole numbers in range, at the call', () => {
    const g = linearGraph().createInstance();
    for (const bad of [0, -1, 1.5, 256, Number.NaN, Infinity]) expectAnimGraphError(() => g.setUpdateRate(bad), 'out-of-range', `an update rate is a whole number of frames from 1 (every frame) to 255; got ${bad}`);
    expectAnimGraphError(() => g.setUpdateRate('2' as never), 'invalid-argument', 'an update rate is a whole number of frames from 1 (every frame) to 255; got 2');
    expect(() => g.setUpdateRate(2, 0.5)).toThrow(/phase/);
    expect(g.updateRate).toBe(1);
    g.setUpdateRate(4, -1);
    expect([g.updateRate, g.updatePhase]).toEqual([4, 3]);
    // Options: null threw "Cannot read properties of null"; { interpolate: 'no' } was kept, and read as true.
    expectAnimGraphError(() => g.setUpdateRate(2, 0, null as never), 'invalid-argument', 'update rate options are an object ({ interpolate }); got null');
    expectAnimGraphError(() => g.setUpdateRate(2, 0, { interpolate: 'no' as never }), 'invalid-argument', 'update rate option interpolate is true or false; got "no"');
    expect([g.updateRate, g.interpolatesSkippedFrames]).toEqual([4, true]);
  });

  it('at rate 2 on a linear clip shows the exact midpoint of two evaluations, and the graph runs on one frame in two', () => {
    const full = linearGraph().createInstance();
    const half = linearGraph().createInstance();
    half.setUpdateRate(2);
    let graphUpdates = 0;
    for (let f = 0; f < 120; f++) {
      const before = half.updateCounter;
      full.update(DT);
      half.update(DT);
      graphUpdates += half.updateCounter - before;
      const shown = half.evaluate(), want = full.evaluate();
      for (let i = 0; i < 8; i++) expect(shown.rotations[i]).toBeCloseTo(want.rotations[i], 13);
      for (let i = 0; i < 6; i++) expect(shown.translations[i]).toBeCloseTo(want.translations[i], 12);
      // On an evaluation frame the shown pose is the midpoint of the evaluations one frame either side.
      if (half.updateCounter !== before && f >= 2) expect(shown.translations[3]).toBeCloseTo((f + 1) / 60, 13);
      // The graph is ahead by one frame after an evaluation, caught up on the frame between.
      if (f >= 1) expect(half.lookAhead).toBeCloseTo(half.updateCounter === before ? 0 : DT, 15);
    }
    // One in two once two delta times are known (until then the look-ahead is 0, see UpdateRateClock.tick).
    expect(graphUpdates).toBe(61);
    expect(half.time).toBe(full.time);
  });

  it('fires the same events at rate 4 as at full rate, in order per node, at most 3 frames early', () => {
    const record = (g: AnimGraphInstance, into: [string, number][], frame: () => number) => {
      g.events.on('notify', (name, node) => into.push([`notify ${name} ${node}`, frame()]));
      g.events.on('notifyBegin', (name, node) => into.push([`begin ${name} ${node}`, frame()]));
      g.events.on('notifyEnd', (name, node) => into.push([`end ${name} ${node}`, frame()]));
      g.events.on('sequenceLooped', (node, clip) => into.push([`looped ${node} ${clip}`, frame()]));
    };
    const full = rateWalkGraph().createInstance(), lod = rateWalkGraph().createInstance();
    lod.setUpdateRate(4, 1);
    const fullEvents: [string, number][] = [], lodEvents: [string, number][] = [];
    let f = 0;
    record(full, fullEvents, () => f);
    record(lod, lodEvents, () => f);
    // The rate-4 graph runs 3 frames ahead after its evaluation on the 299th update ((299 + 1) % 4
    // is 0): the full-rate one is run 3 frames further, to the same graph time.
    for (; f < 299; f++) {
      full.update(DT);
      lod.update(DT);
    }
    expect(lod.lookAhead).toBeCloseTo(3 * DT, 12);
    for (; f < 302; f++) full.update(DT);
    expect(lodEvents.length).toBeGreaterThan(20);
    // Within one evaluation the graph updates node by node, so two nodes' events of one interval
    // come in graph order rather than time order; each node's own come in time order.
    expect(lodEvents.map((e) => e[0]).sort()).toEqual(fullEvents.map((e) => e[0]).sort());
    for (const node of ['walk', 'run']) {
      const mine = lodEvents.filter((e) => e[0].endsWith(` ${node}`) || e[0].includes(`looped ${node}`));
      const theirs = fullEvents.filter((e) => e[0].endsWith(` ${node}`) || e[0].includes(`looped ${node}`));
      expect(mine.map((e) => e[0])).toEqual(theirs.map((e) => e[0]));
      for (let i = 0; i < mine.length; i++) {
        const early = theirs[i][1] - mine[i][1];
        expect(early).toBeGreaterThanOrEqual(0);
        expect(early).toBeLessThanOrEqual(3);
      }
    }
  });

  it('reports root motion per frame that adds up to the full-rate total, and lerps curves', () => {
    // The linear clip's root walks 10 cm/s along z; the builtin walk (in place) turns.
    for (const make of [() => linearGraph(true), rateWalkGraph]) {
      const full = make().createInstance(), lod = make().createInstance();
      lod.setUpdateRate(4, 1);
      const sum = (into: number[], m: Float64Array) => m.forEach((v, i) => { into[i] += v; });
      const a = [0, 0, 0, 0], b = [0, 0, 0, 0];
      let maxStep = 0, maxCurve = 0;
      // The 298th update ends an interval (the 299th evaluates): nothing pending.
      for (let f = 0; f < 298; f++) {
        full.update(DT);
        lod.update(DT);
        sum(a, full.rootMotion);
        sum(b, lod.rootMotion);
        for (let i = 0; i < 4; i++) maxStep = Math.max(maxStep, Math.abs(lod.rootMotion[i] - full.rootMotion[i]));
        if (lod.graph.curveNames.length > 0) maxCurve = Math.max(maxCurve, Math.abs(lod.curve('lean') - full.curve('lean')));
      }
      expect(lod.lookAhead).toBeCloseTo(0, 12);
      expect(Math.abs(a[2]) + Math.abs(a[3])).toBeGreaterThan(0.01);
      for (let i = 0; i < 4; i++) expect(b[i]).toBeCloseTo(a[i], 10);
      // Spread over its frames by time: on the linear clip each frame's share is the full-rate delta.
      if (make !== rateWalkGraph) expect(maxStep).toBeLessThan(1e-12);
      expect(maxCurve).toBeLessThan(0.06); // corners cut at the curve's peak and loop, 2 per second each way
      console.log(`${lod.graph.name} at rate 4: root motion total [${b.map((v) => v.toFixed(6))}] (full rate [${a.map((v) => v.toFixed(6))}]), largest per-frame difference ${maxStep.toExponential(2)}, curve ${maxCurve.toExponential(2)}`);
    }
  });

  it('moves nothing on zero, negative or NaN delta times, and is deterministic', () => {
    const a = rateWalkGraph().createInstance(), b = rateWalkGraph().createInstance(), full = rateWalkGraph().createInstance();
    a.setUpdateRate(4, 2);
    b.setUpdateRate(4, 2);
    const dts = [DT, DT, 0, DT, -1, Number.NaN, DT, DT, 0, 0, 0, DT, DT, 2 * DT, DT / 3, DT, Infinity, DT];
    let worst = 0;
    for (let f = 0; f < 200; f++) {
      const dt = dts[f % dts.length];
      const counter = a.updateCounter, time = a.time;
      const before = Float64Array.from(a.evaluate().rotations);
      a.update(dt);
      b.update(dt);
      full.update(dt);
      const shown = a.evaluate();
      expect(Array.from(shown.rotations)).toEqual(Array.from(b.evaluate().rotations));
      if (!(dt > 0)) {
        expect(a.updateCounter).toBe(counter);
        expect(a.time).toBe(time);
        expect(Array.from(shown.rotations)).toEqual(Array.from(before));
        expect(a.rootMotion.every((v) => v === 0)).toBe(true);
      }
      worst = Math.max(worst, localDifference(shown, full.evaluate()).degrees);
    }
    console.log(`irregular delta times at rate 4: largest difference from full rate ${worst.toFixed(3)} deg`);
    expect(worst).toBeLessThan(6);
  });

  it('changes rate mid-run without a pop', () => {
    const full = rateWalkGraph().createInstance(), lod = rateWalkGraph().createInstance();
    const schedule = new Map([[30, 4], [61, 2], [90, 1], [97, 4], [99, 1], [130, 3], [160, 1]]);
    const angle = (a: Float64Array, b: Float64Array) => {
      let dot = 1;
      for (let o = 0; o < a.length; o += 4) dot = Math.min(dot, Math.abs(a[o] * b[o] + a[o + 1] * b[o + 1] + a[o + 2] * b[o + 2] + a[o + 3] * b[o + 3]));
      return (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI;
    };
    let prevLod = Float64Array.from(lod.evaluate().rotations), prevFull = Float64Array.from(full.evaluate().rotations);
    let worst = 0, worstPop = 0;
    const pops: string[] = [];
    for (let f = 0; f < 200; f++) {
      const rate = schedule.get(f);
      if (rate !== undefined) lod.setUpdateRate(rate, f);
      full.update(DT);
      lod.update(DT);
      const shown = lod.evaluate().rotations, want = full.evaluate().rotations;
      worst = Math.max(worst, angle(shown, want));
      // The shown pose's change over the frame, beyond what the full-rate pose changed by.
      const jump = angle(shown, prevLod), fullJump = angle(want, prevFull);
      if (schedule.has(f) || schedule.has(f - 1)) pops.push(`${f}: ${jump.toFixed(2)} (${fullJump.toFixed(2)})`);
      if (schedule.has(f) || schedule.has(f - 1) || schedule.has(f - 2)) worstPop = Math.max(worstPop, jump - fullJump);
      prevLod = Float64Array.from(shown);
      prevFull = Float64Array.from(want);
    }
    console.log(`rate changes: largest difference from full rate ${worst.toFixed(3)} deg; change over the switch frames and the next, in degrees (full rate): ${pops.join(', ')}`);
    // Back at rate 1 and caught up: the graph's own pose again, to rounding.
    expect(lod.lookAhead).toBe(0);
    expect(angle(lod.evaluate().rotations, full.evaluate().rotations)).toBeLessThan(1e-4); // acos's floor near 1
    expect(worstPop).toBeLessThan(1.5);
    expect(worst).toBeLessThan(4);
  });

  it('holding skipped frames ({ interpolate: false }) evaluates at the displayed time on the scheduled frames and then does no work', () => {
    const full = linearGraph(true).createInstance(), held = linearGraph(true).createInstance();
    held.setUpdateRate(4, 1, { interpolate: false });
    expect(held.interpolatesSkippedFrames).toBe(false);
    const components = vi.spyOn(ComponentPose.prototype, 'ensureAllComponent');
    let shown = Float64Array.from(held.evaluate().translations), lastUpdate = -1, graphUpdates = 0;
    const motionFull = [0, 0, 0, 0], motionHeld = [0, 0, 0, 0];
    for (let f = 0; f < 120; f++) {
      const before = held.updateCounter;
      full.update(DT);
      held.update(DT);
      full.rootMotion.forEach((v, i) => { motionFull[i] += v; });
      held.rootMotion.forEach((v, i) => { motionHeld[i] += v; });
      const pose = held.evaluate();
      held.componentPose();
      if (held.updateCounter !== before) {
        graphUpdates++;
        // The new graph's first update comes at once (it has no pose to hold yet); then the
        // scheduled frames ((frame + phase) % 4 === 0, frames counted from 1): the pose at the displayed time.
        if (f > 0) expect((f + 1 + 1) % 4).toBe(0);
        if (lastUpdate > 0) {
          expect(f - lastUpdate).toBe(4);
          expect(held.rootMotion[2]).toBeCloseTo(4 * DT * 10, 10); // four frames' root motion at once
        }
        lastUpdate = f;
        const want = full.evaluate();
        for (let i = 0; i < 6; i++) expect(pose.translations[i]).toBeCloseTo(want.translations[i], 12);
        for (let i = 0; i < 8; i++) expect(pose.rotations[i]).toBeCloseTo(want.rotations[i], 12);
        shown = Float64Array.from(pose.translations);
      } else {
        // Held: the last evaluation exactly, no root motion reported, not even the component pose recomputed.
        expect(Array.from(pose.translations)).toEqual(Array.from(shown));
        expect(held.rootMotion.every((v) => v === 0)).toBe(true);
      }
      expect(held.lookAhead).toBe(0);
    }
    expect(graphUpdates).toBe(31);
    expect(components.mock.calls.length).toBeLessThanOrEqual(31); // once per evaluation
    components.mockRestore();
    // The root motion reported so far is the full-rate total up to the last evaluation, a frame back.
    expect(motionHeld[2]).toBeCloseTo(motionFull[2] - DT * 10, 10);
  });

  it('holding fires the same events as full rate, in order per node, at most 3 frames late, and switching to and from it does not pop', () => {
    const full = rateWalkGraph().createInstance(), held = rateWalkGraph().createInstance();
    held.setUpdateRate(4, 1, { interpolate: false });
    const fullEvents: [string, number][] = [], heldEvents: [string, number][] = [];
    let f = 0;
    full.events.on('notify', (name, node) => fullEvents.push([`${name} ${node}`, f]));
    held.events.on('notify', (name, node) => heldEvents.push([`${name} ${node}`, f]));
    // 299 updates: the held graph's last update is on the 299th ((299 + 1) % 4 === 0), at the displayed time.
    for (; f < 299; f++) {
      full.update(DT);
      held.update(DT);
    }
    expect(heldEvents.length).toBeGreaterThan(5);
    expect(heldEvents.map((e) => e[0])).toEqual(fullEvents.map((e) => e[0]));
    const late = heldEvents.map((e, i) => e[1] - fullEvents[i][1]);
    expect(Math.min(...late)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...late)).toBeLessThanOrEqual(3);
    // Interpolating <-> holding at rate 4 mid-run: no frame jumps further than the motion of the
    // four frames a held character covers at once, and back at rate 1 it is the full-rate pose.
    const a = rateWalkGraph().createInstance(), b = rateWalkGraph().createInstance();
    a.setUpdateRate(4, 0);
    const history: Float64Array[] = [];
    let previous = Float64Array.from(a.evaluate().rotations);
    let worstJump = 0, fourFrames = 0;
    for (let k = 0; k < 120; k++) {
      if (k === 30) a.setUpdateRate(4, 0, { interpolate: false });
      if (k === 70) a.setUpdateRate(4, 0);
      if (k === 100) a.setUpdateRate(1);
      a.update(DT);
      b.update(DT);
      const shown = a.evaluate(), want = b.evaluate();
      history.push(Float64Array.from(want.rotations));
      // (From the first update on: before it, the instance showed the reference pose.)
      if (k > 0) worstJump = Math.max(worstJump, quatAngle(shown.rotations, previous));
      if (k >= 4) fourFrames = Math.max(fourFrames, quatAngle(history[k], history[k - 4]));
      previous = Float64Array.from(shown.rotations);
    }
    console.log(`holding <-> interpolating at rate 4: largest jump of the shown pose ${worstJump.toFixed(3)} deg, largest motion over 4 frames at full rate ${fourFrames.toFixed(3)} deg`);
    expect(worstJump).toBeLessThan(fourFrames + 0.5);
    expect(localDifference(a.evaluate(), b.evaluate()).degrees).toBeLessThan(1e-4);
  });

  it('switching between holding, interpolating and full rate starts each interval from the pose held', () => {
    // On the linear clip an interpolated frame is the full-rate pose exactly, but only if its
    // interval starts from the pose the held frames showed (which a held frame evaluates straight
    // into the output, not into the interpolation's poses); a held frame shows the pose of one of
    // the last four displayed times.
    const full = linearGraph().createInstance(), lod = linearGraph().createInstance();
    const schedule = new Map<number, [number, boolean]>([
      [5, [4, false]], [17, [4, true]], [26, [4, false]], [27, [4, true]], [40, [2, false]], [49, [1, true]],
      [55, [4, false]], [66, [1, false]], [70, [3, false]], [81, [4, true]], [90, [4, false]], [99, [1, true]],
    ]);
    const history: number[][] = [];
    let interpolatedFrames = 0, heldFrames = 0;
    for (let f = 0; f < 110; f++) {
      const change = schedule.get(f);
      if (change !== undefined) lod.setUpdateRate(change[0], 0, { interpolate: change[1] });
      full.update(DT);
      lod.update(DT);
      const want = Array.from(full.evaluate().translations), shown = Array.from(lod.evaluate().translations);
      history.push(want);
      if (lod.interpolatesSkippedFrames || lod.updateRate === 1) {
        interpolatedFrames++;
        shown.forEach((v, i) => expect(v, `frame ${f}`).toBeCloseTo(want[i], 12));
      } else {
        heldFrames++;
        const back = history.slice(-4).findIndex((p) => p.every((v, i) => Math.abs(v - shown[i]) < 1e-12));
        expect(back, `frame ${f}`).toBeGreaterThanOrEqual(0);
      }
    }
    expect(interpolatedFrames).toBeGreaterThan(40);
    expect(heldFrames).toBeGreaterThan(30);
    expect(lod.lookAhead).toBe(0);
  });

  it('a Crowd takes per-character rates and matches its instances bit for bit', async () => {
    const crowd = await Crowd.create({ source: { module: new URL('../../support/crowd-graphs.ts', import.meta.url).href, export: 'rateWalkGraph' }, count: 6, workers: 1, componentSpace: true });
    try {
      const rates = [1, 2, 4, 4, 2, 1];
      const alone = rates.map((rate, i) => {
        const g = rateWalkGraph().createInstance();
        // Character 3 holds its skipped frames.
        const options = i === 3 ? { interpolate: false } : {};
        g.setUpdateRate(rate, i, options);
        crowd.setUpdateRate(i, rate, i, options);
        return g;
      });
      expectAnimGraphError(() => crowd.setUpdateRate(0, 0), 'out-of-range', /^an update rate is a whole number/);
      expect(() => crowd.setUpdateRate(6, 2)).toThrow(/no character 6/);
      expect(crowd.getUpdateRate(2)).toBe(4);
      const n = crowd.boneCount;
      for (let f = 0; f < 40; f++) {
        if (f === 20) {
          crowd.setUpdateRate(0, 4, 3);
          alone[0].setUpdateRate(4, 3);
        }
        crowd.update(DT);
        alone.forEach((g, i) => {
          g.update(DT);
          const mine = g.componentPose();
          expect(Array.from(crowd.rotations.subarray(i * n * 4, (i + 1) * n * 4))).toEqual(Array.from(mine.local.rotations));
          expect(Array.from(crowd.componentTranslations.subarray(i * n * 3, (i + 1) * n * 3))).toEqual(Array.from(mine.translations));
          expect(Array.from(crowd.rootMotion.subarray(i * 4, i * 4 + 4))).toEqual(Array.from(g.rootMotion));
        });
      }
    } finally {
      await crowd.close();
    }
  });

  it('allocates nothing per frame with mixed rates, rate changes and a Crowd', () => {
    const result = runProbe('update-rate-allocation-probe.ts');
    console.log(`update-rate allocation probe: ${JSON.stringify(result)}`);
    // 1 B a frame is below one object per rate change (every 22 frames here): setUpdateRate called
    // without options made a new `{}` each time (1.86 B a frame) until it took a shared default.
    expect(result.perFrame).toBeLessThan(1);
    expect(result.perFrameCrowd).toBeLessThan(1);
    expect(result.rates).toEqual([1, 2, 4, 4]);
  });
});

describeWithData('update rate on the CMU walk', () => {
  const graph = loadGraphAsset({
    format: 'animgraph/1',
    skeleton: { bvh: `${CMU}002_01.bvh` },
    clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1] } },
    nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk', loop: false } } },
    output: 'p',
  });

  // Bounds asserted (the measured figures are printed): the interpolation's error against the
  // full-rate pose over the take's first 2.67 s (160 frames at 60 fps, before its end). The largest
  // errors are on the toes and hands, whose capture jitters from frame to frame (a midpoint cannot
  // follow a sample that zigzags); the body's other bones are given a tighter bound.
  const bounds: Record<number, { all: [number, number]; body: [number, number] }> = {
    2: { all: [7, 2], body: [4.5, 2] },
    4: { all: [11, 3.5], body: [9, 3] },
  };
  const extremity = /Toe|Hand|Finger|Thumb|Index|Mid|Ring|Pinky/;
  for (const rate of [2, 4]) {
    const [allDegrees, allCm] = bounds[rate].all, [bodyDegrees, bodyCm] = bounds[rate].body;
    it(`stays within ${allDegrees} degrees per bone and ${allCm} cm of the full-rate poses at rate ${rate} (${bodyDegrees} degrees and ${bodyCm} cm off the hands and toes)`, () => {
      const full = graph.createInstance(), lod = graph.createInstance();
      lod.setUpdateRate(rate, 1);
      const names = graph.skeleton.boneNames;
      const worst = { all: [0, 0], body: [0, 0] };
      for (let f = 0; f < 160; f++) {
        full.update(DT);
        lod.update(DT);
        const a = lod.componentPose(), b = full.componentPose();
        for (let bone = 0; bone < names.length; bone++) {
          const o = bone * 4, p = bone * 3, ra = a.local.rotations, rb = b.local.rotations, ta = a.translations, tb = b.translations;
          const dot = Math.abs(ra[o] * rb[o] + ra[o + 1] * rb[o + 1] + ra[o + 2] * rb[o + 2] + ra[o + 3] * rb[o + 3]);
          const degrees = (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI;
          const cm = Math.hypot(ta[p] - tb[p], ta[p + 1] - tb[p + 1], ta[p + 2] - tb[p + 2]);
          for (const group of extremity.test(names[bone]) ? [worst.all] : [worst.all, worst.body]) {
            group[0] = Math.max(group[0], degrees);
            group[1] = Math.max(group[1], cm);
          }
        }
      }
      console.log(`CMU 002_01 at rate ${rate}: largest local rotation difference ${worst.all[0].toFixed(3)} deg and bone position difference ${worst.all[1].toFixed(3)} cm; off the hands and toes ${worst.body[0].toFixed(3)} deg and ${worst.body[1].toFixed(3)} cm`);
      expect(worst.all[0]).toBeLessThan(allDegrees);
      expect(worst.all[1]).toBeLessThan(allCm);
      expect(worst.body[0]).toBeLessThan(bodyDegrees);
      expect(worst.body[1]).toBeLessThan(bodyCm);
    });
  }
});
