import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { loadGraphAsset, loadGraphFile } from '../../../host/files.ts';
import type { AnimGraph } from '../../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import type { InstanceBatch } from '../../../runtime/graph/instance-batch.ts';
import { SamplingKernel } from '../../../runtime/kernel/sampling-kernel.ts';
import { expectRowsLikeAlone } from '../../support/batch-rows.ts';
import { describeWithData } from '../../support/shared-data.ts';
import { runProbe } from '../../support/allocation.ts';

const example = (name: string) => fileURLToPath(new URL(`../../../graphs/examples/${name}`, import.meta.url));
const DT = [1 / 60, 1 / 30, 0, 1 / 60, 0.05, 1 / 60, 1 / 60];

/** Runs a batch and instances of their own side by side, with the same parameters and delta times. */
function runBoth(graph: AnimGraph, count: number, set: (instance: AnimGraphInstance, i: number, frame: number) => void): { batch: InstanceBatch; alone: AnimGraphInstance[] } {
  const batch = graph.createInstances(count, { componentSpace: true });
  const alone = Array.from({ length: count }, () => graph.createInstance());
  DT.forEach((dt, frame) => {
    for (let i = 0; i < count; i++) {
      set(batch.instances[i], i, frame);
      set(alone[i], i, frame);
    }
    batch.update(dt);
    for (const instance of alone) {
      instance.update(dt);
      instance.evaluate();
    }
  });
  return { batch, alone };
}

describe('InstanceBatch', () => {
  it('gives each character, in its rows of the shared arrays, the poses an instance of its own gives', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const { batch, alone } = runBoth(graph, 5, (instance, i, frame) => {
      if (frame === 0) {
        instance.setParameter('gait', i % 3);
        instance.setParameter('speed', 0.5 + 0.25 * i);
      }
      if (frame === 3 && i === 1) instance.setParameter('gait', 2); // a crossfade mid-run
    });
    expect(batch.count).toBe(5);
    expectRowsLikeAlone(batch, alone);
    // The characters differ (the comparison above is not of five copies), and an instance's own
    // pose is a view of its rows, not a copy.
    const n = batch.boneCount;
    expect(batch.rotations.subarray(0, n * 4)).not.toEqual(batch.rotations.subarray(n * 4, 2 * n * 4));
    expect(batch.instances[2].evaluate().rotations.buffer).toBe(batch.rotations.buffer);
    // The pelvis (bone 1) of the running character 2 is off the reference pose.
    expect(batch.translations[(2 * n + 1) * 3 + 1]).not.toBe(graph.skeleton.referencePose.translations[4]);
    // The characters' per-frame numbers are rows of one array in the kernel's memory, one after the other.
    const k = graph.frameNumberCount, numbers = batch.instances[0].frameNumbers;
    expect(batch.instances.every((c, i) => c.frameNumbers === numbers && c.frameNumbersAt === i * k)).toBe(true);
    expect(numbers.buffer).toBe(batch.rotations.buffer);
    expect(batch.instances[3].time).toBe(alone[3].time);
    expect(Array.from(numbers.subarray(3 * k, 4 * k))).toEqual(Array.from(alone[3].frameNumbers));
  });

  it('holds every character at the reference pose, local and component, before its first update (with and without the kernel)', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const n = graph.skeleton.boneCount, alone = graph.createInstance();
    const local = Float64Array.from(alone.evaluate().translations), component = Float64Array.from(alone.componentPose().translations);
    expect([local[3 + 1], component[3 * 10 + 1]]).toEqual([95, 137]); // the pelvis, and a bone above it in component space
    for (const wasm of [true, false]) {
      const batch = graph.createInstances(3, { componentSpace: true, wasm });
      for (let i = 0; i < 3; i++) {
        // Every bone was at the origin: the identity pose locally, zeros in component space.
        expect(batch.translations.subarray(i * n * 3, (i + 1) * n * 3), `wasm ${wasm}`).toEqual(local);
        expect(batch.componentTranslations.subarray(i * n * 3, (i + 1) * n * 3), `wasm ${wasm}`).toEqual(component);
      }
    }
  });

  it('publishes no component pose unless asked, and checks its count', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const batch = graph.createInstances(2);
    expect(batch.componentTranslations.length).toBe(0);
    expect(batch.translations.length).toBe(2 * graph.skeleton.boneCount * 3);
    batch.update(1 / 60);
    expect(batch.rotations.some((v) => v !== 0)).toBe(true);
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => graph.createInstances(bad)).toThrow(/at least 1; got/);
    expect(() => graph.createInstances('2' as never)).toThrow('a batch needs a whole number of characters, at least 1; got "2"'); // read 'got 2'
    // Past what the engine can allocate: what it needed, not the engine's bare "Invalid typed array length".
    expect(() => graph.createInstances(1e9, { componentSpace: true })).toThrow(/^a batch of 1000000000 characters of 22 bones needs 3278\.3 GiB for its poses, which this engine could not allocate \(/);
  });

  it('matches instances of their own through inertial transitions (an inertial BlendList under an Inertialization node), offsets applied in the kernel', () => {
    const graph = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      parameters: { gait: { type: 'int', default: 0 } },
      nodes: {
        idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run' } },
        gaits: { type: 'BlendList', inputs: { poses: ['idle', 'walk', 'run'] }, properties: { activeIndex: { param: 'gait' }, blendTimes: 0.3, blendMode: 'inertial' } },
        smooth: { type: 'Inertialization', inputs: { pose: 'gaits' } },
      },
      output: 'smooth',
    });
    const inertialize = vi.spyOn(SamplingKernel.prototype, 'inertialize');
    // The transitions' histories are in the kernel's memory too, copied there by address.
    const copyPose = vi.spyOn(SamplingKernel.prototype, 'copyPose');
    // Three characters switching gait on different frames, one of them twice (an interrupted transition).
    const { batch, alone } = runBoth(graph, 3, (instance, i, frame) => {
      if (frame === 1 + i) instance.setParameter('gait', 1 + (i % 2));
      if (i === 0 && frame === 4) instance.setParameter('gait', 2);
    });
    expectRowsLikeAlone(batch, alone);
    expect(inertialize).toHaveBeenCalled();
    expect(copyPose).toHaveBeenCalled();
    inertialize.mockRestore();
    copyPose.mockRestore();
    expect(batch.rotations.subarray(0, graph.skeleton.boneCount * 4)).not.toEqual(batch.rotations.subarray(graph.skeleton.boneCount * 4, graph.skeleton.boneCount * 8));
  });

  it('matches instances of their own through transitions that follow a blend profile (the state-machine example), blended per bone in the kernel', () => {
    const graph = loadGraphFile(example('sample-state-machine.json'));
    const spies = (['scaleBones', 'accumulateBones'] as const).map((name) => vi.spyOn(SamplingKernel.prototype, name));
    // idle -> walk (speed above 10) with the 'legsFirst' profile, one character on each frame, one of them back.
    const { batch, alone } = runBoth(graph, 3, (instance, i, frame) => {
      if (frame === 1 + i) instance.setParameter('speed', 150);
      if (i === 0 && frame === 5) instance.setParameter('speed', 0);
    });
    expectRowsLikeAlone(batch, alone);
    expect(spies.map((spy) => spy.mock.calls.length > 0)).toEqual([true, true]);
    for (const spy of spies) spy.mockRestore();
  });

  it('matches instances of their own through a filtered slot (a clip over the upper body from spine_02, blending in), blended per bone in the kernel', () => {
    const graph = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      parameters: {},
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        slot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'upper', filterBone: 'spine_02', filterDepth: 2 } },
      },
      output: 'slot',
    });
    const lerpBones = vi.spyOn(SamplingKernel.prototype, 'lerpBones');
    const { batch, alone } = runBoth(graph, 3, (instance, i, frame) => {
      if (frame === i) instance.playSlot('upper', 'run', { blendIn: 0.05, playRate: 1 + i / 4 });
    });
    expectRowsLikeAlone(batch, alone);
    expect(lerpBones).toHaveBeenCalled();
    lerpBones.mockRestore();
    // The slot changed the upper body only: the legs are the walk's in every character (thigh_l, bone 14).
    const n = batch.boneCount;
    const walkOnly = graph.createInstance();
    walkOnly.update(DT.reduce((a, b) => a + b, 0));
    expect(Array.from(batch.rotations.subarray(14 * 4, 15 * 4))).toEqual(Array.from(walkOnly.evaluate().rotations.subarray(14 * 4, 15 * 4)));
    expect(Array.from(batch.rotations.subarray(5 * 4, 6 * 4))).not.toEqual(Array.from(walkOnly.evaluate().rotations.subarray(5 * 4, 6 * 4)));
    expect(n).toBe(22);
  });

  it('allocates nothing per frame with its crossfades, layers and inertialization offsets in the kernel (plain Node process)', () => {
    const result = runProbe<Record<string, number>>('batch-kernel-allocation-probe.ts');
    // A boxed number or a view made per character per frame would be 16 B or more times the 40
    // characters; the probe's windows leave about 1.3 B/frame of their own.
    expect(Object.keys(result)).toEqual(['statemachine', 'layered', 'inertial']);
    for (const bytes of Object.values(result)) expect(bytes).toBeLessThan(8);
  });

  describeWithData('on motion capture', () => {
    it('matches instances of their own on the CMU walk/run state machine by speed', () => {
      const graph = loadGraphFile(example('cmu-locomotion.json'));
      const speed = Object.keys(graph.parameterDefinitions).find((p) => p === 'speed');
      expect(speed).toBe('speed');
      const { batch, alone } = runBoth(graph, 3, (instance, i, frame) => {
        if (frame === 0) instance.setParameter('speed', [100, 150, 300][i]);
        if (frame === 4 && i === 0) instance.setParameter('speed', 300);
      });
      expectRowsLikeAlone(batch, alone);
      // Standing, walking and running characters really differ.
      const n = batch.boneCount;
      expect(batch.rotations.subarray(n * 4, 2 * n * 4)).not.toEqual(batch.rotations.subarray(2 * n * 4, 3 * n * 4));
    });
  });
});
