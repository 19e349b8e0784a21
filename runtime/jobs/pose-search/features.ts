/**
 * Pose features (as Unreal's PoseSearch has them): what a frame of a clip, or the
 * pose a node output, is compared by.
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
 * aside) and the search can use bounding boxes (see database.ts).
 */
import { ComponentPose } from '../../core/component-pose.ts';
import { AnimGraphError } from '../../core/errors.ts';
import type { UpAxis } from '../../core/math.ts';
import type { Pose } from '../../core/pose.ts';
import type { Skeleton } from '../../core/skeleton.ts';
import { quoted } from '../../core/names.ts';

export const FEATURE_CHANNELS = ['rotations', 'positions', 'velocities'] as const;
export type FeatureChannel = (typeof FEATURE_CHANNELS)[number];
/** Channel indices, in FEATURE_CHANNELS order: a row holds the rotations, then positions, then velocities. */
export const ROT = 0, POS = 1, VEL = 2;
/** Floats per bone in each channel. */
const CHANNEL_WIDTH = [4, 3, 3];

/** Bumped whenever feature extraction changes, so index files written before no longer match. */
export const FEATURE_VERSION = 1;
export const DEFAULT_SAMPLE_RATE = 30;

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

/** The default schema, the simplest pose match: local rotations of every bone. */
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
      if (skeleton && skeleton.indexOf(bone) < 0) problems.push({ path: [channel, 'bones', i], code: 'unknown-bone', message: `the skeleton has no bone ${quoted(bone)}` });
      else if (c.bones!.indexOf(bone) !== i) problems.push({ path: [channel, 'bones', i], code: 'schema', message: `bone ${quoted(bone)} is listed twice` });
    });
  }
  if (active === 0) problems.push({ path: [], code: 'schema', message: 'no feature channel has a weight above 0: give rotations, positions or velocities a positive weight' });
  if (spec.sampleRate !== undefined && !(Number.isFinite(spec.sampleRate) && spec.sampleRate > 0)) {
    problems.push({ path: ['sampleRate'], code: 'schema', message: `sampleRate must be a positive number, got ${spec.sampleRate}` });
  }
  if (spec.rootBone !== undefined && skeleton && skeleton.indexOf(spec.rootBone) < 0) {
    problems.push({ path: ['rootBone'], code: 'unknown-bone', message: `the skeleton has no bone ${quoted(spec.rootBone)}` });
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
    if (problems.length > 0) throw new AnimGraphError('invalid-data', `invalid feature schema: ${problems.map((p) => `${['features', ...p.path].join('.')}: ${p.message}`).join('; ')}`);
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
/** The shortest time over which velocity features are measured (a million frames a second, as clips' MIN_FRAME_TIME). */
export const MIN_VELOCITY_TIME = 1e-6;

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
   * (the pose `dt` seconds before). Without an older pose or with dt below MIN_VELOCITY_TIME (1e-6 s)
   * the velocities are 0 and the result is false (a query should then leave the velocity channel out).
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
    // Over a frame of 5e-324 s, 1 / dt overflowed and the velocities were ±Infinity or NaN, which
    // made the search's costs NaN and its pick arbitrary: too short a time measures nothing.
    const measured = older !== null && dt >= MIN_VELOCITY_TIME && Number.isFinite(dt);
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
