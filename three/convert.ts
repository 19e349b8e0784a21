/** Skeletons and clips from three.js: a rig's bones as a graph skeleton, an AnimationClip as a Clip. */
import type { AnimationClip, Interpolant, Object3D } from 'three';
import { badKeyReason, Clip, firstBadKey, MAX_CLIP_FRAME_TRACKS, type TrackLayout } from '../runtime/core/clip.ts';
import { firstBeyond, quatNormalize } from '../runtime/core/math.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { Pose } from '../runtime/core/pose.ts';
import { Skeleton } from '../runtime/core/skeleton.ts';
import { targetParts, type ThreeBindTarget } from './target.ts';

/** What keeps q[o..o+4] from being a rotation: 'not-finite', 'zero' (no length to normalise), or null. */
function rotationProblem(q: Float64Array, o: number): 'not-finite' | 'zero' | null {
  const len2 = q[o] * q[o] + q[o + 1] * q[o + 1] + q[o + 2] * q[o + 2] + q[o + 3] * q[o + 3];
  if (firstBeyond(q, Number.MAX_VALUE, o, o + 4) >= 0) return 'not-finite';
  return len2 > 0 ? null : 'zero';
}

/**
 * A graph skeleton with three.js bones' names and hierarchy, and their current local transforms
 * (position, quaternion, scale) as its reference pose: for driving a model loaded with three
 * (GLTFLoader) by a graph. Bones are reordered parents before children where three lists them
 * otherwise; a bone whose parent is not among them is a root. Throws SkeletonError for an empty
 * or repeated name, and an AnimGraphError (`invalid-data`) for a quaternion that is no rotation.
 */
export function skeletonFromThree(target: ThreeBindTarget): Skeleton {
  const listed = targetParts(target).bones;
  const inList = new Set(listed);
  const ordered: Object3D[] = [];
  const placed = new Set<Object3D>();
  const place = (bone: Object3D): void => {
    if (placed.has(bone)) return;
    if (bone.parent !== null && inList.has(bone.parent)) place(bone.parent);
    placed.add(bone);
    ordered.push(bone);
  };
  listed.forEach(place);
  const index = new Map(ordered.map((b, i) => [b, i]));
  const pose = new Pose(ordered.length);
  ordered.forEach((bone, i) => {
    bone.position.toArray(pose.translations, i * 3);
    bone.quaternion.toArray(pose.rotations, i * 4);
    // Normalising would turn a NaN or zero quaternion into the identity, silently: a NaN is left for
    // the Skeleton's finite check to name; a zero one is no rotation at all.
    const problem = rotationProblem(pose.rotations, i * 4);
    if (problem === 'zero') throw new AnimGraphError('invalid-data', `skeletonFromThree: bone '${bone.name}' has quaternion (0, 0, 0, 0), which is no rotation`);
    if (problem === null) quatNormalize(pose.rotations, i * 4);
    bone.scale.toArray(pose.scales, i * 3);
  });
  return new Skeleton(ordered.map((b) => b.name), ordered.map((b) => (b.parent === null ? -1 : index.get(b.parent) ?? -1)), pose);
}

/**
 * A three.js AnimationClip's bone tracks (`Bone.position`, `.quaternion`, `.scale`) resampled
 * with three's own interpolants into an animgraph Clip at `frameRate` keys per second (default
 * 30; give the clip's own key rate to keep its keys exactly), from time 0 to the clip's duration.
 * Tracks of bones the skeleton lacks and other properties (morph target influences) are left out.
 * Throws an AnimGraphError: `out-of-range` for a frameRate outside (0, 1000] or a duration too long
 * (MAX_CLIP_FRAME_TRACKS), `invalid-data` for a duration that is not finite and a track that
 * samples to NaN or Infinity (or beyond ±1e15, or a quaternion that is no rotation).
 */
export function clipFromThree(clip: AnimationClip, skeleton: Skeleton, options: { frameRate?: number } = {}): Clip {
  const frameRate = options.frameRate ?? 30;
  if (!(frameRate > 0 && frameRate <= 1000)) throw new AnimGraphError('out-of-range', `clipFromThree: frameRate must be above 0 and at most 1000 keys per second, got ${frameRate}`);
  if (!(clip.duration >= 0 && clip.duration < Infinity)) throw new AnimGraphError('invalid-data', `clipFromThree: clip '${clip.name}' has duration ${clip.duration}; resetDuration() sets it from its tracks`);
  const frameCount = Math.max(1, Math.round(clip.duration * frameRate) + 1);
  const byBone = new Map<string, { translation?: Interpolant; rotation?: Interpolant; scale?: Interpolant }>();
  for (const track of clip.tracks) {
    const dot = track.name.lastIndexOf('.');
    const bone = track.name.slice(0, dot), property = track.name.slice(dot + 1);
    const attribute = property === 'position' ? 'translation' : property === 'quaternion' ? 'rotation' : property === 'scale' ? 'scale' : null;
    if (attribute === null || skeleton.indexOf(bone) < 0) continue;
    const entry = byBone.get(bone) ?? {};
    entry[attribute] = (track as unknown as { createInterpolant(): Interpolant }).createInterpolant();
    byBone.set(bone, entry);
  }
  const tracks: TrackLayout[] = [...byBone].map(([bone, e]) => ({ bone, translation: !!e.translation, rotation: !!e.rotation, scale: !!e.scale }));
  const n = tracks.length;
  // Refused before allocating: a duration of days at 30 keys per second is gigabytes of keys.
  if (frameCount * Math.max(1, n) > MAX_CLIP_FRAME_TRACKS) {
    throw new AnimGraphError('out-of-range', `clipFromThree: clip '${clip.name}' would need ${frameCount} frames of ${n} tracks, over the limit of ${MAX_CLIP_FRAME_TRACKS} (lower frameRate)`);
  }
  const translations = new Float64Array(frameCount * n * 3), rotations = new Float64Array(frameCount * n * 4);
  const scales = new Float64Array(frameCount * n * 3).fill(1);
  const interpolants = [...byBone.values()];
  for (let f = 0; f < frameCount; f++) {
    const time = Math.min(f / frameRate, clip.duration);
    interpolants.forEach((e, t) => {
      const o3 = (f * n + t) * 3, o4 = (f * n + t) * 4;
      if (e.translation) translations.set(e.translation.evaluate(time).subarray(0, 3), o3);
      if (e.rotation) {
        rotations.set(e.rotation.evaluate(time).subarray(0, 4), o4);
        // Checked before normalising, which turns a NaN or zero quaternion into the identity.
        const problem = rotationProblem(rotations, o4);
        if (problem !== null) {
          throw new AnimGraphError('invalid-data', `clipFromThree: clip '${clip.name}': track '${tracks[t].bone}.quaternion' gives (${Array.from(rotations.subarray(o4, o4 + 4)).join(', ')}) at ${time} s, ${problem === 'zero' ? 'which is no rotation' : 'not finite'}`);
        }
        quatNormalize(rotations, o4);
      } else rotations[o4 + 3] = 1;
      if (e.scale) scales.set(e.scale.evaluate(time).subarray(0, 3), o3);
    });
  }
  const result = new Clip({ name: clip.name, frameRate, frameCount, tracks, translations, rotations, scales });
  // A NaN or overflowing key (or three's interpolation between huge ones) would reach the frame
  // loop: refused here, by the rule an AnimGraph applies to its clips, so the track can be named.
  const bad = firstBadKey(result);
  if (bad !== null) {
    const property = bad.attribute === 'translation' ? 'position' : bad.attribute === 'rotation' ? 'quaternion' : 'scale';
    throw new AnimGraphError('invalid-data', `clipFromThree: clip '${clip.name}': track '${bad.bone}.${property}' gives ${bad.value} at ${Math.min(bad.frame / frameRate, clip.duration)} s, ${badKeyReason(bad.value)}`);
  }
  return result;
}
