import { Clip, clipTimingProblem, MAX_CLIP_FRAME_TRACKS, MIN_FRAME_TIME, type TrackLayout } from '../core/clip.ts';
import { quatNormalize, quatSlerp, transformCompose } from '../core/math.ts';
import { Pose } from '../core/pose.ts';
import { MAX_BONES, Skeleton } from '../core/skeleton.ts';
import { nameList } from '../core/names.ts';
import { isIndex, isObject, type GltfDocument } from './gltf-container.ts';

// The reader's names, re-exported: the loader and the package entry import glTF from this one module.
export { decodeGltfUri, GltfDocument, GltfError, gltfUriOutsideFolder, readGltf, type GltfErrorCode, type GltfReadOptions } from './gltf-container.ts';

/*
 * glTF 2.0 import: a skin's joints as a Skeleton, animations as Clips, read from a GltfDocument
 * (gltf-container.ts parses the file and decodes its accessors). Like the container it imports
 * nothing from Node, so a browser runs it on fetched bytes.
 *
 * Choices where glTF leaves room:
 * - Bones are the skin's joints plus any non-joint node lying between a joint and its nearest joint
 *   ancestor (kept as bones, so that the hierarchy and any animation of theirs stay exact). When the
 *   joints hang under several top joints, their closest common ancestor node becomes the root bone;
 *   joints with no common ancestor are not one skeleton (`skin-not-tree`).
 * - The root bone's ancestors (the armature node, scene nodes: Blender's Z-up rotation and scale
 *   100, CesiumMan's Z_UP matrix) are composed into the root's reference transform and its keys,
 *   so component space is the glTF scene's space (Y up, metres) and component transform x inverse
 *   bind matrix is glTF's joint matrix. A renderer that keeps those nodes above the skeleton uses
 *   `rootParent` of the rig to undo it. Animation of those ancestors is not imported.
 * - Bone names are node names; an unnamed node is `node<index>`, and a name already taken in the
 *   skeleton becomes `name#<index>`.
 * - Clips run from time 0 to the animation's last key (over every channel, morph weights included,
 *   so the loop is as long as other players make it), sampled at a uniform rate: `sampleRate` when
 *   given, otherwise the rate of the grid every imported key lies on (24 Hz for keys every 1/24 s;
 *   each key is then a frame, exactly), otherwise 30 Hz. Without a grid the rate is adjusted so the
 *   frames span the animation exactly. Between frames the runtime interpolates linearly (slerp), so
 *   a STEP key changes the pose over the one frame before it (raise `sampleRate` to shorten that),
 *   and LINEAR keys on the grid are reproduced exactly.
 */

const DEFAULT_SAMPLE_RATE = 30;
const MAX_SAMPLE_RATE = 1000;
/** Seconds within which a frame time counts as a key's time (float32 key times are off by ~1e-7). */
const KEY_TIME_TOLERANCE = 1e-5;

/** A skin imported as a skeleton, with what clips from the same file need to target its bones. */
export interface GltfRig {
  readonly skeleton: Skeleton;
  /** The glTF node of each bone, in skeleton order. */
  readonly nodes: Int32Array;
  /**
   * The rest transform of the root bone's ancestors, composed: it is baked into the root's
   * reference transform and keys (component space = the glTF scene's space).
   */
  readonly rootParent: { translation: Float64Array; rotation: Float64Array; scale: Float64Array };
  /** Bone index of a glTF node, or -1. */
  boneOfNode(node: number): number;
}

/** The index of a skin named by index or name; GltfError('unknown-skin') naming the choices. */
export function gltfSkinIndex(doc: GltfDocument, skin: number | string): number {
  const names = doc.skinNames;
  if (names.length === 0) doc.fail('unknown-skin', 'the file has no skins, so no skeleton');
  const index = typeof skin === 'number' ? skin : names.indexOf(skin);
  if (!isIndex(index, names.length)) {
    doc.fail('unknown-skin', `no skin ${JSON.stringify(skin)}: the file has ${names.length} (${names.map((n, i) => (n === `#${i}` ? `${i}, unnamed` : `${i}: ${n}`)).join('; ')})`);
  }
  return index;
}

/** A skin's joints as a Skeleton (see the choices at the top of this file). */
export function gltfRig(doc: GltfDocument, skinRef: number | string = 0): GltfRig {
  const skinIndex = gltfSkinIndex(doc, skinRef);
  const at = `skins[${skinIndex}]`;
  const skin = doc.array('skins')[skinIndex];
  const joints = skin.joints;
  if (!Array.isArray(joints) || joints.length === 0) doc.fail('malformed', `${at}.joints must be a non-empty array of node indices`);
  const jointSet = new Set<number>();
  const problems: string[] = [];
  joints.forEach((j: unknown, i) => {
    if (!isIndex(j, doc.nodeCount)) problems.push(`${at}.joints[${i}] is ${JSON.stringify(j)}, not a node index`);
    else if (jointSet.has(j)) problems.push(`${at}.joints[${i}]: node ${j} is listed twice`);
    else jointSet.add(j);
  });
  if (problems.length > 0) doc.fail('malformed', ...problems);
  const jointNodes = joints as number[];
  const parents = doc.nodeParents;
  if (jointNodes.length > MAX_BONES) {
    doc.fail('too-large', `${at} has ${jointNodes.length.toLocaleString('en-US')} joints, more than the ${MAX_BONES.toLocaleString('en-US')} bones a skeleton may have (MAX_BONES)`);
  }

  // Bones: the joints and the non-joint nodes between a joint and its nearest joint ancestor. The
  // walks stop at nodes already added (their ancestors up to that joint are in too), so that many
  // joints hanging off a long chain of nodes cost time linear in the nodes, not joints × depth.
  const jointAbove = nearestJointAbove(parents, jointSet);
  const boneSet = new Set<number>(jointNodes);
  const tops: number[] = [];
  for (const j of jointNodes) {
    const above = jointAbove[j];
    if (above >= 0) for (let p = parents[j]; p !== above && !boneSet.has(p); p = parents[p]) boneSet.add(p);
    else tops.push(j);
  }
  let root = tops[0];
  if (tops.length > 1) {
    // Several top joints: their closest common ancestor node is the root, with the nodes between.
    const { common, lone } = commonAncestor(parents, tops);
    if (common < 0) {
      doc.fail('skin-not-tree', `${at}: joints '${doc.nodeName(tops[0])}' (node ${tops[0]}) and '${doc.nodeName(lone)}' (node ${lone}) have no common ancestor node, so the skin's joints are not one tree`);
    }
    root = common;
    boneSet.add(root);
    // Up from each top to the root, stopping at a node an earlier walk added (its ancestors are in).
    for (const t of tops) for (let p = parents[t]; p !== root && !boneSet.has(p); p = parents[p]) boneSet.add(p);
  }
  if (boneSet.size > MAX_BONES) {
    doc.fail('too-large', `${at}: its joints and the nodes between them make ${boneSet.size.toLocaleString('en-US')} bones, more than the ${MAX_BONES.toLocaleString('en-US')} a skeleton may have (MAX_BONES)`);
  }

  // Parents before children, keeping the skin's joint order where it already is so.
  const order: number[] = [];
  const placed = new Set<number>();
  const place = (n: number) => {
    const chain: number[] = [];
    for (let m = n; m >= 0 && !placed.has(m); m = m === root ? -1 : parents[m]) chain.push(m);
    for (let i = chain.length - 1; i >= 0; i--) {
      placed.add(chain[i]);
      order.push(chain[i]);
    }
  };
  place(root);
  for (const j of jointNodes) place(j);
  const boneOf = new Map(order.map((n, b) => [n, b]));

  const names: string[] = [];
  const used = new Set<string>();
  for (const n of order) {
    let name = doc.nodeName(n);
    if (used.has(name)) name = `${name}#${n}`;
    for (let k = 2; used.has(name); k++) name = `${doc.nodeName(n)}#${n}#${k}`;
    used.add(name);
    names.push(name);
  }
  const boneParents = order.map((n) => (n === root ? -1 : boneOf.get(parents[n])!));

  const count = order.length;
  const pose = new Pose(count);
  order.forEach((n, b) => doc.nodeTransform(n, pose.translations, pose.rotations, pose.scales, b));
  const rootParent = { translation: new Float64Array(3), rotation: Float64Array.of(0, 0, 0, 1), scale: Float64Array.of(1, 1, 1) };
  const ancestors: number[] = [];
  for (let p = parents[root]; p >= 0; p = parents[p]) ancestors.push(p);
  const local = { t: new Float64Array(3), r: new Float64Array(4), s: new Float64Array(3) };
  for (let i = ancestors.length - 1; i >= 0; i--) {
    doc.nodeTransform(ancestors[i], local.t, local.r, local.s, 0);
    const { translation: t, rotation: r, scale: s } = rootParent;
    transformCompose(t, r, s, 0, t, r, s, 0, local.t, local.r, local.s, 0);
  }
  const { translation: at0, rotation: ar0, scale: as0 } = rootParent;
  transformCompose(pose.translations, pose.rotations, pose.scales, 0, at0, ar0, as0, 0, pose.translations, pose.rotations, pose.scales, 0);

  const ibm = new Float64Array(count * 16);
  for (let b = 0; b < count; b++) ibm[b * 16] = ibm[b * 16 + 5] = ibm[b * 16 + 10] = ibm[b * 16 + 15] = 1;
  if (skin.inverseBindMatrices !== undefined) {
    const m = doc.readAccessor(skin.inverseBindMatrices, `${at}.inverseBindMatrices`, ['MAT4']);
    if (m.count < jointNodes.length) doc.fail('malformed', `${at}.inverseBindMatrices has ${m.count} matrices for ${jointNodes.length} joints (accessor out of range)`);
    jointNodes.forEach((n, j) => ibm.set(m.values.subarray(j * 16, j * 16 + 16), boneOf.get(n)! * 16));
  }
  const jointBones = Int32Array.from(jointNodes, (n) => boneOf.get(n)!);
  const skeleton = new Skeleton(names, boneParents, pose, { units: 'm', skin: { inverseBindMatrices: ibm, jointBones } });
  const nodesOfBones = Int32Array.from(order);
  return { skeleton, nodes: nodesOfBones, rootParent, boneOfNode: (node) => boneOf.get(node) ?? -1 };
}

/**
 * Each node's nearest joint among its strict ancestors, or -1. Each node's answer is found once
 * (a walk up stops at a node already answered, then answers the nodes it passed), so the work is
 * linear in the nodes however deep the hierarchy.
 */
function nearestJointAbove(parents: Int32Array, joints: ReadonlySet<number>): Int32Array {
  const UNKNOWN = -2;
  const above = new Int32Array(parents.length).fill(UNKNOWN);
  const path: number[] = [];
  for (let start = 0; start < parents.length; start++) {
    let n = start;
    while (above[n] === UNKNOWN) {
      const p = parents[n];
      if (p < 0 || joints.has(p)) {
        above[n] = p;
        break;
      }
      path.push(n);
      n = p;
    }
    // Every node passed has a parent that is no joint, so it shares the answer of its parent, and
    // so of the node the walk stopped at.
    for (const m of path) above[m] = above[n];
    path.length = 0;
  }
  return above;
}

/**
 * The closest common ancestor node of `tops` (joints none of which is an ancestor of another), or
 * -1 with a top that shares no ancestor with the first. Linear in the nodes: each walk up stops at
 * a node an earlier walk passed, whose meeting point with the first top's ancestors it shares.
 */
function commonAncestor(parents: Int32Array, tops: readonly number[]): { common: number; lone: number } {
  // For each node passed: how far above tops[0] the walk through it met tops[0]'s ancestors.
  const meet = new Int32Array(parents.length).fill(-1);
  const line: number[] = [];
  for (let p = parents[tops[0]]; p >= 0; p = parents[p]) {
    meet[p] = line.length;
    line.push(p);
  }
  let highest = -1;
  const path: number[] = [];
  for (let i = 1; i < tops.length; i++) {
    let p = parents[tops[i]];
    while (p >= 0 && meet[p] < 0) {
      path.push(p);
      p = parents[p];
    }
    if (p < 0) return { common: -1, lone: tops[i] };
    for (const q of path) meet[q] = meet[p];
    path.length = 0;
    if (meet[p] > highest) highest = meet[p];
  }
  return { common: line[highest], lone: -1 };
}

/** The skeleton of a skin (index or name, default 0). */
export function gltfSkeleton(doc: GltfDocument, skin: number | string = 0): Skeleton {
  return gltfRig(doc, skin).skeleton;
}

/** The index of an animation named by index or name; GltfError('unknown-animation') listing the names. */
export function gltfAnimationIndex(doc: GltfDocument, animation: number | string): number {
  const names = doc.animationNames;
  const index = typeof animation === 'number' ? animation : names.indexOf(animation);
  if (!isIndex(index, names.length)) {
    doc.fail('unknown-animation', names.length === 0
      ? `no animation ${JSON.stringify(animation)}: the file has no animations`
      : `no animation ${JSON.stringify(animation)}: the file has ${nameList(names)} (or an index 0..${names.length - 1})`);
  }
  return index;
}

type Interpolation = 'LINEAR' | 'STEP' | 'CUBICSPLINE';
type TargetPath = 'translation' | 'rotation' | 'scale';

interface Sampler {
  times: Float64Array;
  values: Float64Array;
  interpolation: Interpolation;
}

export interface GltfClipOptions {
  /** Clip name (default: the animation's name). */
  name?: string;
  /**
   * The skeleton the clip is for, from the same file: only channels on its bones become tracks,
   * named as its bones, and the root's ancestors are baked into the root's keys as into its
   * reference. Without it every node with a translation, rotation or scale channel is a track
   * named by its node name, keys as stored.
   */
  rig?: GltfRig;
  /** Frames per second to resample to (see the top of this file for the default). */
  sampleRate?: number;
}

/**
 * An animation (index or name) as a Clip sampled at a uniform rate: LINEAR (slerp for rotations),
 * STEP and CUBICSPLINE (Hermite, tangents scaled by the key interval, rotations normalised)
 * channels on translation, rotation and scale; morph-target weights are ignored.
 */
export function gltfClip(doc: GltfDocument, animationRef: number | string, options: GltfClipOptions = {}): Clip {
  const index = gltfAnimationIndex(doc, animationRef);
  const at = `animations[${index}]`;
  const animation = doc.array('animations')[index];
  const label = doc.animationNames[index];
  const { channels, samplers } = animation;
  if (!Array.isArray(channels) || !Array.isArray(samplers)) doc.fail('malformed', `${at} needs channels and samplers arrays`);
  const rig = options.rig;
  const samplerCache = new Map<string, Sampler>();
  const readSampler = (s: number, path: TargetPath | null, where: string): Sampler => {
    const key = `${s}:${path}`;
    const cached = samplerCache.get(key);
    if (cached) return cached;
    const def = samplers[s] as unknown;
    const sat = `${at}.samplers[${s}]`;
    if (!isObject(def)) doc.fail('malformed', `${sat} is not an object`);
    const interpolation = def.interpolation ?? 'LINEAR';
    if (interpolation !== 'LINEAR' && interpolation !== 'STEP' && interpolation !== 'CUBICSPLINE') {
      doc.fail('malformed', `${sat}.interpolation is ${JSON.stringify(interpolation)}, not LINEAR, STEP or CUBICSPLINE`);
    }
    const times = doc.readAccessor(def.input, `${sat}.input`, ['SCALAR']).values;
    for (let i = 1; i < times.length; i++) {
      if (times[i] < times[i - 1]) doc.fail('malformed', `${sat}.input: key times must not decrease (key ${i} at ${times[i]} s follows ${times[i - 1]} s)`);
    }
    let values: Float64Array = new Float64Array(0);
    if (path !== null) {
      const out = doc.readAccessor(def.output, `${sat}.output (${where})`, [path === 'rotation' ? 'VEC4' : 'VEC3'], path === 'rotation');
      const expected = times.length * (interpolation === 'CUBICSPLINE' ? 3 : 1);
      if (out.count < expected) doc.fail('malformed', `${sat}.output has ${out.count} elements for ${times.length} ${interpolation} keys, needs ${expected} (accessor out of range)`);
      values = out.values;
    }
    const sampler: Sampler = { times, values, interpolation: interpolation as Interpolation };
    samplerCache.set(key, sampler);
    return sampler;
  };

  // Channels by target node; the animation's length over every channel.
  const targets = new Map<number, Partial<Record<TargetPath, Sampler>>>();
  let duration = 0;
  channels.forEach((channel: unknown, c) => {
    const cat = `${at}.channels[${c}]`;
    if (!isObject(channel) || !isObject(channel.target)) doc.fail('malformed', `${cat} needs a sampler and a target`);
    if (!isIndex(channel.sampler, samplers.length)) doc.fail('malformed', `${cat}.sampler is ${JSON.stringify(channel.sampler)}, but the animation has ${samplers.length} samplers`);
    const { node, path } = channel.target;
    if (node === undefined) return; // targets an extension's object
    if (!isIndex(node, doc.nodeCount)) doc.fail('malformed', `${cat}.target.node is ${JSON.stringify(node)}, but the file has ${doc.nodeCount} nodes`);
    const imported = (path === 'translation' || path === 'rotation' || path === 'scale') && (!rig || rig.boneOfNode(node) >= 0);
    const sampler = readSampler(channel.sampler, imported ? path as TargetPath : null, `${doc.nodeName(node)}.${String(path)}`);
    duration = Math.max(duration, sampler.times[sampler.times.length - 1]);
    if (!imported) return;
    const entry = targets.get(node) ?? {};
    if (entry[path as TargetPath]) doc.fail('malformed', `${cat}: node ${node} '${doc.nodeName(node)}' has two ${String(path)} channels`);
    entry[path as TargetPath] = sampler;
    targets.set(node, entry);
  });
  if (channels.length === 0) doc.fail('empty-animation', `animation '${label}' has no channels`);
  if (!(duration > 0)) doc.fail('empty-animation', `animation '${label}' is zero-length: every key is at time ${duration} s`);
  // Its one frame interval would be shorter still: a duration near 1e-320 made the rate Infinity.
  if (duration < MIN_FRAME_TIME) doc.fail('empty-animation', `animation '${label}' lasts ${duration} s, less than the shortest frame time (1e-6 s)`);

  const nodes = [...targets.keys()].sort((a, b) => (rig ? rig.boneOfNode(a) - rig.boneOfNode(b) : a - b));
  const tracks: TrackLayout[] = nodes.map((n) => {
    const entry = targets.get(n)!;
    return { bone: rig ? rig.skeleton.boneNames[rig.boneOfNode(n)] : doc.nodeName(n), translation: !!entry.translation, rotation: !!entry.rotation, scale: !!entry.scale };
  });
  const { rate, frames } = frameGrid(duration, options.sampleRate, [...targets.values()].flatMap((e) => Object.values(e)));
  const timing = clipTimingProblem(1 / rate, frames);
  if (timing !== null) doc.fail('too-large', `animation '${label}': ${timing}`);
  if (frames * Math.max(1, tracks.length) > MAX_CLIP_FRAME_TRACKS) {
    doc.fail('too-large', `animation '${label}' would need ${frames} frames of ${tracks.length} tracks at ${rate.toFixed(3)} Hz, over the limit of ${MAX_CLIP_FRAME_TRACKS} (lower sampleRate)`);
  }
  const clip = new Clip({ name: options.name ?? label, frameRate: rate, frameCount: frames, tracks });
  const n = tracks.length;
  const rootNode = rig ? rig.nodes[0] : -1;
  const rp = rig?.rootParent;
  nodes.forEach((node, track) => {
    const entry = targets.get(node)!;
    for (let f = 0; f < frames; f++) {
      const time = f === frames - 1 ? duration : f / rate;
      if (entry.translation) sampleChannel(entry.translation, time, 3, false, clip.translations, (f * n + track) * 3);
      if (entry.rotation) sampleChannel(entry.rotation, time, 4, true, clip.rotations, (f * n + track) * 4);
      if (entry.scale) sampleChannel(entry.scale, time, 3, false, clip.scales, (f * n + track) * 3);
      if (node === rootNode && rp) {
        // transformCompose splits by attribute (translation from translation, rotation from
        // rotation), so composing a track that lacks an attribute leaves nothing stale.
        transformCompose(clip.translations, clip.rotations, clip.scales, f * n + track, rp.translation, rp.rotation, rp.scale, 0,
          clip.translations, clip.rotations, clip.scales, f * n + track);
      }
    }
  });
  return clip;
}

/**
 * The sample rate and frame count of a clip of `duration` seconds (see the top of this file): an
 * explicit rate, else the grid the keys lie on, else 30 Hz; off the grid, the rate is adjusted so
 * the last frame is the animation's end.
 */
function frameGrid(duration: number, requested: number | undefined, samplers: readonly Sampler[]): { rate: number; frames: number } {
  let rate = requested !== undefined && Number.isFinite(requested) && requested > 0 ? Math.min(requested, MAX_SAMPLE_RATE) : 0;
  if (rate === 0) {
    let minGap = Infinity;
    for (const s of samplers) for (let i = 1; i < s.times.length; i++) {
      const gap = s.times[i] - s.times[i - 1];
      if (gap > 1e-4 && gap < minGap) minGap = gap;
    }
    let grid = 1 / minGap;
    if (Math.abs(grid - Math.round(grid)) < 1e-3 * grid) grid = Math.round(grid);
    const onGrid = minGap < Infinity && grid <= MAX_SAMPLE_RATE && samplers.every((s) => s.times.every((t) => Math.abs(t * grid - Math.round(t * grid)) < 1e-3));
    const span = duration * grid;
    if (onGrid && Math.abs(span - Math.round(span)) < 1e-3) return { rate: grid, frames: Math.round(span) + 1 };
    rate = DEFAULT_SAMPLE_RATE;
  }
  const intervals = Math.max(1, Math.round(duration * rate));
  return { rate: intervals / duration, frames: intervals + 1 };
}

/**
 * Writes a sampler's value at `time` to out[o..o+size): the key itself within KEY_TIME_TOLERANCE
 * of a key's time, the first or last key outside the keys' range, else the sampler's interpolation.
 */
function sampleChannel(s: Sampler, time: number, size: number, rotation: boolean, out: Float64Array, o: number): void {
  const { times, values } = s;
  const last = times.length - 1;
  const cubic = s.interpolation === 'CUBICSPLINE';
  const stride = cubic ? size * 3 : size;
  const valueAt = (k: number) => k * stride + (cubic ? size : 0);
  // The last key at or before time (within the tolerance): later keys win ties, so a repeated time is a jump.
  let lo = 0, hi = last;
  if (time + KEY_TIME_TOLERANCE < times[0]) hi = -1;
  else {
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (times[mid] <= time + KEY_TIME_TOLERANCE) lo = mid;
      else hi = mid - 1;
    }
  }
  const k = hi;
  if (k < 0 || k >= last || Math.abs(times[k] - time) <= KEY_TIME_TOLERANCE || s.interpolation === 'STEP') {
    const v = valueAt(k < 0 ? 0 : k);
    for (let c = 0; c < size; c++) out[o + c] = values[v + c];
  } else {
    const dt = times[k + 1] - times[k];
    const u = (time - times[k]) / dt;
    if (!cubic) {
      if (rotation) quatSlerp(out, o, values, k * size, values, (k + 1) * size, u);
      else for (let c = 0; c < size; c++) out[o + c] = values[k * size + c] + (values[(k + 1) * size + c] - values[k * size + c]) * u;
    } else {
      // Hermite basis; tangents are per second, hence the key interval.
      const u2 = u * u, u3 = u2 * u;
      const h00 = 2 * u3 - 3 * u2 + 1, h10 = (u3 - 2 * u2 + u) * dt, h01 = -2 * u3 + 3 * u2, h11 = (u3 - u2) * dt;
      const v0 = valueAt(k), b0 = v0 + size, v1 = valueAt(k + 1), a1 = v1 - size;
      for (let c = 0; c < size; c++) out[o + c] = h00 * values[v0 + c] + h10 * values[b0 + c] + h01 * values[v1 + c] + h11 * values[a1 + c];
    }
  }
  if (rotation) quatNormalize(out, o);
}
