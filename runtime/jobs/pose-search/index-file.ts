/** Index files: a database written by `animgraph index` and read back instead of being rebuilt. */
import { createSha256, type Sha256Hash } from '../../core/sha256.ts';
import { AnimGraphError } from '../../core/errors.ts';
import { PoseSearchDatabase, type IndexedClip, type PoseSearchDatabaseData } from './database.ts';
import type { CanonicalFeatureSpec, PoseFeatureSchema } from './features.ts';
import { poseSearchHash, type PoseSearchHash } from './hash.ts';

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
const BIG_ENDIAN = 'pose index files are little-endian; this host is big-endian';
const pad8 = (n: number) => (n + 7) & ~7;

function indexChecksum(headerWithoutChecksum: object, data: Uint8Array): string {
  return createSha256().update(JSON.stringify(headerWithoutChecksum)).update(data).digestHex();
}

/**
 * An index file: the magic `AGPSIDX1`, the header's byte length (uint32 little-endian), the header
 * (JSON: format, hashes, feature schema, clips, layout, checksum), zero padding to a multiple of 8,
 * then each section's raw little-endian array (float64 or int32), each padded to a multiple of 8.
 */
export function serializePoseSearchDatabase(db: PoseSearchDatabase): Uint8Array {
  if (!littleEndian) throw new AnimGraphError('not-supported', BIG_ENDIAN);
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

/** PoseIndexError's code (`bad-file` unless given) and cause. */
export interface PoseIndexErrorOptions extends ErrorOptions {
  code?: 'bad-file' | 'not-supported';
}

/**
 * An index file that cannot be read, or does not match what it is loaded for: code `bad-file`, or
 * `not-supported` on a big-endian host.
 */
export class PoseIndexError extends AnimGraphError {
  /**
   * `stale`: a valid index of other data (features, skeleton or clips changed). `foreign`: not an
   * index file at all (no `animgraph index` header), so perhaps the wrong path rather than a file to
   * overwrite.
   */
  constructor(message: string, readonly stale = false, readonly foreign = false, options: PoseIndexErrorOptions = {}) {
    super(options.code ?? 'bad-file', message, 'cause' in options ? { cause: options.cause } : undefined);
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
  if (!littleEndian) throw new PoseIndexError(BIG_ENDIAN, false, false, { code: 'not-supported' });
  try {
    return readIndexFile(bytes, schema, clips);
  } catch (e) {
    if (e instanceof PoseIndexError) throw e;
    // Whatever got past the checks below is still a bad file, not a crash of the loader.
    throw new PoseIndexError(`the index file is malformed (${(e as Error).message})`, false, false, { cause: e });
  }
}

function readIndexFile(bytes: Uint8Array, schema: PoseFeatureSchema, clips: readonly IndexedClip[]): PoseSearchDatabase {
  const text = new TextDecoder();
  if (bytes.length < 12 || text.decode(bytes.subarray(0, 8)) !== MAGIC) throw new PoseIndexError('not a pose-search index file (written by `animgraph index`)', false, true);
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
