/**
 * The KD-tree over a database's scaled features: its layout, how it is built, the lower bound of a
 * node's box that prunes the search, and the cost model that decides which clips keep a subtree.
 */
import { ROT, type PoseFeatureSchema } from './features.ts';
import { PoseSearchQuery, PoseSearchResult, type PoseSearchFrames, type SearchMode } from './query.ts';

export const DEFAULT_LEAF_SIZE = 16;
/**
 * A clip gets its own subtree when it has more frames than this many leaves hold. Below that,
 * scanning the clip is as fast as descending a tree over it (bench/pose-search.ts: even at about
 * 150 frames of 24 or 64 features), and its nodes would only grow the database and index file.
 */
export const CLIP_TREE_MIN_LEAVES = 8;

export interface KdTree {
  leafSize: number;
  /** Frames in leaf order; node n holds order[nodeStart[n] .. nodeEnd[n] - 1]. */
  order: Int32Array;
  nodeStart: Int32Array;
  nodeEnd: Int32Array;
  /** Children, or -1 for a leaf. */
  nodeLeft: Int32Array;
  nodeRight: Int32Array;
  /** Lowest and highest clip index among a node's frames. */
  nodeClipMin: Int32Array;
  nodeClipMax: Int32Array;
  /** Tight bounding box of a node's (scaled) features: [node * dims + d]. */
  lower: Float64Array;
  upper: Float64Array;
  /**
   * Root node of each clip's own subtree, over that clip's frames only, or -1 for a clip that is
   * scanned instead: one of at most CLIP_TREE_MIN_LEAVES leaves' worth of frames, or one whose
   * subtree the cost model found slower than a scan (keepPayingClipTrees). Node 0 is the root of
   * the tree over every frame, which uses order[0 .. frames - 1]; the clip subtrees use
   * order[frames .. 2 * frames - 1], each clip's frames together.
   */
  clipRoot: Int32Array;
}

/**
 * What the lower bound and the cost model read of a database (PoseSearchDatabase implements it).
 * Declared here rather than imported, since database.ts imports this file.
 */
export interface TreeSearchDatabase extends PoseSearchFrames {
  readonly schema: PoseFeatureSchema;
  readonly frameCount: number;
  readonly features: Float64Array;
  readonly channelOrder: Int32Array;
  readonly tree: KdTree;
  search(query: PoseSearchQuery, result: PoseSearchResult, mode?: SearchMode): PoseSearchResult;
}

/**
 * A lower bound of the cost of any frame inside node's box, into best[3]: per dimension the squared
 * distance from the query to the interval, per quaternion the smaller of that for q and for -q.
 * Stops early once above the best cost best[0]. (Doubles travel in `best`: see ClipCursor.)
 */
export function nodeLowerBound(db: TreeSearchDatabase, query: PoseSearchQuery, node: number, best: Float64Array): void {
  const lo = db.tree.lower, hi = db.tree.upper, q = query.features, dims = db.dims, o = db.schema.offsets;
  const base = node * dims;
  const bound = best[0];
  let sum = 0;
  for (let k = 0; k < 3 && sum <= bound; k++) {
    const c = db.channelOrder[k];
    if (query.channels[c] !== 1) continue;
    if (c === ROT) {
      for (let d = o[ROT]; d < o[ROT + 1] && sum <= bound; d += 4) {
        let minus = 0, plus = 0;
        for (let j = 0; j < 4; j++) {
          const a = q[d + j], l = lo[base + d + j], h = hi[base + d + j];
          const m = a < l ? l - a : a > h ? a - h : 0;
          const p = -a < l ? l + a : -a > h ? -a - h : 0;
          minus += m * m;
          plus += p * p;
        }
        sum += minus < plus ? minus : plus;
      }
    } else {
      for (let d = o[c]; d < o[c + 1] && sum <= bound; d++) {
        const a = q[d], l = lo[base + d], h = hi[base + d];
        const m = a < l ? l - a : a > h ? a - h : 0;
        sum += m * m;
      }
    }
  }
  best[3] = sum;
}

/**
 * Builds the KD-tree over the scaled features (median split of the widest dimension), node 0 the
 * root over every frame, then one subtree per clip over that clip's frames (see KdTree.clipRoot).
 * `clips`: the database's clip count, so a clip without frames still gets its (empty) entry.
 */
export function buildKdTree(features: Float64Array, frames: number, dims: number, frameClip: Int32Array, leafSize = DEFAULT_LEAF_SIZE, clips = 0): KdTree {
  let clipCount = clips;
  for (let f = 0; f < frames; f++) if (frameClip[f] + 1 > clipCount) clipCount = frameClip[f] + 1;
  // order[0 .. frames - 1]: every frame, for the whole tree; order[frames ..]: the frames grouped by
  // clip (a stable counting sort, so each clip's frames keep their order), for the clip subtrees.
  const order = new Int32Array(2 * frames);
  const clipFirst = new Int32Array(clipCount + 1);
  for (let f = 0; f < frames; f++) {
    order[f] = f;
    clipFirst[frameClip[f] + 1]++;
  }
  for (let c = 0; c < clipCount; c++) clipFirst[c + 1] += clipFirst[c];
  const fill = clipFirst.slice(0, clipCount);
  for (let f = 0; f < frames; f++) order[frames + fill[frameClip[f]]++] = f;
  const leaf = Math.max(1, Math.floor(leafSize));
  // Splitting a node of more than `leaf` frames at its median leaves at least ceil(leaf / 2) frames
  // in each child, which bounds the number of leaves and so of nodes: per tree, at most
  // 2 * max(1, frames / ceil(leaf / 2)).
  const half = Math.ceil(leaf / 2);
  const capacity = Math.max(1, 4 * Math.ceil(frames / half) + 2 * clipCount);
  const start = new Int32Array(capacity), end = new Int32Array(capacity), left = new Int32Array(capacity).fill(-1);
  const right = new Int32Array(capacity).fill(-1), clipMin = new Int32Array(capacity), clipMax = new Int32Array(capacity);
  const lower = new Float64Array(capacity * dims), upper = new Float64Array(capacity * dims);
  let count = 0;
  const build = (s: number, e: number, depth: number): number => {
    const node = count++;
    start[node] = s;
    end[node] = e;
    const base = node * dims;
    lower.fill(Infinity, base, base + dims);
    upper.fill(-Infinity, base, base + dims);
    let cmin = 2147483647, cmax = -1;
    for (let i = s; i < e; i++) {
      const f = order[i], row = f * dims;
      for (let d = 0; d < dims; d++) {
        const v = features[row + d];
        if (v < lower[base + d]) lower[base + d] = v;
        if (v > upper[base + d]) upper[base + d] = v;
      }
      if (frameClip[f] < cmin) cmin = frameClip[f];
      if (frameClip[f] > cmax) cmax = frameClip[f];
    }
    clipMin[node] = cmin;
    clipMax[node] = cmax;
    if (e - s <= leaf || depth >= 100) return node;
    let split = -1, spread = 0;
    for (let d = 0; d < dims; d++) {
      const w = upper[base + d] - lower[base + d];
      if (w > spread) { spread = w; split = d; }
    }
    if (split < 0) return node; // every frame identical: one leaf
    const mid = (s + e) >> 1;
    quickSelect(order, features, dims, split, s, e - 1, mid);
    left[node] = build(s, mid, depth + 1);
    right[node] = build(mid, e, depth + 1);
    return node;
  };
  if (frames > 0) build(0, frames, 0);
  const clipRoot = new Int32Array(clipCount).fill(-1);
  for (let c = 0; c < clipCount; c++) {
    if (clipFirst[c + 1] - clipFirst[c] > CLIP_TREE_MIN_LEAVES * leaf) clipRoot[c] = build(frames + clipFirst[c], frames + clipFirst[c + 1], 0);
  }
  return {
    leafSize: leaf, order,
    nodeStart: start.slice(0, count), nodeEnd: end.slice(0, count), nodeLeft: left.slice(0, count), nodeRight: right.slice(0, count),
    nodeClipMin: clipMin.slice(0, count), nodeClipMax: clipMax.slice(0, count),
    lower: lower.slice(0, count * dims), upper: upper.slice(0, count * dims), clipRoot,
  };
}

/** Reorders order[lo..hi] so that order[k] holds the frame of k-th smallest value in dimension d. */
function quickSelect(order: Int32Array, features: Float64Array, dims: number, d: number, lo: number, hi: number, k: number): void {
  const value = (i: number) => features[order[i] * dims + d];
  while (hi > lo) {
    // Median of three as the pivot.
    const mid = (lo + hi) >> 1;
    const a = value(lo), b = value(mid), c = value(hi);
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
    let i = lo, j = hi;
    while (i <= j) {
      while (value(i) < pivot) i++;
      while (value(j) > pivot) j--;
      if (i <= j) {
        const t = order[i]; order[i] = order[j]; order[j] = t;
        i++; j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

// ---------------------------------------------------------------------------------------------
// Which clips keep their subtree.

/**
 * Sample queries per clip for the cost model (clipTreeCosts): frames of the other clips, evenly
 * spread over them, since PoseSearchBlend searches a clip at a switch from another clip's pose.
 */
export const CLIP_TREE_SAMPLES = 16;
/**
 * The cost model's prices, in frames of a scan of the clip: a frame scored in a tree costs more
 * than one scanned (its row is read out of order, and a scan gives up on most frames sooner), and
 * measuring a node's box costs about two frames scored. Calibrated with
 * `node --import tsx bench/pose-search.ts --fit` on the CMU databases (24 to 112 features, queries
 * from the clip and from other clips), where a unit came out at 0.7 to 1.25 scan frames.
 */
export const TREE_FRAME_COST = 4;
export const TREE_BOX_COST = 8;

/**
 * Per clip, [modelled cost of its subtree, cost of a scan] for a one-clip search, in scan frames:
 * the subtree searched for CLIP_TREE_SAMPLES frames of the other clips (of the clip itself when it
 * is the only one), TREE_FRAME_COST per frame scored plus TREE_BOX_COST per box measured, averaged;
 * the scan, its frame count. [0, frames] for a clip without a subtree. Counts, not timings, so the
 * choice is the same on every machine and run; either way the search returns the same frame.
 */
export function clipTreeCosts(db: TreeSearchDatabase): Float64Array {
  const out = new Float64Array(2 * db.clipCount);
  const q = new PoseSearchQuery(db), result = new PoseSearchResult();
  for (let c = 0; c < db.clipCount; c++) {
    const first = db.clipStart[c], frames = db.clipStart[c + 1] - first;
    out[2 * c + 1] = frames;
    if (db.tree.clipRoot[c] < 0) continue;
    const others = db.frameCount - frames;
    const pool = others > 0 ? others : frames;
    let cost = 0;
    for (let k = 0; k < CLIP_TREE_SAMPLES; k++) {
      let f = Math.floor(((k + 0.5) * pool) / CLIP_TREE_SAMPLES);
      if (others > 0 && f >= first) f += frames; // skip the clip's own frames
      else if (others === 0) f += first;
      q.features.set(db.features.subarray(f * db.dims, (f + 1) * db.dims));
      q.allowOnly(c);
      db.search(q, result, 'tree');
      cost += TREE_FRAME_COST * result.scored + TREE_BOX_COST * result.boxes;
    }
    out[2 * c] = cost / CLIP_TREE_SAMPLES;
  }
  return out;
}

/**
 * The database's tree with the subtrees removed of the clips that a scan searches more cheaply
 * (clipTreeCosts): the same tree when every subtree pays.
 */
export function payingClipTrees(db: TreeSearchDatabase): KdTree {
  const costs = clipTreeCosts(db);
  const drop = new Uint8Array(db.clipCount);
  let dropped = 0;
  for (let c = 0; c < db.clipCount; c++) {
    if (db.tree.clipRoot[c] >= 0 && !(costs[2 * c] < costs[2 * c + 1])) {
      drop[c] = 1;
      dropped++;
    }
  }
  return dropped === 0 ? db.tree : withoutClipTrees(db.tree, drop, db.dims);
}

/** The tree without the subtrees of the clips marked in `drop` (their clipRoot becomes -1, the nodes after them move down). */
function withoutClipTrees(tree: KdTree, drop: Uint8Array, dims: number): KdTree {
  const count = tree.nodeStart.length;
  const removed = new Uint8Array(count);
  const stack: number[] = [];
  for (let c = 0; c < drop.length; c++) if (drop[c] === 1 && tree.clipRoot[c] >= 0) stack.push(tree.clipRoot[c]);
  while (stack.length > 0) {
    const n = stack.pop()!;
    removed[n] = 1;
    if (tree.nodeLeft[n] >= 0) stack.push(tree.nodeLeft[n], tree.nodeRight[n]);
  }
  const index = new Int32Array(count);
  let kept = 0;
  for (let n = 0; n < count; n++) index[n] = removed[n] === 1 ? -1 : kept++;
  const pick = <T extends Int32Array | Float64Array>(a: T, width: number, map: boolean): T => {
    const out = new (a.constructor as new (n: number) => T)(kept * width);
    for (let n = 0; n < count; n++) {
      if (removed[n] === 1) continue;
      for (let k = 0; k < width; k++) {
        const v = a[n * width + k];
        out[index[n] * width + k] = map && v >= 0 ? index[v] : v;
      }
    }
    return out;
  };
  return {
    leafSize: tree.leafSize, order: tree.order,
    nodeStart: pick(tree.nodeStart, 1, false), nodeEnd: pick(tree.nodeEnd, 1, false), nodeLeft: pick(tree.nodeLeft, 1, true), nodeRight: pick(tree.nodeRight, 1, true),
    nodeClipMin: pick(tree.nodeClipMin, 1, false), nodeClipMax: pick(tree.nodeClipMax, 1, false),
    lower: pick(tree.lower, dims, false), upper: pick(tree.upper, dims, false),
    clipRoot: Int32Array.from(tree.clipRoot, (r, c) => (r >= 0 && drop[c] !== 1 ? index[r] : -1)),
  };
}
