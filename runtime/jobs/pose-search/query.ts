/** What a search looks for and where (PoseSearchQuery), and what it found (PoseSearchResult). */

/**
 * What a query reads of its database (a PoseSearchDatabase): how its frames fall into clips.
 * Declared here rather than imported, since database.ts imports this file.
 */
export interface PoseSearchFrames {
  readonly dims: number;
  readonly clipCount: number;
  /** First frame of each clip, and the frame count at the end (clipCount + 1 entries). */
  readonly clipStart: Int32Array;
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

  constructor(readonly database: PoseSearchFrames) {
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
