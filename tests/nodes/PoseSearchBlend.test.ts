import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { NodeRegistry, type GraphProblem } from '../../graphs/loader.ts';
import { checkGraphAsset, loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { builtInNodeTypes } from '../../nodes/index.ts';
import { PoseSearchBlend, PoseSearchBlendType, type PoseSearchShared } from '../../nodes/PoseSearchBlend.ts';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import { ComponentPose } from '../../runtime/core/component-pose.ts';
import { AnimGraph } from '../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import type { AnimGraphDefinition } from '../../runtime/graph/definition.ts';
import { quatFromAxisAngle, quatMultiply } from '../../runtime/core/math.ts';
import { NodePrepareError, type NodeType } from '../../runtime/node/node.ts';
import { Pose } from '../../runtime/core/pose.ts';
import {
  PoseFeatureExtractor, PoseFeatureSchema, PoseSearchDatabase, PoseSearchQuery, PoseSearchResult, serializePoseSearchDatabase,
} from '../../runtime/jobs/pose-search/index.ts';
import type { Skeleton } from '../../runtime/core/skeleton.ts';
import { expectClose, hasNaN } from '../support/graphs.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';
import { runProbe } from '../support/allocation.ts';

const DT = 1 / 30;
const LIMBS = ['foot_l', 'foot_r', 'hand_l', 'hand_r'];
const FEATURES = { rotations: { weight: 1 }, positions: { weight: 1, bones: LIMBS }, velocities: { weight: 1, bones: LIMBS } };

function bipedAsset(properties: Record<string, unknown> = {}): any {
  return {
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    parameters: { motion: { type: 'int', default: 0 }, bt: { type: 'float', default: 0.3 } },
    nodes: {
      ps: {
        type: 'PoseSearchBlend',
        properties: { clips: ['walk', 'run', 'idle'], motion: { param: 'motion' }, blendTime: { param: 'bt' }, features: FEATURES, ...properties },
      },
    },
    output: 'ps',
  };
}
const line = (g: AnimGraphInstance) => g.gatherDebug().children[0];
const node = (g: AnimGraphInstance) => g.nodes.get('ps') as PoseSearchBlend;
const copy = (p: Pose) => { const c = new Pose(p.boneCount); c.translations.set(p.translations); c.rotations.set(p.rotations); c.scales.set(p.scales); return c; };
const sampled = (graph: AnimGraph, clip: string, time: number, looping = true) =>
  sampleClip(new Pose(graph.skeleton.boneCount), graph.clipBindings.get(clip)!, time, looping);

/** Steps `frames` updates of `dt` (the first of 0), evaluating each, with `before(f)` called before update f. */
function play(g: AnimGraphInstance, frames: number, dt = DT, before?: (f: number) => void): Pose[] {
  const out: Pose[] = [];
  for (let f = 0; f < frames; f++) {
    before?.(f);
    g.update(f === 0 ? 0 : dt);
    out.push(copy(g.evaluate()));
  }
  return out;
}

describe('PoseSearchBlend on the built-in biped', () => {
  const graph = loadGraphAsset(bipedAsset());

  it('plays the chosen clip from 0 without a blend or a search', () => {
    const g = graph.createInstance();
    const poses = play(g, 5);
    expect(line(g).description).toBe("'walk' Time: 0.133");
    expectClose(poses[4].rotations, sampled(graph, 'walk', 4 * DT).rotations, 1e-12);
    expect(line(g).values).toMatchObject({ motion: 0, clip: 'walk', blending: false, weights: [1] });
    expect(line(g).values).not.toHaveProperty('matchFrame');
  });

  it('searches the runner-up only when debug output asks for it, once per switch, as searching both at once would', () => {
    const g = graph.createInstance();
    const db = node(g).database;
    let spy = vi.spyOn(db, 'searchRunnerUp');
    try {
      const poses = play(g, 21, DT, (f) => { if (f === 20) g.setParameter('motion', 1); });
      expect(spy).not.toHaveBeenCalled();
      const v = line(g).values!;
      line(g);
      expect(spy).toHaveBeenCalledTimes(1);
      const raw = new Float64Array(db.dims);
      new PoseFeatureExtractor(db.schema).extract(raw, 0, poses[19], poses[18], DT);
      const query = new PoseSearchQuery(db);
      db.scaleQuery(raw, query);
      query.allowOnly(db.clipNames.indexOf('run'));
      const best = new PoseSearchResult(), runnerUp = new PoseSearchResult();
      spy.mockRestore();
      db.searchWithRunnerUp(query, best, runnerUp, Math.round(0.2 * db.schema.sampleRate));
      spy = vi.spyOn(db, 'searchRunnerUp');
      expect(v.runnerUpFrame).toBe(runnerUp.localFrame);
      expect(v.runnerUpCost).toBe(runnerUp.cost);
      expect(v.runnerUpFrame).not.toBe(v.matchFrame);
      // The next switch searches again; its runner-up is again searched once, when asked for.
      g.setParameter('motion', 0);
      g.update(DT);
      g.evaluate();
      expect(spy).not.toHaveBeenCalled();
      expect(node(g).lastRunnerUp.frame).toBeGreaterThanOrEqual(0);
      expect(node(g).lastRunnerUp.frame).not.toBe(node(g).lastMatch.frame);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('starts the new clip at the best frame for the last output poses, crossfades, then plays it alone', () => {
    const g = graph.createInstance();
    const poses = play(g, 21, DT, (f) => { if (f === 20) g.setParameter('motion', 1); });
    const db = node(g).database;
    // What the search saw: the walk poses output at frames 18 and 19, 1/30 s apart.
    const extractor = new PoseFeatureExtractor(db.schema);
    const raw = new Float64Array(db.dims);
    extractor.extract(raw, 0, poses[19], poses[18], DT);
    const query = new PoseSearchQuery(db);
    db.scaleQuery(raw, query);
    query.allowOnly(db.clipNames.indexOf('run'));
    const brute = db.search(query, new PoseSearchResult(), 'brute');
    const v = line(g).values!;
    expect(v.matchFrame).toBe(brute.localFrame);
    expect(v.matchCost).toBe(brute.cost);
    expect(v.velocityMatched).toBe(true);
    // Both built-in gaits are one sine cycle: the walk's phase at 19/30 s of its 1.1 s period reappears in the 0.7 s run.
    const phase = (19 * DT) / 1.1;
    const runTime = brute.time;
    const wrapped = Math.abs(((runTime / 0.7 - phase + 0.5) % 1 + 1) % 1 - 0.5);
    expect(wrapped * 0.7).toBeLessThan(DT);
    // The run starts at the match plus this frame's advance; the walk keeps playing under it.
    expect(node(g).time).toBeCloseTo(runTime + DT, 12);
    expect(v.weights).toEqual([1 - DT / 0.3, DT / 0.3].map((w) => expect.closeTo(w, 12)));
    expect(line(g).description).toMatch(/^'run' Time: \d\.\d{3} Blend: 0\.033 \/ 0\.300 Match: frame \d+ @ \d\.\d{3} cost [\d.e+-]+ \[rot \d+% pos \d+% vel \d+%\] runner-up: frame \d+ @/);
    const shares = v.matchShares as number[];
    expect(shares[0] + shares[1] + shares[2]).toBeCloseTo(1, 12);
    expect(Math.abs((v.runnerUpTime as number) - runTime)).toBeGreaterThanOrEqual(0.2 - 1e-9);
    expect(v.runnerUpCost as number).toBeGreaterThanOrEqual(brute.cost);
    // 0.3 s = 9 frames later the walk is gone and the output is the run from the matched time.
    for (let f = 0; f < 9; f++) { g.update(DT); g.evaluate(); }
    expect(line(g).values).toMatchObject({ blending: false, clips: [1], weights: [1] });
    expectClose(g.evaluate().rotations, sampled(graph, 'run', runTime + 10 * DT).rotations, 1e-12);
  });

  it('a crossfaded switch follows its blendCurve', () => {
    const g = loadGraphAsset(bipedAsset({ blendCurve: 'quadraticInOut' })).createInstance();
    play(g, 21, DT, (f) => { if (f === 20) g.setParameter('motion', 1); });
    // p = (1/30) / 0.3 below 1/2: (2p)² / 2.
    const p = DT / 0.3, q = (2 * p) ** 2 / 2;
    expect(line(g).values!.weights).toEqual([1 - q, q].map((w) => expect.closeTo(w, 12)));
  });

  it('builds the database once per graph and shares it between instances', () => {
    let prepared = 0;
    const counting: NodeType = { ...PoseSearchBlendType, prepare: (ctx) => { prepared++; return PoseSearchBlendType.prepare!(ctx); } };
    const registry = new NodeRegistry([...builtInNodeTypes.filter((t) => t.type !== 'PoseSearchBlend'), counting]);
    const shared = loadGraphAsset(bipedAsset(), { nodeTypes: registry });
    const a = shared.createInstance(), b = shared.createInstance();
    expect(prepared).toBe(1);
    const db = (shared.shared.get('ps') as PoseSearchShared).database;
    expect(node(a).database).toBe(db);
    expect(node(b).database).toBe(db);
    // Instances search independently (each has its own query and history).
    play(a, 12, DT, (f) => { if (f === 11) a.setParameter('motion', 1); });
    play(b, 25, DT, (f) => { if (f === 24) b.setParameter('motion', 1); });
    expect(line(a).values?.matchFrame).not.toBe(undefined);
    expect(node(a).lastMatch).not.toBe(node(b).lastMatch);
  });

  it('inertial mode: the switch frame repeats the last pose, then the difference decays into the matched clip', () => {
    const g = loadGraphAsset(bipedAsset({ blendMode: 'inertial' })).createInstance();
    const poses = play(g, 16, DT, (f) => { if (f === 15) g.setParameter('motion', 1); });
    expectClose(poses[15].rotations, poses[14].rotations, 1e-12);
    expect(line(g).description).toMatch(/^'run' Time: \d\.\d{3} Inertial: 0\.000 \/ 0\.300 Match: frame/);
    const start = line(g).values!.matchTime as number;
    for (let f = 0; f < 9; f++) { g.update(DT); g.evaluate(); }
    expect(line(g).values?.blending).toBe(false);
    expectClose(g.evaluate().rotations, sampled(graph, 'run', start + 10 * DT).rotations, 1e-12);
  });

  it('starts at 0 when it has no pose history, and leaves velocities out when the last frame had no delta time', () => {
    const g = graph.createInstance();
    g.setParameter('motion', 1);
    g.update(0);
    g.setParameter('motion', 2);
    g.update(DT); // switched before anything was evaluated
    expect(line(g).description).toBe("'idle' Time: 0.033 Blend: 0.033 / 0.300 Match: none (no pose history)");
    const h = graph.createInstance();
    play(h, 6);
    h.update(0); h.evaluate(); // a paused frame: the last two poses are the same instant
    h.update(0); h.evaluate();
    h.setParameter('motion', 1);
    h.update(DT);
    const p = h.evaluate();
    expect(line(h).values?.velocityMatched).toBe(true); // a pause replaces the last pose; the two before it are still 1/30 s apart
    expect(hasNaN(p.rotations) || hasNaN(p.translations)).toBe(false);
    const k = graph.createInstance();
    k.update(0); k.evaluate(); // one pose only
    k.setParameter('motion', 1);
    k.update(DT);
    expect(line(k).values?.velocityMatched).toBe(false);
    expect(line(k).description).toMatch(/vel off\]/);
  });

  it('forgets its pose history when it was not updated for a while (its weight fell to 0 above it)', () => {
    const a = bipedAsset();
    a.parameters.alpha = { type: 'float', default: 1 };
    a.nodes.idle = { type: 'SequencePlayer', properties: { clip: 'idle' } };
    a.nodes.mix = { type: 'BlendTwo', inputs: { A: 'idle', B: 'ps' }, properties: { alpha: { param: 'alpha' } } };
    a.output = 'mix';
    const g = loadGraphAsset(a).createInstance();
    const ps = () => g.gatherDebug().children[0].children[1];
    play(g, 10);
    g.setParameter('alpha', 0);
    play(g, 5);
    g.setParameter('alpha', 1);
    g.setParameter('motion', 1);
    g.update(DT);
    expect(ps().description).toMatch(/Match: none \(no pose history\)$/);
    g.evaluate();
    g.update(DT); g.evaluate();
    g.setParameter('motion', 0);
    g.update(DT);
    expect(ps().values?.matchFrame).toEqual(expect.any(Number));
  });

  it('leaves out frames of a non-looping clip too close to its end to finish the blend', () => {
    const g = loadGraphAsset(bipedAsset({ loop: false, blendTime: 0.5, features: { positions: { weight: 1, bones: LIMBS } } })).createInstance();
    // The walk at 0.97 s is nearest the run's end (both clips end where they started); the run lasts 0.7 s.
    play(g, 30, DT, (f) => { if (f === 29) g.setParameter('motion', 1); });
    const v = line(g).values!;
    expect(v.matchTime as number).toBeLessThanOrEqual(0.7 - 0.5 + 1e-9);
    const free = loadGraphAsset(bipedAsset({ loop: false, blendTime: 0, features: { positions: { weight: 1, bones: LIMBS } } })).createInstance();
    play(free, 30, DT, (f) => { if (f === 29) free.setParameter('motion', 1); });
    expect(line(free).values!.matchTime as number).toBeGreaterThan(0.2);
  });

  it('switching again mid-blend keeps every pose playing until its weight is gone, without NaN or pops', () => {
    const motions = [0, 1, 2, 0, 1, 2, 1];
    const schedule = (g: AnimGraphInstance) => (f: number) => { if (f >= 10 && f < 10 + motions.length) g.setParameter('motion', motions[f - 10]); };
    const worstStep = (poses: Pose[]) => {
      let worst = 0;
      for (let f = 11; f < poses.length; f++) for (let i = 0; i < poses[f].rotations.length; i++) worst = Math.max(worst, Math.abs(poses[f].rotations[i] - poses[f - 1].rotations[i]));
      return worst;
    };
    const g = graph.createInstance();
    const poses = play(g, 40, DT, schedule(g));
    const cut = graph.createInstance();
    cut.setParameter('bt', 0);
    const cuts = play(cut, 40, DT, schedule(cut));
    // Seven switches on consecutive frames: at most four poses blend (the oldest is dropped), weights sum to 1.
    const weights = line(g).values!.weights as number[];
    expect(weights.length).toBeLessThanOrEqual(4);
    expect(weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    for (const p of poses) expect(hasNaN(p.rotations) || hasNaN(p.translations)).toBe(false);
    // The blended output never steps as far as the same switches made instantly.
    expect(worstStep(poses)).toBeLessThan(worstStep(cuts) / 2);
    // An out-of-range motion keeps the last clip switched to (the run), not the nearest clip (idle).
    g.setParameter('motion', 99);
    g.update(DT);
    expect(line(g).values).toMatchObject({ clip: 'run', motion: 1, requestedMotion: 99, motionOutOfRange: true });
  });

  it('keeps playing its clip while motion is out of range, reports it in debug and once in an event, and switches when it is back', () => {
    const g = graph.createInstance();
    const events: unknown[][] = [];
    g.events.on('motionOutOfRange', (...args) => events.push(args));
    play(g, 10);
    g.setParameter('motion', 7);
    for (let f = 0; f < 5; f++) { g.update(DT); g.evaluate(); }
    // No switch and no search: the walk carries on from 9 frames in, unblended.
    expect(line(g).description).toBe("'walk' Time: 0.467 motion 7 out of range [0, 2]");
    expect(line(g).values).toMatchObject({ motion: 0, requestedMotion: 7, motionOutOfRange: true, clip: 'walk', blending: false, weights: [1] });
    expect(line(g).values).not.toHaveProperty('matchFrame');
    expectClose(g.evaluate().rotations, sampled(graph, 'walk', 14 * DT).rotations, 1e-12);
    expect(events).toEqual([['ps', 7, 3]]);
    // Another bad value is reported again; the same one is not.
    g.setParameter('motion', -2);
    g.update(DT); g.evaluate();
    g.update(DT); g.evaluate();
    expect(events).toEqual([['ps', 7, 3], ['ps', -2, 3]]);
    expect(line(g).description).toBe("'walk' Time: 0.533 motion -2 out of range [0, 2]");
    // Back in range on the clip playing: nothing happens.
    g.setParameter('motion', 0);
    g.update(DT); g.evaluate();
    expect(line(g).description).toBe("'walk' Time: 0.567");
    expect(line(g).values).toMatchObject({ requestedMotion: 0, motionOutOfRange: false });
    // Out of range again, then back on another clip: a search and a blend as for any switch.
    g.setParameter('motion', 3);
    g.update(DT); g.evaluate();
    g.setParameter('motion', 1);
    g.update(DT);
    expect(events).toEqual([['ps', 7, 3], ['ps', -2, 3], ['ps', 3, 3]]);
    expect(line(g).description).toMatch(/^'run' Time: \d\.\d{3} Blend: 0\.033 \/ 0\.300 Match: frame \d+ @ \d\.\d{3} cost [^ ]+ \[rot \d+% pos \d+% vel \d+%\] runner-up: frame \d+ @ \d\.\d{3} cost [^ ]+$/);
    expect(line(g).values).toMatchObject({ motion: 1, requestedMotion: 1, motionOutOfRange: false, clips: [0, 1], matchFrame: expect.any(Number) });

    // Out of range from the first frame: clip 0, reported; a NaN motion (a raw slot write) is out of range too, once.
    const h = graph.createInstance();
    const first: unknown[][] = [];
    h.events.on('motionOutOfRange', (...args) => first.push(args));
    h.setParameter('motion', 5);
    play(h, 3);
    expect(line(h).description).toBe("'walk' Time: 0.067 motion 5 out of range [0, 2]");
    h.parameterValues[h.parameters.slotOf('motion')] = NaN;
    play(h, 2);
    expect(first).toEqual([['ps', 5, 3], ['ps', NaN, 3]]);
    expect(line(h).values).toMatchObject({ clip: 'walk', motionOutOfRange: true });
    expect(line(h).description).toBe("'walk' Time: 0.100 motion NaN out of range [0, 2]");
  });

  it('allocates nothing per frame once warm, blending or not, nor for a search (plain Node process)', () => {
    const result = runProbe('pose-search-allocation-probe.ts');
    expect(result.steady).toBeLessThan(4);
    expect(result.blending).toBeLessThan(4);
    expect(result.blendingWeights[0]).toBeGreaterThan(0.2);
    // A search (and its runner-up) every frame: one boxed double would be 16 bytes.
    expect(result.perSwitch).toBeLessThan(8);
    // Nor an inertial switch every frame (a search and the start of an inertialization: the curve
    // fits take their numbers by array; a boxed double each would be 16 bytes per bone and curve).
    expect(result.perInertialSwitch).toBeLessThan(8);
    // A motion out of range, a different one every frame, with nobody listening to the event.
    expect(result.outOfRange).toBeLessThan(4);
  });
});

// ---------------------------------------------------------------------------------------------

function problems(json: unknown, baseDir?: string): GraphProblem[] {
  const result = checkGraphAsset(json, { baseDir });
  if (result.ok) throw new Error('expected the asset to be rejected');
  return [...result.problems];
}
const summary = (list: GraphProblem[]) => list.map((p) => `${p.path} [${p.code}]`);

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const io: Io = { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false };
  const code = await main(args, io);
  return { code, out, err };
}

describe('loading PoseSearchBlend', () => {
  it('reports every bad property at once, each with its JSON path', () => {
    const a = bipedAsset({
      clips: ['walk', 'jog'],
      blendMode: 'snap',
      features: {
        rotations: { weight: 1, bones: ['pelvis', 'tail'] },
        positions: { weight: 1, bones: ['foot_l', 'nose'] },
        velocities: { weight: -2, bones: ['foot_l'] },
        rootBone: 'ground',
      },
    });
    expect(summary(problems(a))).toEqual([
      '$.nodes.ps.properties.blendMode [schema]',
      '$.nodes.ps.properties.features.velocities.weight [schema]',
      '$.nodes.ps.properties.clips[1] [unknown-clip]',
      '$.nodes.ps.properties.features.rotations.bones[1] [unknown-bone]',
      '$.nodes.ps.properties.features.positions.bones[1] [unknown-bone]',
      '$.nodes.ps.properties.features.rootBone [unknown-bone]',
    ]);
  });

  it('rejects an empty clip list, a missing one, no weighted channel and a channel without bones', () => {
    expect(summary(problems(bipedAsset({ clips: [] })))).toEqual(['$.nodes.ps.properties.clips [schema]']);
    const missing = bipedAsset();
    delete missing.nodes.ps.properties.clips;
    expect(summary(problems(missing))).toEqual(['$.nodes.ps.properties.clips [schema]']);
    const none = problems(bipedAsset({ features: { rotations: { weight: 0 }, sampleRate: 0 } }));
    expect(summary(none)).toEqual(['$.nodes.ps.properties.features.sampleRate [schema]', '$.nodes.ps.properties.features [schema]']);
    expect(none[1].message).toMatch(/no feature channel has a weight above 0/);
    const bare = problems(bipedAsset({ features: { positions: { weight: 1 } } }));
    expect(bare.map((p) => `${p.path}: ${p.message}`)).toEqual(['$.nodes.ps.properties.features.positions: positions needs a list of bones (for example both feet and hands)']);
  });

  it('reports `constructor`, `toString` and `__proto__` as features keys, channel keys or bones at their path, never a TypeError', () => {
    for (const name of ['constructor', 'toString', '__proto__']) {
      // Parsed from text, as a file is: `__proto__` is then an own key, not the prototype.
      const features = (json: string) => bipedAsset({ features: JSON.parse(json) });
      // `__proto__` is refused as a key anywhere in an asset, at the key itself (the loader's rule).
      const proto = (at: string) => [{ path: `${at}.__proto__`, code: 'schema', message: "'__proto__' cannot be a name or key in an asset (JavaScript objects treat it specially): rename it" }];
      const asFeature = problems(features(`{"positions": {"weight": 1, "bones": ["foot_l"]}, "${name}": {"weight": 1}}`));
      expect(asFeature).toEqual(name === '__proto__' ? proto('$.nodes.ps.properties.features')
        : [{ path: '$.nodes.ps.properties.features', code: 'schema', message: `Unrecognized key: "${name}"` }]);
      const asChannelKey = problems(features(`{"positions": {"weight": 1, "bones": ["foot_l"], "${name}": 1}}`));
      expect(asChannelKey).toEqual(name === '__proto__' ? proto('$.nodes.ps.properties.features.positions')
        : [{ path: '$.nodes.ps.properties.features.positions', code: 'schema', message: `Unrecognized key: "${name}"` }]);
      const asBone = problems(features(`{"positions": {"weight": 1, "bones": ["${name}"]}, "rootBone": "${name}"}`));
      expect(summary(asBone)).toEqual(['$.nodes.ps.properties.features.positions.bones[0] [unknown-bone]', '$.nodes.ps.properties.features.rootBone [unknown-bone]']);
    }
  });

  it('uses the seed schema (rotations of every bone) when features are left out', () => {
    const a = bipedAsset();
    delete a.nodes.ps.properties.features;
    const db = (loadGraphAsset(a).shared.get('ps') as PoseSearchShared).database;
    expect(db.dims).toBe(22 * 4);
    expect(db.schema.canonical).toMatchObject({ rotations: { weight: 1, bones: null }, sampleRate: 30, normalize: true, rootBone: 'root', upAxis: 'y' });
  });

  it('samples the database at the asset\'s sampleRate: frame counts, frame times and the matched start follow it', () => {
    const dbOf = (graph: AnimGraph) => (graph.shared.get('ps') as PoseSearchShared).database;
    const at30 = dbOf(loadGraphAsset(bipedAsset()));
    const graph12 = loadGraphAsset(bipedAsset({ features: { ...FEATURES, sampleRate: 12 } }));
    const db = dbOf(graph12);
    // walk 1.1 s, run 0.7 s, idle 2 s: floor(duration * rate) + 1 frames each.
    expect(Array.from(at30.clipStart)).toEqual([0, 34, 56, 117]);
    expect(Array.from(db.clipStart)).toEqual([0, 14, 23, 48]);
    expect(db.schema.canonical.sampleRate).toBe(12);
    expect(Array.from(db.frameTime.subarray(14, 23))).toEqual(Array.from({ length: 9 }, (_, k) => k / 12));
    expect(db.frameTime[13]).toBe(13 / 12);
    // Frame 5 of the run holds the run's features at 5/12 s (velocity over one 1/30 s key of the clip).
    const extractor = new PoseFeatureExtractor(db.schema);
    const raw = new Float64Array(db.dims);
    extractor.extract(raw, 0, sampled(graph12, 'run', 5 / 12), sampled(graph12, 'run', 5 / 12 - 1 / 30), 1 / 30);
    const query = new PoseSearchQuery(db);
    db.scaleQuery(raw, query);
    expect(db.cost(query, db.frameIndex(1, 5))).toBeLessThan(1e-20);
    expect(db.cost(query, db.frameIndex(1, 4))).toBeGreaterThan(0.01);

    // A switch starts the run on the 12 Hz grid, at the brute-force best frame for the last two poses.
    const g = graph12.createInstance();
    const poses = play(g, 21, DT, (f) => { if (f === 20) g.setParameter('motion', 1); });
    extractor.extract(raw, 0, poses[19], poses[18], DT);
    db.scaleQuery(raw, query);
    query.allowOnly(1);
    const brute = db.search(query, new PoseSearchResult(), 'brute');
    const v = line(g).values!;
    expect(v.matchFrame).toBe(brute.localFrame);
    expect(v.matchTime).toBe(brute.localFrame / 12);
    expect(node(g).time).toBeCloseTo(brute.localFrame / 12 + DT, 12);
    // The runner-up is at least 0.2 s away: round(0.2 * 12) = 2 frames are left out on either side.
    expect(Math.abs((v.runnerUpFrame as number) - brute.localFrame)).toBeGreaterThanOrEqual(3);
  });

  it('with normalize false, scales each channel by its weight only: the cost is the raw squared distance', () => {
    const raw = loadGraphAsset(bipedAsset({ features: { ...FEATURES, normalize: false, positions: { weight: 4, bones: LIMBS } } }));
    const normalised = loadGraphAsset(bipedAsset({ features: { ...FEATURES, positions: { weight: 4, bones: LIMBS } } }));
    const db = (raw.shared.get('ps') as PoseSearchShared).database;
    expect(db.schema.canonical.normalize).toBe(false);
    expect(Array.from(db.deviations)).toEqual([1, 1, 1]);
    expect(Array.from(db.scales)).toEqual([1, 2, 1]);
    const g = raw.createInstance(), n = normalised.createInstance();
    const poses = play(g, 21, DT, (f) => { if (f === 20) g.setParameter('motion', 1); });
    play(n, 21, DT, (f) => { if (f === 20) n.setParameter('motion', 1); });
    // The documented cost written out on unscaled features: Σ weight × squared distance over the run's frames.
    const extractor = new PoseFeatureExtractor(db.schema);
    const q = new Float64Array(db.dims), row = new Float64Array(db.dims);
    extractor.extract(q, 0, poses[19], poses[18], DT);
    const o = db.schema.offsets, run = raw.clipBindings.get('run')!.clip;
    const costs: number[] = [];
    for (let k = 0; k < db.clipStart[2] - db.clipStart[1]; k++) {
      const t = Math.min(k / 30, run.duration);
      if (k === 0) {
        extractor.extract(row, 0, sampled(raw, 'run', 0), null, 0);
        const ahead = new Float64Array(db.dims);
        extractor.extract(ahead, 0, sampled(raw, 'run', 1 / 30), sampled(raw, 'run', 0), 1 / 30);
        row.set(ahead.subarray(o[2]), o[2]);
      } else extractor.extract(row, 0, sampled(raw, 'run', t), sampled(raw, 'run', t - 1 / 30), 1 / 30);
      let rot = 0, pos = 0, vel = 0;
      for (let d = 0; d < o[1]; d += 4) {
        let minus = 0, plus = 0;
        for (let i = 0; i < 4; i++) { minus += (q[d + i] - row[d + i]) ** 2; plus += (q[d + i] + row[d + i]) ** 2; }
        rot += Math.min(minus, plus);
      }
      for (let d = o[1]; d < o[2]; d++) pos += (q[d] - row[d]) ** 2;
      for (let d = o[2]; d < o[3]; d++) vel += (q[d] - row[d]) ** 2;
      costs.push(rot + 4 * pos + vel);
    }
    const v = line(g).values!;
    const min = Math.min(...costs);
    expect(v.matchFrame).toBe(costs.indexOf(min));
    expect(v.matchCost as number).toBeCloseTo(min, 6);
    const shares = v.matchShares as number[], normalisedShares = line(n).values!.matchShares as number[];
    // Unit quaternions count for nothing next to centimetres and cm/s; normalised, they count a quarter.
    expect(shares[0]).toBeLessThan(1e-4);
    expect(shares[2]).toBeGreaterThan(0.8);
    expect(normalisedShares[0]).toBeGreaterThan(0.2);
    expect(line(n).values!.matchFrame).not.toBe(v.matchFrame);
  });

  it('animgraph index writes the database; the asset reads it back; a stale or missing file is a load error at `database`', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-ps-'));
    const graphPath = join(dir, 'graph.json');
    const asset = bipedAsset();
    writeFileSync(graphPath, JSON.stringify(asset));
    const indexed = await cli('index', graphPath, '--out', join(dir, 'locomotion.psindex'));
    expect(indexed.code).toBe(0);
    expect(indexed.out).toMatch(/^wrote .*locomotion\.psindex: node 'ps', \d+ frames of 112 features from 3 clips at 30 Hz, \d+ tree nodes \(hash [0-9a-f]{12}\)\n$/);

    // Point the asset at the file (relative to the graph file).
    asset.nodes.ps.properties.database = 'locomotion.psindex';
    writeFileSync(graphPath, JSON.stringify(asset));
    const fromFile = loadGraphFile(graphPath);
    const built = loadGraphAsset(bipedAsset());
    const dbFile = (fromFile.shared.get('ps') as PoseSearchShared), dbBuilt = (built.shared.get('ps') as PoseSearchShared);
    expect(dbFile.fromIndexFile).toBe(true);
    expect(dbBuilt.fromIndexFile).toBe(false);
    expect(Array.from(dbFile.database.features)).toEqual(Array.from(dbBuilt.database.features));
    const run = (graph: AnimGraph) => {
      const g = graph.createInstance();
      play(g, 18, DT, (f) => { if (f === 17) g.setParameter('motion', 1); });
      return line(g).values;
    };
    expect(run(fromFile)).toEqual(run(built));

    // Change the features: the file no longer matches.
    asset.nodes.ps.properties.features = { ...FEATURES, velocities: { weight: 2, bones: LIMBS } };
    writeFileSync(graphPath, JSON.stringify(asset));
    const stale = await cli('validate', graphPath);
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/\$\.nodes\.ps\.properties\.database: locomotion\.psindex: stale index file: it was built for features .*; rebuild it with `animgraph index GRAPH --out locomotion\.psindex` \[stale-index\]/);
    // Re-indexing ignores the stale file and fixes it.
    expect((await cli('index', graphPath, '--out', join(dir, 'locomotion.psindex'))).code).toBe(0);
    expect((await cli('validate', graphPath)).code).toBe(0);

    // A changed clip (another clip under the same name) is stale too, and names the clip.
    asset.clips.run = { source: 'builtin:walk' };
    writeFileSync(graphPath, JSON.stringify(asset));
    expect(problems(asset, dir)).toEqual([{ path: '$.nodes.ps.properties.database', code: 'stale-index', message: expect.stringContaining("clip 'run' changed since it was indexed") }]);

    asset.nodes.ps.properties.database = 'missing.psindex';
    expect(problems(asset, dir)).toEqual([{ path: '$.nodes.ps.properties.database', code: 'file', message: expect.stringMatching(/cannot read index file 'missing\.psindex' .*ENOENT/) }]);
    writeFileSync(join(dir, 'garbage.psindex'), 'not an index');
    asset.nodes.ps.properties.database = 'garbage.psindex';
    // Not told to overwrite it: the file may be the graph itself, or a BVH named by mistake.
    expect(problems(asset, dir)).toEqual([{ path: '$.nodes.ps.properties.database', code: 'file',
      message: 'garbage.psindex: not a pose-search index file (written by `animgraph index`); check that `database` names the file `animgraph index GRAPH --out FILE` wrote' }]);
  });

  it('reads its index file through the prepare context, so a graph given bytes by its readFile touches no disk', () => {
    const built = loadGraphAsset(bipedAsset());
    const bytes = serializePoseSearchDatabase((built.shared.get('ps') as PoseSearchShared).database);
    const definition = (readFile?: (path: string) => Uint8Array): AnimGraphDefinition => ({
      name: 'in memory', skeleton: built.skeleton, parameters: built.parameterDefinitions,
      clips: new Map([...built.clipBindings].map(([name, binding]) => [name, binding.clip])),
      nodes: built.nodes.map((n) => (n.id === 'ps' ? { ...n, properties: { ...n.properties, database: 'nowhere/locomotion.psindex' } } : n)),
      readFile,
    });
    const asked: string[] = [];
    const fromMemory = new AnimGraph(definition((path) => { asked.push(path); return bytes; }));
    expect(asked).toEqual(['nowhere/locomotion.psindex']);
    const shared = fromMemory.shared.get('ps') as PoseSearchShared;
    expect(shared.fromIndexFile).toBe(true);
    expect(Array.from(shared.database.features)).toEqual(Array.from((built.shared.get('ps') as PoseSearchShared).database.features));

    // Without file access the node reports that it cannot read the file, at `database`.
    let error: unknown;
    try {
      new AnimGraph(definition());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NodePrepareError);
    expect((error as NodePrepareError).problems).toEqual([{
      nodeId: 'ps', path: ['database'], code: 'file', message: expect.stringMatching(/^cannot read index file 'nowhere\/locomotion\.psindex' .*no file access/),
    }]);
  });

  it('a corrupt index file (a flipped bit, a cut, a mangled header) is a `file` error at `database`, never a TypeError', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-ps-'));
    const graphPath = join(dir, 'graph.json');
    const asset = bipedAsset({ database: 'good.psindex' });
    writeFileSync(graphPath, JSON.stringify(asset));
    expect((await cli('index', graphPath, '--out', join(dir, 'good.psindex'))).code).toBe(0);
    const bytes = new Uint8Array(readFileSync(join(dir, 'good.psindex')));
    const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + headerLength)));
    const flipped = bytes.slice();
    flipped[bytes.length - 1000] ^= 0x04; // in the features, the bounding boxes or the tree
    // `sections` not a list, with the header's length kept (spaces), so only the field is wrong.
    const mangled = bytes.slice();
    const text = JSON.stringify({ ...header, sections: 7 });
    mangled.set(new TextEncoder().encode(text.padEnd(headerLength, ' ')), 12);
    const files: [string, Uint8Array, RegExp][] = [
      ['flipped.psindex', flipped, /the index file is corrupt: its contents do not match the checksum/],
      ['cut.psindex', bytes.subarray(0, bytes.length >> 1), /the index file is truncated \(section '/],
      ['mangled.psindex', mangled, /the index file header is malformed: sections is not a list/],
    ];
    for (const [file, content, message] of files) {
      writeFileSync(join(dir, file), content);
      asset.nodes.ps.properties.database = file;
      expect(problems(asset, dir)).toEqual([{ path: '$.nodes.ps.properties.database', code: 'file', message: expect.stringMatching(message) }]);
      writeFileSync(graphPath, JSON.stringify(asset));
      const validated = await cli('validate', graphPath);
      expect(validated.code).toBe(1);
      expect(validated.err).toMatch(new RegExp(`\\$\\.nodes\\.ps\\.properties\\.database: ${file.replace('.', '\\.')}: .*; rebuild it with .* \\[file\\]`));
      expect(validated.err).not.toMatch(/TypeError|\n\s+at /);
    }
  });

  it('animgraph index refuses a graph without a pose-search node, and needs --out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-ps-'));
    const path = join(dir, 'plain.json');
    writeFileSync(path, JSON.stringify({ ...bipedAsset(), nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p' }));
    expect(await cli('index', path, '--out', join(dir, 'x'))).toMatchObject({ code: 2, err: expect.stringContaining('has no PoseSearchBlend node to index') });
    expect(await cli('index', path)).toMatchObject({ code: 2, err: expect.stringContaining('needs --out FILE') });
    expect(readFileSync(path, 'utf8')).toContain('SequencePlayer');
  });
});

// ---------------------------------------------------------------------------------------------
// Real data: CMU subject 2 walks (002_01, 002_02) and runs (002_03), one skeleton.

const CMU_LIMBS = ['CC_Base_L_Foot', 'CC_Base_R_Foot', 'CC_Base_L_Hand', 'CC_Base_R_Hand'];
const CMU_FEATURES = { rotations: { weight: 1 }, positions: { weight: 1, bones: CMU_LIMBS }, velocities: { weight: 1, bones: CMU_LIMBS } };
const cmuAsset = (nodes: Record<string, unknown>, output: string) => ({
  format: 'animgraph/1',
  skeleton: { bvh: `${CMU}002_01.bvh` },
  clips: {
    walk: { source: `${CMU}002_01.bvh`, frames: [1, -1], rootMotion: true },
    walk2: { source: `${CMU}002_02.bvh`, frames: [1, -1], rootMotion: true },
    run: { source: `${CMU}002_03.bvh`, frames: [1, -1], rootMotion: true },
  },
  parameters: { motion: { type: 'int', default: 0 } },
  nodes,
  output,
});
/** The CMU clip set (walks 002_01 and 002_02, run 002_03): features are normalised over all three. */
const cmuPoseSearch = (features: unknown, blendTime = 0.3) => loadGraphAsset(cmuAsset({
  ps: { type: 'PoseSearchBlend', properties: { clips: ['walk', 'walk2', 'run'], motion: { param: 'motion' }, blendTime, features } },
}, 'ps'));
/** `motion` of the run: in the pose-search graphs, and in the crossfade's BlendList of walk and run. */
const RUN = 2, CROSSFADE_RUN = 1;

/**
 * The documented cost, written again from its description (not with the runtime's extraction code):
 * features of a local pose relative to the root bone's position and heading, deviation per channel
 * = sqrt(Σ variances) over all frames of the node's clips, cost = Σ weight / deviation² × squared
 * distance, a quaternion counted the shorter way (q or -q).
 */
class ReferenceCost {
  readonly root: number;
  readonly rotationBones: number[];
  readonly limbs: number[];
  readonly frames: { clip: string; time: number; row: number[] }[] = [];
  readonly deviation = [0, 0, 0];
  private readonly cs: ComponentPose;

  constructor(readonly skeleton: Skeleton, clips: Record<string, ClipBinding>, limbs: string[], readonly weights: number[], rate = 30) {
    this.cs = new ComponentPose(skeleton);
    this.root = 0;
    this.rotationBones = skeleton.boneNames.map((_, i) => i);
    this.limbs = limbs.map((b) => skeleton.indexOf(b));
    for (const [name, binding] of Object.entries(clips)) {
      const clip = binding.clip, key = 1 / clip.frameRate;
      for (let k = 0; k <= Math.floor(clip.duration * rate + 1e-9); k++) {
        const t = Math.min(k / rate, clip.duration);
        const at = (time: number) => sampleClip(new Pose(skeleton.boneCount), binding, time, false);
        const row = t >= key ? this.row(at(t), at(t - key), key) : this.row(at(t), null, 0);
        if (t < key) {
          const ahead = this.row(at(t + key), at(t), key);
          row.splice(row.length - 3 * this.limbs.length, 3 * this.limbs.length, ...ahead.slice(ahead.length - 3 * this.limbs.length));
        }
        this.frames.push({ clip: name, time: t, row });
      }
    }
    // Deviation per channel over every frame, quaternions flipped toward the first frame's.
    const rows = this.frames.map((f) => [...f.row]);
    for (const r of rows) {
      for (let d = 0; d < this.rotationBones.length * 4; d += 4) {
        const dot = r[d] * rows[0][d] + r[d + 1] * rows[0][d + 1] + r[d + 2] * rows[0][d + 2] + r[d + 3] * rows[0][d + 3];
        if (dot < 0) for (let k = 0; k < 4; k++) r[d + k] = -r[d + k];
      }
    }
    this.ranges().forEach(([d0, d1], c) => {
      let variance = 0;
      for (let d = d0; d < d1; d++) {
        const mean = rows.reduce((s, r) => s + r[d], 0) / rows.length;
        variance += rows.reduce((s, r) => s + (r[d] - mean) ** 2, 0) / rows.length;
      }
      this.deviation[c] = Math.sqrt(variance);
    });
  }

  ranges(): [number, number][] {
    const r = this.rotationBones.length * 4, p = r + this.limbs.length * 3;
    return [[0, r], [r, p], [p, p + this.limbs.length * 3]];
  }

  /** Rotations, relative positions, then velocities from `older` (zeros without one). */
  row(pose: Pose, older: Pose | null, dt: number): number[] {
    const frame = (p: Pose) => {
      this.cs.setFromLocal(p);
      this.cs.ensureAllComponent();
      const q = this.cs.rotations.slice(this.root * 4, this.root * 4 + 4);
      const heading = 2 * Math.atan2(q[1], q[3]);
      const rel = this.limbs.flatMap((b) => {
        const dx = this.cs.translations[b * 3] - this.cs.translations[this.root * 3];
        const dy = this.cs.translations[b * 3 + 1] - this.cs.translations[this.root * 3 + 1];
        const dz = this.cs.translations[b * 3 + 2] - this.cs.translations[this.root * 3 + 2];
        return [Math.cos(heading) * dx - Math.sin(heading) * dz, dy, Math.sin(heading) * dx + Math.cos(heading) * dz];
      });
      const unturn = quatFromAxisAngle(new Float64Array(4), 0, 0, 1, 0, -heading);
      const rootRotation = quatMultiply(new Float64Array(4), 0, unturn, 0, q, 0);
      const rotations = this.rotationBones.flatMap((b) =>
        (b === this.root || this.skeleton.parents[b] < 0 ? Array.from(rootRotation) : Array.from(p.rotations.slice(b * 4, b * 4 + 4))));
      return { rel, rotations };
    };
    const now = frame(pose);
    const before = older ? frame(older).rel : null;
    const velocities = now.rel.map((x, i) => (before ? (x - before[i]) / dt : 0));
    return [...now.rotations, ...now.rel, ...velocities];
  }

  cost(query: number[], row: number[], channels = [true, true, true]): number {
    let total = 0;
    this.ranges().forEach(([d0, d1], c) => {
      if (!channels[c] || this.weights[c] === 0) return;
      let sum = 0;
      for (let d = d0; d < d1; d += c === 0 ? 4 : 1) {
        if (c === 0) {
          let minus = 0, plus = 0;
          for (let k = 0; k < 4; k++) { minus += (query[d + k] - row[d + k]) ** 2; plus += (query[d + k] + row[d + k]) ** 2; }
          sum += Math.min(minus, plus);
        } else sum += (query[d] - row[d]) ** 2;
      }
      total += (this.weights[c] / this.deviation[c] ** 2) * sum;
    });
    return total;
  }
}

describeWithData('PoseSearchBlend on CMU walk and run', () => {
  const fps = 60, dt = 1 / fps, blendTime = 0.3;
  const poseSearch = cmuPoseSearch(CMU_FEATURES, blendTime);
  const crossfade = loadGraphAsset(cmuAsset({
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    list: { type: 'BlendList', inputs: { poses: ['walk', 'run'] }, properties: { activeIndex: { param: 'motion' }, blendTimes: blendTime } },
  }, 'list'));
  const skeleton = poseSearch.skeleton;
  const limbIndex = CMU_LIMBS.map((b) => skeleton.indexOf(b));
  const walkFrames = poseSearch.clipBindings.get('walk')!.clip.frameCount;

  /** Plays the walk and switches to the run (`motion` = run) at frame `at`: local poses, component limb positions, the node's debug values. */
  function switchAt(graph: AnimGraph, at: number, run = RUN) {
    const g = graph.createInstance();
    const local: Pose[] = [], limbs: Float64Array[] = [];
    for (let f = 0; f <= at; f++) {
      if (f === at) g.setParameter('motion', run);
      g.update(f === 0 ? 0 : dt);
      local.push(copy(g.evaluate()));
      const cs = g.componentPose();
      limbs.push(Float64Array.from(limbIndex.flatMap((b) => [cs.translations[b * 3], cs.translations[b * 3 + 1], cs.translations[b * 3 + 2]])));
    }
    return { local, limbs, values: g.gatherDebug().children[0].values! };
  }
  const meanJump = (a: Float64Array, b: Float64Array) => {
    let sum = 0;
    for (let i = 0; i < a.length; i += 3) sum += Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]);
    return sum / (a.length / 3);
  };

  it('at 30 switch times over the walk, picks the brute-force minimum of the documented cost and jumps less than a crossfade into the run at time 0', () => {
    const binding = (name: string) => poseSearch.clipBindings.get(name)!;
    const reference = new ReferenceCost(skeleton, { walk: binding('walk'), walk2: binding('walk2'), run: binding('run') }, CMU_LIMBS, [1, 1, 1]);
    const db = (poseSearch.shared.get('ps') as PoseSearchShared).database;
    // The runtime's deviations are the documented ones, over the frames of all three clips.
    expect(db.clipNames).toEqual(['walk', 'walk2', 'run']);
    expect(reference.frames.length).toBe(db.frameCount);
    for (let c = 0; c < 3; c++) expect(db.deviations[c]).toBeCloseTo(reference.deviation[c], 6);
    const runFrames = reference.frames.filter((f) => f.clip === 'run');
    const searched: number[] = [], crossfaded: number[] = [], walkSteps: number[] = [];
    for (let s = 0; s < 30; s++) {
      const at = 3 + Math.round((s * (walkFrames - 12)) / 29);
      const ps = switchAt(poseSearch, at);
      // The documented cost of every run frame for the node's last two output poses (the query).
      const query = reference.row(ps.local[at - 1], ps.local[at - 2], dt);
      const costs = runFrames.map((f) => reference.cost(query, f.row));
      const min = Math.min(...costs);
      const chosen = ps.values.matchFrame as number;
      expect(costs[chosen], `switch at walk frame ${at}: frame ${chosen} costs ${costs[chosen]}, the minimum ${min} is frame ${costs.indexOf(min)}`).toBeLessThanOrEqual(min * (1 + 1e-9));
      expect(chosen).toBe(costs.indexOf(min));
      expect(ps.values.matchCost as number).toBeCloseTo(min, 6);
      // The runtime's KD-tree and brute-force paths agree with it.
      const q = new PoseSearchQuery(db), r = new PoseSearchResult();
      const raw = new Float64Array(db.dims);
      new PoseFeatureExtractor(db.schema).extract(raw, 0, ps.local[at - 1], ps.local[at - 2], dt);
      db.scaleQuery(raw, q);
      q.allowOnly(db.clipNames.indexOf('run'));
      expect(db.search(q, r, 'brute').localFrame).toBe(chosen);
      expect(db.search(q, r, 'tree').localFrame).toBe(chosen);

      const cf = switchAt(crossfade, at, CROSSFADE_RUN);
      searched.push(meanJump(ps.limbs[at], ps.limbs[at - 1]));
      crossfaded.push(meanJump(cf.limbs[at], cf.limbs[at - 1]));
      walkSteps.push(meanJump(cf.limbs[at - 1], cf.limbs[at - 2]));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(
      `CMU walk -> run, 30 switches, blend ${blendTime} s at ${fps} fps: mean foot/hand position jump from the last walk frame to the first blended frame\n`
      + `  pose search: ${mean(searched).toFixed(3)} cm\n  crossfade into the run at time 0: ${mean(crossfaded).toFixed(3)} cm\n`
      + `  (the walk's own step between two frames: ${mean(walkSteps).toFixed(3)} cm)`,
    );
    expect(mean(searched)).toBeLessThan(mean(crossfaded));
  });

  it('with velocities, a walk pose whose left foot swings forward does not match a run frame whose left foot moves back', () => {
    // Forward is +Z in the root's heading frame: the walk travels toward +Z.
    const rootMotion = poseSearch.clipBindings.get('walk')!.clip.rootMotion!;
    expect(rootMotion.translations[rootMotion.translations.length - 1]).toBeGreaterThan(200);
    const velocitySchema = new PoseFeatureSchema({ velocities: { weight: 1, bones: ['CC_Base_L_Foot'] } }, skeleton);
    const extractor = new PoseFeatureExtractor(velocitySchema);
    const v = new Float64Array(3);
    const leftFootForward = (clip: string, time: number) => {
      const t = Math.max(time, 1 / 60);
      extractor.extract(v, 0, sampled(poseSearch, clip, t, false), sampled(poseSearch, clip, t - 1 / 60, false), 1 / 60);
      return v[2];
    };
    const seedOnly = cmuPoseSearch({ rotations: { weight: 1 } });
    const withVelocities = cmuPoseSearch({ rotations: { weight: 1 }, velocities: { weight: 1, bones: CMU_LIMBS } });
    // The case: among walk frames with the left foot swinging forward, the one where the default schema
    // (rotations only) picks a run frame with that foot moving back fastest.
    let worst: { at: number; runTime: number; runVelocity: number } | null = null;
    let swinging = 0, wrongWithVelocities = 0;
    for (let at = 3; at < walkFrames - 3; at += 2) {
      if (leftFootForward('walk', (at - 1) * dt) < 50) continue;
      swinging++;
      const seed = switchAt(seedOnly, at).values;
      const runVelocity = leftFootForward('run', seed.matchTime as number);
      if (runVelocity < -50 && (!worst || runVelocity < worst.runVelocity)) worst = { at, runTime: seed.matchTime as number, runVelocity };
      const fixed = switchAt(withVelocities, at).values;
      if (leftFootForward('run', fixed.matchTime as number) < 0) wrongWithVelocities++;
    }
    expect(worst, 'the seed schema never confuses the foot direction: no case to construct').not.toBeNull();
    const { at, runTime, runVelocity } = worst!;
    const fixed = switchAt(withVelocities, at).values;
    const fixedVelocity = leftFootForward('run', fixed.matchTime as number);
    console.log(
      `walk frame ${at} (left foot forward at ${leftFootForward('walk', (at - 1) * dt).toFixed(0)} cm/s): rotations only match run ${runTime.toFixed(3)} s `
      + `(left foot ${runVelocity.toFixed(0)} cm/s); with velocities run ${(fixed.matchTime as number).toFixed(3)} s (left foot ${fixedVelocity.toFixed(0)} cm/s); `
      + `${swinging} forward-swing walk frames, ${wrongWithVelocities} matched backwards with velocities`,
    );
    expect(fixedVelocity).toBeGreaterThan(0);
    expect(fixed.matchTime).not.toBe(runTime);
    expect(fixed.velocityMatched).toBe(true);
    expect(wrongWithVelocities).toBe(0);
  });

  it('the example graph switches walk, second walk and run with a match each time', () => {
    const graph = loadGraphFile(new URL('../../graphs/examples/cmu-pose-search.json', import.meta.url).pathname);
    const g = graph.createInstance();
    const seen: unknown[] = [];
    play(g, 60, 1 / 30, (f) => {
      if (f === 15) g.setParameter('motion', 2);
      if (f === 40) g.setParameter('motion', 1);
      if (f === 16 || f === 41) seen.push(line(g).values?.clip, line(g).values?.matchFrame);
    });
    expect(seen[0]).toBe('run');
    expect(seen[2]).toBe('walk2');
    expect(typeof seen[1]).toBe('number');
    expect(typeof seen[3]).toBe('number');
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
  });
});
