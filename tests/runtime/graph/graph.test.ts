import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadGraphAsset, loadGraphFile } from '../../../host/files.ts';
import { AnimGraph } from '../../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import { MAX_DELTA_TIME } from '../../../runtime/graph/instance-frame.ts';
import { GraphLoadError } from '../../../graphs/loader/problems.ts';
import { Parameters, type ParameterDefinition } from '../../../runtime/node/parameters.ts';
import { GraphRunner, MAX_KEPT_ROWS, runGraph, TimelineError, type ParameterChange } from '../../../host/runner.ts';
import { describeWithData, CMU, expectSkippedForMissingData } from '../../support/shared-data.ts';
import { bipedInstance, hasNaN } from '../../support/graphs.ts';
import { warpedWalkGraph } from '../../support/crowd-graphs.ts';
import { exampleInstance } from '../../support/example-instances.ts';
import { expectAnimGraphError } from '../../support/errors.ts';
import { AnimGraphError } from '../../../runtime/core/errors.ts';
import { Clip } from '../../../runtime/core/clip.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { ClipCurve } from '../../../runtime/core/clip-events.ts';
import { builtInNodeTypes } from '../../../nodes/index.ts';
import { NodeRegistry } from '../../../graphs/loader.ts';
import { defineNodeType, LocalPoseNode, MAX_NODE_NUMBERS, NodeBuildError, type PoseLink, type UpdateContext } from '../../../runtime/node/node.ts';
import { SkeletalControlNode, type BoneTransforms } from '../../../runtime/node/skeletal-control.ts';
import type { ComponentPose } from '../../../runtime/core/component-pose.ts';
import type { Pose } from '../../../runtime/core/pose.ts';
import { INSTANCE_NUMBERS } from '../../../runtime/graph/frame-layout.ts';

const example = (name: string) => new URL(`../../../graphs/examples/${name}`, import.meta.url).pathname;

describe('graph instance', () => {
  it('two runs of the same graph and timeline give bit-identical poses', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const timeline = [{ name: 'gait', value: 2, time: 0.4 }, { name: 'speed', value: 1.3, time: 0.7 }, { name: 'gait', value: 0, time: 1.1 }];
    const a = runGraph(graph, { seconds: 2, fps: 60, timeline, debug: false });
    const b = runGraph(graph, { seconds: 2, fps: 60, timeline, debug: false });
    expect(a.frames).toHaveLength(121);
    expect(JSON.stringify(a.frames)).toBe(JSON.stringify(b.frames));
    // The timeline took effect: the run differs from one without it.
    const c = runGraph(graph, { seconds: 2, fps: 60, debug: false });
    expect(JSON.stringify(c.frames)).not.toBe(JSON.stringify(a.frames));
  });

  it('runGraph refuses bad run lengths, and a run too long to keep in memory before it starts (a GraphRunner steps any number)', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    for (const frames of [Number.NaN, -3, 0, 2.5]) expect(() => runGraph(graph, { frames })).toThrow(`frames must be a whole number from 1, got ${frames}`);
    for (const seconds of [-1, Number.POSITIVE_INFINITY, Number.NaN]) expect(() => runGraph(graph, { seconds })).toThrow(`seconds must be a finite number from 0, got ${seconds}`);
    expect(() => runGraph(graph, { fps: 0 })).toThrow('fps must be a positive number, got 0');
    // 22 bones: 1 + 44 pose rows + 6 debug nodes a frame. This used to fill the heap and end the process.
    const perFrame = 1 + 2 * graph.skeleton.boneCount + graph.nodes.length;
    expect(perFrame).toBe(51);
    expect(() => runGraph(graph, { frames: 1e12 })).toThrow(`runGraph keeps every frame: 1000000000000 frames of ${perFrame} rows (pose rows, debug nodes) is more than 5,000,000`);
    expectAnimGraphError(() => runGraph(graph, { frames: Math.floor(MAX_KEPT_ROWS / perFrame) + 1 }), 'out-of-range', /^runGraph keeps every frame: /);
    // Without poses and debug trees a frame keeps one row.
    expect(() => runGraph(graph, { frames: 200_000, poses: false, debug: false })).not.toThrow();
    const runner = new GraphRunner(graph, { frames: 1e12 });
    expect(runner.frameCount).toBe(1e12);
    // Messages show what was given: a string fps read 'got 30'.
    expect(() => runGraph(graph, { fps: '30' as unknown as number })).toThrow('fps must be a positive number, got "30"');
  });

  it('runGraph checks its whole timeline before the first frame, naming the entry', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const timeline = (...changes: unknown[]) => changes as ParameterChange[];
    const refused = (changes: ParameterChange[]) => {
      try {
        runGraph(graph, { frames: 31, timeline: changes });
      } catch (e) {
        expect(e).toBeInstanceOf(TimelineError);
        return (e as Error).message;
      }
      return 'ran';
    };
    // A NaN time sorted first and held back every later change: gait=2 at 0.5 s never applied.
    expect(refused(timeline({ name: 'gait', value: 0, time: Number.NaN }, { name: 'gait', value: 2, time: 0.5 }))).toBe("timeline[0]: 'gait' time must be seconds from 0, got NaN");
    expect(refused(timeline({ name: 'gait', value: 1, time: -1 }))).toBe("timeline[0]: 'gait' time must be seconds from 0, got -1");
    // A wrong value threw only at its frame, after the frames before it had run; null, a raw TypeError.
    expect(refused(timeline({ name: 'speed', value: 1 }, { name: 'gait', value: '2', time: 0.9 }))).toBe('timeline[1]: parameter \'gait\' is int; cannot set it to "2"');
    expect(refused(timeline({ name: 'gait', value: 1 }, null))).toBe('timeline[1]: expected { name, value, time? }, got null');
    expect(refused(timeline({ name: 'nope', value: 1 }))).toMatch(/^timeline\[0\]: unknown parameter 'nope' \(known: /);
    // After the last frame (1 s at 30 fps), a change would never apply; at it, it does.
    expect(refused(timeline({ name: 'gait', value: 2, time: 1.5 }))).toBe("timeline[0]: 'gait' at 1.5 s is after the run's last frame (frame 30 at 1 s), so it would never apply");
    const atEnd = runGraph(graph, { frames: 31, debug: false, timeline: timeline({ name: 'gait', value: 0, time: 0.5 }, { name: 'gait', value: 2, time: 1 }) });
    const before = runGraph(graph, { frames: 31, debug: false, timeline: timeline({ name: 'gait', value: 0, time: 0.5 }) });
    expect(JSON.stringify(atEnd.frames[30].local)).not.toBe(JSON.stringify(before.frames[30].local));
    expect(JSON.stringify(atEnd.frames[29].local)).toBe(JSON.stringify(before.frames[29].local));
  });

  it('refuses, when built in code, clips and a skeleton it could not sample to finite poses, listing each', () => {
    // An asset's are loader problems with JSON paths (tests/graphs/loader.test.ts); a graph built in
    // code had no check, and sampled a NaN or 1e308 translation key to NaN and -Infinity every frame.
    const skeleton = new Skeleton(['root', 'arm', 'hand'], Int32Array.from([-1, 0, 1]));
    const clip = (name: string, translation: number, rotation: number) => {
      const c = new Clip({ name, frameRate: 30, frameCount: 3, tracks: [{ bone: 'arm', translation: true, rotation: true, scale: false }, { bone: 'hand', translation: true, rotation: true, scale: false }] });
      c.translations[2 * 6 + 3] = translation; // frame 2, the hand
      c.rotations[1 * 8 + 0] = rotation; // frame 1, the arm
      return c;
    };
    const build = (clips: Clip[]) => new AnimGraph({
      name: 'code', skeleton, parameters: {}, clips: new Map(clips.map((c) => [c.name, c])),
      nodes: [{ id: 'play', nodeType: builtInNodeTypes.find((t) => t.type === 'SequencePlayer')!, properties: { clip: clips[0].name }, inputs: {} }],
    });
    skeleton.referencePose.scales[3 + 1] = -2e15;
    expect(() => build([clip('nan', Number.NaN, 0), clip('huge', 1e308, 0), clip('spin', 1e15, Number.POSITIVE_INFINITY)])).toThrow([
      "graph 'code' cannot be sampled to finite poses:",
      "  bone 'arm': reference scale -2000000000000000 is beyond ±1e15",
      "  clip 'nan': the translation of bone 'hand' at frame 2 is NaN, not finite",
      "  clip 'huge': the translation of bone 'hand' at frame 2 is 1e+308, beyond ±1e15",
      "  clip 'spin': the rotation of bone 'arm' at frame 1 is Infinity, not finite",
    ].join('\n'));
    // Nor a clip whose frame time or duration is out of range: a play time in it is not finite.
    const slow = new Clip({ name: 'slow', frameRate: 1e-308, frameCount: 3, tracks: [{ bone: 'arm', translation: false, rotation: true, scale: false }] });
    // Nor curve keys that overflow when interpolated.
    const curved = clip('curved', 0, 0);
    curved.curves = [new ClipCurve('lean', Float64Array.of(0, 0.5), Float64Array.of(-1.7e308, 1.7e308))];
    expect(() => build([clip('nan', Number.NaN, 0), slow, curved])).toThrow([
      "graph 'code' cannot be sampled to finite poses:",
      "  bone 'arm': reference scale -2000000000000000 is beyond ±1e15",
      "  clip 'nan': the translation of bone 'hand' at frame 2 is NaN, not finite",
      "  clip 'slow': frame time must be from 1e-6 to 1e6 seconds, got 1e+308",
      "  clip 'curved': curve 'lean': key 0 value -1.7e+308 is beyond ±1e15",
    ].join('\n'));
    skeleton.referencePose.scales[3 + 1] = 1;
    // At the bound, and with a rotation of any finite length (renormalised when sampled), it builds and samples finitely.
    const instance = build([clip('edge', -1e15, 1e200)]).createInstance();
    instance.update(1 / 20);
    const pose = instance.evaluate(), component = instance.componentPose();
    for (const values of [pose.translations, pose.rotations, pose.scales, component.translations, component.rotations]) expect(hasNaN(values)).toBe(false);
    expect(pose.translations[2 * 3]).toBe(-0.5e15);
  });

  it('evaluates into arrays the caller gives (views into a crowd-wide array), the same poses as its own arrays', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const n = graph.skeleton.boneCount;
    // Two characters' rows in one array per attribute; the instance writes the second row.
    const all = { t: new Float64Array(2 * n * 3).fill(7), r: new Float64Array(2 * n * 4).fill(7), s: new Float64Array(2 * n * 3).fill(7) };
    const ct = new Float64Array(n * 3), cr = new Float64Array(n * 4), cs = new Float64Array(n * 3);
    const shared = graph.createInstance({
      local: { translations: all.t.subarray(n * 3), rotations: all.r.subarray(n * 4), scales: all.s.subarray(n * 3) },
      component: { translations: ct, rotations: cr, scales: cs },
    });
    // A new instance starts at the reference pose, whatever the arrays held (it was the identity,
    // every bone at the origin), and so does an evaluate before the first update, or after reset.
    const reference = graph.skeleton.referencePose;
    expect(all.t.subarray(n * 3)).toEqual(reference.translations);
    expect(all.r.subarray(n * 4)).toEqual(reference.rotations);
    expect(all.s.subarray(n * 3)).toEqual(reference.scales);
    expect(reference.translations[3 + 1]).toBe(95); // the pelvis, above the root
    for (const file of ['sample-locomotion.json', 'sample-state-machine.json', 'sample-inertial.json']) {
      const fresh = loadGraphFile(example(file)).createInstance();
      expect(fresh.evaluate().translations, file).toEqual(reference.translations);
      expect(fresh.componentPose().translations[3 + 1], file).toBe(95);
      fresh.update(1 / 30);
      expect(fresh.evaluate().translations).not.toEqual(reference.translations);
      fresh.reset();
      expect(fresh.evaluate().translations).toEqual(reference.translations);
    }
    const own = graph.createInstance();
    for (let f = 0; f < 30; f++) {
      for (const g of [shared, own]) {
        g.setParameter('gait', 1);
        g.setParameter('speed', 1 + f / 30);
        g.update(1 / 60);
      }
      const pose = shared.evaluate();
      expect(pose.rotations.buffer).toBe(all.r.buffer);
      const expected = own.evaluate();
      expect(Array.from(all.t.subarray(n * 3))).toEqual(Array.from(expected.translations));
      expect(Array.from(all.r.subarray(n * 4))).toEqual(Array.from(expected.rotations));
      expect(Array.from(all.s.subarray(n * 3))).toEqual(Array.from(expected.scales));
      shared.componentPose();
      expect(Array.from(cr)).toEqual(Array.from(own.componentPose().rotations));
      expect(Array.from(ct)).toEqual(Array.from(own.componentPose().translations));
    }
    expect(all.t[0]).toBe(7); // the first character's row is untouched
    expect(() => graph.createInstance({ local: { translations: new Float64Array(3), rotations: new Float64Array(n * 4), scales: new Float64Array(n * 4) } }))
      .toThrow(`pose storage for ${n} bones needs ${n * 3}, ${n * 4} and ${n * 3} values; translations has 3, scales has ${n * 4}`);
    expect(() => graph.createInstance({ component: { translations: ct, rotations: cr, scales: new Float64Array(0) } })).toThrow(/component pose storage .* scales has 0/);
  });

  it('keeps its per-frame numbers where the caller gives them (a batch row in the kernel), sized by frameNumberCount', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const count = graph.frameNumberCount;
    // The instance's own numbers (INSTANCE_NUMBERS), then per node its weight and what its type reserves: at least a weight per node.
    expect(count).toBe(graph.createInstance().frameNumbers.length);
    expect(count).toBeGreaterThanOrEqual(INSTANCE_NUMBERS + graph.nodes.length);
    const storage = new Float64Array(count);
    const given = graph.createInstance({ frameNumbers: storage });
    const own = graph.createInstance();
    for (let f = 0; f < 20; f++) {
      for (const g of [given, own]) {
        g.setParameter('gait', f < 10 ? 1 : 2);
        g.update(1 / 60);
      }
      expect(Array.from(given.evaluate().rotations)).toEqual(Array.from(own.evaluate().rotations));
    }
    expect(given.frameNumbers).toBe(storage);
    expect(Array.from(storage)).toEqual(Array.from(own.frameNumbers));
    expect(storage[1]).toBeCloseTo(20 / 60, 12); // the elapsed time
    expect(() => graph.createInstance({ frameNumbers: new Float64Array(count - 1) })).toThrow(`frameNumbers storage: expected ${count} numbers, all 0 (AnimGraph.frameNumberCount); got ${count - 1}`);
    expect(() => graph.createInstance({ frameNumbers: new Float64Array(count).fill(1) })).toThrow(/expected \d+ numbers, all 0/);
  });

  it('shares one array of per-frame numbers between instances, each from its frameNumbersAt (a batch\'s rows), with the same poses', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const count = graph.frameNumberCount;
    // Two characters' rows and a spare number after them, which neither may touch.
    const shared = new Float64Array(2 * count + 1);
    const rows = [0, 1].map((i) => graph.createInstance({ frameNumbers: shared, frameNumbersAt: i * count }));
    const own = [0, 1].map(() => graph.createInstance());
    for (let f = 0; f < 30; f++) {
      for (let i = 0; i < 2; i++) {
        for (const g of [rows[i], own[i]]) {
          g.setParameter('gait', (f + 10 * i) % 30 < 15 ? 1 : 2);
          g.update(i === 0 ? 1 / 60 : 1 / 30);
        }
        expect(Array.from(rows[i].evaluate().rotations)).toEqual(Array.from(own[i].evaluate().rotations));
        expect(Array.from(rows[i].rootMotion)).toEqual(Array.from(own[i].rootMotion));
      }
    }
    expect(Array.from(shared.subarray(0, count))).toEqual(Array.from(own[0].frameNumbers));
    expect(Array.from(shared.subarray(count, 2 * count))).toEqual(Array.from(own[1].frameNumbers));
    expect(shared[2 * count]).toBe(0);
    expect(rows[1].time).toBeCloseTo(30 / 30, 12);
    const node = rows[1].nodes.get('walk')!;
    expect(rows[1].nodeSlot(node)).toBe(count + own[1].nodeSlot(own[1].nodes.get('walk')!));
    // Room for the count from `at` in a longer array; the count exactly without `at`; zeros there; a whole `at` with storage.
    expect(() => graph.createInstance({ frameNumbers: new Float64Array(count + 2), frameNumbersAt: 3 }))
      .toThrow(`frameNumbers storage: expected ${count} numbers from 3, all 0 (AnimGraph.frameNumberCount); got ${count - 1}`);
    expect(() => graph.createInstance({ frameNumbers: shared, frameNumbersAt: 1 })).toThrow(`expected ${count} numbers from 1, all 0 (AnimGraph.frameNumberCount); got ${2 * count}, not all 0`);
    expect(() => graph.createInstance({ frameNumbersAt: count })).toThrow('frameNumbersAt: expected a whole number from 0, and frameNumbers storage with it; got ' + count);
    expect(() => graph.createInstance({ frameNumbers: new Float64Array(count + 1), frameNumbersAt: 0.5 })).toThrow(/frameNumbersAt: expected a whole number/);
    expect(() => graph.createInstance({ frameNumbers: new Float64Array(count + 1), frameNumbersAt: -1 })).toThrow(/frameNumbersAt: expected a whole number/);
  });

  it('keeps every clip clock in the per-frame numbers: SequenceEvaluator, BlendSpace1D, Slot (each with its time there)', () => {
    const asset = (nodes: Record<string, unknown>, output: string) => loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      parameters: { t: { type: 'float', default: 0.37 }, speed: { type: 'float', default: 275 } },
      nodes, output,
    });
    const holds = (numbers: Float64Array, value: number) => Array.from(numbers).some((x) => x === value);
    // A scrubbed clip: its explicit time is its clock's time (and its seek time).
    const evaluator = asset({ e: { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: { param: 't' } } } }, 'e').createInstance();
    evaluator.update(1 / 60);
    expect(holds(evaluator.frameNumbers, 0.37)).toBe(true);
    // A 1D blend space's samples: the clock of each (walk and run in step) with its time.
    const space = asset({ s: { type: 'BlendSpace1D', properties: { samples: [{ clip: 'walk', x: 150 }, { clip: 'run', x: 400 }], x: { param: 'speed' } } } }, 's').createInstance();
    for (let f = 0; f < 7; f++) space.update(1 / 60);
    const spaceNode = space.nodes.get('s') as unknown as { players: { time: number }[] };
    expect(spaceNode.players.map((p) => p.time).every((t) => t > 0 && holds(space.frameNumbers, t))).toBe(true);
    // A slot's voice: the clip played on it, its time there.
    const slotted = asset({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, slot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'upper' } } }, 'slot').createInstance();
    slotted.update(1 / 60);
    slotted.playSlot('upper', 'run', { playRate: 0.5 });
    for (let f = 0; f < 5; f++) slotted.update(1 / 60);
    expect(holds(slotted.frameNumbers, 5 / 60 * 0.5)).toBe(true);
    // Each reservation counted: the instance's 20 (its own 8, then the update-rate clock's 12), a
    // weight per node (the loader's Output node too), 8 per clock.
    expect(INSTANCE_NUMBERS).toBe(20);
    expect(evaluator.frameNumbers.length).toBe(20 + 2 + 8);
    expect(space.frameNumbers.length).toBe(20 + 2 + 2 * 8);
    expect(slotted.frameNumbers.length).toBe(20 + 3 + 8 + 2 * 8);
  });

  it('keeps per character only what differs between characters: properties shared, the component pose made when first asked for', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const a = graph.createInstance(), b = graph.createInstance();
    // A property bound to a parameter is one object for every instance; the values stay per instance.
    const walkA = a.nodes.get('walk') as unknown as { playRate: object }, walkB = b.nodes.get('walk') as unknown as { playRate: object };
    expect(walkA.playRate).toBe(walkB.playRate);
    a.setParameter('speed', 2);
    for (let f = 0; f < 10; f++) { a.update(1 / 30); b.update(1 / 30); }
    expect(Array.from(a.evaluate().rotations)).not.toEqual(Array.from(b.evaluate().rotations));
    // No component pose until one is asked for; then composed from the evaluated output, which it wraps.
    const lazy = a as unknown as { outputComponent: unknown };
    expect(lazy.outputComponent).toBeNull();
    const local = a.evaluate();
    const component = a.componentPose();
    expect(lazy.outputComponent).toBe(component);
    expect(component.local).toBe(local);
    const head = graph.skeleton.indexOf('head');
    const composed = Array.from(component.translations.subarray(head * 3, head * 3 + 3));
    expect(composed[1]).toBeGreaterThan(0.5 * graph.skeleton.legLength);
    // The same numbers as an instance that made it before its first evaluation.
    const c = graph.createInstance();
    c.componentPose();
    c.setParameter('speed', 2);
    for (let f = 0; f < 10; f++) c.update(1 / 30);
    expect(Array.from(c.componentPose().translations.subarray(head * 3, head * 3 + 3))).toEqual(composed);
    // No maps per character: parameter slots and node weight slots are the graph's, no slot map without Slot nodes.
    const inner = (i: unknown) => i as { parameters: { slots: unknown }; slots: unknown; nodeMap: unknown };
    expect(inner(a).parameters.slots).toBe(inner(b).parameters.slots);
    expect(inner(a).slots).toBeNull();
    expect(inner(graph.createInstance()).nodeMap).toBeNull();
    // No typed arrays a character does not use: curve values (the example has no curves), a blend's
    // per-bone weights (no blend profile), a clock's notify span (no notifies), the root-motion view
    // and the update-rate scratch until asked for.
    expect(a.curveValues).toBe(b.curveValues);
    const fade = (i: unknown) => (i as { nodes: Map<string, { fade: { boneWeights: unknown; boneStart: unknown } }> }).nodes.get('locomotion')!.fade;
    expect(fade(a).boneWeights).toBe(fade(b).boneStart);
    expect((walkB as unknown as { playback: { notifySpan: unknown } }).playback.notifySpan).toBeNull();
    const fresh = graph.createInstance() as unknown as { rootMotionView: unknown; interpolation: unknown; rootMotion: Float64Array; frameNumbers: Float64Array };
    expect(fresh.rootMotionView).toBeNull();
    expect(fresh.interpolation).toBeNull();
    expect(fresh.rootMotion.buffer).toBe(fresh.frameNumbers.buffer);
    // ...while each instance's nodes are its own, and a node of another instance has no weight slot here.
    expect(b.nodes.get('walk')).toBe(walkB);
    expect(b.nodes.get('walk')).not.toBe(walkA);
    expectAnimGraphError(() => b.nodeSlot(walkA as never), 'invalid-argument', "node 'walk' is not one of this instance's nodes");
    expect(b.nodeSlot(walkB as never)).toBe(a.nodeSlot(walkA as never));
  });

  it('shows the output node relevant at weight 1 from the first update, and announces it once, whether the frame goes through it or past it', () => {
    const player = { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } };
    const copy = { copy: { type: 'CopyBone', inputs: { pose: 'p' }, properties: { sourceBone: 'hand_r', targetBone: 'head', alpha: 0 } } };
    const asset = (output: string) => ({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: output === 'p' ? player : { ...player, ...copy },
      output,
    });
    // 'p': a local input, which the instance updates and evaluates straight; 'copy': a component-space one, through the link.
    const seen: string[][] = [];
    const poses: number[][] = [];
    for (const output of ['p', 'copy']) {
      const g = loadGraphAsset(asset(output)).createInstance();
      const ids: string[] = [];
      g.events.on('nodeBecameRelevant', (id) => ids.push(id));
      expect(g.gatherDebug().weight).toBe(0);
      g.update(0.1);
      g.update(0.1);
      expect(g.gatherDebug().weight).toBe(1);
      expect(g.nodes.get('output')!.relevant).toBe(true);
      g.reset();
      expect(g.gatherDebug().weight).toBe(0);
      g.update(0.1);
      seen.push(ids);
      poses.push(Array.from(g.evaluate().rotations));
    }
    expect(seen[0]).toEqual(['output', 'p', 'output', 'p']);
    expect(seen[1]).toEqual(['output', 'copy', 'p', 'output', 'copy', 'p']);
    expect(poses[0]).toEqual(poses[1]);
  });

  it('lays a parameter record out again when it changed between instances (Parameters is public)', () => {
    const definitions: Record<string, ParameterDefinition> = { speed: { type: 'float', default: 2 } };
    const first = new Parameters(definitions);
    definitions.aim = { type: 'vec3', default: [1, 2, 3] };
    const second = new Parameters(definitions);
    expect(first.values.length).toBe(1);
    expect(second.values.length).toBe(4);
    expect(second.slotOf('aim')).toBe(1);
    expect(second.get('aim')).toEqual([1, 2, 3]);
    expect(first.has('aim')).toBe(false);
    definitions.speed = { type: 'bool', default: true };
    expect(new Parameters(definitions).get('speed')).toBe(true);
  });

  it('updates an instance from an event listener of another mid-update (the graph\'s update contexts lent) with the same results as apart', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const [a, b, lone, loneB] = [0, 1, 2, 3].map(() => graph.createInstance());
    const nested: number[] = [];
    // nodeBecameRelevant fires inside a's update (a gait switch wakes a player): b updates and evaluates there.
    // b runs at another speed and frame time, so that sharing a's contexts mid-update would show.
    for (const g of [b, loneB]) g.setParameter('speed', 1.7);
    a.events.on('nodeBecameRelevant', () => {
      b.update(1 / 45);
      loneB.update(1 / 45);
      nested.push(b.evaluate().rotations[7]);
      expect(b.evaluate().rotations[7]).toBe(loneB.evaluate().rotations[7]);
    });
    for (let f = 0; f < 120; f++) {
      const gait = Math.floor(f / 20) % 3;
      for (const g of [a, lone]) g.setParameter('gait', gait);
      for (const g of [b, loneB]) g.setParameter('gait', (gait + 1) % 3);
      a.update(1 / 60);
      lone.update(1 / 60);
      expect(Array.from(a.evaluate().rotations)).toEqual(Array.from(lone.evaluate().rotations));
      expect(Array.from(a.rootMotion)).toEqual(Array.from(lone.rootMotion));
    }
    expect(nested.length).toBeGreaterThan(3);
    // The graph's contexts are free again after the nested updates: the next update borrows them.
    expect(graph.updateContextLoan.lent).toBe(false);
    expect(graph.updateContextLoan.contexts[0].graph).toBe(lone);
  });

  it('refuses an update from a listener of its own events, and runs as before once reset', () => {
    const graph = loadGraphFile(example('sample-locomotion.json'));
    const [g, alone] = [graph.createInstance(), graph.createInstance()];
    let calls = 0;
    const nested = () => {
      calls++;
      g.update(1 / 60);
    };
    g.events.on('nodeBecameRelevant', nested);
    // The first update makes the graph's nodes relevant: the listener's update throws through it.
    expect(() => g.update(1 / 60)).toThrow(/graph 'Sample locomotion': update called from a listener of this instance's events, during its update; call it after update returns/);
    expect(calls).toBe(1);
    g.events.off('nodeBecameRelevant', nested);
    // The refused update stopped the outer one part way; reset, the instance runs as one that never met the listener.
    g.reset();
    for (let f = 0; f < 30; f++) {
      for (const x of [g, alone]) {
        x.setParameter('gait', f < 15 ? 1 : 2);
        x.update(1 / 60);
      }
      expect(Array.from(g.evaluate().rotations)).toEqual(Array.from(alone.evaluate().rotations));
    }
  });

  it('resets, when a listener asks during the update, as the update returns', () => {
    // A loop event fires inside a state, part way through the state machine's update: re-initialised
    // there, the machine went on with no active state and threw a TypeError.
    const nodes = {
      sm: { type: 'StateMachine', properties: { entry: 'walk', states: {
        walk: { nodes: { clip: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'clip' },
        run: { nodes: { clip: { type: 'SequencePlayer', properties: { clip: 'run' } } }, output: 'clip' },
      }, transitions: [{ from: 'walk', to: 'run', rule: { param: 'fast', op: '==', value: true }, duration: 0.3 }] } },
    };
    const [g, after] = [0, 1].map(() => bipedInstance(nodes, 'sm', { fast: { type: 'bool', default: false } }));
    let resets = 0, looped = false;
    g.events.on('sequenceLooped', () => { if (resets++ < 2) g.reset(); });
    after.events.on('sequenceLooped', () => { looped = true; });
    for (let f = 0; f < 120; f++) {
      for (const x of [g, after]) {
        x.setParameter('fast', f >= 60);
        x.update(0.05);
      }
      if (looped && resets <= 2) after.reset();
      looped = false;
      expect(Array.from(g.evaluate().rotations)).toEqual(Array.from(after.evaluate().rotations));
    }
    expect(resets).toBeGreaterThan(2);
    expect(g.gatherDebug().description).toBe(after.gatherDebug().description);
  });

  it('gives the same poses however often evaluate is called between updates', () => {
    // Evaluate moved on state the node keeps (the Inertialization node's and pose search's
    // record of the poses output, stride warping's pelvis spring): evaluated twice a frame, every
    // later pose differed, by up to 1.55 rad in robot-pose-search, and from the second frame with
    // stride warping.
    // Each case makes an instance, or null for an example whose data is not here.
    const cases: [string, () => AnimGraphInstance | null][] = [['warpedWalkGraph', () => warpedWalkGraph().createInstance()]];
    for (const file of readdirSync(example('')).filter((f) => f.endsWith('.json'))) {
      cases.push([file, () => {
        const made = exampleInstance(file);
        if (!('skipped' in made)) return made.instance;
        expectSkippedForMissingData(file, made.skipped);
        return null;
      }]);
    }
    let run = 0;
    for (const [name, make] of cases) {
      const once = make();
      if (once === null) continue;
      const twice = make()!;
      run++;
      // Those a curve sets are the graph's own (setParameter refuses them).
      const parameters = Object.keys(once.parameters.definitions).filter((p) => once.parameters.definitions[p].curve === undefined);
      for (let f = 0; f < 240; f++) {
        const k = f >> 5;
        for (const g of [once, twice]) {
          for (const p of parameters) {
            const type = g.parameters.typeOf(p);
            if (type === 'float') g.setParameter(p, 0.37 + (k % 3) * 0.6);
            else if (type === 'int') g.setParameter(p, k % 3);
            else if (type === 'bool') g.setParameter(p, (k & 1) === 1);
          }
          g.update(1 / 30);
        }
        twice.evaluate();
        const [a, b] = [once.evaluate(), twice.evaluate()];
        expect(Array.from(b.rotations), `${name}, frame ${f}`).toEqual(Array.from(a.rotations));
        expect(Array.from(b.translations), `${name}, frame ${f}`).toEqual(Array.from(a.translations));
      }
    }
    expect(run).toBeGreaterThanOrEqual(6);
  });

  it('emits parameterChanged only when a value changes, and rejects wrong types', () => {
    const g = bipedInstance({ p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'p', {
      f: { type: 'float', default: 1 }, v: { type: 'vec3', default: [0, 1, 0] },
    });
    const seen: unknown[] = [];
    g.events.on('parameterChanged', (name, value, previous) => seen.push([name, value, previous]));
    g.setParameter('f', 1);
    g.setParameter('f', 2.5);
    g.setParameter('v', [1, 2, 3]);
    expect(seen).toEqual([['f', 2.5, 1], ['v', [1, 2, 3], [0, 1, 0]]]);
    expect(() => g.setParameter('f', true)).toThrow(/parameter 'f' is float/);
    expect(() => g.setParameter('nope', 1)).toThrow(/unknown parameter 'nope'/);
    // The rejected value as it was (JSON would show NaN and Infinity as null, and throw on a bigint).
    expect(() => g.setParameter('f', Number.NaN)).toThrow("parameter 'f' is float; cannot set it to NaN");
    expect(() => g.setParameter('v', [0, Number.NEGATIVE_INFINITY, 1])).toThrow("parameter 'v' is vec3; cannot set it to [0, -Infinity, 1]");
    expect(() => g.setParameter('f', 3n as never)).toThrow("parameter 'f' is float; cannot set it to 3n");
    expect(g.getParameter('f')).toBe(2.5);
  });

  it('never produces NaN from degenerate parameters', () => {
    const g = bipedInstance({
      a: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'r' } } },
      b: { type: 'SequencePlayer', properties: { clip: 'run' } },
      blend: { type: 'BlendTwo', inputs: { A: 'a', B: 'b' }, properties: { alpha: { param: 'x' } } },
      copy: { type: 'CopyBone', inputs: { pose: 'blend' }, properties: { sourceBone: 'root', targetBone: 'pelvis', copyScale: true, copyTranslation: true, alpha: { param: 'x' } } },
    }, 'copy', { r: { type: 'float', default: 1e308 }, x: { type: 'float', default: 0.5 } });
    for (let i = 0; i < 10; i++) {
      g.update(i % 2 ? 1 / 60 : 0);
      const p = g.evaluate();
      expect(hasNaN(p.translations) || hasNaN(p.rotations) || hasNaN(p.scales)).toBe(false);
    }
  });
});

/** Whether the Flaky and FlakyControl nodes of the graphs below throw, and where. */
const flaky = { update: false, evaluate: false };

/** A custom node passing its input through that throws in update (after updating its input) or evaluate while told to. */
class Flaky extends LocalPoseNode {
  private readonly inputs: PoseLink[];
  constructor(id: string, private readonly input: PoseLink) {
    super(id, 'Flaky');
    this.inputs = [input];
  }
  protected get links(): readonly PoseLink[] {
    return this.inputs;
  }
  protected onUpdate(ctx: UpdateContext): void {
    this.input.update(ctx.child());
    if (flaky.update) throw new Error('flaky update');
  }
  protected onEvaluate(out: Pose): void {
    this.input.evaluate(out);
    if (flaky.evaluate) throw new Error('flaky evaluate');
  }
}

/** A component-space control that throws in its evaluation while told to (its pose a pooled component pose). */
class FlakyControl extends SkeletalControlNode {
  protected evaluateBoneTransforms(_pose: ComponentPose, _out: BoneTransforms): void {
    if (flaky.evaluate) throw new Error('flaky control');
  }
}

const flakyTypes = new NodeRegistry([
  ...builtInNodeTypes,
  defineNodeType({
    type: 'Flaky', space: 'local', properties: {}, inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
    create: ({ id, inputs }) => new Flaky(id, inputs.pose),
  }),
  defineNodeType({
    type: 'FlakyControl', space: 'component', properties: {}, inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
    create: ({ id, inputs }) => new FlakyControl(id, 'FlakyControl', inputs.pose, { slot: -1, constant: 1 }),
  }),
]);

/** walk (with root motion) blended with run through a Flaky node, then a FlakyControl, converted back to local space for the output. */
function flakyGraph(): AnimGraph {
  return loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk', rootMotion: true }, run: { source: 'builtin:run', rootMotion: true } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      flaky: { type: 'Flaky', inputs: { pose: 'run' } },
      blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'flaky' }, properties: { alpha: 0.5 } },
      control: { type: 'FlakyControl', inputs: { pose: 'blend' } },
    },
    output: 'control',
  }, { nodeTypes: flakyTypes });
}

/** Throws `where` once in `instance`'s frame (update, or evaluate after an update), expecting the node's own error. */
function throwOnce(instance: AnimGraphInstance, where: 'update' | 'evaluate'): void {
  flaky[where] = true;
  try {
    expect(() => {
      instance.update(1 / 60);
      instance.evaluate();
    }).toThrow(where === 'update' ? /^flaky update$/ : /^flaky (evaluate|control)$/);
  } finally {
    flaky[where] = false;
  }
}

describe('a node that throws', () => {
  it('in update leaves the graph\'s other instances as they were: root motion and poses bit-identical to a graph that never threw', () => {
    const graph = flakyGraph(), clean = flakyGraph();
    const [a, b] = [graph.createInstance(), graph.createInstance()];
    const ref = clean.createInstance();
    for (let f = 0; f < 3; f++) {
      throwOnce(a, 'update');
      b.update(1 / 60);
      ref.update(1 / 60);
      // What a's aborted frame had gathered in the shared contexts was added to b's: twice the walk's motion.
      expect(Array.from(b.rootMotion)).toEqual(Array.from(ref.rootMotion));
      expect(Array.from(b.evaluate().rotations)).toEqual(Array.from(ref.evaluate().rotations));
    }
    expect(ref.rootMotion[3]).not.toBe(0);
    // The instance that threw is left part way through its frame; reset, it runs as a new one.
    a.reset();
    const fresh = clean.createInstance();
    for (let f = 0; f < 3; f++) {
      a.update(1 / 60);
      fresh.update(1 / 60);
      expect(Array.from(a.rootMotion)).toEqual(Array.from(fresh.rootMotion));
      expect(Array.from(a.evaluate().rotations)).toEqual(Array.from(fresh.evaluate().rotations));
    }
  });

  it('in update on an instance updated from another\'s listener (in contexts of its own) leaves it, once reset, as a new one', () => {
    const graph = flakyGraph(), clean = flakyGraph();
    const [outer, inner, later] = [graph.createInstance(), graph.createInstance(), graph.createInstance()];
    // Each outer instance's first update wakes its walk player: inner updates there, the graph's contexts lent out.
    let nested = (): void => throwOnce(inner, 'update');
    for (const o of [outer, later]) o.events.on('nodeBecameRelevant', (id) => { if (id === 'walk') nested(); });
    outer.update(1 / 60);
    inner.reset();
    nested = () => inner.update(1 / 60);
    later.update(1 / 60);
    const fresh = clean.createInstance();
    fresh.update(1 / 60);
    expect(Array.from(inner.rootMotion)).toEqual(Array.from(fresh.rootMotion));
    expect(Array.from(later.rootMotion)).toEqual(Array.from(fresh.rootMotion));
  });

  it('in evaluate gives back the pooled poses it held: the pools make no more poses, however often it throws', () => {
    const graph = flakyGraph();
    const [one, other] = [graph.createInstance(), graph.createInstance()];
    one.update(1 / 60);
    one.evaluate();
    const made = graph.posePool.size, madeComponent = graph.componentPosePool.size;
    expect([made, madeComponent]).toEqual([1, 1]);
    // 50 throws held 50 poses for good (the pool made 51).
    for (let k = 0; k < 50; k++) throwOnce(one, 'evaluate');
    expect([graph.posePool.size, graph.posePool.lent, graph.componentPosePool.size, graph.componentPosePool.lent]).toEqual([made, 0, madeComponent, 0]);
    const ref = flakyGraph().createInstance();
    for (let f = 0; f < 3; f++) {
      other.update(1 / 60);
      ref.update(1 / 60);
      expect(Array.from(other.evaluate().rotations)).toEqual(Array.from(ref.evaluate().rotations));
    }
    expect(graph.posePool.size).toBe(made);
  });

  it('in a batch\'s evaluate gives back the temporaries in the kernel\'s memory', () => {
    const batch = flakyGraph().createInstances(2);
    batch.update(1 / 60);
    const pool = batch.instances[0].posePool;
    const made = pool.size;
    flaky.evaluate = true;
    try {
      for (let k = 0; k < 6; k++) expect(() => batch.update(1 / 60)).toThrow(/^flaky (evaluate|control)$/);
    } finally {
      flaky.evaluate = false;
    }
    // Each throw kept a temporary: the kernel's four were gone for good after four frames, and the pool made ordinary poses.
    expect([pool.size, pool.lent]).toEqual([made, 0]);
    const ref = flakyGraph().createInstances(2);
    for (const b of [batch, ref]) for (const instance of b.instances) instance.reset();
    for (let f = 0; f < 3; f++) {
      batch.update(1 / 60);
      ref.update(1 / 60);
      expect(Array.from(batch.rotations)).toEqual(Array.from(ref.rotations));
    }
    expect(pool.size).toBe(made);
  });
});

describe('per-frame numbers a node reserves (NodeBuild.numbers)', () => {
  /**
   * A graph whose custom node n reserves numbers(count()) each time it is built (`late`: also once
   * built, when initialized), n's numbers before those of its sibling player w.
   */
  const reservingGraph = (count: () => number, late = false) => {
    class Reserver extends LocalPoseNode {
      constructor(id: string, private readonly numbers: (count: number) => number) {
        super(id, 'Reserver');
      }
      protected get links(): readonly PoseLink[] {
        return [];
      }
      protected override onInitialize(): void {
        if (late) this.numbers(1);
      }
      protected onUpdate(): void {}
      protected onEvaluate(out: Pose): void {
        out.rotations.fill(0);
        for (let i = 3; i < out.rotations.length; i += 4) out.rotations[i] = 1;
      }
    }
    const types = new NodeRegistry([...builtInNodeTypes, defineNodeType({
      type: 'Reserver', space: 'local', properties: {}, inputs: [],
      create: ({ id, numbers }) => {
        numbers(count());
        return new Reserver(id, numbers);
      },
    })]);
    return loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: {
        n: { type: 'Reserver' }, w: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        o: { type: 'BlendTwo', inputs: { A: 'n', B: 'w' }, properties: { alpha: 0.5 } },
      },
      output: 'o',
    }, { nodeTypes: types });
  };
  /** An instance of a graph whose n reserves numbers(count). */
  const reserving = (count: number, late = false) => () => reservingGraph(() => count, late).createInstance();

  it('refuses a count that is not a whole number from 0 to MAX_NODE_NUMBERS, naming the node', () => {
    // 0.5 put the player's clock at a fractional index (gatherDebug threw a TypeError), -3 overlapped
    // the player's, 1e9 made a 1000000020-number instance and NaN failed as 'offset is out of bounds'.
    expect(MAX_NODE_NUMBERS).toBe(1 << 20);
    for (const count of [0.5, -3, Number.NaN, MAX_NODE_NUMBERS + 1, 1e9]) {
      expect(reserving(count), String(count)).toThrow(new GraphLoadError('<graph>', [{
        path: '$.nodes.n', code: 'node-type-failed',
        message: `Reserver 'n': numbers(${count}): expected a whole number of numbers from 0 to ${MAX_NODE_NUMBERS}`,
      }]).message);
    }
    const [none, most] = [reserving(0)(), reserving(MAX_NODE_NUMBERS)()];
    expect(most.frameNumbers.length - none.frameNumbers.length).toBe(MAX_NODE_NUMBERS);
    none.update(1 / 60);
    expect(none.gatherDebug().children[0].children[1].weight).toBe(0.5);
  });

  it('refuses numbers() once the node is built: the instance\'s numbers are laid out by then', () => {
    expect(reserving(2, true)).toThrow("Reserver 'n': numbers(1) once the node is built; reserve in create, where the instance's numbers are laid out");
  });

  it('lays the numbers out once per graph, at its first instance: later ones get the same offsets, and a node reserving otherwise is refused', () => {
    let count = 3;
    const graph = reservingGraph(() => count);
    // The loader's instance laid them out; frameLayout is the graph's from then on.
    const layout = graph.frameLayout;
    const a = graph.createInstance(), b = graph.createInstance();
    expect(graph.frameLayout).toBe(layout);
    expect(layout.reservations[0]).toEqual([INSTANCE_NUMBERS, 3]);
    expect(a.frameNumbers.length).toBe(graph.frameNumberCount);
    expect(b.nodeSlot(b.nodes.get('w')!)).toBe(a.nodeSlot(a.nodes.get('w')!));
    count = 4;
    expect(() => graph.createInstance()).toThrow(new NodeBuildError('n', 'Reserver',
      "numbers(4) where the graph's first instance reserved numbers(3): a node reserves the same numbers in every instance of a graph"));
  });

  it('learns the layout by building the nodes once when asked for before any instance (a graph made in code)', () => {
    let built = 0;
    const made = reservingGraph(() => 2);
    const graph = new AnimGraph({
      name: 'reserving', skeleton: made.skeleton, parameters: {}, clips: new Map([...made.clipBindings].map(([name, b]) => [name, b.clip])),
      nodes: made.nodes.map((n) => n.id === 'n' ? { ...n, nodeType: { ...n.nodeType, create: (build) => { built++; return n.nodeType.create(build); } } } : n),
    });
    expect(graph.frameNumberCount).toBe(made.frameNumberCount);
    expect(graph.slotNames).toEqual([]);
    expect(built).toBe(1);
    graph.createInstances(3);
    expect(built).toBe(4);
  });
});

describe('building a custom node', () => {
  it('names the node whose create throws (a NodeBuildError, the thrown error its cause), for an instance made after the load', () => {
    let calls = 0;
    const thrown = new TypeError('no more');
    const graph = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, f: { type: 'Flaky', inputs: { pose: 'walk' } } },
      output: 'f',
    }, {
      nodeTypes: new NodeRegistry([...builtInNodeTypes, defineNodeType({
        type: 'Flaky', space: 'local', properties: {}, inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
        create: ({ id, inputs }) => {
          if (++calls > 1) throw thrown;
          return new Flaky(id, inputs.pose);
        },
      })]),
    });
    let error: unknown;
    try {
      graph.createInstance();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NodeBuildError);
    expect(error).toBeInstanceOf(AnimGraphError);
    expect(error).toMatchObject({ code: 'node-build', nodeId: 'f', typeName: 'Flaky', message: "Flaky 'f': create threw TypeError: no more" });
    expect((error as Error).cause).toBe(thrown);
  });
});

describe('delta times (fuzz regression, issue 13)', () => {
  it('holds a delta time above MAX_DELTA_TIME (1e6 s) to it, so clocks that add delta times stay finite', () => {
    // A BlendList's blend clock summed 1e300 and 1.8e308 to Infinity (a debug value written as null).
    const g = bipedInstance({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      list: { type: 'BlendList', inputs: { poses: ['walk', 'run'] }, properties: { activeIndex: { param: 'i' } } },
    }, 'list', { i: { type: 'int', default: 0 } });
    expect(MAX_DELTA_TIME).toBe(1e6);
    g.update(0);
    g.setParameter('i', 1);
    g.update(1e300);
    g.update(Number.MAX_VALUE);
    expect(g.time).toBe(2e6);
    expect(g.gatherDebug().children[0].values?.blendElapsed).toBe(2e6);
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
  });
});

describeWithData('graph on CMU data', () => {
  it('the CMU example crossfades walk to run and keeps the skeleton', () => {
    const graph = loadGraphFile(example('cmu-walk-run.json'));
    const result = runGraph(graph, { seconds: 1, timeline: [{ name: 'running', value: true, time: 0.5 }] });
    expect(result.bones).toHaveLength(101);
    const blend = result.frames[18].debug!.children[0];
    expect(blend.children.map((c) => c.id)).toEqual(['run', 'walk']);
    // The switch is seen at frame 15 (0.5 s); frames 15..18 are four updates of 1/30 s into the 0.3 s blend.
    expect(blend.children[0].weight).toBeCloseTo(4 / 30 / 0.3, 9);
    expect(CMU).toContain('cmu');
  });
});
