import { Clip, clipTimingProblem, MAX_CLIP_FRAME_TRACKS, MIN_FRAME_TIME, type TrackLayout } from '../core/clip.ts';
import { quatNormalize, quatSlerp, transformCompose } from '../core/math.ts';
import { Pose } from '../core/pose.ts';
import { Skeleton } from '../core/skeleton.ts';
import { nameList } from '../core/names.ts';

/*
 * glTF 2.0 import: a skin's joints as a Skeleton, animations as Clips. It reads bytes, never paths
 * (no node:* imports), so the same code loads a .glb or .gltf from a file, a fetch or a test.
 *
 * The reader is written here rather than taken from @gltf-transform/core because that library only
 * reads asynchronously (WebIO.readBinary / readJSON return promises) and graphs load synchronously
 * (loadGraphFile, validate, crowd workers). It reads only what animation needs (nodes, skins,
 * animations and the accessors they name) and checks all of it, so a hostile file gives a
 * GltfError naming the glTF element at fault (`accessors[12]`), never a TypeError or a NaN.
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

export type GltfErrorCode =
  | 'malformed' | 'unreadable' | 'unknown-skin' | 'unknown-animation' | 'empty-animation' | 'skin-not-tree' | 'too-large';

/** A glTF file that cannot be used, with every problem found, each naming the glTF element at fault. */
export class GltfError extends Error {
  constructor(readonly source: string, readonly code: GltfErrorCode, readonly problems: readonly string[]) {
    super(`${source}: ${problems.join('; ')}`);
    this.name = 'GltfError';
  }
}

export interface GltfReadOptions {
  /** Name used in error messages (usually the file path). */
  source?: string;
  /**
   * The bytes of a buffer that a .gltf names by URI (not a data: URI), relative to the .gltf.
   * Return undefined or throw when it cannot be had; only buffers the import uses are asked for.
   */
  readUri?: (uri: string) => Uint8Array | undefined;
}

type Json = Record<string, unknown>;

const GLB_MAGIC = 0x46546c67;
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;
/** Values one accessor may hold: a bound on what a file can make us allocate (with MAX_CLIP_FRAME_TRACKS). */
const MAX_ACCESSOR_VALUES = 1 << 24;
const DEFAULT_SAMPLE_RATE = 30;
const MAX_SAMPLE_RATE = 1000;
/** Seconds within which a frame time counts as a key's time (float32 key times are off by ~1e-7). */
const KEY_TIME_TOLERANCE = 1e-5;

const COMPONENT_SIZE: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const TYPE_SIZE: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isIndex = (v: unknown, length: number): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) < length;
const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
const finiteArray = (v: unknown, length: number): v is number[] =>
  Array.isArray(v) && v.length === length && v.every((x) => typeof x === 'number' && Number.isFinite(x));

/** A parsed glTF file: its JSON checked where the import reads it, its buffers decoded on first use. */
export class GltfDocument {
  readonly source: string;
  readonly json: Json;
  /** Each node's parent node, or -1 for a scene root. */
  readonly nodeParents: Int32Array;
  private readonly nodes: readonly Json[];
  private readonly bin: Uint8Array | null;
  private readonly readUri: GltfReadOptions['readUri'];
  private readonly buffers = new Map<number, Uint8Array>();

  /** Use readGltf. */
  constructor(source: string, json: Json, bin: Uint8Array | null, readUri: GltfReadOptions['readUri']) {
    this.source = source;
    this.json = json;
    this.bin = bin;
    this.readUri = readUri;
    const problems: string[] = [];
    const list = (key: string): Json[] => {
      const v = json[key];
      if (v === undefined) return [];
      if (!Array.isArray(v)) {
        problems.push(`${key} is not an array`);
        return [];
      }
      v.forEach((item, i) => {
        if (!isObject(item)) problems.push(`${key}[${i}] is not an object`);
      });
      return v as Json[];
    };
    const asset = json.asset;
    if (!isObject(asset) || typeof asset.version !== 'string' || !asset.version.startsWith('2.')) {
      problems.push(`asset.version must be "2.x" (glTF 2.0), found ${isObject(asset) ? JSON.stringify(asset.version) : 'no asset'}`);
    }
    for (const key of ['skins', 'animations', 'accessors', 'bufferViews', 'buffers']) list(key);
    this.nodes = list('nodes');
    this.nodeParents = new Int32Array(this.nodes.length).fill(-1);
    if (problems.length === 0) this.checkNodes(problems);
    if (problems.length > 0) throw new GltfError(source, 'malformed', problems);
  }

  get nodeCount(): number {
    return this.nodes.length;
  }

  /** Animation names in file order; an unnamed one is listed as `#index`. */
  get animationNames(): string[] {
    return this.array('animations').map((a, i) => (isObject(a) && typeof a.name === 'string' ? a.name : `#${i}`));
  }

  /** Skin names in file order; an unnamed one is listed as `#index`. */
  get skinNames(): string[] {
    return this.array('skins').map((s, i) => (isObject(s) && typeof s.name === 'string' ? s.name : `#${i}`));
  }

  /** The node's name, or `node<index>` for an unnamed node. */
  nodeName(node: number): string {
    const name = this.nodes[node].name;
    return typeof name === 'string' && name.length > 0 ? name : `node${node}`;
  }

  /** Writes the node's rest transform (its TRS, or its matrix decomposed) as bone `bone` of the arrays. */
  nodeTransform(node: number, t: Float64Array, r: Float64Array, s: Float64Array, bone: number): void {
    const n = this.nodes[node];
    const t3 = bone * 3, r4 = bone * 4;
    if (n.matrix !== undefined) {
      decomposeMatrix(n.matrix as number[], t, r, s, bone);
      return;
    }
    const tr = (n.translation as number[] | undefined) ?? [0, 0, 0];
    const ro = (n.rotation as number[] | undefined) ?? [0, 0, 0, 1];
    const sc = (n.scale as number[] | undefined) ?? [1, 1, 1];
    t[t3] = tr[0]; t[t3 + 1] = tr[1]; t[t3 + 2] = tr[2];
    r[r4] = ro[0]; r[r4 + 1] = ro[1]; r[r4 + 2] = ro[2]; r[r4 + 3] = ro[3];
    quatNormalize(r, r4);
    s[t3] = sc[0]; s[t3 + 1] = sc[1]; s[t3 + 2] = sc[2];
  }

  fail(code: GltfErrorCode, ...problems: string[]): never {
    throw new GltfError(this.source, code, problems);
  }

  /** A top-level array of the JSON (checked to be an array of objects at construction), or []. */
  array(key: string): Json[] {
    const v = this.json[key];
    return Array.isArray(v) ? (v as Json[]) : [];
  }

  /**
   * An accessor's values as doubles: floats as stored, normalised integers mapped to [-1, 1] or
   * [0, 1] as glTF defines, sparse substitutions applied. `types` and `componentTypes` are what the
   * caller accepts; `where` names the referring element for messages.
   */
  readAccessor(index: unknown, where: string, types: readonly string[], normalizedIntegers = false): { values: Float64Array; count: number; size: number } {
    const accessors = this.array('accessors');
    if (!isIndex(index, accessors.length)) this.fail('malformed', `${where} names accessor ${JSON.stringify(index)}, but the file has ${accessors.length}`);
    const at = `accessors[${index}]`;
    const a = accessors[index];
    const { componentType, count, type } = a;
    const normalized = a.normalized === true;
    if (typeof type !== 'string' || !types.includes(type)) this.fail('malformed', `${at} (${where}) has type ${JSON.stringify(type)}, expected ${types.join(' or ')}`);
    const float = componentType === 5126;
    if (!float && !(normalizedIntegers && normalized && (componentType === 5120 || componentType === 5121 || componentType === 5122 || componentType === 5123))) {
      this.fail('malformed', `${at} (${where}) has componentType ${JSON.stringify(componentType)}${normalized ? ' (normalized)' : ''}, expected 5126 (float)${normalizedIntegers ? ' or a normalized byte or short' : ''}`);
    }
    if (!Number.isInteger(count) || (count as number) < 1) this.fail('malformed', `${at} count must be a positive integer, found ${JSON.stringify(count)}`);
    const size = TYPE_SIZE[type];
    const n = count as number;
    if (n * size > MAX_ACCESSOR_VALUES) this.fail('too-large', `${at} holds ${n * size} values, more than the ${MAX_ACCESSOR_VALUES} an import reads`);
    const values = new Float64Array(n * size);
    const componentBytes = COMPONENT_SIZE[componentType as number];
    const elementBytes = componentBytes * size;
    if (a.bufferView !== undefined) {
      const view = this.bufferView(a.bufferView, at);
      const offset = a.byteOffset ?? 0;
      if (!isCount(offset)) this.fail('malformed', `${at}.byteOffset must be a non-negative integer`);
      const stride = view.stride ?? elementBytes;
      if (stride < elementBytes) this.fail('malformed', `${at}: bufferView ${a.bufferView} has byteStride ${stride}, less than the ${elementBytes} bytes of one element`);
      const end = offset + stride * (n - 1) + elementBytes;
      if (end > view.bytes.byteLength) {
        this.fail('malformed', `${at}: ${n} elements of ${elementBytes} bytes from byte ${offset} (stride ${stride}) end at byte ${end}, past the ${view.bytes.byteLength} bytes of bufferView ${a.bufferView} (accessor out of range)`);
      }
      const data = new DataView(view.bytes.buffer, view.bytes.byteOffset, view.bytes.byteLength);
      for (let e = 0; e < n; e++) {
        const base = offset + e * stride;
        for (let c = 0; c < size; c++) values[e * size + c] = readComponent(data, base + c * componentBytes, componentType as number, normalized);
      }
    }
    if (a.sparse !== undefined) this.applySparse(a.sparse, at, values, n, size, componentType as number, normalized);
    for (let i = 0; i < values.length; i++) {
      if (!Number.isFinite(values[i])) this.fail('malformed', `${at} holds a value that is not a finite number (element ${Math.floor(i / size)})`);
    }
    return { values, count: n, size };
  }

  private applySparse(sparse: unknown, at: string, values: Float64Array, n: number, size: number, componentType: number, normalized: boolean): void {
    const where = `${at}.sparse`;
    if (!isObject(sparse) || !isObject(sparse.indices) || !isObject(sparse.values)) this.fail('malformed', `${where} needs count, indices and values`);
    const count = sparse.count;
    if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > n) this.fail('malformed', `${where}.count must be 1..${n}, found ${JSON.stringify(count)}`);
    const k = count as number;
    const indexType = sparse.indices.componentType;
    if (indexType !== 5121 && indexType !== 5123 && indexType !== 5125) this.fail('malformed', `${where}.indices.componentType must be 5121, 5123 or 5125`);
    const indexBytes = COMPONENT_SIZE[indexType as number];
    const valueBytes = COMPONENT_SIZE[componentType] * size;
    const indexView = this.bufferView(sparse.indices.bufferView, `${where}.indices`);
    const valueView = this.bufferView(sparse.values.bufferView, `${where}.values`);
    const io = sparse.indices.byteOffset ?? 0, vo = sparse.values.byteOffset ?? 0;
    if (!isCount(io) || !isCount(vo)) this.fail('malformed', `${where}: byteOffset must be a non-negative integer`);
    if (io + k * indexBytes > indexView.bytes.byteLength || vo + k * valueBytes > valueView.bytes.byteLength) {
      this.fail('malformed', `${where}: ${k} sparse elements run past their bufferView (accessor out of range)`);
    }
    const iv = new DataView(indexView.bytes.buffer, indexView.bytes.byteOffset, indexView.bytes.byteLength);
    const vv = new DataView(valueView.bytes.buffer, valueView.bytes.byteOffset, valueView.bytes.byteLength);
    for (let e = 0; e < k; e++) {
      const target = readComponent(iv, io + e * indexBytes, indexType as number, false);
      if (target >= n) this.fail('malformed', `${where}: index ${target} is past the accessor's ${n} elements (accessor out of range)`);
      for (let c = 0; c < size; c++) values[target * size + c] = readComponent(vv, vo + e * valueBytes + c * COMPONENT_SIZE[componentType], componentType, normalized);
    }
  }

  private bufferView(index: unknown, where: string): { bytes: Uint8Array; stride: number | undefined } {
    const views = this.array('bufferViews');
    if (!isIndex(index, views.length)) this.fail('malformed', `${where} names bufferView ${JSON.stringify(index)}, but the file has ${views.length}`);
    const at = `bufferViews[${index}]`;
    const v = views[index];
    const offset = v.byteOffset ?? 0, length = v.byteLength, stride = v.byteStride;
    if (!isCount(offset) || !Number.isInteger(length) || (length as number) < 1) this.fail('malformed', `${at} needs a positive byteLength and a non-negative byteOffset`);
    if (stride !== undefined && !(Number.isInteger(stride) && (stride as number) >= 4 && (stride as number) <= 252)) {
      this.fail('malformed', `${at}.byteStride must be an integer in 4..252, found ${JSON.stringify(stride)}`);
    }
    const buffer = this.buffer(v.buffer, at);
    if (offset + (length as number) > buffer.byteLength) {
      this.fail('malformed', `${at}: bytes ${offset}..${offset + (length as number)} are past the ${buffer.byteLength} bytes of buffer ${v.buffer} (out of range)`);
    }
    return { bytes: buffer.subarray(offset, offset + (length as number)), stride: stride as number | undefined };
  }

  private buffer(index: unknown, where: string): Uint8Array {
    const buffers = this.array('buffers');
    if (!isIndex(index, buffers.length)) this.fail('malformed', `${where} names buffer ${JSON.stringify(index)}, but the file has ${buffers.length}`);
    const cached = this.buffers.get(index);
    if (cached) return cached;
    const at = `buffers[${index}]`;
    const b = buffers[index];
    const declared = b.byteLength;
    if (!Number.isInteger(declared) || (declared as number) < 1) this.fail('malformed', `${at}.byteLength must be a positive integer`);
    let bytes: Uint8Array | undefined;
    if (b.uri === undefined) {
      if (index !== 0 || this.bin === null) this.fail('malformed', `${at} has no uri and is not the GLB's binary chunk`);
      bytes = this.bin;
    } else if (typeof b.uri !== 'string') {
      this.fail('malformed', `${at}.uri is not a string`);
    } else if (b.uri.startsWith('data:')) {
      bytes = decodeDataUri(b.uri);
      if (bytes === undefined) this.fail('malformed', `${at}: its data: URI is not valid base64`);
    } else {
      let error = 'no way to read files was given';
      try {
        if (this.readUri) {
          bytes = this.readUri(b.uri);
          error = 'not found';
        }
      } catch (e) {
        error = (e as Error).message;
      }
      if (bytes === undefined) this.fail('unreadable', `${at}: cannot read '${b.uri}': ${error}`);
    }
    if (bytes.byteLength < (declared as number)) this.fail('malformed', `${at} declares ${declared} bytes but has ${bytes.byteLength}`);
    const out = bytes.subarray(0, declared as number);
    this.buffers.set(index, out);
    return out;
  }

  /** Children arrays checked, one parent per node, no cycles; node transforms well-formed. */
  private checkNodes(problems: string[]): void {
    const nodes = this.nodes, parents = this.nodeParents;
    nodes.forEach((node, i) => {
      const at = `nodes[${i}]`;
      if (node.name !== undefined && typeof node.name !== 'string') problems.push(`${at}.name is not a string`);
      if (node.matrix !== undefined && !finiteArray(node.matrix, 16)) problems.push(`${at}.matrix must be 16 finite numbers`);
      if (node.translation !== undefined && !finiteArray(node.translation, 3)) problems.push(`${at}.translation must be 3 finite numbers`);
      if (node.scale !== undefined && !finiteArray(node.scale, 3)) problems.push(`${at}.scale must be 3 finite numbers`);
      if (node.rotation !== undefined) {
        if (!finiteArray(node.rotation, 4)) problems.push(`${at}.rotation must be 4 finite numbers`);
        else if (!((node.rotation as number[]).reduce((sum, x) => sum + x * x, 0) > 1e-12)) problems.push(`${at}.rotation is a zero quaternion`);
      }
      if (node.children === undefined) return;
      if (!Array.isArray(node.children)) {
        problems.push(`${at}.children is not an array`);
        return;
      }
      node.children.forEach((child: unknown, c) => {
        if (!isIndex(child, nodes.length)) problems.push(`${at}.children[${c}] is ${JSON.stringify(child)}, not a node index`);
        else if (child === i) problems.push(`${at} lists itself as a child`);
        else if (parents[child] >= 0) problems.push(`nodes[${child}] is a child of both nodes[${parents[child]}] and ${at}: node hierarchies are trees`);
        else parents[child] = i;
      });
    });
    if (problems.length > 0) return;
    // With one parent per node, a cycle is a chain that never reaches a root. Marks: 1 on the
    // chain being walked, 2 known to reach a root.
    const mark = new Uint8Array(nodes.length);
    for (let start = 0; start < nodes.length; start++) {
      let n = start;
      while (n >= 0 && mark[n] === 0) {
        mark[n] = 1;
        n = parents[n];
      }
      const cyclic = n >= 0 && mark[n] === 1;
      for (let m = start; m >= 0 && mark[m] === 1; m = parents[m]) mark[m] = 2;
      if (cyclic) {
        problems.push(`nodes[${n}] is its own ancestor: node hierarchies are trees`);
        return;
      }
    }
  }
}

function readComponent(data: DataView, offset: number, componentType: number, normalized: boolean): number {
  switch (componentType) {
    case 5126: return data.getFloat32(offset, true);
    case 5120: { const v = data.getInt8(offset); return normalized ? Math.max(v / 127, -1) : v; }
    case 5121: { const v = data.getUint8(offset); return normalized ? v / 255 : v; }
    case 5122: { const v = data.getInt16(offset, true); return normalized ? Math.max(v / 32767, -1) : v; }
    case 5123: { const v = data.getUint16(offset, true); return normalized ? v / 65535 : v; }
    default: return data.getUint32(offset, true);
  }
}

/** The bytes of a `data:` URI (base64 or percent-encoded), or undefined when it does not decode. */
function decodeDataUri(uri: string): Uint8Array | undefined {
  const comma = uri.indexOf(',');
  if (comma < 0) return undefined;
  const data = uri.slice(comma + 1);
  try {
    if (uri.slice(0, comma).endsWith(';base64')) {
      const text = atob(data);
      const bytes = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
      return bytes;
    }
    return new TextEncoder().encode(decodeURIComponent(data));
  } catch {
    return undefined;
  }
}

/**
 * Parses a .glb (told apart by its magic) or a .gltf's text. Checks the container, the JSON, the
 * asset version and the node hierarchy; accessors and buffers are checked when an import reads them.
 * Throws GltfError ('malformed') for a file that is not glTF 2.0.
 */
export function readGltf(bytes: Uint8Array | ArrayBuffer, options: GltfReadOptions = {}): GltfDocument {
  const source = options.source ?? '<gltf>';
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const fail = (...problems: string[]): never => {
    throw new GltfError(source, 'malformed', problems);
  };
  const view = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  let text: string;
  let bin: Uint8Array | null = null;
  if (u8.byteLength >= 4 && view.getUint32(0, true) === GLB_MAGIC) {
    if (u8.byteLength < 20) fail(`a GLB needs a 20-byte header, the file has ${u8.byteLength} bytes`);
    const version = view.getUint32(4, true);
    if (version !== 2) fail(`GLB version ${version}; only version 2 (glTF 2.0) is read`);
    const total = view.getUint32(8, true);
    if (total > u8.byteLength) fail(`the GLB header says ${total} bytes, the file has ${u8.byteLength} (truncated)`);
    const jsonLength = view.getUint32(12, true);
    if (view.getUint32(16, true) !== CHUNK_JSON) fail('the first GLB chunk is not JSON');
    if (20 + jsonLength > total) fail(`the GLB's JSON chunk of ${jsonLength} bytes runs past the file's ${total} bytes`);
    text = decodeText(u8.subarray(20, 20 + jsonLength));
    const next = 20 + jsonLength;
    if (next + 8 <= total && view.getUint32(next + 4, true) === CHUNK_BIN) {
      const binLength = view.getUint32(next, true);
      if (next + 8 + binLength > total) fail(`the GLB's binary chunk of ${binLength} bytes runs past the file's ${total} bytes`);
      bin = u8.subarray(next + 8, next + 8 + binLength);
    }
  } else {
    text = decodeText(u8);
  }
  let json: unknown;
  try {
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    fail(`not glTF: neither a GLB nor JSON (${(e as Error).message.replace(/\s+/g, ' ')})`);
  }
  if (!isObject(json)) fail('not glTF: the JSON is not an object');
  return new GltfDocument(source, json as Json, bin, options.readUri);
}

function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}

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

  // Bones: the joints and the non-joint nodes between a joint and its nearest joint ancestor.
  const boneSet = new Set<number>(jointNodes);
  const tops: number[] = [];
  for (const j of jointNodes) {
    const chain: number[] = [];
    let p = parents[j];
    while (p >= 0 && !jointSet.has(p)) {
      chain.push(p);
      p = parents[p];
    }
    if (p >= 0) for (const n of chain) boneSet.add(n);
    else tops.push(j);
  }
  let root = tops[0];
  if (tops.length > 1) {
    // Several top joints: their closest common ancestor node is the root, with the nodes between.
    const ancestorsOf = (n: number): number[] => {
      const out: number[] = [];
      for (let p = parents[n]; p >= 0; p = parents[p]) out.push(p);
      return out;
    };
    const candidates = ancestorsOf(tops[0]);
    const others = tops.slice(1).map((t) => new Set(ancestorsOf(t)));
    const common = candidates.find((c) => others.every((s) => s.has(c)));
    if (common === undefined) {
      const sceneRoot = (n: number) => {
        while (parents[n] >= 0) n = parents[n];
        return n;
      };
      const lone = tops.find((t) => sceneRoot(t) !== sceneRoot(tops[0])) ?? tops[1];
      doc.fail('skin-not-tree', `${at}: joints '${doc.nodeName(tops[0])}' (node ${tops[0]}) and '${doc.nodeName(lone)}' (node ${lone}) have no common ancestor node, so the skin's joints are not one tree`);
    }
    root = common;
    boneSet.add(root);
    for (const t of tops) for (let p = parents[t]; p !== root; p = parents[p]) boneSet.add(p);
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

/** A column-major 4x4 matrix as translation, rotation and scale (a negative determinant flips x's scale). */
function decomposeMatrix(m: readonly number[], t: Float64Array, r: Float64Array, s: Float64Array, bone: number): void {
  const t3 = bone * 3, r4 = bone * 4;
  t[t3] = m[12]; t[t3 + 1] = m[13]; t[t3 + 2] = m[14];
  let sx = Math.hypot(m[0], m[1], m[2]);
  const sy = Math.hypot(m[4], m[5], m[6]), sz = Math.hypot(m[8], m[9], m[10]);
  const det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) + m[8] * (m[1] * m[6] - m[2] * m[5]);
  if (det < 0) sx = -sx;
  s[t3] = sx; s[t3 + 1] = sy; s[t3 + 2] = sz;
  if (sx === 0 || sy === 0 || sz === 0) {
    // A collapsed axis has no rotation to recover.
    r[r4] = 0; r[r4 + 1] = 0; r[r4 + 2] = 0; r[r4 + 3] = 1;
    return;
  }
  const m00 = m[0] / sx, m10 = m[1] / sx, m20 = m[2] / sx;
  const m01 = m[4] / sy, m11 = m[5] / sy, m21 = m[6] / sy;
  const m02 = m[8] / sz, m12 = m[9] / sz, m22 = m[10] / sz;
  const trace = m00 + m11 + m22;
  let x: number, y: number, z: number, w: number;
  if (trace > 0) {
    const k = 0.5 / Math.sqrt(trace + 1);
    w = 0.25 / k; x = (m21 - m12) * k; y = (m02 - m20) * k; z = (m10 - m01) * k;
  } else if (m00 > m11 && m00 > m22) {
    const k = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (m21 - m12) / k; x = 0.25 * k; y = (m01 + m10) / k; z = (m02 + m20) / k;
  } else if (m11 > m22) {
    const k = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (m02 - m20) / k; x = (m01 + m10) / k; y = 0.25 * k; z = (m12 + m21) / k;
  } else {
    const k = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (m10 - m01) / k; x = (m02 + m20) / k; y = (m12 + m21) / k; z = 0.25 * k;
  }
  r[r4] = x; r[r4 + 1] = y; r[r4 + 2] = z; r[r4 + 3] = w;
  quatNormalize(r, r4);
}
