/**
 * The Crowd (host/crowd.ts) on its threads: poses, parameters, slots and snapshots as instances
 * alone give them, its checks, and a worker's error. Its workers' failures are in
 * crowd-failures.test.ts, its events in crowd-events.test.ts.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadGraphFile } from '../../host/files.ts';
import { crowdWorkerLoop } from '../../host/crowd-worker-loop.ts';
import { DONE, FAILURE_BYTES, GO, STOP, THREW, WAKE, workerWord, type CrowdBuffers } from '../../host/crowd-shared.ts';
import type { CrowdSlice } from '../../host/crowd-slice.ts';
import { buildCrowdGraph, Crowd, CROWD_SLOT_CALLS, CrowdWorkerError, defaultWorkers, MIN_CHARACTERS_PER_THREAD, MIN_CORES_FOR_WORKERS } from '../../host/crowd.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { runProbe } from '../support/allocation.ts';
import { expectRowsLikeAlone } from '../support/batch-rows.ts';
import { expectAnimGraphError } from '../support/errors.ts';
import { AnimGraphError } from '../../runtime/core/errors.ts';
import { slotWalkGraph, snapshotWalkGraph, threadDependentWalkGraph } from '../support/crowd-graphs.ts';
import { closedAfterAll, DT, LOCOMOTION, SUPPORT } from '../support/crowd-tests.ts';
import { stress } from '../support/stress.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';

const { crowdOf } = closedAfterAll();
/** Frames of the hand-over soak below: about 2 s in the quick variant. */
const FRAMES_SOAKED = stress(20_000, 200_000);

describe('Crowd', () => {
  for (const workers of [0, 1, 2]) {
    it(`with ${workers} worker thread(s) gives each character the poses it has alone, parameters and resets included`, async () => {
      const count = 7;
      const crowd = await crowdOf({ file: LOCOMOTION }, count, workers);
      expect(crowd.workerCount).toBe(workers);
      // Every thread samples in the WebAssembly kernel on the crowd's shared memory.
      expect(crowd.wasm).toBe(true);
      const graph = loadGraphFile(LOCOMOTION);
      const alone = Array.from({ length: count }, () => graph.createInstance());
      const set = (i: number, name: string, value: number | boolean) => {
        crowd.setParameter(i, name, value);
        alone[i].setParameter(name, value);
      };
      for (let i = 0; i < count; i++) {
        set(i, 'gait', i % 3);
        set(i, 'speed', 0.5 + i * 0.25);
        set(i, 'lookAtHand', i % 2 === 0);
      }
      DT.forEach((dt, f) => {
        if (f === 2) {
          set(3, 'gait', 2);
          set(6, 'speed', 2);
        }
        if (f === 3) {
          crowd.reset(5);
          alone[5].reset();
        }
        crowd.update(dt);
        for (const instance of alone) instance.update(dt);
      });
      expectRowsLikeAlone(crowd, alone);
      // The characters differ from one another (the comparison above is not of seven copies).
      const n = crowd.boneCount;
      expect(crowd.rotations.subarray(0, n * 4)).not.toEqual(crowd.rotations.subarray(n * 4, 2 * n * 4));
      expect(crowd.getParameter(3, 'gait')).toBe(2);
      expect(crowd.getParameter(2, 'lookAtHand')).toBe(true);
    });
  }

  it('samples in JavaScript on a worker whose graph differs from the calling thread\'s, each character as its own thread\'s graph has it', async () => {
    const crowd = await crowdOf({ module: SUPPORT, export: 'threadDependentWalkGraph' }, 4, 1);
    expect(crowd.wasm).toBe(false); // the worker's clip is not the one in the shared memory
    const main = threadDependentWalkGraph(false), worker = threadDependentWalkGraph(true);
    const alone = [main, main, worker, worker].map((g) => g.createInstance());
    for (const dt of DT) {
      crowd.update(dt);
      for (const instance of alone) instance.update(dt);
    }
    expectRowsLikeAlone(crowd, alone);
    // The nudged key shows: the worker's characters are not the calling thread's.
    const row = (c: number) => Array.from(crowd.translations.subarray(c * crowd.boneCount * 3, (c + 1) * crowd.boneCount * 3));
    expect(row(2)).not.toEqual(row(0));
    expect(row(1)).toEqual(row(0));
  });

  it('checks parameters and characters as an instance does, before anything changes', async () => {
    const crowd = await crowdOf({ file: LOCOMOTION }, 3, 1, false);
    expect(() => crowd.setParameter(0, 'nope', 1)).toThrow(/unknown parameter 'nope'/);
    expectAnimGraphError(() => crowd.setParameter(0, 'gait', 1.5), 'invalid-argument', "parameter 'gait' is int; cannot set it to 1.5");
    expectAnimGraphError(() => crowd.setParameter(0, 'lookAtHand', 1), 'invalid-argument', "parameter 'lookAtHand' is bool; cannot set it to 1");
    expect(() => crowd.setParameter(3, 'gait', 1)).toThrow(/no character 3: the crowd has characters 0 to 2/);
    expect(() => crowd.reset(-1)).toThrow(AnimGraphError);
    expect(() => crowd.getParameter(0, 'nope')).toThrow(/unknown parameter/);
    expect(crowd.getParameter(1, 'gait')).toBe(1); // the default, untouched by the failed sets
    expect(crowd.componentTranslations.length).toBe(0);
    crowd.update(1 / 60);
    expect(crowd.instanceOf(0)?.gatherDebug().type).toBeTypeOf('string');
    expect(crowd.instanceOf(2)).toBeUndefined(); // evaluated by the worker
  });

  it('plays and stops slots per character, on every thread, in the order called, as instances alone do', async () => {
    const count = 4;
    const crowd = await crowdOf({ module: SUPPORT, export: 'slotWalkGraph' }, count, 1);
    expect(crowd.slotNames).toEqual(['fullBody', 'upperBody']);
    const graph = slotWalkGraph();
    const alone = Array.from({ length: count }, () => graph.createInstance());
    // Character 0 is the calling thread's, 3 the worker's; each call is made on both.
    const calls: [number, number, (g: AnimGraphInstance) => void, (c: Crowd) => void][] = [
      [0, 0, (g) => g.playSlot('upperBody', 'run', { blendIn: 0.1, blendOut: 0.2, playRate: 1.5 }), (c) => c.playSlot(0, 'upperBody', 'run', { blendIn: 0.1, blendOut: 0.2, playRate: 1.5 })],
      [3, 0, (g) => g.playSlot('fullBody', 'idle'), (c) => c.playSlot(3, 'fullBody', 'idle')],
      // Two calls between two updates, played in that order: the run, then the idle over it.
      [2, 1, (g) => g.playSlot('fullBody', 'run', { blendIn: 0 }), (c) => c.playSlot(2, 'fullBody', 'run', { blendIn: 0 })],
      [2, 1, (g) => g.playSlot('fullBody', 'idle', { blendIn: 0.3 }), (c) => c.playSlot(2, 'fullBody', 'idle', { blendIn: 0.3 })],
      [3, 3, (g) => g.stopSlot('fullBody', 0.05), (c) => c.stopSlot(3, 'fullBody', 0.05)],
      [0, 3, (g) => g.stopSlot('upperBody'), (c) => c.stopSlot(0, 'upperBody')],
    ];
    const playing: boolean[][] = [];
    DT.forEach((dt, f) => {
      for (const [i, frame, onInstance, onCrowd] of calls) {
        if (frame !== f) continue;
        onInstance(alone[i]);
        onCrowd(crowd);
      }
      crowd.update(dt);
      for (const instance of alone) instance.update(dt);
      playing.push(alone.map((g) => g.isSlotPlaying('fullBody') || g.isSlotPlaying('upperBody')));
      // The crowd tells each character's slots after the update, on whichever thread it ran.
      for (const slot of ['fullBody', 'upperBody']) {
        expect(alone.map((_, i) => crowd.isSlotPlaying(i, slot)), `${slot}, frame ${f}`).toEqual(alone.map((g) => g.isSlotPlaying(slot)));
      }
    });
    expectRowsLikeAlone(crowd, alone);
    // What the calls did (so the comparison above is not of walks alone): clips played, one stopped.
    expect(playing[0]).toEqual([true, false, false, true]);
    expect(playing[1]).toEqual([true, false, true, true]);
    expect(playing[4]).toEqual([true, false, true, false]);
  });

  it('saves pose snapshots per character, on every thread, in turn with slot calls, as instances alone do', async () => {
    const count = 4;
    const crowd = await crowdOf({ module: SUPPORT, export: 'snapshotWalkGraph' }, count, 1);
    const graph = snapshotWalkGraph();
    expect(graph.poseSnapshotNames).toEqual(['held']);
    const alone = Array.from({ length: count }, () => graph.createInstance());
    const n = crowd.boneCount;
    const row = (i: number) => Array.from(crowd.rotations.subarray(i * n * 4, (i + 1) * n * 4));
    let saved: number[][] = [];
    DT.forEach((dt, f) => {
      if (f === 2) {
        // Characters 0 (the calling thread's) and 3 (the worker's) save the pose they showed; then every one turns to its snapshot.
        for (const i of [0, 3]) { crowd.savePoseSnapshot(i, 'held'); alone[i].savePoseSnapshot('held'); }
        saved = [0, 1, 2, 3].map(row);
        for (let i = 0; i < count; i++) { crowd.setParameter(i, 'a', 1); alone[i].setParameter('a', 1); }
      }
      crowd.update(dt);
      for (const instance of alone) instance.update(dt);
      expectRowsLikeAlone(crowd, alone);
      if (f >= 2) {
        // The saved characters hold their pose; the others show the reference pose (nothing saved).
        expect(row(0)).toEqual(saved[0]);
        expect(row(3)).toEqual(saved[3]);
        expect(row(1)).toEqual(Array.from(graph.skeleton.referencePose.rotations));
        expect(saved[3]).not.toEqual(Array.from(graph.skeleton.referencePose.rotations));
      }
    });
    expectAnimGraphError(() => crowd.savePoseSnapshot(0, 'nope'), 'unknown-name', "graph 'snapshot walk' has no PoseSnapshot node reading 'nope' (snapshots: held)");
    expect(() => crowd.savePoseSnapshot(4, 'held')).toThrow(/no character 4/);
    for (let k = 0; k < 8; k++) crowd.savePoseSnapshot(1, 'held');
    expectAnimGraphError(() => crowd.savePoseSnapshot(1, 'held'), 'out-of-range', 'character 1 has 8 slot calls waiting for its next update, the most a crowd keeps');
  });

  it('checks slot calls as an instance does, and keeps 8 per character between updates, before anything changes', async () => {
    const crowd = await crowdOf({ module: SUPPORT, export: 'slotWalkGraph' }, 2, 1, false);
    expect(() => crowd.playSlot(0, 'nope', 'run')).toThrow(/has no Slot node named 'nope' \(slots: fullBody, upperBody\)/);
    expect(() => crowd.playSlot(0, 'fullBody', 'nope')).toThrow(/playSlot\('fullBody'\): no clip 'nope'/);
    expect(() => crowd.playSlot(0, 'fullBody', 'run', { blendIn: -1 })).toThrow(/blendIn and blendOut are seconds/);
    expect(() => crowd.playSlot(0, 'fullBody', 'run', { playRate: 0 })).toThrow(/playRate must be above 0/);
    // null threw "Cannot read properties of null"; a string ('0.2' >= 0) and a misspelt key were taken silently.
    expectAnimGraphError(() => crowd.playSlot(0, 'fullBody', 'run', null as never), 'invalid-argument', "playSlot('fullBody'): options are an object ({ blendIn, blendOut, playRate }); got null");
    expectAnimGraphError(() => crowd.playSlot(0, 'fullBody', 'run', { blendIn: '0.2' as never }), 'invalid-argument', `playSlot('fullBody'): blendIn, blendOut and playRate are numbers (got "0.2", undefined, undefined)`);
    expect(() => crowd.playSlot(0, 'fullBody', 'run', { blendIn: null as never })).toThrow(/are numbers \(got null, undefined, undefined\)/);
    expectAnimGraphError(() => crowd.playSlot(0, 'fullBody', 'run', { blendin: 0.5 } as never), 'invalid-argument', "playSlot('fullBody'): unknown option 'blendin' (options: blendIn, blendOut, playRate)");
    expect(() => crowd.playSlot(0, 'fullBody', 'run', 5 as never)).toThrow(/options are an object .* got number/);
    expect(() => crowd.stopSlot(1, 'fullBody', Infinity)).toThrow(/stopSlot\('fullBody'\): blendOut is seconds/);
    expect(() => crowd.playSlot(2, 'fullBody', 'run')).toThrow(/no character 2/);
    expect(() => crowd.isSlotPlaying(0, 'nope')).toThrow(/has no Slot node named 'nope'/);
    expect(() => crowd.isSlotPlaying(-1, 'fullBody')).toThrow(/no character -1/);
    // None of those waits: the update plays nothing.
    crowd.update(1 / 60);
    expect(crowd.instanceOf(0)!.isSlotPlaying('fullBody')).toBe(false);
    for (let k = 0; k < CROWD_SLOT_CALLS; k++) crowd.playSlot(1, 'upperBody', k % 2 === 0 ? 'run' : 'idle');
    expect(() => crowd.stopSlot(1, 'upperBody')).toThrow(/character 1 has 8 slot calls waiting for its next update/);
    crowd.playSlot(0, 'fullBody', 'run'); // another character's calls are its own
    expect(crowd.isSlotPlaying(0, 'fullBody')).toBe(false); // as of the last update: the call waits for the next
    crowd.update(1 / 60);
    expect(crowd.instanceOf(0)!.isSlotPlaying('fullBody')).toBe(true);
    expect([crowd.isSlotPlaying(0, 'fullBody'), crowd.isSlotPlaying(1, 'upperBody'), crowd.isSlotPlaying(1, 'fullBody')]).toEqual([true, true, false]);
    // The instance's by index, in slotNames' order; none past the end.
    const own = crowd.instanceOf(0)!;
    expect([own.isSlotPlayingAt(0), own.isSlotPlayingAt(1), own.isSlotPlayingAt(2), own.isSlotPlayingAt(-1)]).toEqual([true, false, false, false]);
    crowd.stopSlot(1, 'upperBody'); // room again after the update
  });

  it('rejects a bad count, a bad worker count and sources that give no graph, naming why', async () => {
    await expect(Crowd.create({ source: { file: LOCOMOTION }, count: 0 })).rejects.toThrow(/at least 1; got 0/);
    await expect(Crowd.create({ source: { file: LOCOMOTION }, count: 4, workers: -1 })).rejects.toThrow(/workers must be/);
    // Checked before the cap at count - 1, which let these through; a string count read 'got 3'.
    await expect(Crowd.create({ source: { file: LOCOMOTION }, count: 2, workers: 1.5 })).rejects.toThrow('workers must be a whole number, at least 0; got 1.5');
    await expect(Crowd.create({ source: { file: LOCOMOTION }, count: '3' as never })).rejects.toThrow('a crowd needs a whole number of characters, at least 1; got "3"');
    // Args a worker cannot receive failed as a bare DataCloneError.
    await expect(Crowd.create({ source: { module: SUPPORT, export: 'slotWalkGraph', args: [() => 1] }, count: 2, workers: 1 }))
      .rejects.toThrow(/^crowd source.args must be data a worker thread can receive .*could not be cloned/);
    // A count no array can hold fails at once (a smaller huge one may first reserve what it can, and
    // a reservation of tens of GiB, though freed later, can make the next process spawn fail).
    await expect(Crowd.create({ source: { file: LOCOMOTION }, count: Number.MAX_SAFE_INTEGER, workers: 0 }))
      .rejects.toThrow(/^a crowd of 9007199254740991 characters of 22 bones needs 14763950\d+\.\d GiB for its poses, which this engine could not allocate/);
    await expect(Crowd.create({ source: { file: '/nonexistent/graph.json' }, count: 2 })).rejects.toThrow(/cannot read graph file/);
    await expect(Crowd.create({ source: { module: SUPPORT, export: 'missing' }, count: 2 })).rejects.toThrow(/no function export 'missing'/);
    await expect(Crowd.create({ source: { module: SUPPORT, export: 'notAGraph' }, count: 2 })).rejects.toThrow(/did not return an AnimGraph/);
  });

  it('holds every character at the reference pose before its first update, a worker\'s too, local and component', async () => {
    const crowd = await Crowd.create({ source: { file: LOCOMOTION }, count: 2, workers: 1, componentSpace: true });
    try {
      const alone = (await buildCrowdGraph({ file: LOCOMOTION })).createInstance();
      const n = crowd.boneCount, local = Float64Array.from(alone.evaluate().translations), component = Float64Array.from(alone.componentPose().translations);
      for (const i of [0, 1]) {
        expect(crowd.translations.subarray(i * n * 3, (i + 1) * n * 3)).toEqual(local);
        expect(crowd.componentTranslations.subarray(i * n * 3, (i + 1) * n * 3)).toEqual(component);
      }
    } finally {
      await crowd.close();
    }
  });

  it('runs a worker\'s frame only when its GO word has moved: a late notify finds the frame done and runs nothing', () => {
    // The calling thread bumps GO, then notifies. Descheduled between the two, its notify can come
    // when the worker has seen the bump, run the frame and is waiting again: a wake-up with GO
    // unchanged. Replayed here through the loop's wait, in the order the threads interleave.
    const control = new Int32Array(new SharedArrayBuffer(4 * (workerWord(1, THREW) + 1)));
    const buffers = { control, allocation: new Float64Array(2), failure: new Uint8Array(2 * FAILURE_BYTES) } as unknown as CrowdBuffers;
    let frames = 0;
    const slice = { run: () => { frames++; } } as unknown as CrowdSlice;
    const go = workerWord(1, GO), done = workerWord(1, DONE);
    const script: (() => void)[] = [
      () => { Atomics.add(control, go, 1); }, // frame 1: seen through the bump ('not-equal')
      () => {}, // frame 1's notify, late: the worker waits again with GO unchanged
      () => {}, // and a second one: no more frames for it either
      () => { Atomics.add(control, go, 1); }, // frame 2
      () => { Atomics.store(control, STOP, 1); Atomics.add(control, go, 1); }, // close
    ];
    const seen: number[] = [];
    crowdWorkerLoop(slice, buffers, 1, (words, index, value) => {
      expect([words, index]).toEqual([control, go]);
      seen.push(value);
      script.shift()!();
      return 'ok';
    });
    expect(frames).toBe(2);
    expect(seen).toEqual([0, 1, 1, 1, 2]);
    expect(Atomics.load(control, done)).toBe(2);
    expect(Atomics.load(control, WAKE)).toBe(2);
  });

  it('keeps a worker\'s characters on the calling thread\'s frame when a notify comes late', async () => {
    const count = 4;
    const crowd = await Crowd.create({ source: { file: LOCOMOTION }, count, workers: 1 });
    try {
      const graph = loadGraphFile(LOCOMOTION);
      const alone = Array.from({ length: count }, () => graph.createInstance());
      const control = (crowd as unknown as { buffers: CrowdBuffers }).buffers.control;
      const step = (dt: number): void => {
        crowd.update(dt);
        for (const instance of alone) instance.update(dt);
      };
      const n = crowd.boneCount;
      const expectLikeAlone = (): void => {
        alone.forEach((instance, i) => {
          expect(crowd.rotations.subarray(i * n * 4, (i + 1) * n * 4)).toEqual(instance.evaluate().rotations);
        });
      };
      for (const dt of DT) step(dt);
      expectLikeAlone();
      // A late notify, as above, then as long as a worker would take to run a frame for it: 500 ms,
      // a bound rather than a time measured. Its characters must not have moved, nor after a frame.
      Atomics.notify(control, workerWord(1, GO));
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
      expectLikeAlone();
      step(1 / 60);
      expectLikeAlone();
    } finally {
      await crowd.close();
    }
  });

  it(`keeps every worker on the calling thread's frame over ${FRAMES_SOAKED} frames (a soak for the hand-over)`, async () => {
    // The hand-over's races show only when a thread is descheduled at the wrong moment, which a
    // busy machine (as under the suite) does within thousands of frames: the worker running a
    // frame ahead failed this in one run in four of 20,000 frames beside a busy process.
    const count = 6;
    const crowd = await Crowd.create({ source: { file: LOCOMOTION }, count, workers: 2 });
    try {
      const graph = loadGraphFile(LOCOMOTION);
      const batch = graph.createInstances(count);
      for (let f = 1; f <= FRAMES_SOAKED; f++) {
        crowd.update(1 / 60);
        batch.update(1 / 60);
        if (f % 500 === 0) expect(crowd.rotations).toEqual(batch.rotations);
      }
    } finally {
      await crowd.close();
    }
  });

  it('starts workers by default only where they can pay: three cores or more, 64 characters a thread', async () => {
    // The policy, on machines of every size.
    expect([1, 2].map((cores) => defaultWorkers(cores, 10_000))).toEqual([0, 0]);
    expect([3, 4, 8].map((cores) => defaultWorkers(cores, 10_000))).toEqual([2, 3, 7]);
    expect([63, 127, 128, 191, 192, 1000].map((count) => defaultWorkers(8, count))).toEqual([0, 0, 1, 1, 2, 7]);
    expect([MIN_CORES_FOR_WORKERS, MIN_CHARACTERS_PER_THREAD]).toEqual([3, 64]);
    // On this machine: the crowd reports the cores it found and starts what the policy says.
    const crowd = await Crowd.create({ source: { file: LOCOMOTION }, count: 200 });
    try {
      expect(crowd.cores).toBe(availableParallelism());
      expect(crowd.workerCount).toBe(defaultWorkers(availableParallelism(), 200));
    } finally {
      await crowd.close();
    }
  });

  it('caps workers at one per character beyond the first, and closes (after which update throws)', async () => {
    const crowd = await Crowd.create({ source: { file: LOCOMOTION }, count: 2, workers: 5 });
    expect(crowd.workerCount).toBe(1);
    crowd.update(1 / 60);
    await crowd.close();
    await crowd.close(); // twice is fine
    expect(() => crowd.update(1 / 60)).toThrow(/closed/);
    // Calls that change a character did nothing, silently; reads keep the last frame's values.
    expect(() => crowd.setParameter(0, 'gait', 0)).toThrow('the crowd is closed');
    expect(() => crowd.reset(0)).toThrow('the crowd is closed');
    expect(() => crowd.setUpdateRate(0, 2)).toThrow('the crowd is closed');
    expect(crowd.getUpdateRate(1)).toBe(1);
  });

  it('measures what each thread allocates per frame (measureAllocation): nothing once warm, checkFinite on or off, events\' numbers boxed when forwarded (plain Node process)', () => {
    type Threads = { perFrame: number[]; eventsPerFrame: number };
    const { quiet, loud, finite } = runProbe<{ quiet: Threads; loud: Threads; finite: Threads }>('crowd-allocation-probe.ts');
    expect(quiet.perFrame).toHaveLength(2); // the calling thread and the worker
    // What a window itself costs (its heap statistics, about 2.5 KB over 4000 frames): 0.63 measured.
    for (const bytes of quiet.perFrame) expect(bytes).toBeLessThan(1);
    // Checking every character's frame for numbers that are not finite allocates nothing either.
    for (const bytes of finite.perFrame) expect(bytes).toBeLessThan(1);
    expect(loud.eventsPerFrame).toBeGreaterThan(0.5);
    // A number an event carries that is not a whole number (a loop's time, a notify's weight) is
    // boxed, 16 bytes, where it is emitted: on the worker for its share of the characters, on the
    // calling thread for all of them (24 and 17 bytes an event measured). That the worker's figure
    // rises with its events shows its window sees what the worker allocates.
    expect(loud.perFrame[0]).toBeLessThan(32 * loud.eventsPerFrame);
    expect(loud.perFrame[1]).toBeLessThan(32 * loud.eventsPerFrame);
    expect(loud.perFrame[1]).toBeGreaterThan(4 * loud.eventsPerFrame);
  });

  it('checks measureAllocation\'s arguments, returns a figure per thread, and ends the workers\' windows when a frame throws', async () => {
    const crowd = await crowdOf({ file: LOCOMOTION }, 4, 1);
    expect(() => crowd.measureAllocation(0, () => crowd.update(1 / 60))).toThrow(/frames must be a whole number of 1 or more; got 0/);
    expect(() => crowd.measureAllocation(1.5, () => crowd.update(1 / 60))).toThrow(/got 1.5/);
    let frames = 0;
    const frame = () => {
      frames++;
      crowd.update(1 / 60);
    };
    const bytes = crowd.measureAllocation(3, frame);
    expect(frames).toBe(3);
    expect(bytes).toHaveLength(2);
    for (const b of bytes) expect(Number.isFinite(b) && b >= 0).toBe(true);
    expect(() => crowd.measureAllocation(2, () => {
      crowd.update(1 / 60);
      throw new Error('my frame failed');
    })).toThrow(/^my frame failed$/);
    expect(() => crowd.measureAllocation(1, () => {
      crowd.update(1 / 60);
      crowd.measureAllocation(1, frame);
    })).toThrow(/measureAllocation called from its own frame/);
    // The workers were told to end their windows (else this would wait for them forever), and the
    // crowd runs on: the same poses as a crowd that never measured.
    expect(crowd.measureAllocation(1, frame)).toHaveLength(2);
    const other = await crowdOf({ file: LOCOMOTION }, 4, 1);
    for (let f = 0; f < 6; f++) other.update(1 / 60); // as many updates as the crowd had: 3, 1, 1 and 1
    expect(Array.from(crowd.rotations)).toEqual(Array.from(other.rotations));
    const alone = await crowdOf({ file: LOCOMOTION }, 2, 0);
    expect(alone.measureAllocation(2, () => alone.update(1 / 60))).toHaveLength(1);
    await expect(alone.close()).resolves.toBeUndefined();
    expect(() => alone.measureAllocation(1, () => alone.update(1 / 60))).toThrow(/closed/);
  });

  it('reports an error a node throws in a worker as a CrowdWorkerError once the frame is over, runs on without the worker until restartWorker, and rethrows one thrown on the calling thread as it is', async () => {
    const crowd = await crowdOf({ module: SUPPORT, export: 'failingGraph' }, 4, 1);
    crowd.update(1 / 60);
    crowd.setParameter(3, 'fail', true); // character 3 is the worker's
    const error = thrown(() => crowd.update(1 / 60));
    expect(error).toBeInstanceOf(CrowdWorkerError);
    expect(error).toMatchObject({ name: 'CrowdWorkerError', failure: 'worker-threw', worker: 1, characters: [2, 3], exitCode: null, others: [] });
    expect((error as Error).message).toMatch(
      /^crowd worker 1 \(characters 2 to 3\) threw in a frame; its characters keep their last poses until restartWorker\(1\) starts them again\. Error: Failing node: told to fail\n/,
    );
    crowd.update(1 / 60); // without the worker, which is not reported again
    await expect(crowd.restartWorker(2)).rejects.toThrow(new AnimGraphError('out-of-range', 'no worker 2: the crowd has workers 1 to 1'));
    await expect(crowd.restartWorker(0)).rejects.toThrow(AnimGraphError);
    await expect(crowd.restartWorker(1.5)).rejects.toThrow(/^no worker 1.5/);
    crowd.setParameter(3, 'fail', false);
    await crowd.restartWorker(1);
    crowd.update(1 / 60);
    // The new worker runs its characters' frames (so one can fail again), with the values set.
    crowd.setParameter(2, 'fail', true);
    expect(thrown(() => crowd.update(1 / 60))).toMatchObject({ failure: 'worker-threw', worker: 1 });
    const own = await crowdOf({ module: SUPPORT, export: 'failingGraph' }, 4, 1);
    own.setParameter(0, 'fail', true);
    expect(() => own.update(1 / 60)).toThrow(/^Failing node: told to fail$/);
    const alone = await crowdOf({ file: LOCOMOTION }, 2, 0);
    await expect(alone.restartWorker(1)).rejects.toThrow('no worker 1: the crowd has no worker threads');
  });
});

/** What `call` threw (undefined if nothing). */
function thrown(call: () => void): unknown {
  try {
    call();
  } catch (e) {
    return e;
  }
  return undefined;
}

describeWithData('Crowd on the CMU walk and run', () => {
  it('matches instances run alone, switching gait per character', async () => {
    const file = fileURLToPath(new URL('../../graphs/examples/cmu-walk-run.json', import.meta.url));
    const count = 5;
    const crowd = await crowdOf({ file }, count, 1);
    const graph = loadGraphFile(file);
    const alone = Array.from({ length: count }, () => graph.createInstance());
    for (let f = 0; f < 40; f++) {
      const i = f % count;
      if (f % 7 === 0) {
        const running = !crowd.getParameter(i, 'running');
        crowd.setParameter(i, 'running', running);
        alone[i].setParameter('running', running);
      }
      crowd.update(1 / 30);
      for (const instance of alone) instance.update(1 / 30);
    }
    expectRowsLikeAlone(crowd, alone);
    expect(CMU).toContain('cmu');
  });
});
