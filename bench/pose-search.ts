/**
 * Pose search: KD-tree against brute force, in one run, on a database of at least 100,000 frames
 * built from the CMU subject 2 clips (walks 002_01 and 002_02, run 002_03), each repeated at many
 * play speeds (0.8x to 1.25x: the same keys at another frame rate) and mirrored left/right.
 * Queries are poses of the original clips at random times and speeds the database does not hold,
 * with velocities from the pose 1/60 s before. Every mode answers every query; the answers must be
 * identical. Prints the database build time, the index file size and read time, and the median
 * query time of each mode with the ratio: over the whole database, over the whole database but the
 * query's own take (an excluded range of frames, which the tree must prune, not scan), and restricted to one clip as
 * PoseSearchBlend searches, for a query from that clip's own take and for one from another take or
 * mirror (what a switch searches with): the clip's own subtree against a scan of the clip, and the
 * database as built, which keeps a subtree only where its cost model says it beats the scan. The
 * same frames are indexed twice: as 1,506 short clips (one per take, mirror and speed, about 66
 * frames each) and as 6 long ones (each take or mirror at every speed back to back, about 16,700
 * frames each), since what a clip subtree saves over a scan depends on the clip's length. Feature
 * schemas of 24, 64 and 112 features (64 left out by --quick).
 *
 *   node --import tsx bench/pose-search.ts [--frames N] [--queries Q] [--quick] [--fit]
 *
 * --fit also prints how well the cost model's prices (TREE_FRAME_COST, TREE_BOX_COST) match this
 * machine's timings. Skips with a message when ../shared/data is absent.
 */
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadGraphAsset } from '../host/files.ts';
import { Clip, ClipBinding } from '../runtime/core/clip.ts';
import { sampleClip } from '../runtime/core/sampling.ts';
import { ComponentPose } from '../runtime/core/component-pose.ts';
import { quatConjugateMultiply, quatInverseRotateVec3 } from '../runtime/core/math.ts';
import { Pose } from '../runtime/core/pose.ts';
import {
  deserializePoseSearchDatabase, PoseFeatureExtractor, PoseFeatureSchema, PoseSearchDatabase, PoseSearchQuery, PoseSearchResult,
  serializePoseSearchDatabase, TREE_BOX_COST, TREE_FRAME_COST, type IndexedClip, type PoseFeatureSpec, type SearchMode,
} from '../runtime/jobs/pose-search/index.ts';
import type { Skeleton } from '../runtime/core/skeleton.ts';
import { mulberry32 } from './crowd-cases.ts';

const CMU = fileURLToPath(new URL('../../shared/data/bvh/cmu/', import.meta.url));
if (!existsSync(CMU)) {
  console.log(`bench/pose-search: skipped, ${CMU} not found (CMU motion capture is not shipped with the project)`);
  process.exit(0);
}
const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 && Number(args[i + 1]) > 0 ? Number(args[i + 1]) : fallback;
};
const quick = args.includes('--quick');
const fit = args.includes('--fit');
const targetFrames = option('--frames', 100_000);
const queryCount = option('--queries', quick ? 60 : 300);

const graph = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: { bvh: `${CMU}002_01.bvh` },
  clips: {
    walk: { source: `${CMU}002_01.bvh`, frames: [1, -1] },
    walk2: { source: `${CMU}002_02.bvh`, frames: [1, -1] },
    run: { source: `${CMU}002_03.bvh`, frames: [1, -1] },
  },
  nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } },
  output: 'p',
});
const skeleton = graph.skeleton;
const sources = ['walk', 'walk2', 'run'].map((name) => graph.clipBindings.get(name)!);

/**
 * The clip mirrored across the character's YZ plane, left and right bones swapped: component-space
 * positions reflected (x -> -x), rotations reflected (q -> (x, -y, -z, w)) and corrected by each
 * bone's rest rotation so that a symmetric rest pose mirrors onto itself, then made local again.
 */
function mirrorClip(binding: ClipBinding, sk: Skeleton): Clip {
  const clip = binding.clip, n = sk.boneCount;
  const partner = sk.boneNames.map((name, i) => {
    const other = name.includes('_L_') ? name.replace('_L_', '_R_') : name.includes('_R_') ? name.replace('_R_', '_L_') : name;
    const j = sk.indexOf(other);
    return j >= 0 ? j : i;
  });
  const rest = new ComponentPose(sk);
  rest.setFromLocal(sk.referencePose);
  rest.ensureAllComponent();
  // correction_i = inverse(mirror(rest_partner)) * rest_i
  const correction = new Float64Array(n * 4);
  const m = new Float64Array(4);
  for (let i = 0; i < n; i++) {
    const r = partner[i] * 4;
    m[0] = rest.rotations[r]; m[1] = -rest.rotations[r + 1]; m[2] = -rest.rotations[r + 2]; m[3] = rest.rotations[r + 3];
    quatConjugateMultiply(correction, i * 4, m, 0, rest.rotations, i * 4);
  }
  const tracks = sk.boneNames.map((bone) => ({ bone, translation: true, rotation: true, scale: false }));
  const translations = new Float64Array(clip.frameCount * n * 3), rotations = new Float64Array(clip.frameCount * n * 4);
  const cs = new ComponentPose(sk);
  const mt = new Float64Array(n * 3), mr = new Float64Array(n * 4), d = new Float64Array(3);
  for (let f = 0; f < clip.frameCount; f++) {
    sampleClip(cs.local, binding, f / clip.frameRate, false);
    cs.markLocalChanged();
    cs.ensureAllComponent();
    for (let i = 0; i < n; i++) {
      const j = partner[i];
      mt[i * 3] = -cs.translations[j * 3]; mt[i * 3 + 1] = cs.translations[j * 3 + 1]; mt[i * 3 + 2] = cs.translations[j * 3 + 2];
      m[0] = cs.rotations[j * 4]; m[1] = -cs.rotations[j * 4 + 1]; m[2] = -cs.rotations[j * 4 + 2]; m[3] = cs.rotations[j * 4 + 3];
      // mirrored * correction
      const c = i * 4, ax = m[0], ay = m[1], az = m[2], aw = m[3];
      const bx = correction[c], by = correction[c + 1], bz = correction[c + 2], bw = correction[c + 3];
      mr[c] = aw * bx + ax * bw + ay * bz - az * by;
      mr[c + 1] = aw * by - ax * bz + ay * bw + az * bx;
      mr[c + 2] = aw * bz + ax * by - ay * bx + az * bw;
      mr[c + 3] = aw * bw - ax * bx - ay * by - az * bz;
    }
    for (let i = 0; i < n; i++) {
      const p = sk.parents[i], t = (f * n + i) * 3, r = (f * n + i) * 4;
      if (p < 0) {
        translations.set(mt.subarray(i * 3, i * 3 + 3), t);
        rotations.set(mr.subarray(i * 4, i * 4 + 4), r);
        continue;
      }
      d[0] = mt[i * 3] - mt[p * 3]; d[1] = mt[i * 3 + 1] - mt[p * 3 + 1]; d[2] = mt[i * 3 + 2] - mt[p * 3 + 2];
      quatInverseRotateVec3(translations, t, mr, p * 4, d, 0);
      quatConjugateMultiply(rotations, r, mr, p * 4, mr, i * 4);
    }
  }
  return new Clip({ name: `${clip.name}-mirrored`, frameRate: clip.frameRate, frameCount: clip.frameCount, tracks, translations, rotations });
}

/** The same keys played `speed` times as fast. */
function retimed(clip: Clip, speed: number, name: string): Clip {
  return new Clip({
    name, frameRate: clip.frameRate * speed, frameCount: clip.frameCount, tracks: clip.tracks,
    translations: clip.translations, rotations: clip.rotations, scales: clip.scales, interpolation: clip.interpolation,
  });
}

const mirrored = sources.map((b) => mirrorClip(b, skeleton));
const variants = [...sources.map((b) => b.clip), ...mirrored];
const framesAtSpeed = (speed: number) => variants.reduce((sum, c) => sum + Math.floor((c.duration / speed) * 30 + 1e-9) + 1, 0);
// Enough speeds for the target frame count.
let repetitions = 1;
const speedOf = (r: number, count: number) => (count === 1 ? 1 : 0.8 + (0.45 * r) / (count - 1));
while (Array.from({ length: repetitions }, (_, r) => framesAtSpeed(speedOf(r, repetitions))).reduce((a, b) => a + b, 0) < targetFrames) repetitions++;
const clips: IndexedClip[] = [];
for (let r = 0; r < repetitions; r++) {
  const speed = speedOf(r, repetitions);
  for (const c of variants) clips.push({ name: `${c.name}@${speed.toFixed(4)}`, binding: new ClipBinding(retimed(c, speed, c.name), skeleton) });
}

const limbs = ['CC_Base_L_Foot', 'CC_Base_R_Foot', 'CC_Base_L_Hand', 'CC_Base_R_Hand'];
const limbRotations = ['CC_Base_L_Thigh', 'CC_Base_L_Calf', 'CC_Base_R_Thigh', 'CC_Base_R_Calf', 'CC_Base_L_Upperarm', 'CC_Base_L_Forearm', 'CC_Base_R_Upperarm', 'CC_Base_R_Forearm', 'CC_Base_Hip', 'CC_Base_Spine02'];
const bodyRotations = [
  ...limbRotations, 'CC_Base_L_Clavicle', 'CC_Base_R_Clavicle', 'CC_Base_L_Foot', 'CC_Base_R_Foot', 'CC_Base_L_ToeBase', 'CC_Base_R_ToeBase',
  'CC_Base_L_Hand', 'CC_Base_R_Hand', 'CC_Base_Head', 'CC_Base_Waist', 'CC_Base_Spine01', 'CC_Base_Pelvis',
];
const schemas: [string, PoseFeatureSpec][] = [
  ['feet and hands, positions + velocities (24 features)', { positions: { weight: 1, bones: limbs }, velocities: { weight: 1, bones: limbs } }],
  ['+ rotations of the legs and arms (64 features)', {
    rotations: { weight: 1, bones: limbRotations }, positions: { weight: 1, bones: limbs }, velocities: { weight: 1, bones: limbs },
  }],
  ['+ rotations of 22 bones (112 features)', {
    rotations: { weight: 1, bones: bodyRotations }, positions: { weight: 1, bones: limbs }, velocities: { weight: 1, bones: limbs },
  }],
];
if (quick) schemas.splice(1, 1);

/**
 * The short clips of one take or mirror back to back, as one clip keyed at the database's 30 Hz
 * (so it indexes the same poses). Only the tracks of the feature bones and their ancestors: the
 * features read nothing else, and 101 tracks of 16,700 keys, six times, would take half a gigabyte.
 */
const needed = new Set<number>();
for (const name of [...limbs, ...bodyRotations]) for (let b = skeleton.indexOf(name); b >= 0; b = skeleton.parents[b]) needed.add(b);
const trackBones = [...needed].sort((a, b) => a - b);
function concatenated(parts: ClipBinding[], name: string): Clip {
  const keys = parts.reduce((sum, p) => sum + Math.floor(p.clip.duration * 30 + 1e-9) + 1, 0);
  const n = trackBones.length, pose = new Pose(skeleton.boneCount);
  const translations = new Float64Array(keys * n * 3), rotations = new Float64Array(keys * n * 4);
  let k = 0;
  for (const part of parts) {
    for (let f = 0; f <= Math.floor(part.clip.duration * 30 + 1e-9); f++, k++) {
      sampleClip(pose, part, Math.min(f / 30, part.clip.duration), false);
      trackBones.forEach((b, t) => {
        translations.set(pose.translations.subarray(b * 3, b * 3 + 3), (k * n + t) * 3);
        rotations.set(pose.rotations.subarray(b * 4, b * 4 + 4), (k * n + t) * 4);
      });
    }
  }
  const tracks = trackBones.map((b) => ({ bone: skeleton.boneNames[b], translation: true, rotation: true, scale: false }));
  return new Clip({ name, frameRate: 30, frameCount: keys, tracks, translations, rotations });
}
const longClips: IndexedClip[] = variants.map((v, i) => ({
  name: `${v.name}@all`,
  binding: new ClipBinding(concatenated(clips.filter((_, c) => c % variants.length === i).map((c) => c.binding), v.name), skeleton),
}));

type Restriction = 'all' | 'same' | 'other' | 'exclude';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const meanFrames = (set: IndexedClip[]) => Math.round(clips.reduce((sum, c) => sum + Math.floor(c.binding.clip.duration * 30 + 1e-9) + 1, 0) / set.length);
console.log(`${clips.length} clips (3 CMU takes and their mirrors at ${repetitions} speeds from 0.80x to 1.25x), ${queryCount} queries`);

for (const [label, spec] of schemas) {
  const schema = new PoseFeatureSchema(spec, skeleton);
  // Queries: the original takes (or their mirrors) at random times and speeds; raw features, scaled per database.
  const rand = mulberry32(0x9e3779b9);
  const extractor = new PoseFeatureExtractor(schema);
  const source = new Int32Array(queryCount);
  const rawQueries = Array.from({ length: queryCount }, (_, i) => {
    source[i] = Math.floor(rand() * variants.length);
    const clip = variants[source[i]];
    const speed = 0.7 + rand() * 0.7;
    const binding = new ClipBinding(retimed(clip, speed, clip.name), skeleton);
    const t = 1 / 60 + rand() * (binding.clip.duration - 1 / 60);
    const raw = new Float64Array(schema.dims);
    extractor.extract(raw, 0, sampleClip(new Pose(skeleton.boneCount), binding, t, false), sampleClip(new Pose(skeleton.boneCount), binding, t - 1 / 60, false), 1 / 60);
    return raw;
  });
  console.log(`\n${label}:`);
  for (const set of [clips, longClips]) {
    // Every long clip with its subtree, to time it against a scan; the database as built by default
    // keeps a subtree only where clipTreeCosts says it pays.
    let t0 = performance.now();
    const db = PoseSearchDatabase.build(schema, set, { clipTrees: 'always' });
    const buildMs = performance.now() - t0;
    const measured = PoseSearchDatabase.build(schema, set);
    const bytes = serializePoseSearchDatabase(measured);
    t0 = performance.now();
    deserializePoseSearchDatabase(bytes, schema, set);
    const readMs = performance.now() - t0;
    const queries = rawQueries.map((raw) => {
      const q = new PoseSearchQuery(db);
      db.scaleQuery(raw, q);
      return q;
    });
    // Clip c holds take or mirror c % variants.length (a long clip: c itself). 'same': a clip of the
    // query's own take; 'other': of another take or mirror, as at a PoseSearchBlend switch.
    const clipOf = (i: number, variant: number) => (set === longClips ? variant : (i % repetitions) * variants.length + variant);
    const restrictTo = (i: number, restrict: Restriction) => clipOf(i, restrict === 'same' ? source[i] : (source[i] + 1 + (i % (variants.length - 1))) % variants.length);
    const result = new PoseSearchResult();
    const answers: Record<string, number[]> = {};
    const scored: Record<string, number> = {};
    const boxes: Record<string, number> = {};
    /** Median microseconds per query over one pass of the queries. */
    const time = (base: PoseSearchDatabase, mode: SearchMode, restrict: Restriction, key: string): number => {
      const perQuery: number[] = [];
      answers[key] = [];
      scored[key] = 0;
      boxes[key] = 0;
      for (let i = 0; i < queries.length; i++) {
        const q = queries[i];
        if (restrict === 'all' || restrict === 'exclude') q.allowAll();
        else q.allowOnly(restrictTo(i, restrict));
        if (restrict === 'exclude') {
          // The query's own take left out, as a search that must not answer with the clip playing.
          const own = clipOf(i, source[i]);
          q.excludeFirst = base.clipStart[own];
          q.excludeLast = base.clipStart[own + 1] - 1;
        }
        const start = performance.now();
        base.search(q, result, mode);
        perQuery.push((performance.now() - start) * 1000);
        answers[key].push(result.frame);
        scored[key] += result.scored;
        boxes[key] += result.boxes;
      }
      return median(perQuery);
    };
    const us = (x: number) => `${x.toFixed(1).padStart(6)} µs/query`;
    const subtrees = (base: PoseSearchDatabase) => base.tree.clipRoot.filter((r) => r >= 0).length;
    console.log(`  ${db.clipCount} clips of ${meanFrames(set)} frames on average: ${db.frameCount} frames, built in ${(buildMs / 1000).toFixed(2)} s; index file `
      + `${(bytes.length / 1e6).toFixed(1)} MB, read and checked in ${readMs.toFixed(0)} ms (hashing the clips' keys); ${measured.tree.nodeStart.length} tree nodes; `
      + `${subtrees(measured)} of ${db.clipCount} clips keep a subtree by the cost model (${subtrees(db)} long enough for one)`);
    for (const restrict of ['all', 'exclude', 'same', 'other'] as Restriction[]) {
      // A query is scaled by db; measured has the same features and scales, so the queries serve both.
      const cases: [string, PoseSearchDatabase, SearchMode][] = [['tree', db, 'tree'], ['brute', db, 'brute']];
      if (restrict !== 'all' && restrict !== 'exclude' && subtrees(db) > 0) cases.push(['auto', measured, 'auto']);
      for (const [key, base, mode] of cases) time(base, mode, restrict, key); // warm-up
      const times: Record<string, number[]> = {};
      for (let w = 0; w < (quick ? 2 : 4); w++) {
        // Alternate the order between passes, so machine noise hits every case alike.
        for (const [key, base, mode] of w % 2 === 0 ? cases : [...cases].reverse()) (times[key] ??= []).push(time(base, mode, restrict, key));
      }
      for (const [key] of cases) {
        const mismatches = answers[key].filter((f, i) => f !== answers.brute[i]).length;
        if (mismatches > 0) throw new Error(`${key} search and brute force disagree on ${mismatches} queries`);
      }
      const t = median(times.tree), b = median(times.brute);
      const frames = (key: string) => (scored[key] / queries.length).toFixed(0);
      const what = restrict === 'all' ? 'whole database: KD-tree'.padEnd(41)
        : restrict === 'exclude' ? 'whole database but the own take: KD-tree'.padEnd(41)
          : `one clip, query from ${restrict === 'same' ? 'the clip: ' : 'another:  '} subtree`;
      const whole = restrict === 'all' || restrict === 'exclude';
      let line = `    ${what} ${us(t)} (${frames('tree').padStart(5)} frames, ${(boxes.tree / queries.length).toFixed(0).padStart(4)} boxes), `
        + `${whole ? 'brute force     ' : 'scan of the clip'} ${us(b)} (${frames('brute').padStart(6)} frames): ${(b / t).toFixed(2)}x`;
      if (times.auto) line += `; as built (cost model) ${us(median(times.auto))}, ${(b / median(times.auto)).toFixed(2)}x the scan`;
      console.log(`${line}; same answers`);
    }
  }
}

if (fit) {
  // Calibration of the cost model: the time of a one-clip search against its modelled cost
  // (TREE_FRAME_COST per frame scored, TREE_BOX_COST per box), in units of a scan's time per frame;
  // 1 means the prices are right for this machine and these features.
  console.log('\ncost model calibration (one-clip searches of the long clips, queries from the clip and from others):');
  for (const [label, spec] of schemas) {
    const schema = new PoseFeatureSchema(spec, skeleton);
    const db = PoseSearchDatabase.build(schema, longClips, { clipTrees: 'always' });
    const extractor = new PoseFeatureExtractor(schema);
    const rand = mulberry32(17);
    const raw = new Float64Array(schema.dims), q = new PoseSearchQuery(db), result = new PoseSearchResult();
    let treeTime = 0, modelled = 0, scanTime = 0, scanFrames = 0;
    for (let i = 0; i < queryCount; i++) {
      const variant = Math.floor(rand() * variants.length);
      const binding = new ClipBinding(retimed(variants[variant], 0.7 + rand() * 0.7, 'q'), skeleton);
      const t = 1 / 60 + rand() * (binding.clip.duration - 1 / 60);
      extractor.extract(raw, 0, sampleClip(new Pose(skeleton.boneCount), binding, t, false), sampleClip(new Pose(skeleton.boneCount), binding, t - 1 / 60, false), 1 / 60);
      db.scaleQuery(raw, q);
      q.allowOnly(i % 2 === 0 ? variant : (variant + 1 + (i % (variants.length - 1))) % variants.length);
      let start = performance.now();
      for (let r = 0; r < 10; r++) db.search(q, result, 'tree');
      treeTime += (performance.now() - start) / 10;
      modelled += TREE_FRAME_COST * result.scored + TREE_BOX_COST * result.boxes;
      start = performance.now();
      for (let r = 0; r < 10; r++) db.search(q, result, 'brute');
      scanTime += (performance.now() - start) / 10;
      scanFrames += result.scored;
    }
    const perFrame = scanTime / scanFrames;
    console.log(`  ${label}: a modelled unit takes ${(treeTime / modelled / perFrame).toFixed(2)} scan frames (a scan frame ${(perFrame * 1e6).toFixed(0)} ns)`);
  }
}
