/**
 * The pose-search database: feature rows of every frame of a set of clips, and an exact
 * nearest-frame search over them.
 *
 * Search is exact: a KD-tree (kd-tree.ts: median splits on the widest dimension, tight bounding
 * boxes per node; searched depth-first nearest child first, pruned by the best cost so far) gives
 * the same frame as the brute-force scan, including ties (the lowest frame index wins in both).
 * Besides the tree over the whole database, a long clip can have its own subtree over its frames
 * only: a search restricted to one clip (what PoseSearchBlend does) descends that subtree, since in
 * the whole-database tree the clip's frames are spread over every leaf among other clips' poses. A
 * short clip is scanned, and so is a long one whose subtree would not beat a scan for queries from
 * the other clips (the pose at a switch comes from another clip, often far from every frame of this
 * one, and a far query visits most of a tree): the database decides per clip when it is built, by
 * a cost model over counted work on sample queries (clipTreeCosts), so the choice is the same on
 * every machine.
 */
import { ClipCursor, sampleClipAt } from '../../core/sampling.ts';
import { AnimGraphError } from '../../core/errors.ts';
import { Pose } from '../../core/pose.ts';
import { POS, PoseFeatureExtractor, ROT, VEL, type PoseFeatureSchema } from './features.ts';
import { poseSearchHash, type IndexedClip, type PoseSearchHash } from './hash.ts';
import { buildKdTree, DEFAULT_LEAF_SIZE, nodeLowerBound, payingClipTrees, type KdTree, type TreeSearchDatabase } from './kd-tree.ts';
import { CLIP_TREE_FRACTION, type PoseSearchQuery, type PoseSearchResult, type SearchMode } from './query.ts';

export type { IndexedClip } from './hash.ts';

/** Everything a database holds: flat typed arrays plus the clip list (what an index file stores). */
export interface PoseSearchDatabaseData {
  clipNames: string[];
  /** Duration of each clip in seconds. */
  clipDurations: Float64Array;
  /** First frame of each clip, and the frame count at the end (clipCount + 1 entries). */
  clipStart: Int32Array;
  frameClip: Int32Array;
  /** Clip time of each frame in seconds. */
  frameTime: Float64Array;
  /** Scaled features, frame-major: [frame * dims + d]. */
  features: Float64Array;
  /** Per channel: the deviation divided by, sqrt(Σ variances) (1 where not normalised or without variance). */
  deviations: Float64Array;
  /** Per channel: sqrt(weight) / deviation, the factor from raw to scaled features. */
  scales: Float64Array;
  tree: KdTree;
  /** Hash of the schema, skeleton and clips the data was built from (see poseSearchHash). */
  hash: PoseSearchHash;
}

/**
 * Feature rows of every frame of a set of clips, sampled at the schema's rate, scaled for the cost,
 * with a KD-tree over them. Immutable once built: share one per graph (see NodeType.prepare), give
 * each user its own PoseSearchQuery.
 */
export class PoseSearchDatabase implements TreeSearchDatabase {
  readonly schema: PoseFeatureSchema;
  readonly dims: number;
  readonly clipCount: number;
  readonly frameCount: number;
  readonly clipNames: readonly string[];
  readonly clipDurations: Float64Array;
  readonly clipStart: Int32Array;
  readonly frameClip: Int32Array;
  readonly frameTime: Float64Array;
  readonly features: Float64Array;
  readonly deviations: Float64Array;
  readonly scales: Float64Array;
  readonly tree: KdTree;
  readonly hash: PoseSearchHash;
  /**
   * The channels in the order a frame's cost is summed: most weight per dimension first. Every
   * channel has the same total variance times its weight, so in the channels of fewest dimensions
   * each dimension counts most, and summing those first abandons a losing frame soonest (with all
   * 65 bones' rotations beside four positions, a frame is given up after about a quarter of its
   * rotations instead of after all of them).
   */
  readonly channelOrder: Int32Array;
  /**
   * The lowest and highest frame index among each tree node's frames, so that a search skips, box
   * and all, a node whose frames all lie in the query's excluded range (excludeFirst..excludeLast:
   * a runner-up's neighbourhood, a query's own take). Derived from the tree when the database is
   * made; index files do not store them.
   */
  readonly nodeFrameMin: Int32Array;
  readonly nodeFrameMax: Int32Array;

  constructor(schema: PoseFeatureSchema, data: PoseSearchDatabaseData) {
    this.schema = schema;
    this.dims = schema.dims;
    this.clipNames = data.clipNames;
    this.clipCount = data.clipNames.length;
    this.clipDurations = data.clipDurations;
    this.clipStart = data.clipStart;
    this.frameCount = data.clipStart[this.clipCount];
    this.frameClip = data.frameClip;
    this.frameTime = data.frameTime;
    this.features = data.features;
    this.deviations = data.deviations;
    this.scales = data.scales;
    this.tree = data.tree;
    this.hash = data.hash;
    [this.nodeFrameMin, this.nodeFrameMax] = nodeFrameRanges(data.tree);
    const o = schema.offsets;
    const perDim = (c: number): number => (o[c + 1] > o[c] ? schema.weights[c] / (o[c + 1] - o[c]) : 0);
    this.channelOrder = Int32Array.from([ROT, POS, VEL].sort((a, b) => perDim(b) - perDim(a) || a - b));
    if (data.features.length !== this.frameCount * this.dims) {
      throw new AnimGraphError('invalid-data', `pose search database: ${data.features.length} feature values for ${this.frameCount} frames of ${this.dims} dims`);
    }
    if (data.tree.clipRoot.length !== this.clipCount) {
      throw new AnimGraphError('invalid-data', `pose search database: a tree of ${data.tree.clipRoot.length} clip subtrees for ${this.clipCount} clips`);
    }
  }

  /**
   * Samples every clip at the schema's rate, extracts, normalises and indexes the features.
   * `clipTrees`: 'measured' (default) keeps a clip's subtree only where the cost model of
   * clipTreeCosts says it beats a scan of the clip; 'always' keeps every one (for comparing them).
   */
  static build(schema: PoseFeatureSchema, clips: readonly IndexedClip[], options: { leafSize?: number; clipTrees?: 'measured' | 'always' } = {}): PoseSearchDatabase {
    const dims = schema.dims;
    const rate = schema.sampleRate;
    const clipStart = new Int32Array(clips.length + 1);
    const clipDurations = new Float64Array(clips.length);
    clips.forEach((c, i) => {
      const duration = c.binding.clip.duration;
      clipDurations[i] = duration;
      clipStart[i + 1] = clipStart[i] + Math.floor(duration * rate + 1e-9) + 1;
    });
    const frames = clipStart[clips.length];
    const features = new Float64Array(frames * dims);
    const frameClip = new Int32Array(frames);
    const frameTime = new Float64Array(frames);
    const extractor = new PoseFeatureExtractor(schema);
    const bones = schema.skeleton.boneCount;
    const pose = new Pose(bones), older = new Pose(bones), later = new Pose(bones);
    const cursor = new ClipCursor();
    const row = new Float64Array(dims);
    const v0 = schema.offsets[VEL], v1 = schema.offsets[VEL + 1];
    clips.forEach((c, ci) => {
      const clip = c.binding.clip;
      const h = 1 / clip.frameRate;
      for (let f = clipStart[ci]; f < clipStart[ci + 1]; f++) {
        const t = Math.min((f - clipStart[ci]) / rate, clip.duration);
        frameClip[f] = ci;
        frameTime[f] = t;
        cursor.time = t;
        sampleClipAt(pose, c.binding, cursor);
        if (t - h >= -1e-9 && clip.duration > 0) {
          cursor.time = Math.max(t - h, 0);
          sampleClipAt(older, c.binding, cursor);
          extractor.extract(features, f * dims, pose, older, h);
        } else {
          // At the first key: positions and rotations here, velocity forward over one key.
          extractor.extract(features, f * dims, pose, null, 0);
          if (v1 > v0 && clip.duration > 0) {
            cursor.time = Math.min(t + h, clip.duration);
            sampleClipAt(later, c.binding, cursor);
            extractor.extract(row, 0, later, pose, cursor.time - t);
            features.set(row.subarray(v0, v1), f * dims + v0);
          }
        }
      }
    });
    canonicalizeRotations(features, frames, dims, schema.offsets[ROT + 1]);
    const { deviations, scales } = channelScales(schema, features, frames);
    for (let f = 0; f < frames; f++) {
      for (let c = 0; c < 3; c++) {
        const s = scales[c];
        for (let d = schema.offsets[c]; d < schema.offsets[c + 1]; d++) features[f * dims + d] *= s;
      }
    }
    const tree = buildKdTree(features, frames, dims, frameClip, options.leafSize ?? DEFAULT_LEAF_SIZE, clips.length);
    const db = new PoseSearchDatabase(schema, {
      clipNames: clips.map((c) => c.name), clipDurations, clipStart, frameClip, frameTime, features, deviations, scales, tree,
      hash: poseSearchHash(schema, clips),
    });
    return options.clipTrees === 'always' ? db : keepPayingClipTrees(db);
  }

  /** Scales a raw feature row (from PoseFeatureExtractor) into query.features; non-finite values become 0. */
  scaleQuery(raw: Float64Array, query: PoseSearchQuery): void {
    const s = this.schema, out = query.features;
    for (let c = 0; c < 3; c++) {
      const k = this.scales[c];
      for (let d = s.offsets[c]; d < s.offsets[c + 1]; d++) {
        const v = raw[d] * k;
        out[d] = v - v === 0 ? v : 0;
      }
    }
  }

  /** The global index of frame `localFrame` of clip `clip`. */
  frameIndex(clip: number, localFrame: number): number {
    return this.clipStart[clip] + localFrame;
  }

  /**
   * The allowed frame of least cost, into `result` (frame -1 when none is allowed). Ties go to the
   * lowest frame index, so both modes agree exactly. Allocates nothing.
   */
  search(query: PoseSearchQuery, result: PoseSearchResult, mode: SearchMode = 'auto'): PoseSearchResult {
    const best = query.scratch;
    best[0] = Infinity; // cost
    best[1] = -1; // frame
    best[2] = 0; // frames scored
    best[4] = 0; // boxes measured
    const only = query.onlyClip, brute = mode === 'brute';
    const ex0 = query.excludeFirst, ex1 = query.excludeLast;
    if (!brute && ex1 >= ex0) {
      // The frames either side of an excluded range first: its frames are the query's nearest (its
      // own neighbourhood, its own take), and until an allowed frame has a cost nothing is pruned.
      if (ex0 > 0) scanFrames(this, query, null, ex0 - 1, ex0, best);
      if (ex1 + 1 < this.frameCount) scanFrames(this, query, null, ex1 + 1, ex1 + 2, best);
    }
    if (only >= 0) {
      const first = this.clipStart[only], end = Math.min(query.limit[only] + 1, this.clipStart[only + 1]);
      const root = this.tree.clipRoot[only];
      if (end > first) {
        if (brute || root < 0) scanFrames(this, query, null, first, end, best);
        else searchTree(this, query, root, false, best);
      }
    } else {
      // Prefix count of clips with any allowed frame, for skipping subtrees of other clips.
      const prefix = query.allowedPrefix;
      prefix[0] = 0;
      let allowed = 0;
      for (let c = 0; c < this.clipCount; c++) {
        const end = Math.min(query.limit[c] + 1, this.clipStart[c + 1]);
        const frames = end > this.clipStart[c] ? end - this.clipStart[c] : 0;
        allowed += frames;
        prefix[c + 1] = prefix[c] + (frames > 0 ? 1 : 0);
      }
      if (brute || allowed <= this.frameCount * CLIP_TREE_FRACTION) {
        // Clip by clip in index order: ties still go to the lowest frame across clips.
        for (let c = 0; c < this.clipCount; c++) {
          const end = Math.min(query.limit[c] + 1, this.clipStart[c + 1]);
          if (end <= this.clipStart[c]) continue;
          const root = this.tree.clipRoot[c];
          if (brute || root < 0) scanFrames(this, query, null, this.clipStart[c], end, best);
          else searchTree(this, query, root, false, best);
        }
      } else if (this.frameCount > 0) {
        searchTree(this, query, 0, true, best);
      }
    }
    const frame = best[1];
    result.scored = best[2];
    result.boxes = best[4];
    result.frame = frame;
    result.channelCosts.fill(0);
    if (frame < 0) {
      result.clip = -1;
      result.localFrame = -1;
      result.values[0] = Infinity;
      result.values[1] = 0;
      return result;
    }
    result.clip = this.frameClip[frame];
    result.localFrame = frame - this.clipStart[result.clip];
    result.values[0] = best[0];
    result.values[1] = this.frameTime[frame];
    channelCosts(this, query, frame, result.channelCosts);
    return result;
  }

  /**
   * search(), then the runner-up: the best frame more than `gapFrames` frames away from the chosen
   * one in its clip (a different moment of the motion, not the chosen frame's neighbour).
   */
  searchWithRunnerUp(query: PoseSearchQuery, best: PoseSearchResult, runnerUp: PoseSearchResult, gapFrames: number, mode: SearchMode = 'auto'): void {
    this.search(query, best, mode);
    this.searchRunnerUp(query, best, runnerUp, gapFrames, mode);
  }

  /**
   * The runner-up of `best`, the result of search() for `query` (unchanged since): as much work
   * again as the search, so a caller that shows it only in debug output can ask for it then.
   */
  searchRunnerUp(query: PoseSearchQuery, best: PoseSearchResult, runnerUp: PoseSearchResult, gapFrames: number, mode: SearchMode = 'auto'): void {
    if (best.frame < 0) {
      runnerUp.frame = -1;
      runnerUp.clip = -1;
      runnerUp.localFrame = -1;
      runnerUp.values[0] = Infinity;
      return;
    }
    const first = Math.max(best.frame - gapFrames, this.clipStart[best.clip]);
    const last = Math.min(best.frame + gapFrames, this.clipStart[best.clip + 1] - 1);
    const f0 = query.excludeFirst, f1 = query.excludeLast;
    query.excludeFirst = first;
    query.excludeLast = last;
    this.search(query, runnerUp, mode);
    query.excludeFirst = f0;
    query.excludeLast = f1;
  }

  /** The cost of one frame for a query (what search minimises), for tests and tools. */
  cost(query: PoseSearchQuery, frame: number): number {
    const costs = new Float64Array(3);
    channelCosts(this, query, frame, costs);
    return costs[0] + costs[1] + costs[2];
  }
}

/** The database with the subtrees of clips that a scan searches more cheaply (clipTreeCosts) removed. */
export function keepPayingClipTrees(db: PoseSearchDatabase): PoseSearchDatabase {
  const tree = payingClipTrees(db);
  if (tree === db.tree) return db;
  return new PoseSearchDatabase(db.schema, {
    clipNames: [...db.clipNames], clipDurations: db.clipDurations, clipStart: db.clipStart, frameClip: db.frameClip, frameTime: db.frameTime,
    features: db.features, deviations: db.deviations, scales: db.scales, tree, hash: db.hash,
  });
}

/** Flips each bone's quaternions into the hemisphere of the database's first frame (tighter boxes). */
function canonicalizeRotations(features: Float64Array, frames: number, dims: number, rotationDims: number): void {
  for (let d = 0; d < rotationDims; d += 4) {
    for (let f = 1; f < frames; f++) {
      const a = f * dims + d;
      const dot = features[a] * features[d] + features[a + 1] * features[d + 1] + features[a + 2] * features[d + 2] + features[a + 3] * features[d + 3];
      if (dot < 0) {
        features[a] = -features[a]; features[a + 1] = -features[a + 1]; features[a + 2] = -features[a + 2]; features[a + 3] = -features[a + 3];
      }
    }
  }
}

/**
 * Per channel: the standard deviation of its feature vector over the database, sqrt(sum of its
 * dimensions' variances) (1 when not normalised or without variance), and the scale
 * sqrt(weight) / deviation. Each normalised channel then has unit total variance, whatever its
 * number of bones, so the weights alone say how much each channel counts.
 */
function channelScales(schema: PoseFeatureSchema, features: Float64Array, frames: number): { deviations: Float64Array; scales: Float64Array } {
  const dims = schema.dims;
  const deviations = new Float64Array(3).fill(1);
  const scales = new Float64Array(3);
  for (let c = 0; c < 3; c++) {
    const d0 = schema.offsets[c], d1 = schema.offsets[c + 1];
    if (d1 === d0) continue;
    if (schema.normalize && frames > 1) {
      let variance = 0, squares = 0;
      for (let d = d0; d < d1; d++) {
        let mean = 0;
        for (let f = 0; f < frames; f++) mean += features[f * dims + d];
        mean /= frames;
        let v = 0;
        for (let f = 0; f < frames; f++) {
          const x = features[f * dims + d];
          v += (x - mean) * (x - mean);
          squares += x * x;
        }
        variance += v / frames;
      }
      const deviation = Math.sqrt(variance);
      const magnitude = Math.sqrt(squares / frames);
      // Without variance (beyond rounding noise), dividing would only amplify noise: leave it unscaled.
      if (Number.isFinite(deviation) && deviation > 1e-9 * Math.max(1, magnitude)) deviations[c] = deviation;
    }
    scales[c] = Math.sqrt(schema.weights[c]) / deviations[c];
  }
  return { deviations, scales };
}

/** The per-channel cost of one frame, into out[0..2]. */
function channelCosts(db: PoseSearchDatabase, query: PoseSearchQuery, frame: number, out: Float64Array): void {
  const x = db.features, q = query.features, o = db.schema.offsets, base = frame * db.dims;
  out[0] = 0; out[1] = 0; out[2] = 0;
  if (query.channels[ROT] === 1) {
    let sum = 0;
    for (let d = o[ROT]; d < o[ROT + 1]; d += 4) {
      let minus = 0, plus = 0;
      for (let k = 0; k < 4; k++) {
        const a = q[d + k], b = x[base + d + k];
        minus += (a - b) * (a - b);
        plus += (a + b) * (a + b);
      }
      sum += minus < plus ? minus : plus;
    }
    out[0] = sum;
  }
  for (let c = POS; c <= VEL; c++) {
    if (query.channels[c] !== 1) continue;
    let sum = 0;
    for (let d = o[c]; d < o[c + 1]; d++) {
      const diff = q[d] - x[base + d];
      sum += diff * diff;
    }
    out[c] = sum;
  }
}

/**
 * Scores frames start .. end - 1 (through `order` when given, else consecutive), updating
 * best = [cost, frame, scored]. A frame's sum is abandoned as soon as it exceeds the best cost.
 * Both search modes score frames here, so their costs are bit-identical.
 */
function scanFrames(db: PoseSearchDatabase, query: PoseSearchQuery, order: Int32Array | null, start: number, end: number, best: Float64Array): void {
  const x = db.features, q = query.features, dims = db.dims, o = db.schema.offsets;
  const channels = query.channels, channelOrder = db.channelOrder;
  const limit = query.limit, frameClip = db.frameClip, ex0 = query.excludeFirst, ex1 = query.excludeLast;
  let bestCost = best[0], bestFrame = best[1], scored = best[2];
  for (let i = start; i < end; i++) {
    const f = order === null ? i : order[i];
    if (f > limit[frameClip[f]] || (f >= ex0 && f <= ex1)) continue;
    scored++;
    const base = f * dims;
    let cost = 0;
    for (let k = 0; k < 3 && cost <= bestCost; k++) {
      const c = channelOrder[k];
      if (channels[c] !== 1) continue;
      const d1 = o[c + 1];
      if (c === ROT) {
        for (let d = o[ROT]; d < d1 && cost <= bestCost; d += 4) {
          const a0 = q[d], a1 = q[d + 1], a2 = q[d + 2], a3 = q[d + 3];
          const b0 = x[base + d], b1 = x[base + d + 1], b2 = x[base + d + 2], b3 = x[base + d + 3];
          const minus = (a0 - b0) * (a0 - b0) + (a1 - b1) * (a1 - b1) + (a2 - b2) * (a2 - b2) + (a3 - b3) * (a3 - b3);
          const plus = (a0 + b0) * (a0 + b0) + (a1 + b1) * (a1 + b1) + (a2 + b2) * (a2 + b2) + (a3 + b3) * (a3 + b3);
          cost += minus < plus ? minus : plus;
        }
      } else {
        for (let d = o[c]; d < d1 && cost <= bestCost; d++) {
          const diff = q[d] - x[base + d];
          cost += diff * diff;
        }
      }
    }
    if (cost < bestCost || (cost === bestCost && f < bestFrame)) {
      bestCost = cost;
      bestFrame = f;
    }
  }
  best[0] = bestCost;
  best[1] = bestFrame;
  best[2] = scored;
}
/**
 * Depth-first search of the subtree at `root`, nearest child first. `clipFilter`: skip nodes whose
 * clips have no allowed frame (query.allowedPrefix, filled by search()); a clip's own subtree
 * needs no such test.
 */
function searchTree(db: PoseSearchDatabase, query: PoseSearchQuery, root: number, clipFilter: boolean, best: Float64Array): void {
  const tree = db.tree, stack = query.stack, bounds = query.stackBound, prefix = query.allowedPrefix;
  const frameMin = db.nodeFrameMin, frameMax = db.nodeFrameMax, ex0 = query.excludeFirst, ex1 = query.excludeLast;
  if (root < 0 || (clipFilter && prefix[db.clipCount] === 0)) return;
  if (frameMin[root] >= ex0 && frameMax[root] <= ex1) return;
  let top = 0, boxes = 0;
  stack[0] = root;
  bounds[0] = 0;
  top = 1;
  while (top > 0) {
    top--;
    const node = stack[top];
    // Strictly greater: a node whose bound equals the best may still hold a tie of lower index.
    if (bounds[top] > best[0]) continue;
    if (clipFilter && prefix[tree.nodeClipMax[node] + 1] - prefix[tree.nodeClipMin[node]] === 0) continue;
    const left = tree.nodeLeft[node];
    if (left < 0) {
      scanFrames(db, query, tree.order, tree.nodeStart[node], tree.nodeEnd[node], best);
      continue;
    }
    const right = tree.nodeRight[node];
    // A child whose frames are all excluded is left out without measuring its box.
    const keepLeft = !(frameMin[left] >= ex0 && frameMax[left] <= ex1), keepRight = !(frameMin[right] >= ex0 && frameMax[right] <= ex1);
    let bl = Infinity, br = Infinity;
    if (keepLeft) { boxes++; nodeLowerBound(db, query, left, best); bl = best[3]; }
    if (keepRight) { boxes++; nodeLowerBound(db, query, right, best); br = best[3]; }
    // Push the farther child first, so the nearer one is searched first and tightens the bound.
    const nearLeft = keepLeft && (!keepRight || bl <= br);
    const far = nearLeft ? right : left, near = nearLeft ? left : right;
    const farBound = nearLeft ? br : bl, nearBound = nearLeft ? bl : br;
    const keepFar = nearLeft ? keepRight : keepLeft, keepNear = nearLeft ? keepLeft : keepRight;
    if (keepFar && farBound <= best[0]) { stack[top] = far; bounds[top] = farBound; top++; }
    if (keepNear && nearBound <= best[0]) { stack[top] = near; bounds[top] = nearBound; top++; }
  }
  best[4] += boxes;
}

/** Each tree node's lowest and highest frame (a leaf's from its frames, a parent's from its children's). */
function nodeFrameRanges(tree: KdTree): [Int32Array, Int32Array] {
  const nodes = tree.nodeStart.length, order = tree.order;
  const min = new Int32Array(nodes), max = new Int32Array(nodes);
  // Children are made after their parent (buildKdTree), so a backward pass meets them first.
  for (let node = nodes - 1; node >= 0; node--) {
    const left = tree.nodeLeft[node], right = tree.nodeRight[node];
    if (left > node && right > node && left < nodes && right < nodes) {
      min[node] = min[left] < min[right] ? min[left] : min[right];
      max[node] = max[left] > max[right] ? max[left] : max[right];
      continue;
    }
    let lo = 0x7fffffff, hi = -1;
    for (let i = tree.nodeStart[node]; i < tree.nodeEnd[node]; i++) {
      const f = order[i];
      if (f < lo) lo = f;
      if (f > hi) hi = f;
    }
    min[node] = lo;
    max[node] = hi;
  }
  return [min, max];
}
