/**
 * Pose search (after the seed `001_…` and Unreal's PoseSearch): a database of pose features sampled
 * from clips, and an exact nearest-frame search over it.
 *
 * Features per frame, in three channels, each optional and weighted:
 * - rotations: local rotations of the listed bones (all bones by default) as quaternions, compared
 *   so that q and -q are the same rotation. Bones with no parent and the root bone use their
 *   component-space rotation with the root's heading removed, so a match does not depend on facing.
 * - positions: component-space positions of the listed bones relative to the root bone's position
 *   and heading (its twist about the up axis).
 * - velocities: the change of those relative positions per second (what the character's own frame
 *   sees, so a planted foot moves backwards under a walking root). The database takes a backward
 *   difference over one key of the clip (forward at the first key); a query takes the last two
 *   poses output.
 *
 * Normalisation: each channel is divided by the standard deviation of its feature vector over the
 * database, sqrt(Σ variances of its dimensions): one number per channel, so relative magnitudes
 * inside a channel are kept (a nearly still bone is not blown up), and every channel has unit total
 * variance whatever its number of bones, so the weights alone set how much each channel counts. A
 * channel without variance is left unscaled. The cost of a frame is
 *
 *   cost = Σ_channels weight_c / deviation_c² × Σ_dims (query − frame)²,
 *
 * with each bone's quaternion pair counted as min(|q − f|², |q + f|²). Features are stored scaled
 * by sqrt(weight_c) / deviation_c, so the cost is a squared Euclidean distance (quaternion blocks
 * aside) and the search can use bounding boxes.
 *
 * Search is exact: a KD-tree (median splits on the widest dimension, tight bounding boxes per node,
 * depth-first nearest child first, pruned by the best cost so far) gives the same frame as the
 * brute-force scan, including ties (the lowest frame index wins in both). Besides the tree over the
 * whole database, a long clip can have its own subtree over its frames only: a search restricted to
 * one clip (what PoseSearchBlend does) descends that subtree, since in the whole-database tree the
 * clip's frames are spread over every leaf among other clips' poses. A short clip is scanned, and so
 * is a long one whose subtree would not beat a scan for queries from the other clips (the pose at a
 * switch comes from another clip, often far from every frame of this one, and a far query visits
 * most of a tree): the database decides per clip when it is built, by a cost model over counted
 * work on sample queries (clipTreeCosts), so the choice is the same on every machine.
 */
import { createHash } from 'node:crypto';
import { ClipCursor, sampleClipAt, type ClipBinding } from './clip.ts';
import { ComponentPose } from './component-pose.ts';
import { Pose } from './pose.ts';
import type { UpAxis } from './root-motion.ts';
import type { Skeleton } from './skeleton.ts';

export const FEATURE_CHANNELS = ['rotations', 'positions', 'velocities'] as const;
export type FeatureChannel = (typeof FEATURE_CHANNELS)[number];
const ROT = 0, POS = 1, VEL = 2;
/** Floats per bone in each channel. */
const CHANNEL_WIDTH = [4, 3, 3];

/** Bumped whenever feature extraction changes, so index files written before no longer match. */
export const FEATURE_VERSION = 1;
export const DEFAULT_SAMPLE_RATE = 30;
export const DEFAULT_LEAF_SIZE = 16;
/**
 * A clip gets its own subtree when it has more frames than this many leaves hold. Below that,
 * scanning the clip is as fast as descending a tree over it (bench/pose-search.ts: even at about
 * 150 frames of 24 or 64 features), and its nodes would only grow the database and index file.
 */
export const CLIP_TREE_MIN_LEAVES = 8;

export interface FeatureChannelSpec {
  /** Weight of the channel's squared distance in the cost; 0 leaves the channel out. */
  weight: number;
  /** Bones of the channel. Rotations default to every bone; positions and velocities need a list. */
  bones?: readonly string[];
}

/** The feature schema as written in an asset (`features` of PoseSearchBlend). */
export interface PoseFeatureSpec {
  rotations?: FeatureChannelSpec;
  positions?: FeatureChannelSpec;
  velocities?: FeatureChannelSpec;
  /** Divide each channel by its deviation over the database (default true). */
  normalize?: boolean;
  /** Database frames per second of clip time (default 30). */
  sampleRate?: number;
  /** The bone features are relative to (default the skeleton's first root). */
  rootBone?: string;
  /** The component-space up axis; heading is the root's twist about it (default y). */
  upAxis?: UpAxis;
}

/** The seed's schema: local rotations of every bone. */
export const DEFAULT_FEATURE_SPEC: PoseFeatureSpec = { rotations: { weight: 1 } };

export interface FeatureSpecProblem {
  /** Keys below the `features` object. */
  path: (string | number)[];
  code: 'schema' | 'unknown-bone';
  message: string;
}

/** Every problem with a feature schema against a skeleton (when given), all at once. */
export function featureSpecProblems(spec: PoseFeatureSpec, skeleton: Skeleton | undefined): FeatureSpecProblem[] {
  const problems: FeatureSpecProblem[] = [];
  let active = 0;
  for (const channel of FEATURE_CHANNELS) {
    const c = spec[channel];
    if (c === undefined) continue;
    if (!(Number.isFinite(c.weight) && c.weight >= 0)) {
      problems.push({ path: [channel, 'weight'], code: 'schema', message: `weight must be a finite number >= 0, got ${c.weight}` });
      continue;
    }
    if (c.weight > 0) active++;
    if (c.weight > 0 && channel !== 'rotations' && (c.bones === undefined || c.bones.length === 0)) {
      problems.push({ path: [channel], code: 'schema', message: `${channel} needs a list of bones (for example both feet and hands)` });
    }
    c.bones?.forEach((bone, i) => {
      if (skeleton && skeleton.indexOf(bone) < 0) problems.push({ path: [channel, 'bones', i], code: 'unknown-bone', message: `the skeleton has no bone '${bone}'` });
      else if (c.bones!.indexOf(bone) !== i) problems.push({ path: [channel, 'bones', i], code: 'schema', message: `bone '${bone}' is listed twice` });
    });
  }
  if (active === 0) problems.push({ path: [], code: 'schema', message: 'no feature channel has a weight above 0: give rotations, positions or velocities a positive weight' });
  if (spec.sampleRate !== undefined && !(Number.isFinite(spec.sampleRate) && spec.sampleRate > 0)) {
    problems.push({ path: ['sampleRate'], code: 'schema', message: `sampleRate must be a positive number, got ${spec.sampleRate}` });
  }
  if (spec.rootBone !== undefined && skeleton && skeleton.indexOf(spec.rootBone) < 0) {
    problems.push({ path: ['rootBone'], code: 'unknown-bone', message: `the skeleton has no bone '${spec.rootBone}'` });
  }
  return problems;
}

/** A feature schema resolved against a skeleton: bone indices and the layout of a feature row. */
export class PoseFeatureSchema {
  readonly skeleton: Skeleton;
  /** Channel weights [rotations, positions, velocities]; 0 = left out. */
  readonly weights: Float64Array;
  /** Bone indices per channel (empty when the channel is left out). */
  readonly bones: readonly Int32Array[];
  /** Channel c occupies dims offsets[c] .. offsets[c + 1] - 1 of a row. */
  readonly offsets: Int32Array;
  readonly dims: number;
  readonly root: number;
  readonly up: UpAxis;
  readonly sampleRate: number;
  readonly normalize: boolean;
  /** The schema with every default filled in, as stored in index files and hashed. */
  readonly canonical: CanonicalFeatureSpec;

  constructor(spec: PoseFeatureSpec, skeleton: Skeleton) {
    const problems = featureSpecProblems(spec, skeleton);
    if (problems.length > 0) throw new RangeError(`invalid feature schema: ${problems.map((p) => `${['features', ...p.path].join('.')}: ${p.message}`).join('; ')}`);
    this.skeleton = skeleton;
    this.weights = new Float64Array(3);
    this.offsets = new Int32Array(4);
    const bones: Int32Array[] = [];
    const canonicalChannels: Partial<Record<FeatureChannel, { weight: number; bones: string[] | null }>> = {};
    FEATURE_CHANNELS.forEach((channel, c) => {
      const s = spec[channel];
      const weight = s && s.weight > 0 ? s.weight : 0;
      this.weights[c] = weight;
      const names = weight === 0 ? [] : s?.bones ? [...s.bones] : [...skeleton.boneNames];
      bones.push(Int32Array.from(names, (n) => skeleton.indexOf(n)));
      this.offsets[c + 1] = this.offsets[c] + names.length * CHANNEL_WIDTH[c];
      if (weight > 0) canonicalChannels[channel] = { weight, bones: s?.bones ? [...s.bones] : null };
    });
    this.bones = bones;
    this.dims = this.offsets[3];
    const rootName = spec.rootBone ?? skeleton.boneNames[skeleton.parents.indexOf(-1)];
    this.root = skeleton.indexOf(rootName);
    this.up = spec.upAxis ?? 'y';
    this.sampleRate = spec.sampleRate ?? DEFAULT_SAMPLE_RATE;
    this.normalize = spec.normalize ?? true;
    this.canonical = { ...canonicalChannels, normalize: this.normalize, sampleRate: this.sampleRate, rootBone: rootName, upAxis: this.up, version: FEATURE_VERSION };
  }

  /** The number of feature dimensions of a channel. */
  channelDims(channel: number): number {
    return this.offsets[channel + 1] - this.offsets[channel];
  }
}

export interface CanonicalFeatureSpec {
  rotations?: { weight: number; bones: string[] | null };
  positions?: { weight: number; bones: string[] | null };
  velocities?: { weight: number; bones: string[] | null };
  normalize: boolean;
  sampleRate: number;
  rootBone: string;
  upAxis: UpAxis;
  version: number;
}

// ---------------------------------------------------------------------------------------------
// Feature extraction: the same code for database frames and for queries.

/**
 * Computes raw (unscaled) feature rows from local poses. Holds its own scratch, so one extractor
 * per user (the database build, each node instance); extraction allocates nothing.
 */
export class PoseFeatureExtractor {
  private readonly current: ComponentPose;
  private readonly previous: ComponentPose;
  /** [root x, y, z, cos heading, sin heading, inverse twist x, y, z, w] of the pose being read. */
  private readonly frame = new Float64Array(9);
  private readonly olderFrame = new Float64Array(9);
  private readonly q = new Float64Array(4);
  private readonly dt = new Float64Array(1);

  constructor(readonly schema: PoseFeatureSchema) {
    this.current = new ComponentPose(schema.skeleton);
    this.previous = new ComponentPose(schema.skeleton);
  }

  /**
   * Writes the features of `pose` into out[o .. o + dims - 1], the velocities measured from `older`
   * (the pose `dt` seconds before). Without an older pose or with dt <= 0 the velocities are 0 and
   * the result is false (a query should then leave the velocity channel out).
   */
  extract(out: Float64Array, o: number, pose: Pose, older: Pose | null, dt: number): boolean {
    this.dt[0] = dt;
    return this.extractBy(out, o, pose, older, this.dt);
  }

  /**
   * extract() with the delta time read from deltaTime[0] (an array, so a caller in the frame loop,
   * such as a node reading its PoseHistory, boxes no double).
   */
  extractBy(out: Float64Array, o: number, pose: Pose, older: Pose | null, deltaTime: Float64Array): boolean {
    const dt = deltaTime[0];
    const s = this.schema;
    const cs = this.current;
    cs.setFromLocal(pose);
    rootFrame(this.frame, cs, s.root, s.up);
    // Rotations.
    const rb = s.bones[ROT], parents = s.skeleton.parents, f = this.frame, q = this.q;
    let at = o + s.offsets[ROT];
    for (let i = 0; i < rb.length; i++, at += 4) {
      const b = rb[i];
      if (parents[b] < 0 || b === s.root) {
        cs.ensureComponent(b);
        const r = cs.rotations, b4 = b * 4;
        // inverse twist * component rotation
        const ax = f[5], ay = f[6], az = f[7], aw = f[8];
        const bx = r[b4], by = r[b4 + 1], bz = r[b4 + 2], bw = r[b4 + 3];
        q[0] = aw * bx + ax * bw + ay * bz - az * by;
        q[1] = aw * by - ax * bz + ay * bw + az * bx;
        q[2] = aw * bz + ax * by - ay * bx + az * bw;
        q[3] = aw * bw - ax * bx - ay * by - az * bz;
        out[at] = q[0]; out[at + 1] = q[1]; out[at + 2] = q[2]; out[at + 3] = q[3];
      } else {
        const r = pose.rotations, b4 = b * 4;
        out[at] = r[b4]; out[at + 1] = r[b4 + 1]; out[at + 2] = r[b4 + 2]; out[at + 3] = r[b4 + 3];
      }
    }
    // Positions.
    const pb = s.bones[POS];
    at = o + s.offsets[POS];
    for (let i = 0; i < pb.length; i++, at += 3) relativePosition(out, at, cs, pb[i], f, s.up);
    // Velocities.
    const vb = s.bones[VEL];
    at = o + s.offsets[VEL];
    const measured = older !== null && dt > 0 && Number.isFinite(dt);
    if (!measured) {
      out.fill(0, at, at + vb.length * 3);
      return vb.length === 0;
    }
    const ps = this.previous;
    ps.setFromLocal(older);
    rootFrame(this.olderFrame, ps, s.root, s.up);
    const inv = 1 / dt;
    for (let i = 0; i < vb.length; i++, at += 3) {
      relativePosition(out, at, cs, vb[i], f, s.up);
      relativePosition(q, 0, ps, vb[i], this.olderFrame, s.up);
      out[at] = (out[at] - q[0]) * inv;
      out[at + 1] = (out[at + 1] - q[1]) * inv;
      out[at + 2] = (out[at + 2] - q[2]) * inv;
    }
    return true;
  }
}

/** The root's position, heading (cos, sin) and inverse twist about the up axis, into f[0..8]. */
function rootFrame(f: Float64Array, cs: ComponentPose, root: number, up: UpAxis): void {
  cs.ensureComponent(root);
  const t = cs.translations, r = cs.rotations, r3 = root * 3, r4 = root * 4;
  f[0] = t[r3]; f[1] = t[r3 + 1]; f[2] = t[r3 + 2];
  const w = r[r4 + 3], u = up === 'y' ? r[r4 + 1] : r[r4 + 2];
  const n2 = w * w + u * u;
  if (!(n2 > 1e-12)) {
    // A half-turn swing: the twist is undefined; take no heading.
    f[3] = 1; f[4] = 0; f[5] = 0; f[6] = 0; f[7] = 0; f[8] = 1;
    return;
  }
  // twist = (0, u, 0, w) / |.|: heading h with cos h = (w² - u²) / n², sin h = 2 w u / n².
  f[3] = (w * w - u * u) / n2;
  f[4] = (2 * w * u) / n2;
  const n = Math.sqrt(n2);
  f[5] = 0; f[6] = up === 'y' ? -u / n : 0; f[7] = up === 'z' ? -u / n : 0; f[8] = w / n;
}

/** Bone's component position minus the root's, rotated by minus the heading, into out[o..o+2]. */
function relativePosition(out: Float64Array, o: number, cs: ComponentPose, bone: number, f: Float64Array, up: UpAxis): void {
  cs.ensureComponent(bone);
  const t = cs.translations, b3 = bone * 3;
  const dx = t[b3] - f[0], dy = t[b3 + 1] - f[1], dz = t[b3 + 2] - f[2];
  const c = f[3], s = f[4];
  if (up === 'y') {
    // rotate by -h about y
    out[o] = c * dx - s * dz;
    out[o + 1] = dy;
    out[o + 2] = s * dx + c * dz;
  } else {
    // rotate by -h about z
    out[o] = c * dx + s * dy;
    out[o + 1] = -s * dx + c * dy;
    out[o + 2] = dz;
  }
}

// ---------------------------------------------------------------------------------------------
// The database.

/** A clip to index, under the name the searches report. */
export interface IndexedClip {
  name: string;
  binding: ClipBinding;
}

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
 * How search() finds the best frame; every mode returns the same frame. 'tree': the KD-tree over
 * every frame, or when only one clip is allowed (allowOnly) or the allowed frames are at most
 * CLIP_TREE_FRACTION of the database, each allowed clip's own subtree (a scan for a clip without
 * one: too short, or where a scan is cheaper). 'brute': a scan of every allowed frame. 'auto': the same as 'tree'.
 */
export type SearchMode = 'tree' | 'brute' | 'auto';

/**
 * Searches allowed at most this fraction of the frames descend the subtrees of the allowed clips
 * instead of the whole-database tree, which would visit boxes holding mostly other clips' frames.
 */
export const CLIP_TREE_FRACTION = 1 / 16;

/**
 * What to search for and where. One per user (it holds the search's scratch, so the database stays
 * immutable and shared): fill `features` (scaled, see PoseSearchDatabase.scaleQuery), choose the
 * frames allowed, and pass it to search().
 */
export class PoseSearchQuery {
  /** Scaled query features. */
  readonly features: Float64Array;
  /** Per clip, the last frame (global index) allowed; below the clip's first frame leaves it out. */
  readonly limit: Int32Array;
  /**
   * The only clip allowed (set by allowOnly), or -1 (allowAll): search() then reads only this
   * clip's limit and skips its per-clip bookkeeping, which would cost more than the search itself
   * in a database of thousands of short clips. Change `limit` through allowAll / allowOnly.
   */
  onlyClip = -1;
  /** A range of frames (global, inclusive) left out of the search; empty when last < first. */
  excludeFirst = 0;
  excludeLast = -1;
  /** 1 for each channel [rotations, positions, velocities] the cost uses. */
  readonly channels = new Uint8Array([1, 1, 1]);
  /** Scratch: prefix count of allowed clips, the traversal stack and its bounds. */
  readonly allowedPrefix: Int32Array;
  readonly stack = new Int32Array(256);
  readonly stackBound = new Float64Array(256);
  readonly scratch = new Float64Array(5);

  constructor(readonly database: PoseSearchDatabase) {
    this.features = new Float64Array(database.dims);
    this.limit = new Int32Array(database.clipCount);
    this.allowedPrefix = new Int32Array(database.clipCount + 1);
    this.allowAll();
  }

  /** Allows every frame of every clip. */
  allowAll(): void {
    const db = this.database;
    for (let c = 0; c < db.clipCount; c++) this.limit[c] = db.clipStart[c + 1] - 1;
    this.onlyClip = -1;
    this.excludeFirst = 0;
    this.excludeLast = -1;
  }

  /** Allows only clip `clip`, up to its frame `lastLocalFrame` (default its last). */
  allowOnly(clip: number, lastLocalFrame = 0x3fffffff): void {
    const db = this.database;
    for (let c = 0; c < db.clipCount; c++) this.limit[c] = db.clipStart[c] - 1;
    const end = db.clipStart[clip + 1] - 1;
    const last = db.clipStart[clip] + lastLocalFrame;
    this.limit[clip] = last < end ? last : end;
    this.onlyClip = clip;
    this.excludeFirst = 0;
    this.excludeLast = -1;
  }
}

/** The outcome of a search: the best frame allowed, or -1 when no frame was allowed. */
export class PoseSearchResult {
  frame = -1;
  clip = -1;
  /** Frame index inside its clip. */
  localFrame = -1;
  /** [cost, clip time] of the frame. */
  readonly values = new Float64Array(2);
  /** The frame's cost per channel [rotations, positions, velocities]. */
  readonly channelCosts = new Float64Array(3);
  /** Frames whose cost was computed (fully or until it exceeded the best), for statistics. */
  scored = 0;
  /** Tree nodes whose bounding box was measured against the query, for statistics. */
  boxes = 0;

  get cost(): number {
    return this.values[0];
  }

  get time(): number {
    return this.values[1];
  }

  /** Each channel's share of the cost (0 when the cost is 0). */
  share(channel: number): number {
    return this.values[0] > 0 ? this.channelCosts[channel] / this.values[0] : 0;
  }

  copyFrom(other: PoseSearchResult): void {
    this.frame = other.frame;
    this.clip = other.clip;
    this.localFrame = other.localFrame;
    this.values.set(other.values);
    this.channelCosts.set(other.channelCosts);
    this.scored = other.scored;
    this.boxes = other.boxes;
  }
}

/**
 * Feature rows of every frame of a set of clips, sampled at the schema's rate, scaled for the cost,
 * with a KD-tree over them. Immutable once built: share one per graph (see NodeType.prepare), give
 * each user its own PoseSearchQuery.
 */
export class PoseSearchDatabase {
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
    const o = schema.offsets;
    const perDim = (c: number): number => (o[c + 1] > o[c] ? schema.weights[c] / (o[c + 1] - o[c]) : 0);
    this.channelOrder = Int32Array.from([ROT, POS, VEL].sort((a, b) => perDim(b) - perDim(a) || a - b));
    if (data.features.length !== this.frameCount * this.dims) {
      throw new RangeError(`pose search database: ${data.features.length} feature values for ${this.frameCount} frames of ${this.dims} dims`);
    }
    if (data.tree.clipRoot.length !== this.clipCount) {
      throw new RangeError(`pose search database: a tree of ${data.tree.clipRoot.length} clip subtrees for ${this.clipCount} clips`);
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
 * A lower bound of the cost of any frame inside node's box, into best[3]: per dimension the squared
 * distance from the query to the interval, per quaternion the smaller of that for q and for -q.
 * Stops early once above the best cost best[0]. (Doubles travel in `best`: see ClipCursor.)
 */
function nodeLowerBound(db: PoseSearchDatabase, query: PoseSearchQuery, node: number, best: Float64Array): void {
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
 * Depth-first search of the subtree at `root`, nearest child first. `clipFilter`: skip nodes whose
 * clips have no allowed frame (query.allowedPrefix, filled by search()); a clip's own subtree
 * needs no such test.
 */
function searchTree(db: PoseSearchDatabase, query: PoseSearchQuery, root: number, clipFilter: boolean, best: Float64Array): void {
  const tree = db.tree, stack = query.stack, bounds = query.stackBound, prefix = query.allowedPrefix;
  if (root < 0 || (clipFilter && prefix[db.clipCount] === 0)) return;
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
    boxes += 2;
    nodeLowerBound(db, query, left, best);
    const bl = best[3];
    nodeLowerBound(db, query, right, best);
    const br = best[3];
    // Push the farther child first, so the nearer one is searched first and tightens the bound.
    const nearLeft = bl <= br;
    const far = nearLeft ? right : left, near = nearLeft ? left : right;
    const farBound = nearLeft ? br : bl, nearBound = nearLeft ? bl : br;
    if (farBound <= best[0]) { stack[top] = far; bounds[top] = farBound; top++; }
    if (nearBound <= best[0]) { stack[top] = near; bounds[top] = nearBound; top++; }
  }
  best[4] += boxes;
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
export function clipTreeCosts(db: PoseSearchDatabase): Float64Array {
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

/** The database with the subtrees of clips that a scan searches more cheaply (clipTreeCosts) removed. */
export function keepPayingClipTrees(db: PoseSearchDatabase): PoseSearchDatabase {
  const costs = clipTreeCosts(db);
  const drop = new Uint8Array(db.clipCount);
  let dropped = 0;
  for (let c = 0; c < db.clipCount; c++) {
    if (db.tree.clipRoot[c] >= 0 && !(costs[2 * c] < costs[2 * c + 1])) {
      drop[c] = 1;
      dropped++;
    }
  }
  if (dropped === 0) return db;
  return new PoseSearchDatabase(db.schema, {
    clipNames: [...db.clipNames], clipDurations: db.clipDurations, clipStart: db.clipStart, frameClip: db.frameClip, frameTime: db.frameTime,
    features: db.features, deviations: db.deviations, scales: db.scales, tree: withoutClipTrees(db.tree, drop, db.dims), hash: db.hash,
  });
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

// ---------------------------------------------------------------------------------------------
// Hashes and index files.

/** What a database was built from, hashed (sha-256, hex). */
export interface PoseSearchHash {
  /** Of everything below, together. */
  hash: string;
  schema: string;
  skeleton: string;
  /** One per clip, in order. */
  clips: string[];
}

function hashTyped(h: ReturnType<typeof createHash>, a: Float64Array | Int32Array): void {
  h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
}

/** Hashes the schema, the skeleton and each clip's keys: an index file is current when these match. */
export function poseSearchHash(schema: PoseFeatureSchema, clips: readonly IndexedClip[]): PoseSearchHash {
  const schemaHash = createHash('sha256').update(JSON.stringify(schema.canonical)).digest('hex');
  const sk = schema.skeleton;
  const s = createHash('sha256').update(JSON.stringify(sk.boneNames));
  hashTyped(s, sk.parents);
  hashTyped(s, sk.referencePose.translations);
  hashTyped(s, sk.referencePose.rotations);
  hashTyped(s, sk.referencePose.scales);
  const skeletonHash = s.digest('hex');
  const clipHashes = clips.map(({ name, binding }) => {
    const clip = binding.clip;
    const h = createHash('sha256').update(JSON.stringify([name, clip.frameRate, clip.frameCount, clip.interpolation, clip.tracks]));
    hashTyped(h, clip.translations);
    hashTyped(h, clip.rotations);
    hashTyped(h, clip.scales);
    return h.digest('hex');
  });
  const all = createHash('sha256').update(JSON.stringify([schemaHash, skeletonHash, clipHashes])).digest('hex');
  return { hash: all, schema: schemaHash, skeleton: skeletonHash, clips: clipHashes };
}

/**
 * Bumped whenever the file layout or the tree changes: a file of another format is stale. 3: the
 * header's checksum; clips whose subtree does not pay are scanned (clipRoot -1).
 */
export const INDEX_FORMAT = 'animgraph-pose-index/3';
const MAGIC = 'AGPSIDX1';

interface IndexHeader {
  format: string;
  /**
   * sha-256 (hex) of the rest of the header as JSON (this field left out) followed by every byte
   * after the header: bit flips in the arrays would otherwise load and quietly never match.
   */
  checksum: string;
  hash: PoseSearchHash;
  features: CanonicalFeatureSpec;
  clips: { name: string; duration: number; frames: number }[];
  dims: number;
  frameCount: number;
  leafSize: number;
  nodeCount: number;
  deviations: number[];
  scales: number[];
  sections: { name: string; type: 'f64' | 'i32'; length: number }[];
}

const SECTION_NAMES = ['clipDurations', 'clipStart', 'frameClip', 'frameTime', 'features', 'order', 'nodeStart', 'nodeEnd', 'nodeLeft', 'nodeRight', 'nodeClipMin', 'nodeClipMax', 'lower', 'upper', 'clipRoot'] as const;
type SectionName = (typeof SECTION_NAMES)[number];
const F64_SECTIONS: ReadonlySet<string> = new Set(['clipDurations', 'frameTime', 'features', 'lower', 'upper']);

function sectionsOf(db: PoseSearchDatabase): Record<SectionName, Float64Array | Int32Array> {
  const t = db.tree;
  return {
    clipDurations: db.clipDurations, clipStart: db.clipStart, frameClip: db.frameClip, frameTime: db.frameTime, features: db.features,
    order: t.order, nodeStart: t.nodeStart, nodeEnd: t.nodeEnd, nodeLeft: t.nodeLeft, nodeRight: t.nodeRight,
    nodeClipMin: t.nodeClipMin, nodeClipMax: t.nodeClipMax, lower: t.lower, upper: t.upper, clipRoot: t.clipRoot,
  };
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const pad8 = (n: number) => (n + 7) & ~7;

function indexChecksum(headerWithoutChecksum: object, data: Uint8Array): string {
  return createHash('sha256').update(JSON.stringify(headerWithoutChecksum)).update(data).digest('hex');
}

/**
 * An index file: the magic `AGPSIDX1`, the header's byte length (uint32 little-endian), the header
 * (JSON: format, hashes, feature schema, clips, layout, checksum), zero padding to a multiple of 8,
 * then each section's raw little-endian array (float64 or int32), each padded to a multiple of 8.
 */
export function serializePoseSearchDatabase(db: PoseSearchDatabase): Uint8Array {
  if (!littleEndian) throw new Error('pose index files are little-endian; this host is big-endian');
  const sections = sectionsOf(db);
  const rest: Omit<IndexHeader, 'checksum'> = {
    format: INDEX_FORMAT,
    hash: db.hash,
    features: db.schema.canonical,
    clips: db.clipNames.map((name, i) => ({ name, duration: db.clipDurations[i], frames: db.clipStart[i + 1] - db.clipStart[i] })),
    dims: db.dims,
    frameCount: db.frameCount,
    leafSize: db.tree.leafSize,
    nodeCount: db.tree.nodeStart.length,
    deviations: Array.from(db.deviations),
    scales: Array.from(db.scales),
    sections: SECTION_NAMES.map((name) => ({ name, type: sections[name] instanceof Float64Array ? 'f64' : 'i32', length: sections[name].length })),
  };
  let dataSize = 0;
  for (const name of SECTION_NAMES) dataSize += pad8(sections[name].byteLength);
  const data = new Uint8Array(dataSize);
  let at = 0;
  for (const name of SECTION_NAMES) {
    const a = sections[name];
    data.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += pad8(a.byteLength);
  }
  // The checksum last, so that leaving it out of the parsed header gives back `rest` key for key.
  const header: IndexHeader = { ...rest, checksum: indexChecksum(rest, data) };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headerEnd = pad8(12 + json.length);
  const out = new Uint8Array(headerEnd + dataSize);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(8, json.length, true);
  out.set(json, 12);
  out.set(data, headerEnd);
  return out;
}

/** An index file that cannot be read, or does not match what it is loaded for. */
export class PoseIndexError extends Error {
  constructor(message: string, readonly stale = false) {
    super(message);
    this.name = 'PoseIndexError';
  }
}

/**
 * Reads an index file for `schema` and `clips`, checking its checksum and that it was built from
 * exactly these (schema, skeleton and every clip's keys, by hash). Throws PoseIndexError, and only
 * that, saying what is wrong: stale (another format, or built from other inputs) or not readable
 * (not an index file, truncated, a malformed header, a checksum that does not match).
 */
export function deserializePoseSearchDatabase(bytes: Uint8Array, schema: PoseFeatureSchema, clips: readonly IndexedClip[]): PoseSearchDatabase {
  if (!littleEndian) throw new PoseIndexError('pose index files are little-endian; this host is big-endian');
  try {
    return readIndexFile(bytes, schema, clips);
  } catch (e) {
    if (e instanceof PoseIndexError) throw e;
    // Whatever got past the checks below is still a bad file, not a crash of the loader.
    throw new PoseIndexError(`the index file is malformed (${(e as Error).message})`);
  }
}

function readIndexFile(bytes: Uint8Array, schema: PoseFeatureSchema, clips: readonly IndexedClip[]): PoseSearchDatabase {
  const text = new TextDecoder();
  if (bytes.length < 12 || text.decode(bytes.subarray(0, 8)) !== MAGIC) throw new PoseIndexError('not a pose-search index file (written by `animgraph index`)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(8, true);
  if (12 + headerLength > bytes.length) throw new PoseIndexError(`the index file is truncated (a header of ${headerLength} bytes, ${bytes.length - 12} left in the file)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.decode(bytes.subarray(12, 12 + headerLength)));
  } catch {
    throw new PoseIndexError('the index file header is not valid JSON (truncated or corrupt file)');
  }
  if (!isRecord(parsed)) throw new PoseIndexError('the index file header is malformed: not a JSON object (corrupt file)');
  const format = own(parsed, 'format');
  if (typeof format !== 'string') throw new PoseIndexError('the index file header is malformed: format is not a string (corrupt file)');
  if (format !== INDEX_FORMAT) throw new PoseIndexError(`index format '${format}' is not '${INDEX_FORMAT}'`, true);
  const problems = headerProblems(parsed);
  if (problems.length > 0) throw new PoseIndexError(`the index file header is malformed: ${problems.join('; ')} (corrupt file)`);
  const header = parsed as unknown as IndexHeader;

  const dataStart = pad8(12 + headerLength);
  let end = dataStart;
  for (const section of header.sections) {
    const byteLength = section.length * (section.type === 'f64' ? 8 : 4);
    if (end + byteLength > bytes.length) throw new PoseIndexError(`the index file is truncated (section '${section.name}' ends at byte ${end + byteLength} of ${bytes.length})`);
    end += pad8(byteLength);
  }
  const { checksum, ...rest } = header;
  if (indexChecksum(rest, bytes.subarray(dataStart)) !== checksum) {
    throw new PoseIndexError('the index file is corrupt: its contents do not match the checksum in its header (a damaged copy?)');
  }

  const expected = poseSearchHash(schema, clips);
  if (header.hash.hash !== expected.hash) throw new PoseIndexError(staleReason(header, expected, schema, clips), true);

  const read = new Map<string, Float64Array | Int32Array>();
  let at = dataStart;
  for (const section of header.sections) {
    const byteLength = section.length * (section.type === 'f64' ? 8 : 4);
    // A copy, aligned for the typed array (a Node Buffer's slice() would be a view into a pool).
    const copy = new Uint8Array(byteLength);
    copy.set(bytes.subarray(at, at + byteLength));
    read.set(section.name, section.type === 'f64' ? new Float64Array(copy.buffer, 0, section.length) : new Int32Array(copy.buffer, 0, section.length));
    at += pad8(byteLength);
  }
  const f64 = (name: SectionName) => read.get(name) as Float64Array;
  const i32 = (name: SectionName) => read.get(name) as Int32Array;
  const data: PoseSearchDatabaseData = {
    clipNames: header.clips.map((c) => c.name),
    clipDurations: f64('clipDurations'), clipStart: i32('clipStart'), frameClip: i32('frameClip'), frameTime: f64('frameTime'),
    features: f64('features'), deviations: Float64Array.from(header.deviations), scales: Float64Array.from(header.scales),
    tree: {
      leafSize: header.leafSize, order: i32('order'), nodeStart: i32('nodeStart'), nodeEnd: i32('nodeEnd'), nodeLeft: i32('nodeLeft'),
      nodeRight: i32('nodeRight'), nodeClipMin: i32('nodeClipMin'), nodeClipMax: i32('nodeClipMax'), lower: f64('lower'), upper: f64('upper'),
      clipRoot: i32('clipRoot'),
    },
    hash: header.hash,
  };
  const inconsistent = dataProblems(data, header, schema.dims);
  if (inconsistent.length > 0) throw new PoseIndexError(`the index file is inconsistent: ${inconsistent.join('; ')}`);
  return new PoseSearchDatabase(schema, data);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property (a header key named `constructor` or `__proto__` is data, not Object.prototype's). */
function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** What is missing or of the wrong type in a parsed header of the current format. */
function headerProblems(h: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const checksum = own(h, 'checksum');
  if (typeof checksum !== 'string' || !/^[0-9a-f]{64}$/.test(checksum)) problems.push('checksum is not 64 hex digits');
  const hash = own(h, 'hash');
  if (!isRecord(hash) || !['hash', 'schema', 'skeleton'].every((k) => typeof own(hash, k) === 'string')
    || !Array.isArray(own(hash, 'clips')) || !(own(hash, 'clips') as unknown[]).every((c) => typeof c === 'string')) {
    problems.push('hash is not { hash, schema, skeleton, clips }');
  }
  if (!isRecord(own(h, 'features'))) problems.push('features is not an object');
  const clips = own(h, 'clips');
  if (!Array.isArray(clips) || !clips.every((c) => isRecord(c) && typeof own(c, 'name') === 'string' && isFiniteNumber(own(c, 'duration')) && isCount(own(c, 'frames')))) {
    problems.push('clips is not a list of { name, duration, frames }');
  }
  for (const key of ['dims', 'frameCount', 'leafSize', 'nodeCount']) if (!isCount(own(h, key))) problems.push(`${key} is not a whole number >= 0`);
  for (const key of ['deviations', 'scales']) {
    const v = own(h, key);
    if (!Array.isArray(v) || v.length !== 3 || !v.every(isFiniteNumber)) problems.push(`${key} is not a list of 3 finite numbers`);
  }
  const sections = own(h, 'sections');
  if (!Array.isArray(sections)) problems.push('sections is not a list');
  else {
    const seen = new Set<string>();
    sections.forEach((s, i) => {
      const name = isRecord(s) ? own(s, 'name') : undefined;
      if (!isRecord(s) || typeof name !== 'string' || !(SECTION_NAMES as readonly string[]).includes(name) || seen.has(name)) {
        problems.push(`sections[${i}] is not one of the sections, once each`);
        return;
      }
      seen.add(name);
      if (own(s, 'type') !== (F64_SECTIONS.has(name) ? 'f64' : 'i32')) problems.push(`section '${name}' has type ${JSON.stringify(own(s, 'type'))}`);
      // Below 2^28 values: its byte length stays a safe int32 for the arithmetic that reads it.
      const length = own(s, 'length');
      if (!isCount(length) || length >= 2 ** 28) problems.push(`section '${name}' has length ${JSON.stringify(length)}`);
    });
    for (const name of SECTION_NAMES) if (!seen.has(name)) problems.push(`no '${name}' section`);
  }
  return problems;
}

/**
 * What in a file's arrays contradicts its header or would send a search out of bounds: a file that
 * passes its checksum is as written, so this only catches one written or edited by something else.
 */
function dataProblems(d: PoseSearchDatabaseData, h: IndexHeader, dims: number): string[] {
  const clips = h.clips.length, frames = h.frameCount, nodes = h.nodeCount, t = d.tree;
  const problems: string[] = [];
  if (h.dims !== dims) problems.push(`${h.dims} features per frame where the schema has ${dims}`);
  const lengths: [string, ArrayLike<number>, number][] = [
    ['clipDurations', d.clipDurations, clips], ['clipStart', d.clipStart, clips + 1], ['frameClip', d.frameClip, frames], ['frameTime', d.frameTime, frames],
    ['features', d.features, frames * dims], ['order', t.order, 2 * frames], ['nodeStart', t.nodeStart, nodes], ['nodeEnd', t.nodeEnd, nodes],
    ['nodeLeft', t.nodeLeft, nodes], ['nodeRight', t.nodeRight, nodes], ['nodeClipMin', t.nodeClipMin, nodes], ['nodeClipMax', t.nodeClipMax, nodes],
    ['lower', t.lower, nodes * dims], ['upper', t.upper, nodes * dims], ['clipRoot', t.clipRoot, clips],
  ];
  for (const [name, a, n] of lengths) if (a.length !== n) problems.push(`section '${name}' has ${a.length} values, not ${n}`);
  if (problems.length > 0 || t.leafSize < 1) return problems.length > 0 ? problems : ['leafSize is 0'];
  const inRange = (a: Int32Array, lo: number, hi: number) => a.every((v) => v >= lo && v < hi);
  if (d.clipStart[0] !== 0 || d.clipStart[clips] !== frames || !d.clipStart.every((v, i) => i === 0 || v >= d.clipStart[i - 1])) problems.push('clipStart does not count up from 0 to frameCount');
  if (!d.frameClip.every((c, f) => c >= 0 && c < clips && f >= d.clipStart[c] && f < d.clipStart[c + 1])) problems.push('frameClip disagrees with clipStart');
  if (!inRange(t.order, 0, frames)) problems.push('order holds frames out of range');
  if (!inRange(t.clipRoot, -1, nodes)) problems.push('clipRoot holds nodes out of range');
  // Children after their parent (as built), so the tree has no cycle; at most 200 deep, so the
  // search's stack of 256 holds it.
  const depth = new Int32Array(nodes);
  for (let n = 0; n < nodes; n++) {
    const l = t.nodeLeft[n], r = t.nodeRight[n];
    const ok = t.nodeStart[n] >= 0 && t.nodeStart[n] <= t.nodeEnd[n] && t.nodeEnd[n] <= 2 * frames && t.nodeClipMin[n] >= 0 && t.nodeClipMax[n] < clips
      && ((l === -1 && r === -1) || (l > n && r > n && l < nodes && r < nodes));
    if (!ok || depth[n] > 200) {
      problems.push(`tree node ${n} is malformed`);
      break;
    }
    if (l >= 0) { depth[l] = depth[n] + 1; depth[r] = depth[n] + 1; }
  }
  for (const [name, a] of [['clipDurations', d.clipDurations], ['frameTime', d.frameTime], ['features', d.features], ['lower', t.lower], ['upper', t.upper]] as const) {
    if (!a.every(Number.isFinite)) problems.push(`section '${name}' holds a value that is not finite`);
  }
  return problems;
}

function staleReason(header: IndexHeader, expected: PoseSearchHash, schema: PoseFeatureSchema, clips: readonly IndexedClip[]): string {
  const reasons: string[] = [];
  const built = header.clips?.map((c) => c.name) ?? [];
  const now = clips.map((c) => c.name);
  if (JSON.stringify(built) !== JSON.stringify(now)) reasons.push(`it indexes clips [${built.join(', ')}] but the node lists [${now.join(', ')}]`);
  else {
    const changed = now.filter((_, i) => header.hash.clips?.[i] !== expected.clips[i]);
    if (changed.length > 0) reasons.push(`clip${changed.length > 1 ? 's' : ''} ${changed.map((c) => `'${c}'`).join(', ')} changed since it was indexed`);
  }
  if (header.hash?.schema !== expected.schema) {
    reasons.push(`it was built for features ${JSON.stringify(header.features)}, the node now has ${JSON.stringify(schema.canonical)}`);
  }
  if (header.hash?.skeleton !== expected.skeleton) reasons.push('the skeleton changed since it was indexed');
  if (reasons.length === 0) reasons.push('its hash does not match the clips and features');
  return `stale index file: ${reasons.join('; ')}`;
}
