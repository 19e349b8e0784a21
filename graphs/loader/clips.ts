import { additiveClip, AdditiveReferencePose, clipFramePose, referenceFrameIndex } from '../../runtime/core/additive.ts';
import { badKeyReason, ClipBinding, clipKeyProblem, type Clip, type SyncMarker } from '../../runtime/core/clip.ts';
import { MAX_KEY_MAGNITUDE } from '../../runtime/core/math.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { ClipNotifyTrack, clipCurves } from '../../runtime/core/clip-events.ts';
import { gltfClip } from '../../runtime/import/gltf.ts';
import { extractRootMotion, rootMotionSource } from '../../runtime/jobs/root-motion.ts';
import { BUILTIN_CLIP_NAMES, sampleClip } from '../../runtime/import/sample-data.ts';
import type { Skeleton } from '../../runtime/core/skeleton.ts';
import type { GraphEnvelope } from '../schema.ts';
import { guardGltf, isGltfPath, reportFileError, reportGltfError, type FileCache } from './files.ts';
import { Problems } from './problems.ts';
import { loadSkeletonSource } from './skeleton.ts';
import { autoBoneMap } from '../../runtime/core/bone-names.ts';
import { AnimGraphError } from '../../runtime/core/errors.ts';
import { mirrorClip, mirrorTable, type MirrorTable } from '../../runtime/core/mirror.ts';
import { retargetClip } from '../../runtime/jobs/retarget.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import type { GltfRig } from '../../runtime/import/gltf.ts';
import { nameList, quoted } from '../../runtime/core/names.ts';

/**
 * The asset's clips that load, by name, with their root motion extracted where asked; and every
 * clip name the asset declares, loaded or not.
 */
export function loadClips(
  asset: Partial<GraphEnvelope>, raw: Partial<Record<keyof GraphEnvelope, unknown>>, skeleton: Skeleton | undefined, files: FileCache, problems: Problems,
): { clips: Map<string, Clip>; declaredClips: Set<string> } {
  const clips = new Map<string, Clip>();
  // Every clip name the asset declares, loaded or not: a node naming a declared clip whose file
  // failed is not also told the clip is unknown (the file's problem is the one to fix).
  const declaredClips = new Set(typeof raw.clips === 'object' && raw.clips !== null && !Array.isArray(raw.clips) ? Object.keys(raw.clips) : []);
  const mirror: MirrorTables = new Map();
  for (const [name, def] of Object.entries(asset.clips ?? {})) {
    const clip = loadAssetClip(name, def, skeleton, files, problems, mirror);
    if (clip) clips.set(name, clip);
  }
  if (skeleton) makeAdditiveClips(asset, clips, declaredClips, skeleton, problems);
  return { clips, declaredClips };
}

type MirrorTables = Map<Skeleton, MirrorTable>;
type ClipDefinition = NonNullable<GraphEnvelope['clips']>[string];

function skeletonTable(tables: MirrorTables, skeleton: Skeleton): MirrorTable {
  let table = tables.get(skeleton);
  if (table === undefined) tables.set(skeleton, table = mirrorTable(skeleton));
  return table;
}

/**
 * One clip of the asset as it plays: loaded, retargeted, mirrored, its events and curves read, its
 * root motion extracted and sync markers set, as its definition says; undefined when it does not
 * load (the problems say why).
 */
function loadAssetClip(
  name: string, def: ClipDefinition, skeleton: Skeleton | undefined, files: FileCache, problems: Problems, mirror: MirrorTables,
): Clip | undefined {
  const source = def.retarget ? retargetSource(name, def, files, problems) : undefined;
  // Loaded even when its source skeleton is not, so that the file's own problems are reported.
  const loaded = loadClip(name, def, files, problems, source?.rig);
  let clip = def.retarget && !source ? undefined : loaded?.clip;
  if (clip && loaded && source && skeleton) clip = retargetLoaded(name, def, clip, loaded.whole, source.skeleton, skeleton, problems);
  if (clip && def.mirror && skeleton) {
    const table = skeletonTable(mirror, skeleton);
    if (!hasMirrorPairs(table)) {
      problems.add(['clips', name, 'mirror'], 'skeleton', NO_MIRROR_PAIRS);
      return undefined;
    }
    clip = mirrorClip(clip, skeleton, table);
  }
  const eventsOk = checkClipEvents(name, def, clip, problems);
  if (!clip) return undefined;
  const badKey = clipKeyProblem(clip);
  if (badKey !== null) {
    problems.add(['clips', name, 'source'], 'value-range', `clip ${quoted(name)}: ${badKey}`);
    return undefined;
  }
  if (eventsOk) {
    if (def.notifies && def.notifies.length > 0) clip.notifies = new ClipNotifyTrack(def.notifies);
    if (def.curves) clip.curves = clipCurves(def.curves);
  }
  if (skeleton && !clip.tracks.some((t) => skeleton.indexOf(t.bone) >= 0)) {
    problems.add(['clips', name, 'source'], 'clip-file', `clip ${quoted(name)} animates none of the skeleton's bones`);
  }
  if (def.rootMotion && skeleton) {
    const options = def.rootMotion === true ? {} : { ...def.rootMotion };
    // A retargeted clip's motion is its pelvis's (the robot's feet, which hang from its root, move too).
    if (options.bone === undefined && clip.retarget) options.bone = skeleton.boneNames[clip.retarget.root];
    const source = rootMotionSource(clip, skeleton, options.bone);
    if (typeof source === 'string') {
      const code = options.bone !== undefined && skeleton.indexOf(options.bone) < 0 ? 'unknown-bone' : 'no-root-motion';
      problems.add(['clips', name, 'rootMotion', ...(options.bone !== undefined ? ['bone'] : [])], code, source);
    } else clip.rootMotion = extractRootMotion(clip, source.bone, options.up ?? 'y', source);
  }
  if (def.syncMarkers) setSyncMarkers(clip, def.syncMarkers, ['clips', name, 'syncMarkers'], problems);
  return clip;
}

/**
 * The clip a player marked `mirror` plays: the asset's clip `name` loaded again, mirrored as a clip
 * marked `mirror` is (before its root motion is extracted), so that both give the same numbers.
 * Its file is read once for both (the cache). Problems of the clip itself are the original's,
 * already reported; `at` (the player's `mirror` property) is told why a clip cannot be mirrored.
 */
export function loadMirroredClip(
  asset: Partial<GraphEnvelope>, name: string, skeleton: Skeleton, files: FileCache, problems: Problems, at: readonly PropertyKey[],
): Clip | undefined {
  const def = asset.clips?.[name];
  if (def === undefined) return undefined;
  if (def.mirror === true) {
    problems.add(at, 'schema', `clip ${quoted(name)} is mirrored already (its \`mirror\`): the player would play it unmirrored; mirror it in one place`);
    return undefined;
  }
  if (def.additive) {
    problems.add(at, 'schema', `clip ${quoted(name)} is additive: its deltas are not mirrored by a player; mark the clip \`mirror\` instead`);
    return undefined;
  }
  const table = mirrorTable(skeleton);
  if (!hasMirrorPairs(table)) {
    problems.add(at, 'skeleton', NO_MIRROR_PAIRS);
    return undefined;
  }
  return loadAssetClip(name, { ...def, mirror: true }, skeleton, files, new Problems(), new Map([[skeleton, table]]));
}

const NO_MIRROR_PAIRS = "the skeleton has no mirror pairs: no bone's name says its side (Left/Right, .L/.R, _l/_r...) and the asset's `mirror` block gives no `pairs`";

/** Whether any bone of the table has a partner other than itself. */
export function hasMirrorPairs(table: MirrorTable): boolean {
  for (let b = 0; b < table.partner.length; b++) if (table.partner[b] !== b) return true;
  return false;
}

/**
 * Replaces each clip marked `additive` by its deltas from its reference. References read the clips
 * as authored, so a clip may be made relative to its own first frame, or to another additive clip's keys.
 */
function makeAdditiveClips(
  asset: Partial<GraphEnvelope>, clips: Map<string, Clip>, declaredClips: ReadonlySet<string>, skeleton: Skeleton, problems: Problems,
): void {
  const authored = new Map(clips);
  for (const [name, def] of Object.entries(asset.clips ?? {})) {
    const clip = authored.get(name);
    if (!def.additive || !clip) continue;
    const at = ['clips', name, 'additive'];
    if (def.rootMotion) {
      problems.add(at, 'schema', `clip ${quoted(name)} is additive and extracts root motion: an additive moves bones relative to another pose, not the character, so drop one of the two`);
      continue;
    }
    const reference = def.additive.reference ?? 'skeleton';
    let pose = skeleton.referencePose;
    if (reference !== 'skeleton') {
      const source = authored.get(reference.clip);
      if (!source) {
        if (!declaredClips.has(reference.clip)) problems.add([...at, 'reference', 'clip'], 'unknown-clip', `unknown clip ${quoted(reference.clip)} (declared: ${nameList(declaredClips)})`);
        continue;
      }
      const frame = referenceFrameIndex(reference.frame, source.frameCount);
      if (frame < 0) {
        problems.add([...at, 'reference', 'frame'], 'clip-frames', `frame ${reference.frame} is outside clip ${quoted(reference.clip)} (frames 0..${source.frameCount - 1}, or -1..-${source.frameCount} from the end)`);
        continue;
      }
      pose = clipFramePose(new Pose(skeleton.boneCount), new ClipBinding(source, skeleton), frame);
    }
    clips.set(name, additiveClip(new ClipBinding(clip, skeleton), new AdditiveReferencePose(pose, skeleton), def.additive.space ?? 'local'));
  }
}

/**
 * Checks a clip's notifies (times inside the clip, once it loaded; a range's start not after its
 * end) and curves (key times increasing, values within ±MAX_KEY_MAGNITUDE), reporting each problem
 * at its path. True when all is well.
 */
function checkClipEvents(name: string, def: GraphEnvelope['clips'][string], clip: Clip | undefined, problems: Problems): boolean {
  const before = problems.count;
  const duration = clip?.duration;
  const inside = (time: number) => duration === undefined || (time >= 0 && time <= duration);
  const span = duration === undefined ? '' : `[0, ${duration}]`;
  (def.notifies ?? []).forEach((notify, i) => {
    const at = ['clips', name, 'notifies', i];
    if ('time' in notify) {
      if (!inside(notify.time)) problems.add([...at, 'time'], 'notify-time', `notify ${quoted(notify.name)} at ${notify.time} s is outside the clip's ${span} s`);
      return;
    }
    if (!inside(notify.start)) problems.add([...at, 'start'], 'notify-time', `notify ${quoted(notify.name)} starts at ${notify.start} s, outside the clip's ${span} s`);
    if (!inside(notify.end)) problems.add([...at, 'end'], 'notify-time', `notify ${quoted(notify.name)} ends at ${notify.end} s, outside the clip's ${span} s`);
    else if (notify.end < notify.start) problems.add([...at, 'end'], 'notify-time', `notify ${quoted(notify.name)} ends (${notify.end} s) before it starts (${notify.start} s)`);
  });
  for (const [curve, keys] of Object.entries(def.curves ?? {})) {
    // The first per curve, as clipKeyProblem (which checks curves set from code) reports it.
    const big = keys.findIndex((key) => !(Math.abs(key[1]) <= MAX_KEY_MAGNITUDE));
    if (big >= 0) problems.add(['clips', name, 'curves', curve, big, 1], 'value-range', `curve ${quoted(curve)}: key ${big} value ${keys[big][1]} is ${badKeyReason(keys[big][1])}`);
    for (let k = 1; k < keys.length; k++) {
      if (!(keys[k][0] > keys[k - 1][0])) {
        problems.add(['clips', name, 'curves', curve, k, 0], 'curve-keys', `curve ${quoted(curve)}: key ${k} at ${keys[k][0]} s is not after key ${k - 1} at ${keys[k - 1][0]} s (key times must increase)`);
        break;
      }
    }
  }
  return problems.count === before;
}

type ClipDef = GraphEnvelope['clips'][string];

/**
 * The skeleton a retargeted clip is authored on: `retarget.skeleton`, or the clip's own file's
 * (a BVH's hierarchy, a glTF's first skin, the built-in biped for built-in clips). Undefined, with
 * the problem reported, when it cannot be had.
 */
function retargetSource(name: string, def: ClipDef, files: FileCache, problems: Problems): { skeleton: Skeleton; rig?: GltfRig } | undefined {
  const at = ['clips', name, 'retarget'];
  const given = def.retarget?.skeleton;
  if (given !== undefined) return loadSkeletonSource(given, files, problems, [...at, 'skeleton']);
  if (def.source.startsWith('builtin:')) return { skeleton: sampleSkeleton() };
  const own: GraphEnvelope['skeleton'] = isGltfPath(def.source) ? { gltf: def.source } : { bvh: def.source };
  // The file's own problems are the clip's (reported where it is loaded); a file with no skin is this block's.
  const quiet = new Problems();
  const loaded = loadSkeletonSource(own, files, quiet, at);
  if (!loaded) {
    const why = quiet.list[0]?.message ?? 'it cannot be read';
    if (files.loadGltf(def.source) instanceof Error || (!isGltfPath(def.source) && files.loadBvh(def.source) instanceof Error)) return undefined;
    problems.add(at, 'skeleton', `clip ${quoted(name)}: no source skeleton in ${quoted(def.source)} (${why}); name one in retarget.skeleton`);
  }
  return loaded;
}

/**
 * The clip retargeted onto the graph's skeleton (runtime/jobs/retarget.ts): its bone map found by
 * name and overridden by `boneMap`, its reference the source skeleton's or a frame of the source
 * file (`whole`, before `frames`). Undefined, with the problem reported, when it cannot be.
 */
function retargetLoaded(name: string, def: ClipDef, clip: Clip, whole: Clip, source: Skeleton, target: Skeleton, problems: Problems): Clip | undefined {
  const options = def.retarget!;
  const at = ['clips', name, 'retarget'];
  const before = problems.count;
  const map = options.autoMap === false ? new Int32Array(target.boneCount).fill(-1) : autoBoneMap(source, target);
  for (const [bone, from] of Object.entries(options.boneMap ?? {})) {
    const t = target.indexOf(bone);
    if (t < 0) {
      problems.add([...at, 'boneMap', bone], 'unknown-bone', `the graph's skeleton has no bone ${quoted(bone)}`);
      continue;
    }
    if (from === null) {
      map[t] = -1;
      continue;
    }
    const s = source.indexOf(from);
    if (s < 0) problems.add([...at, 'boneMap', bone], 'unknown-bone', `the source skeleton has no bone ${quoted(from)}`);
    else map[t] = s;
  }
  let reference = source.referencePose;
  const ref = options.reference ?? 'skeleton';
  if (ref !== 'skeleton') {
    const frame = referenceFrameIndex(ref.frame, whole.frameCount);
    if (frame < 0) problems.add([...at, 'reference', 'frame'], 'clip-frames', `frame ${ref.frame} is outside the source file's frames 0..${whole.frameCount - 1} (or -1..-${whole.frameCount} from the end)`);
    else reference = clipFramePose(new Pose(source.boneCount), new ClipBinding(whole, source), frame);
  }
  if (problems.count > before) return undefined;
  try {
    return retargetClip(clip, source, target, { map, sourceReference: reference, name, feet: options.feet === true, hands: options.hands === true }).clip;
  } catch (e) {
    if (!(e instanceof AnimGraphError)) throw e;
    problems.add(at, 'skeleton', `clip ${quoted(name)}: ${e.message}`);
    return undefined;
  }
}

function loadGltfClip(name: string, def: GraphEnvelope['clips'][string], files: FileCache, problems: Problems, rig?: GltfRig): Clip | undefined {
  const doc = files.loadGltf(def.source);
  // What is wrong with the file as a whole (too many nodes) is reported at the file, not the animation.
  if (doc instanceof Error) {
    reportGltfError(doc, ['clips', name, 'source'], ['clips', name, 'source'], problems);
    return undefined;
  }
  const sameFile = rig ?? (files.skeletonRig?.file === files.key(def.source) ? files.skeletonRig.rig : undefined);
  const clip = guardGltf(def.source, () => gltfClip(doc, def.animation ?? 0, { name, rig: sameFile, sampleRate: def.sampleRate }));
  if (clip instanceof Error) {
    reportGltfError(clip, ['clips', name, 'source'], ['clips', name, 'animation'], problems);
    return undefined;
  }
  return clip;
}

/** The clip as its source holds it (`whole`) and its kept frames (`clip`); `rig`: a glTF skin its tracks bind to by node. */
function loadClip(name: string, def: ClipDef, files: FileCache, problems: Problems, rig?: GltfRig): { clip: Clip; whole: Clip } | undefined {
  let clip: Clip;
  if (!isGltfPath(def.source)) {
    for (const key of ['animation', 'sampleRate'] as const) {
      if (def[key] !== undefined) problems.add(['clips', name, key], 'schema', `${quoted(key)} applies to glTF sources (.glb, .gltf) only`);
    }
  }
  if (def.source.startsWith('builtin:')) {
    const builtin = def.source.slice('builtin:'.length);
    if (!BUILTIN_CLIP_NAMES.includes(builtin)) {
      problems.add(['clips', name, 'source'], 'clip-file', `no built-in clip ${quoted(builtin)} (have: ${BUILTIN_CLIP_NAMES.join(', ')})`);
      return undefined;
    }
    clip = sampleClip(builtin);
  } else if (isGltfPath(def.source)) {
    const loaded = loadGltfClip(name, def, files, problems, rig);
    if (!loaded) return undefined;
    clip = loaded;
  } else {
    const loaded = files.loadBvh(def.source);
    if (loaded instanceof Error) {
      reportFileError(loaded, ['clips', name, 'source'], problems);
      return undefined;
    }
    clip = loaded.clip;
  }
  const [first, last] = def.frames ?? [0, -1];
  const end = last < 0 ? clip.frameCount + last : last;
  if (first < 0 || end >= clip.frameCount || end < first) {
    problems.add(['clips', name, 'frames'], 'clip-frames', `frames [${first}, ${last}] are outside the clip's 0..${clip.frameCount - 1}`);
    return undefined;
  }
  return { clip: clip.sliceFrames(first, last, name, def.interpolation ?? 'slerp'), whole: clip };
}


/** Markers by increasing time (stable for equal times), each checked to lie within the kept frames. */
function setSyncMarkers(clip: Clip, markers: readonly SyncMarker[], at: readonly PropertyKey[], problems: Problems): void {
  markers.forEach((m, i) => {
    if (m.time > clip.duration) problems.add([...at, i, 'time'], 'schema', `sync marker ${quoted(m.name)} at ${m.time} s is past the clip's end (${clip.duration} s)`);
  });
  clip.syncMarkers = markers.filter((m) => m.time <= clip.duration).map((m) => ({ name: m.name, time: m.time })).sort((a, b) => a.time - b.time);
}
