import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Clip, ClipBinding } from '../../../runtime/core/clip.ts';
import { sampleClip } from '../../../runtime/core/sampling.ts';
import { quatFromAxisAngle } from '../../../runtime/core/math.ts';
import { Pose } from '../../../runtime/core/pose.ts';
import {
  buildKdTree, clipTreeCosts, deserializePoseSearchDatabase, featureSpecProblems, INDEX_FORMAT, PoseFeatureExtractor, PoseFeatureSchema, PoseIndexError, PoseSearchDatabase,
  PoseSearchQuery, PoseSearchResult, poseSearchHash, serializePoseSearchDatabase, type IndexedClip, type PoseFeatureSpec,
} from '../../../runtime/jobs/pose-search/index.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { mulberry32 } from '../../../bench/crowd-cases.ts';
import { stress } from '../../support/stress.ts';

/** root -> hip -> thigh -> foot, and a hand on the hip; Y up, facing +Z. */
const skeleton = Skeleton.fromDefinitions([
  { name: 'root' },
  { name: 'hip', parent: 'root', translation: [0, 90, 0] },
  { name: 'thigh', parent: 'hip', translation: [10, 0, 0] },
  { name: 'foot', parent: 'thigh', translation: [0, -85, 0] },
  { name: 'hand', parent: 'hip', translation: [-20, 40, 0] },
]);
const ROOT = 0, HIP = 1, THIGH = 2;

const tracks = skeleton.boneNames.map((bone) => ({ bone, translation: true, rotation: true, scale: false }));

/** A clip of `frames` keys at `fps`; `key(f, pose)` writes each key's local pose, starting from the reference pose. */
function makeClip(name: string, frames: number, fps: number, key: (f: number, pose: Pose) => void): ClipBinding {
  const n = skeleton.boneCount;
  const translations = new Float64Array(frames * n * 3), rotations = new Float64Array(frames * n * 4);
  const pose = new Pose(n);
  for (let f = 0; f < frames; f++) {
    pose.translations.set(skeleton.referencePose.translations);
    pose.rotations.set(skeleton.referencePose.rotations);
    key(f, pose);
    translations.set(pose.translations, f * n * 3);
    rotations.set(pose.rotations, f * n * 4);
  }
  return new ClipBinding(new Clip({ name, frameRate: fps, frameCount: frames, tracks, translations, rotations }), skeleton);
}

/** The thigh swings about X by `angle(f)`; the root stands at `at` turned by `heading` about Y. */
function swing(name: string, angle: (f: number) => number, at: [number, number, number] = [0, 0, 0], heading = 0, frames = 31): ClipBinding {
  return makeClip(name, frames, 30, (f, pose) => {
    pose.translations.set(at, ROOT * 3);
    quatFromAxisAngle(pose.rotations, ROOT * 4, 0, 1, 0, heading);
    quatFromAxisAngle(pose.rotations, THIGH * 4, 1, 0, 0, angle(f));
  });
}

const limbs: PoseFeatureSpec = { positions: { weight: 1, bones: ['foot', 'hand'] }, velocities: { weight: 1, bones: ['foot'] } };

function pose(binding: ClipBinding, time: number): Pose {
  return sampleClip(new Pose(skeleton.boneCount), binding, time, false);
}

describe('feature extraction', () => {
  it('is relative to the root position and heading (y and z up)', () => {
    const schema = new PoseFeatureSchema({ rotations: { weight: 1, bones: ['root', 'thigh'] }, ...limbs }, skeleton);
    const extractor = new PoseFeatureExtractor(schema);
    const a = swing('a', (f) => Math.sin(f / 5));
    const b = swing('b', (f) => Math.sin(f / 5), [120, 0, -40], 1.3);
    const fa = new Float64Array(schema.dims), fb = new Float64Array(schema.dims);
    expect(extractor.extract(fa, 0, pose(a, 0.4), pose(a, 0.4 - 1 / 30), 1 / 30)).toBe(true);
    extractor.extract(fb, 0, pose(b, 0.4), pose(b, 0.4 - 1 / 30), 1 / 30);
    for (let d = 0; d < schema.dims; d++) expect(fb[d]).toBeCloseTo(fa[d], 9);
    // The foot is below the hip, 10 cm to the side, and moves only in y and z (a swing about X).
    const p = schema.offsets[1];
    expect(fa[p]).toBeCloseTo(10, 9);
    expect(fa[p + 1]).toBeLessThan(90);
    expect(Math.abs(fa[schema.offsets[2]])).toBeLessThan(1e-9);
    expect(Math.abs(fa[schema.offsets[2] + 2])).toBeGreaterThan(1);
    // The root's rotation with its heading removed is the identity.
    expect(Math.abs(fb[3])).toBeCloseTo(1, 9);

    // Z up: a root turned about Z gives the same features as one that is not.
    const zSchema = new PoseFeatureSchema({ ...limbs, upAxis: 'z' }, skeleton);
    const z = new PoseFeatureExtractor(zSchema);
    const turned = makeClip('t', 2, 30, (_, pose) => {
      pose.translations.set([5, 7, 0], 0);
      quatFromAxisAngle(pose.rotations, 0, 0, 0, 1, -2.2);
    });
    const still = makeClip('s', 2, 30, () => {});
    const ft = new Float64Array(zSchema.dims), fs = new Float64Array(zSchema.dims);
    z.extract(ft, 0, pose(turned, 0), null, 0);
    z.extract(fs, 0, pose(still, 0), null, 0);
    for (let d = 0; d < zSchema.dims; d++) expect(ft[d]).toBeCloseTo(fs[d], 9);
  });

  it('reports velocities as not measured without an older pose or a positive delta time, and writes zeros', () => {
    const schema = new PoseFeatureSchema(limbs, skeleton);
    const extractor = new PoseFeatureExtractor(schema);
    const a = swing('a', (f) => f / 10);
    const row = new Float64Array(schema.dims).fill(7);
    expect(extractor.extract(row, 0, pose(a, 0.5), null, 1 / 30)).toBe(false);
    expect(extractor.extract(row, 0, pose(a, 0.5), pose(a, 0.4), 0)).toBe(false);
    expect(Array.from(row.subarray(schema.offsets[2]))).toEqual([0, 0, 0]);
    // A frame too short to measure over (1 / 5e-324 overflowed: velocities of ±Infinity made every cost NaN).
    row.fill(7);
    expect(extractor.extract(row, 0, pose(a, 0.5), pose(a, 0.4), 5e-324)).toBe(false);
    expect(Array.from(row.subarray(schema.offsets[2]))).toEqual([0, 0, 0]);
    expect(extractor.extract(row, 0, pose(a, 0.5), pose(a, 0.4), 1e-6)).toBe(true);
    expect(row.subarray(schema.offsets[2]).every(Number.isFinite)).toBe(true);
  });
});

describe('feature schema checks', () => {
  it('reports every problem with its path below features', () => {
    expect(featureSpecProblems({
      rotations: { weight: -1 },
      positions: { weight: 1, bones: ['foot', 'nose', 'foot'] },
      velocities: { weight: 2 },
      rootBone: 'ground',
      sampleRate: 0,
    }, skeleton)).toEqual([
      { path: ['rotations', 'weight'], code: 'schema', message: 'weight must be a finite number >= 0, got -1' },
      { path: ['positions', 'bones', 1], code: 'unknown-bone', message: "the skeleton has no bone 'nose'" },
      { path: ['positions', 'bones', 2], code: 'schema', message: "bone 'foot' is listed twice" },
      { path: ['velocities'], code: 'schema', message: 'velocities needs a list of bones (for example both feet and hands)' },
      { path: ['sampleRate'], code: 'schema', message: 'sampleRate must be a positive number, got 0' },
      { path: ['rootBone'], code: 'unknown-bone', message: "the skeleton has no bone 'ground'" },
    ]);
    expect(featureSpecProblems({ rotations: { weight: 0 }, positions: { weight: 0, bones: ['foot'] } }, skeleton).map((p) => p.path)).toEqual([[]]);
    expect(() => new PoseFeatureSchema({ positions: { weight: 1 } }, skeleton)).toThrow(/features\.positions: positions needs a list of bones/);
  });

  it('lays out the channels and defaults rotations to every bone', () => {
    const s = new PoseFeatureSchema({ rotations: { weight: 2 }, velocities: { weight: 1, bones: ['foot'] } }, skeleton);
    expect(Array.from(s.offsets)).toEqual([0, 20, 20, 23]);
    expect(s.canonical).toEqual({ rotations: { weight: 2, bones: null }, velocities: { weight: 1, bones: ['foot'] }, normalize: true, sampleRate: 30, rootBone: 'root', upAxis: 'y', version: 1 });
  });
});

describe('the database', () => {
  const walkLike = swing('walk', (f) => 0.6 * Math.sin((2 * Math.PI * f) / 30));

  it('treats q and -q as the same rotation', () => {
    const schema = new PoseFeatureSchema({ rotations: { weight: 1, bones: ['thigh', 'hip'] } }, skeleton);
    const db = PoseSearchDatabase.build(schema, [{ name: 'walk', binding: walkLike }]);
    const extractor = new PoseFeatureExtractor(schema);
    const raw = new Float64Array(schema.dims);
    const p = pose(walkLike, 10 / 30);
    for (let i = 0; i < p.rotations.length; i++) p.rotations[i] = -p.rotations[i];
    extractor.extract(raw, 0, p, null, 0);
    expect(raw[3]).toBeLessThan(0); // the thigh's w really is negated
    const query = new PoseSearchQuery(db);
    db.scaleQuery(raw, query);
    for (const mode of ['tree', 'brute'] as const) {
      const r = db.search(query, new PoseSearchResult(), mode);
      expect(r.localFrame).toBe(10);
      expect(r.cost).toBeLessThan(1e-20);
    }
    // And the cost of a frame is the same for q and -q.
    const flipped = new PoseSearchQuery(db);
    for (let d = 0; d < schema.dims; d++) flipped.features[d] = -query.features[d];
    expect(db.cost(flipped, 17)).toBeCloseTo(db.cost(query, 17), 12);
  });

  it('sums a frame\'s cost over the channels of most weight per dimension first (to give up on a losing frame soonest)', () => {
    const order = (spec: PoseFeatureSpec): number[] =>
      Array.from(PoseSearchDatabase.build(new PoseFeatureSchema(spec, skeleton), [{ name: 'walk', binding: walkLike }]).channelOrder);
    // 5 rotations (20 dims), 2 positions (6), 1 velocity (3): per dimension 2/20, 1/6, 1/3.
    expect(order({ rotations: { weight: 2 }, ...limbs })).toEqual([2, 1, 0]);
    expect(order({ rotations: { weight: 10 }, ...limbs })).toEqual([0, 2, 1]);
    // Equal weight per dimension keeps the layout's order; an absent channel goes last.
    expect(order({ positions: { weight: 1.5, bones: ['foot', 'hand'] }, rotations: { weight: 5 } })).toEqual([0, 1, 2]);
    expect(order({ positions: { weight: 1.5, bones: ['foot', 'hand'] }, rotations: { weight: 4 } })).toEqual([1, 0, 2]);
  });

  it('normalises each channel by the standard deviation of its feature vector, and leaves a still channel unscaled', () => {
    // The foot slides along x at 30 cm/s: positions spread uniformly, velocities constant.
    const slide = makeClip('slide', 31, 30, (f, pose) => { pose.translations[THIGH * 3] = 10 + f; });
    const schema = new PoseFeatureSchema({ positions: { weight: 4, bones: ['foot', 'hand'] }, velocities: { weight: 1, bones: ['foot'] } }, skeleton);
    const db = PoseSearchDatabase.build(schema, [{ name: 'slide', binding: slide }]);
    // 31 samples of x = 10..40: variance (n² - 1) / 12 with n = 31 steps of 1 cm; the hand is still.
    expect(db.frameCount).toBe(31);
    expect(db.deviations[1]).toBeCloseTo(Math.sqrt((31 * 31 - 1) / 12), 9);
    expect(db.scales[1]).toBeCloseTo(2 / db.deviations[1], 12);
    // Velocities are exactly constant: no variance, scale sqrt(weight) / 1.
    expect(db.deviations[2]).toBe(1);
    expect(db.features[0 * db.dims + schema.offsets[2]]).toBeCloseTo(30, 9);
    expect(db.features.every(Number.isFinite)).toBe(true);
    // Without normalisation only the weights scale.
    const raw = PoseSearchDatabase.build(new PoseFeatureSchema({ ...schema.canonical, positions: { weight: 4, bones: ['foot', 'hand'] }, velocities: { weight: 1, bones: ['foot'] }, normalize: false } as PoseFeatureSpec, skeleton), [{ name: 'slide', binding: slide }]);
    expect(Array.from(raw.deviations)).toEqual([1, 1, 1]);
    expect(Array.from(raw.scales)).toEqual([0, 2, 1]);
  });

  it('has no NaN for a database of one still frame', () => {
    const still = makeClip('still', 1, 30, () => {});
    const db = PoseSearchDatabase.build(new PoseFeatureSchema({ rotations: { weight: 1 }, ...limbs }, skeleton), [{ name: 'still', binding: still }]);
    expect(db.frameCount).toBe(1);
    expect(Array.from(db.deviations)).toEqual([1, 1, 1]);
    const q = new PoseSearchQuery(db);
    q.features.fill(NaN);
    const raw = new Float64Array(db.dims).fill(Infinity);
    db.scaleQuery(raw, q);
    const r = db.search(q, new PoseSearchResult());
    expect(r.frame).toBe(0);
    expect(Number.isFinite(r.cost)).toBe(true);
  });

  it('finds the runner-up away from the chosen frame, and honours clip limits and channels', () => {
    const db = PoseSearchDatabase.build(new PoseFeatureSchema(limbs, skeleton), [{ name: 'a', binding: walkLike }, { name: 'b', binding: walkLike }]);
    expect(db.frameCount).toBe(62);
    const q = new PoseSearchQuery(db);
    q.features.set(db.features.subarray(12 * db.dims, 13 * db.dims));
    const best = new PoseSearchResult(), runnerUp = new PoseSearchResult();
    db.searchWithRunnerUp(q, best, runnerUp, 6);
    expect([best.frame, best.localFrame, best.cost]).toEqual([12, 12, 0]);
    // A sine of period 30 frames: the same pose (and velocity) comes back a period later, in clip b.
    expect(runnerUp.frame).toBe(31 + 12);
    expect(runnerUp.cost).toBeCloseTo(0, 9);
    q.allowOnly(1, 5);
    db.search(q, best);
    expect(best.clip).toBe(1);
    expect(best.localFrame).toBeLessThanOrEqual(5);
    q.allowOnly(0);
    q.channels[2] = 0;
    db.search(q, best);
    expect(best.channelCosts[2]).toBe(0);
    expect(best.share(0) + best.share(1) + best.share(2)).toBeCloseTo(best.cost > 0 ? 1 : 0, 12);
  });
});

/** A database over random features (quaternion blocks with random signs), for checking the tree against brute force. */
/** `lengths`: each clip's frame count (default: `frames` split evenly). */
function randomDatabase(seed: number, frames: number, clips: number, duplicate: boolean, lengths?: number[]): PoseSearchDatabase {
  const rand = mulberry32(seed);
  const schema = new PoseFeatureSchema({ rotations: { weight: 1, bones: ['thigh', 'foot'] }, positions: { weight: 1, bones: ['foot', 'hand'] }, velocities: { weight: 1, bones: ['foot'] } }, skeleton);
  const dims = schema.dims;
  const features = new Float64Array(frames * dims);
  for (let f = 0; f < frames; f++) {
    const phase = rand() * 6.28;
    for (let d = 0; d < dims; d++) features[f * dims + d] = Math.sin(phase * (1 + d % 3) + d) + 0.3 * (rand() - 0.5);
    for (let d = 0; d < 8; d += 4) {
      if (rand() < 0.5) for (let k = 0; k < 4; k++) features[f * dims + d + k] *= -1;
    }
    if (duplicate && f % 7 === 3) features.copyWithin(f * dims, (f - 1) * dims, f * dims);
  }
  const clipStart = new Int32Array(clips + 1);
  for (let c = 1; c <= clips; c++) clipStart[c] = lengths ? clipStart[c - 1] + lengths[c - 1] : Math.round((c * frames) / clips);
  const frameClip = new Int32Array(frames), frameTime = new Float64Array(frames);
  for (let c = 0; c < clips; c++) for (let f = clipStart[c]; f < clipStart[c + 1]; f++) { frameClip[f] = c; frameTime[f] = (f - clipStart[c]) / 30; }
  return new PoseSearchDatabase(schema, {
    clipNames: Array.from({ length: clips }, (_, i) => `c${i}`),
    clipDurations: Float64Array.from({ length: clips }, (_, c) => (clipStart[c + 1] - clipStart[c] - 1) / 30),
    clipStart, frameClip, frameTime, features,
    deviations: new Float64Array([1, 1, 1]), scales: new Float64Array([1, 1, 1]),
    tree: buildKdTree(features, frames, dims, frameClip, 8, clips),
    hash: { hash: '', schema: '', skeleton: '', clips: [] },
  });
}

/**
 * A database shaped like motion capture for excluded ranges: `takes` takes of `frames` frames, each
 * a cyclic motion (0.05 rad of phase a frame, so neighbouring frames have neighbouring features
 * and the pose recurs every 126 frames) with an offset of its own, so that a take's frames lie
 * nearer each other than another take's.
 */
function takesDatabase(takes: number, frames: number): PoseSearchDatabase {
  const rand = mulberry32(5);
  const schema = new PoseFeatureSchema({ rotations: { weight: 1, bones: ['thigh', 'foot'] }, positions: { weight: 1, bones: ['foot', 'hand'] }, velocities: { weight: 1, bones: ['foot'] } }, skeleton);
  const dims = schema.dims, total = takes * frames;
  const features = new Float64Array(total * dims);
  for (let c = 0; c < takes; c++) {
    const offset = Array.from({ length: dims }, () => 0.4 * (rand() - 0.5)), phase0 = rand() * 6.28;
    for (let i = 0; i < frames; i++) {
      const f = c * frames + i;
      for (let d = 0; d < dims; d++) features[f * dims + d] = Math.sin((phase0 + 0.05 * i) * (1 + (d % 3)) + d) + offset[d] + 0.02 * (rand() - 0.5);
    }
  }
  const clipStart = Int32Array.from({ length: takes + 1 }, (_, c) => c * frames);
  const frameClip = Int32Array.from({ length: total }, (_, f) => Math.floor(f / frames));
  return new PoseSearchDatabase(schema, {
    clipNames: Array.from({ length: takes }, (_, i) => `take${i}`), clipDurations: new Float64Array(takes).fill((frames - 1) / 30),
    clipStart, frameClip, frameTime: Float64Array.from({ length: total }, (_, f) => (f % frames) / 30), features,
    deviations: new Float64Array([1, 1, 1]), scales: new Float64Array([1, 1, 1]),
    tree: buildKdTree(features, total, dims, frameClip, 16, takes), hash: { hash: '', schema: '', skeleton: '', clips: [] },
  });
}

describe('KD-tree search', () => {
  it('returns exactly the brute-force frame and cost on random queries, filters and channel sets', () => {
    const rand = mulberry32(7);
    let treeScored = 0, bruteScored = 0;
    for (const [seed, frames, clips] of [[1, 3000, 1], [2, 2000, 9], [3, 37, 3], [4, 5, 2], [6, 4000, 20]] as const) {
      const db = randomDatabase(seed, frames, clips, true);
      const q = new PoseSearchQuery(db);
      const a = new PoseSearchResult(), b = new PoseSearchResult();
      for (let i = 0; i < 150; i++) {
        const f = Math.floor(rand() * db.frameCount);
        for (let d = 0; d < db.dims; d++) q.features[d] = db.features[f * db.dims + d] * (i % 5 === 0 ? 1 : -1) + (i % 3) * 0.2 * (rand() - 0.5);
        if (i % 4 === 1) q.allowOnly(i % clips, Math.floor(rand() * 50));
        else if (i % 4 === 3) q.allowOnly(i % clips);
        else if (i % 8 === 2) {
          // A clip and the start of another by their limits (not allowOnly): in the 20-clip database at most
          // 1/16 of the frames, so both clips' subtrees are searched.
          q.allowAll();
          const other = (i + 7) % clips;
          for (let c = 0; c < clips; c++) if (c !== i % clips) q.limit[c] = c === other ? db.clipStart[c] + 20 : db.clipStart[c] - 1;
        } else q.allowAll();
        if (i % 6 === 2) { q.excludeFirst = Math.floor(rand() * db.frameCount); q.excludeLast = q.excludeFirst + 20; }
        for (let c = 0; c < 3; c++) q.channels[c] = i % 7 === c ? 0 : 1;
        db.search(q, a, 'tree');
        db.search(q, b, 'brute');
        expect([a.frame, a.cost]).toEqual([b.frame, b.cost]);
        expect(Array.from(a.channelCosts)).toEqual(Array.from(b.channelCosts));
        if (frames === 3000) { treeScored += a.scored; bruteScored += b.scored; }
      }
    }
    // The tree scores far fewer frames than the full scan.
    expect(treeScored).toBeLessThan(bruteScored / 3);
  });

  it('skips the nodes whose frames are all excluded, box and all, and answers as the scan does', () => {
    // Six takes of 2,000 frames; each query comes from one of the first five and excludes all five,
    // so the frames nearest it are excluded and only the last take is allowed.
    const db = takesDatabase(6, 2000);
    const q = new PoseSearchQuery(db);
    const a = new PoseSearchResult(), b = new PoseSearchResult();
    // Every node's frame range holds exactly its frames.
    const t = db.tree;
    for (let node = 0; node < t.nodeStart.length; node++) {
      const frames = Array.from(t.order.subarray(t.nodeStart[node], t.nodeEnd[node]));
      expect([db.nodeFrameMin[node], db.nodeFrameMax[node]]).toEqual([Math.min(...frames), Math.max(...frames)]);
    }
    let boxes = 0;
    for (let i = 0; i < 20; i++) {
      const f = 100 + i * 497;
      q.allowAll();
      for (let d = 0; d < db.dims; d++) q.features[d] = db.features[f * db.dims + d];
      q.excludeFirst = 0;
      q.excludeLast = 5 * 2000 - 1;
      db.search(q, a, 'tree');
      db.search(q, b, 'brute');
      expect([a.frame, a.cost]).toEqual([b.frame, b.cost]);
      expect(a.clip).toBe(5);
      boxes += a.boxes;
    }
    // Descending into the excluded takes first, with no allowed frame to bound the search, measured
    // 149 boxes a query; leaving their nodes out (and scoring the frame after the range first), 80.
    expect(boxes / 20).toBeLessThan(100);
  });

  it('gives each clip longer than 8 leaves its own subtree, which a search restricted to the clip descends alone', () => {
    // 6 clips of 500 frames and 3 of 40: leaves of 8 frames, so clips above 64 frames get a subtree.
    const db = randomDatabase(11, 3120, 9, false, [500, 40, 500, 500, 40, 500, 500, 40, 500]);
    const lengths = Array.from({ length: 9 }, (_, c) => db.clipStart[c + 1] - db.clipStart[c]);
    const tree = db.tree;
    expect(lengths.map((n, c) => (tree.clipRoot[c] >= 0) === n > 64)).toEqual(Array(9).fill(true));
    for (let c = 0; c < 9; c++) {
      const root = tree.clipRoot[c];
      if (root < 0) continue;
      // The subtree holds exactly the clip's frames.
      const frames = Array.from(tree.order.subarray(tree.nodeStart[root], tree.nodeEnd[root])).sort((x, y) => x - y);
      expect(frames).toEqual(Array.from({ length: lengths[c] }, (_, k) => db.clipStart[c] + k));
      expect([tree.nodeClipMin[root], tree.nodeClipMax[root]]).toEqual([c, c]);
    }
    const rand = mulberry32(3);
    const q = new PoseSearchQuery(db);
    const a = new PoseSearchResult(), b = new PoseSearchResult();
    let treeScored = 0, scanScored = 0;
    for (let i = 0; i < 90; i++) {
      const clip = i % 9;
      const f = Math.floor(rand() * db.frameCount);
      for (let d = 0; d < db.dims; d++) q.features[d] = db.features[f * db.dims + d] + 0.05 * (rand() - 0.5);
      q.allowOnly(clip);
      db.search(q, a, 'tree');
      db.search(q, b, 'brute');
      expect([a.frame, a.cost, a.clip]).toEqual([b.frame, b.cost, clip]);
      if (tree.clipRoot[clip] >= 0) { treeScored += a.scored; scanScored += b.scored; } else expect(a.scored).toBe(b.scored);
    }
    // Scans of the 500-frame clips score every frame; their subtrees a small part of them.
    expect(scanScored).toBe(60 * 500);
    expect(treeScored).toBeLessThan(scanScored / 5);
  });

  it('keeps a clip\'s subtree only where it beats a scan for queries from the other clips (counted work, the same answers)', () => {
    const rand = mulberry32(21);
    const q = new Float64Array(4);
    // Noise: every key a random rotation of every bone, so a pose of one clip is far from all of
    // another's in 28 dimensions and a tree over them visits nearly every leaf.
    const noise = (name: string) => makeClip(name, 600, 30, (_, pose) => {
      for (let b = 0; b < skeleton.boneCount; b++) {
        for (let k = 0; k < 4; k++) q[k] = rand() - 0.5;
        const n = Math.hypot(q[0], q[1], q[2], q[3]);
        pose.rotations.set([q[0] / n, q[1] / n, q[2] / n, q[3] / n], b * 4);
      }
    });
    // Swings: smooth one-dimensional motion, where a subtree narrows down to a few leaves.
    const smooth = (name: string, k: number) => swing(name, (f) => Math.sin(f / (8 + k)) * (0.6 + 0.1 * k), [0, 0, 0], 0, 600);
    const spec: PoseFeatureSpec = { rotations: { weight: 1 }, positions: { weight: 1, bones: ['foot', 'hand'] } };
    const schema = new PoseFeatureSchema(spec, skeleton);
    for (const [clips, keeps] of [
      [['n0', 'n1', 'n2'].map((name) => ({ name, binding: noise(name) })), false],
      [['s0', 's1', 's2'].map((name, k) => ({ name, binding: smooth(name, k) })), true],
    ] as [IndexedClip[], boolean][]) {
      const always = PoseSearchDatabase.build(schema, clips, { clipTrees: 'always' });
      const built = PoseSearchDatabase.build(schema, clips);
      const costs = clipTreeCosts(always);
      for (let c = 0; c < 3; c++) {
        expect(always.tree.clipRoot[c]).toBeGreaterThan(0); // 600 frames: long enough for a subtree
        expect(costs[2 * c + 1]).toBe(600);
        expect(costs[2 * c] < costs[2 * c + 1]).toBe(keeps);
        expect(built.tree.clipRoot[c] >= 0).toBe(keeps);
      }
      if (!keeps) expect(built.tree.nodeStart.length).toBeLessThan(always.tree.nodeStart.length / 1.5);
      // Built twice, the same choice (counts, not timings).
      expect(Array.from(PoseSearchDatabase.build(schema, clips).tree.clipRoot)).toEqual(Array.from(built.tree.clipRoot));
      // Every way of searching gives the brute-force frame, restricted to a clip or not.
      const qa = new PoseSearchQuery(always), qb = new PoseSearchQuery(built);
      const a = new PoseSearchResult(), b = new PoseSearchResult(), brute = new PoseSearchResult();
      for (let i = 0; i < 60; i++) {
        const f = Math.floor(rand() * always.frameCount);
        for (let d = 0; d < always.dims; d++) qa.features[d] = always.features[f * always.dims + d] + 0.1 * (rand() - 0.5);
        qb.features.set(qa.features);
        if (i % 3 === 2) { qa.allowAll(); qb.allowAll(); } else { qa.allowOnly(i % 3); qb.allowOnly(i % 3); }
        always.search(qa, a, 'tree');
        built.search(qb, b, 'auto');
        always.search(qa, brute, 'brute');
        expect([a.frame, a.cost, b.frame, b.cost]).toEqual([brute.frame, brute.cost, brute.frame, brute.cost]);
      }
    }
  });

  it('breaks ties by the lowest frame index in both modes', () => {
    const db = randomDatabase(5, 200, 1, false);
    const features = db.features;
    // Make frames 40, 90 and 150 identical and query exactly there.
    features.copyWithin(90 * db.dims, 40 * db.dims, 41 * db.dims);
    features.copyWithin(150 * db.dims, 40 * db.dims, 41 * db.dims);
    const rebuilt = new PoseSearchDatabase(db.schema, { ...db, clipNames: [...db.clipNames], tree: buildKdTree(features, db.frameCount, db.dims, db.frameClip, 4, 1) });
    expect(rebuilt.tree.clipRoot[0]).toBeGreaterThan(0); // 200 frames: the clip has its own subtree, which allowOnly searches
    const q = new PoseSearchQuery(rebuilt);
    q.features.set(features.subarray(40 * db.dims, 41 * db.dims));
    expect(rebuilt.search(q, new PoseSearchResult(), 'tree').frame).toBe(40);
    expect(rebuilt.search(q, new PoseSearchResult(), 'brute').frame).toBe(40);
    q.excludeFirst = 0; q.excludeLast = 60;
    expect(rebuilt.search(q, new PoseSearchResult(), 'tree').frame).toBe(90);
    q.allowOnly(0);
    expect(rebuilt.search(q, new PoseSearchResult(), 'tree').frame).toBe(40);
    q.excludeFirst = 0; q.excludeLast = 60;
    expect(rebuilt.search(q, new PoseSearchResult(), 'tree').frame).toBe(90);
  });
});

describe('index files', () => {
  const a = swing('a', (f) => Math.sin(f / 4));
  const b = swing('b', (f) => 0.5 * Math.cos(f / 3), [0, 0, 0], 0, 45);
  const clips: IndexedClip[] = [{ name: 'a', binding: a }, { name: 'b', binding: b }];
  const schema = new PoseFeatureSchema({ rotations: { weight: 0.5 }, ...limbs }, skeleton);

  it('round-trips every array, the hash and search results', () => {
    const db = PoseSearchDatabase.build(schema, clips);
    const bytes = serializePoseSearchDatabase(db);
    const back = deserializePoseSearchDatabase(bytes, schema, clips);
    expect(back.hash).toEqual(db.hash);
    expect(back.clipNames).toEqual(['a', 'b']);
    for (const key of ['features', 'frameTime', 'frameClip', 'clipStart', 'deviations', 'scales'] as const) expect(Array.from(back[key])).toEqual(Array.from(db[key]));
    for (const key of ['order', 'nodeLeft', 'nodeRight', 'lower', 'upper', 'clipRoot'] as const) expect(Array.from(back.tree[key])).toEqual(Array.from(db.tree[key]));
    const q1 = new PoseSearchQuery(db), q2 = new PoseSearchQuery(back);
    q1.features.set(db.features.subarray(20 * db.dims, 21 * db.dims));
    q2.features.set(q1.features);
    expect(back.search(q2, new PoseSearchResult()).frame).toBe(db.search(q1, new PoseSearchResult()).frame);
  });

  it('hashes and checksums as node:crypto did (files written before the pure SHA-256 still load)', () => {
    // What poseSearchHash and the checksum computed with node:crypto, restated here.
    const sha = () => createHash('sha256');
    const bytesOf = (a: Float64Array | Int32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const schemaHash = sha().update(JSON.stringify(schema.canonical)).digest('hex');
    const sk = sha().update(JSON.stringify(skeleton.boneNames)).update(bytesOf(skeleton.parents)).update(bytesOf(skeleton.referencePose.translations))
      .update(bytesOf(skeleton.referencePose.rotations)).update(bytesOf(skeleton.referencePose.scales)).digest('hex');
    const clipHashes = clips.map(({ name, binding: { clip } }) => sha().update(JSON.stringify([name, clip.frameRate, clip.frameCount, clip.interpolation, clip.tracks]))
      .update(bytesOf(clip.translations)).update(bytesOf(clip.rotations)).update(bytesOf(clip.scales)).digest('hex'));
    const all = sha().update(JSON.stringify([schemaHash, sk, clipHashes])).digest('hex');
    expect(poseSearchHash(schema, clips)).toEqual({ hash: all, schema: schemaHash, skeleton: sk, clips: clipHashes });

    const bytes = serializePoseSearchDatabase(PoseSearchDatabase.build(schema, clips));
    const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
    const { checksum, ...rest } = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + headerLength)));
    expect(checksum).toBe(sha().update(JSON.stringify(rest)).update(bytes.subarray((12 + headerLength + 7) & ~7)).digest('hex'));
  });

  it('says what is stale: a changed clip, another clip list, other features, another skeleton; refuses other files', () => {
    const bytes = serializePoseSearchDatabase(PoseSearchDatabase.build(schema, clips));
    const stale = (s: PoseFeatureSchema, c: IndexedClip[]) => {
      try {
        deserializePoseSearchDatabase(bytes, s, c);
      } catch (e) {
        expect(e).toBeInstanceOf(PoseIndexError);
        return e as PoseIndexError;
      }
      throw new Error('expected a stale index');
    };
    const edited = swing('b', (f) => 0.5 * Math.cos(f / 3) + (f === 7 ? 0.01 : 0), [0, 0, 0], 0, 45);
    expect(stale(schema, [clips[0], { name: 'b', binding: edited }])).toMatchObject({ stale: true, message: "stale index file: clip 'b' changed since it was indexed" });
    expect(stale(schema, [clips[0]]).message).toBe('stale index file: it indexes clips [a, b] but the node lists [a]');
    const other = new PoseFeatureSchema({ rotations: { weight: 1 }, ...limbs }, skeleton);
    expect(stale(other, clips).message).toMatch(/^stale index file: it was built for features \{"rotations":\{"weight":0\.5/);
    expect(poseSearchHash(other, clips).clips).toEqual(poseSearchHash(schema, clips).clips);
    const renamed = Skeleton.fromDefinitions(skeleton.boneNames.map((name, i) => ({ name: name === 'hand' ? 'palm' : name, parent: i === 0 ? null : skeleton.boneNames[skeleton.parents[i]], translation: Array.from(skeleton.referencePose.translations.subarray(i * 3, i * 3 + 3)) as [number, number, number] })));
    const s2 = new PoseFeatureSchema({ rotations: { weight: 0.5 }, positions: { weight: 1, bones: ['foot', 'palm'] }, velocities: { weight: 1, bones: ['foot'] } }, renamed);
    expect(stale(s2, clips).message).toMatch(/the skeleton changed/);
    expect(() => deserializePoseSearchDatabase(new TextEncoder().encode('{"not": "an index"}'), schema, clips)).toThrow(/not a pose-search index file/);
    expect(() => deserializePoseSearchDatabase(bytes.subarray(0, bytes.length - 100), schema, clips)).toThrow(/truncated/);
    // Files of the formats before (1: no clip subtrees, 2: no checksum; same magic) are stale, not garbage.
    const header = new TextDecoder().decode(bytes.subarray(0, 200));
    expect(header).toContain(`"format":"${INDEX_FORMAT}"`);
    expect(INDEX_FORMAT).toBe('animgraph-pose-index/3');
    for (const format of ['animgraph-pose-index/1', 'animgraph-pose-index/2']) {
      const old = bytes.slice();
      old.set(new TextEncoder().encode(format), header.indexOf(INDEX_FORMAT));
      expect(readError(old)).toMatchObject({ stale: true, message: `index format '${format}' is not 'animgraph-pose-index/3'` });
    }
  });

  /** The PoseIndexError reading `bytes` throws (failing on any other error or none). */
  function readError(bytes: Uint8Array): PoseIndexError {
    try {
      deserializePoseSearchDatabase(bytes, schema, clips);
    } catch (e) {
      if (!(e instanceof PoseIndexError)) throw e;
      return e;
    }
    throw new Error('expected the index file to be refused');
  }

  /** The file with its header JSON replaced by edit(header) (the data sections kept, the checksum not recomputed). */
  function withHeader(bytes: Uint8Array, edit: (header: any) => unknown): Uint8Array {
    const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + length)));
    const edited = edit(header);
    const json = new TextEncoder().encode(JSON.stringify(edited === undefined ? header : edited));
    const start = (12 + json.length + 7) & ~7;
    const out = new Uint8Array(start + bytes.length - ((12 + length + 7) & ~7));
    out.set(bytes.subarray(0, 8));
    new DataView(out.buffer).setUint32(8, json.length, true);
    out.set(json, 12);
    out.set(bytes.subarray((12 + length + 7) & ~7), start);
    return out;
  }

  it('refuses every damaged copy with a PoseIndexError, or reads the same database: bytes changed, cut out or added anywhere (property)', () => {
    const db = PoseSearchDatabase.build(schema, clips);
    const bytes = serializePoseSearchDatabase(db);
    const damage = fc.record({ op: fc.constantFrom('set', 'cut', 'insert', 'truncate'), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }), length: fc.integer({ min: 1, max: 16 }) });
    fc.assert(fc.property(fc.array(damage, { minLength: 1, maxLength: 3 }), (edits) => {
      let copy = bytes.slice();
      for (const e of edits) {
        const at = e.at % copy.length;
        if (e.op === 'set') copy[at] = copy[at] === e.byte ? e.byte ^ 1 : e.byte;
        else if (e.op === 'cut') copy = new Uint8Array([...copy.subarray(0, at), ...copy.subarray(at + e.length)]);
        else if (e.op === 'insert') copy = new Uint8Array([...copy.subarray(0, at), ...new Array<number>(e.length).fill(e.byte), ...copy.subarray(at)]);
        else copy = copy.slice(0, at);
      }
      let back: PoseSearchDatabase;
      try {
        back = deserializePoseSearchDatabase(copy, schema, clips);
      } catch (e) {
        if (!(e instanceof PoseIndexError)) throw e;
        return;
      }
      // Only a change the checksum does not cover (the header's alignment padding) may still read, and then as the same data.
      for (const key of ['features', 'frameTime', 'frameClip', 'clipStart', 'deviations', 'scales'] as const) expect(Array.from(back[key])).toEqual(Array.from(db[key]));
      for (const key of ['order', 'nodeLeft', 'nodeRight', 'lower', 'upper', 'clipRoot'] as const) expect(Array.from(back.tree[key])).toEqual(Array.from(db.tree[key]));
    }), { seed: 18_000_050, numRuns: stress(100, 500) }); // the seed's first 100 in `npm test`
  });

  it('refuses a file whose data or header was changed after it was written (the checksum), as unreadable, not stale', () => {
    const db = PoseSearchDatabase.build(schema, clips);
    const bytes = serializePoseSearchDatabase(db);
    expect(deserializePoseSearchDatabase(withHeader(bytes, () => undefined), schema, clips).frameCount).toBe(db.frameCount);
    const length = new DataView(bytes.buffer).getUint32(8, true);
    const dataStart = (12 + length + 7) & ~7;
    // One bit in each section: before, a flipped feature or box bound loaded and quietly lost matches.
    let at = dataStart;
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + length)));
    for (const section of header.sections as { name: string; type: string; length: number }[]) {
      const byteLength = section.length * (section.type === 'f64' ? 8 : 4);
      if (byteLength > 0) {
        const flipped = bytes.slice();
        flipped[at + (byteLength >> 1)] ^= 0x10;
        expect([section.name, readError(flipped)]).toMatchObject([section.name, { stale: false, message: expect.stringMatching(/^the index file is corrupt: its contents do not match the checksum/) }]);
      }
      at += (byteLength + 7) & ~7;
    }
    // Bytes appended, and a number of the header changed (the scales a query is multiplied by).
    const longer = new Uint8Array(bytes.length + 8);
    longer.set(bytes);
    expect(readError(longer).message).toMatch(/corrupt/);
    expect(readError(withHeader(bytes, (h) => { h.scales[1] *= 1.5; })).message).toMatch(/corrupt/);
  });

  it('refuses truncated files and malformed headers with a PoseIndexError saying what is wrong, never a TypeError', () => {
    const bytes = serializePoseSearchDatabase(PoseSearchDatabase.build(schema, clips));
    const length = new DataView(bytes.buffer).getUint32(8, true);
    for (const cut of [0, 7, 11, 12, 40, 12 + length - 1, 12 + length + 10, bytes.length - 8, bytes.length - 1]) {
      expect(readError(bytes.subarray(0, cut)).message).toMatch(/^(not a pose-search index file|the index file is truncated|the index file is corrupt)/);
    }
    expect(readError(bytes.subarray(0, 40)).message).toMatch(/^the index file is truncated \(a header of \d+ bytes, 28 left in the file\)/);
    const badMagic = bytes.slice();
    badMagic[3] ^= 1;
    expect(readError(badMagic).message).toMatch(/^not a pose-search index file/);
    const hugeHeader = bytes.slice();
    new DataView(hugeHeader.buffer).setUint32(8, 0xffffffff, true);
    expect(readError(hugeHeader).message).toMatch(/truncated/);
    const malformed: [string, (h: any) => unknown, RegExp][] = [
      ['an array', () => [1, 2], /not a JSON object/],
      ['null', () => null, /not a JSON object/],
      ['a format that is not a string', (h) => { h.format = 3; }, /format is not a string/],
      ['sections not a list', (h) => { h.sections = 5; }, /sections is not a list/],
      ['no sections', (h) => { delete h.sections; }, /sections is not a list/],
      ['a section missing', (h) => { h.sections.pop(); }, /no 'clipRoot' section/],
      ['a section twice', (h) => { h.sections.push(h.sections[0]); }, /sections\[15\] is not one of the sections/],
      ['a section of another name', (h) => { h.sections[0].name = '__proto__'; }, /sections\[0\] is not one of the sections.*no 'clipDurations' section/],
      ['a section of the wrong type', (h) => { h.sections[4].type = 'i32'; }, /section 'features' has type "i32"/],
      ['a section longer than the file', (h) => { h.sections[4].length = 1e7; }, /truncated \(section 'features'/],
      ['a negative length', (h) => { h.sections[4].length = -8; }, /section 'features' has length -8/],
      ['a fractional length', (h) => { h.sections[4].length = 2.5; }, /section 'features' has length 2.5/],
      ['no hash', (h) => { delete h.hash; }, /hash is not/],
      ['clips not a list', (h) => { h.clips = { a: 1 }; }, /clips is not a list/],
      ['a clip without frames', (h) => { delete h.clips[0].frames; }, /clips is not a list/],
      ['dims a string', (h) => { h.dims = '12'; }, /dims is not a whole number/],
      ['scales of two channels', (h) => { h.scales.pop(); }, /scales is not a list of 3 finite numbers/],
      ['no checksum', (h) => { delete h.checksum; }, /checksum is not 64 hex digits/],
    ];
    for (const [what, edit, message] of malformed) {
      const error = readError(withHeader(bytes, edit));
      expect([what, error.stale, error.message]).toEqual([what, false, expect.stringMatching(message)]);
    }
  });

});
