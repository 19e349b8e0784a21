/**
 * `animgraph retarget`: bakes a clip of a graph asset, retargeted (and mirrored) as the asset says,
 * into a glTF file of the graph's skeleton, so that any glTF tool, or another graph, can play it.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { checkGraphAsset } from '../host/files.ts';
import { GraphLoadError } from '../graphs/loader.ts';
import type { Clip } from '../runtime/core/clip.ts';
import type { Skeleton } from '../runtime/core/skeleton.ts';
import { checkOutputFiles, loadGraphForOutputs, parseOptions, UsageError } from './common.ts';
import { writeOutputFile } from './output-file.ts';
import { skeletonMirrorTable } from '../runtime/core/mirror.ts';
import { retargetFootSlide } from '../runtime/jobs/retarget.ts';
import type { Io } from './io.ts';

export async function retargetCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions(args, { out: { type: 'string' } });
  if (positionals.length !== 2) throw new UsageError('needs a GRAPH file and the name of one of its clips');
  const [path, name] = positionals;
  const out = values.out as string | undefined;
  if (out === undefined) throw new UsageError('needs --out FILE.gltf');
  if (!/\.gltf$/i.test(out)) throw new UsageError(`--out ${out}: the baked clip is written as a .gltf file`);
  checkOutputFiles({ '--out': out }, path);
  const graph = loadGraphForOutputs(path, { '--out': out });
  const binding = graph.clipBindings.get(name);
  if (binding === undefined) throw new UsageError(`${path} has no clip '${name}' (clips: ${[...graph.clipBindings.keys()].join(', ')})`);
  let clip = binding.clip;
  if (clip.rootMotion !== null) {
    // The asset takes root motion out of the keys; the file keeps the motion in them (a graph
    // playing the file extracts it again with its own `rootMotion`).
    const asset = JSON.parse(readFileSync(path, 'utf8'));
    delete asset.clips[name].rootMotion;
    const again = checkGraphAsset(asset, { baseDir: dirname(path), source: path });
    if (!again.ok) throw new GraphLoadError(path, again.problems);
    clip = again.graph.clipBindings.get(name)!.clip;
  }
  writeOutputFile(out, JSON.stringify(clipGltf(clip, graph.skeleton, name)));
  io.out(`wrote ${out}: clip '${name}', ${clip.frameCount} frames at ${clip.frameRate} fps on ${graph.skeleton.boneCount} bones\n`);
  const retarget = clip.retarget;
  if (retarget) {
    const sk = graph.skeleton;
    const mapped = sk.boneNames.flatMap((bone, b) => (retarget.map[b] >= 0 ? [`  ${bone} <- ${retarget.sourceBones[retarget.map[b]]}`] : []));
    const unmapped = sk.boneNames.filter((_, b) => retarget.map[b] < 0);
    io.out(`retargeted from ${retarget.sourceBones.length} source bones: root ${sk.boneNames[retarget.root]}, translation scale ${retarget.scale.toPrecision(6)} (hip heights)\n`);
    io.out(`${mapped.length} bones mapped:\n${mapped.join('\n')}\n`);
    io.out(`${unmapped.length} bones keep the reference pose${unmapped.length > 0 ? `: ${unmapped.join(', ')}` : ''}\n`);
    const slides = retargetFootSlide(clip, sk, skeletonMirrorTable(sk).partner);
    if (slides.length > 0) {
      io.out('planted-foot slide, per frame where the source foot is planted (source units; the target\'s divided by the scale):\n');
      for (const s of slides) {
        io.out(`  ${s.sourceBone} -> ${s.targetBone}: source ${s.source.toPrecision(3)}, target ${s.target.toPrecision(3)} over ${s.frames} planted frames\n`);
      }
    }
  }
  return 0;
}

/**
 * A glTF 2.0 document holding the skeleton as a node hierarchy (its reference pose as the nodes'
 * transforms) and the clip as one animation: LINEAR channels, keys in single precision as glTF
 * stores them, each track's attributes at the clip's frames. Its buffer is embedded (base64).
 */
export function clipGltf(clip: Clip, skeleton: Skeleton, name: string): Record<string, unknown> {
  const n = skeleton.boneCount, ref = skeleton.referencePose, parents = skeleton.parents;
  const nodes = skeleton.boneNames.map((bone, b) => {
    const node: Record<string, unknown> = {
      name: bone,
      translation: Array.from(ref.translations.subarray(b * 3, b * 3 + 3)),
      rotation: Array.from(ref.rotations.subarray(b * 4, b * 4 + 4)),
      scale: Array.from(ref.scales.subarray(b * 3, b * 3 + 3)),
    };
    const children = [];
    for (let c = b + 1; c < n; c++) if (parents[c] === b) children.push(c);
    if (children.length > 0) node.children = children;
    return node;
  });
  const roots = skeleton.boneNames.flatMap((_, b) => (parents[b] < 0 ? [b] : []));
  const chunks: Float32Array[] = [];
  const accessors: Record<string, unknown>[] = [];
  const bufferViews: Record<string, unknown>[] = [];
  let offset = 0;
  const add = (data: Float32Array, type: string, minMax = false): number => {
    bufferViews.push({ buffer: 0, byteOffset: offset, byteLength: data.byteLength });
    const accessor: Record<string, unknown> = { bufferView: bufferViews.length - 1, componentType: 5126, count: data.length / (type === 'SCALAR' ? 1 : type === 'VEC3' ? 3 : 4), type };
    if (minMax) {
      accessor.min = [data[0]];
      accessor.max = [data[data.length - 1]];
    }
    accessors.push(accessor);
    chunks.push(data);
    offset += data.byteLength;
    return accessors.length - 1;
  };
  const frames = clip.frameCount;
  const times = add(Float32Array.from({ length: frames }, (_, f) => f / clip.frameRate), 'SCALAR', true);
  const samplers: Record<string, unknown>[] = [];
  const channels: Record<string, unknown>[] = [];
  const tracks = clip.tracks.length;
  clip.tracks.forEach((track, t) => {
    const node = skeleton.indexOf(track.bone);
    if (node < 0) return;
    for (const [path, values, width] of [['translation', clip.translations, 3], ['rotation', clip.rotations, 4], ['scale', clip.scales, 3]] as const) {
      if (!track[path]) continue;
      const keys = new Float32Array(frames * width);
      for (let f = 0; f < frames; f++) for (let k = 0; k < width; k++) keys[f * width + k] = values[(f * tracks + t) * width + k];
      samplers.push({ input: times, output: add(keys, width === 3 ? 'VEC3' : 'VEC4'), interpolation: 'LINEAR' });
      channels.push({ sampler: samplers.length - 1, target: { node, path } });
    }
  });
  const bytes = new Uint8Array(offset);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength), at);
    at += chunk.byteLength;
  }
  return {
    asset: { version: '2.0', generator: 'animgraph retarget' },
    scene: 0,
    scenes: [{ nodes: roots }],
    nodes,
    buffers: [{ byteLength: offset, uri: `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}` }],
    bufferViews,
    accessors,
    animations: [{ name, channels, samplers }],
  };
}
