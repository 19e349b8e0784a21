import { quatNormalize } from '../core/math.ts';
import { AnimGraphError } from '../core/errors.ts';
import { decodeDataUri, gltfUriOutsideFolder } from './gltf-uri.ts';

/*
 * The glTF 2.0 container: a .glb's chunks or a .gltf's text parsed, the JSON checked where the
 * import (gltf.ts) reads it, accessors, buffer views and buffers (the GLB's binary chunk, data:
 * URIs, or bytes the caller reads) decoded on first use. It reads bytes, never paths (no node:*
 * imports), so the same code loads a .glb or .gltf from a file, a fetch or a test.
 *
 * The reader is written here rather than taken from @gltf-transform/core because that library only
 * reads asynchronously (WebIO.readBinary / readJSON return promises) and graphs load synchronously
 * (loadGraphFile, validate, crowd workers). It reads only what animation needs (nodes, skins,
 * animations and the accessors they name) and checks all of it, so a hostile file gives a
 * GltfError naming the glTF element at fault (`accessors[12]`), never a TypeError or a NaN.
 */

/** What is wrong with a glTF file, more finely than its AnimGraphError code: a GltfError's `gltfCode`. */
export type GltfErrorCode =
  | 'malformed' | 'unreadable' | 'unknown-skin' | 'unknown-animation' | 'empty-animation' | 'skin-not-tree' | 'too-large';

/**
 * A glTF file that cannot be used, with every problem found, each naming the glTF element at
 * fault. Its `code` is `unknown-name` for a skin or animation the file does not have, `bad-file`
 * for anything else; `gltfCode` says which.
 */
export class GltfError extends AnimGraphError {
  constructor(readonly source: string, readonly gltfCode: GltfErrorCode, readonly problems: readonly string[]) {
    super(gltfCode === 'unknown-skin' || gltfCode === 'unknown-animation' ? 'unknown-name' : 'bad-file', `${source}: ${problems.join('; ')}`);
    this.name = 'GltfError';
  }
}

export { decodeGltfUri, gltfUriOutsideFolder } from './gltf-uri.ts';

export interface GltfReadOptions {
  /** Name used in error messages (usually the file path). */
  source?: string;
  /**
   * The bytes of a buffer that a .gltf names by URI (not a data: URI), relative to the .gltf.
   * Return undefined or throw when it cannot be had; only buffers the import uses are asked for.
   */
  readUri?: (uri: string) => Uint8Array | undefined;
  /**
   * True to let `readUri` be asked for a URI outside the .gltf's own folder (an absolute path, a
   * URL with a scheme such as `file:`, or `..` climbing above the folder; see
   * gltfUriOutsideFolder). By default such a buffer is not read: a GltfError (`unreadable`) says why.
   */
  allowUrisOutsideFolder?: boolean;
}

type Json = Record<string, unknown>;

const GLB_MAGIC = 0x46546c67;
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;
/**
 * The most nodes a glTF file may have. Reading them is linear (a million take about a second),
 * so this only bounds what a file can make an import allocate and walk: GltfError 'too-large'
 * before any node is checked.
 */
export const MAX_GLTF_NODES = 1_000_000;
/** Values one accessor may hold: a bound on what a file can make us allocate (with MAX_CLIP_FRAME_TRACKS). */
const MAX_ACCESSOR_VALUES = 1 << 24;

const COMPONENT_SIZE: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const TYPE_SIZE: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isIndex = (v: unknown, length: number): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) < length;
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
  private readonly allowUrisOutsideFolder: boolean;
  private readonly buffers = new Map<number, Uint8Array>();

  /** Use readGltf. */
  constructor(source: string, json: Json, bin: Uint8Array | null, readUri: GltfReadOptions['readUri'], allowUrisOutsideFolder = false) {
    this.source = source;
    this.json = json;
    this.bin = bin;
    this.readUri = readUri;
    this.allowUrisOutsideFolder = allowUrisOutsideFolder;
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
    const nodeCount = Array.isArray(json.nodes) ? json.nodes.length : 0;
    if (nodeCount > MAX_GLTF_NODES) {
      throw new GltfError(source, 'too-large', [`the file has ${nodeCount.toLocaleString('en-US')} nodes, more than the ${MAX_GLTF_NODES.toLocaleString('en-US')} an import reads (MAX_GLTF_NODES)`]);
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
    } else if (/^data:/i.test(b.uri)) {
      const data = decodeDataUri(b.uri);
      if (typeof data === 'string') this.fail('malformed', `${at}: its data: URI ${data}`);
      bytes = data;
    } else {
      const outside = this.allowUrisOutsideFolder ? undefined : gltfUriOutsideFolder(b.uri);
      if (outside !== undefined) {
        this.fail('unreadable', `${at}: '${b.uri}' is not in the glTF's folder (${outside}): a .gltf's buffers are read from its own folder and below, unless the loader is given allowGltfUrisOutsideFolder`);
      }
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
  return new GltfDocument(source, json as Json, bin, options.readUri, options.allowUrisOutsideFolder === true);
}

function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
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
