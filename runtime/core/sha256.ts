/**
 * SHA-256 (FIPS 180-4), pure and synchronous, so that pose-search hashes and index-file checksums
 * need no node:crypto (which a browser lacks, and whose Web Crypto replacement is async only).
 * Digests are byte-identical to node:crypto's; strings are hashed as their UTF-8 bytes, as
 * node:crypto's update(string) does.
 */
import { AnimGraphError } from './errors.ts';

// Int32 rather than Uint32 arrays: V8 keeps int32 values unboxed, but a uint32 above 2^31 is a double.
const K = Int32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
);

const utf8 = new TextEncoder();
/** The message schedule of the block being compressed (one for all hashes: compression does not nest). */
const W = new Int32Array(64);

/** An incremental SHA-256: update() any number of times, then digestHex() once. */
export class Sha256 {
  private readonly state = Int32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);
  /** The bytes of a block not yet complete. */
  private readonly pending = new Uint8Array(64);
  private readonly pendingView = new DataView(this.pending.buffer);
  private pendingLength = 0;
  /** Bytes hashed so far (below 2^53, which the length field's high bits then hold exactly). */
  private length = 0;
  private finished = false;

  update(data: Uint8Array | string): this {
    if (this.finished) throw new AnimGraphError('invalid-state', 'Sha256: update() after digestHex()');
    const bytes = typeof data === 'string' ? utf8.encode(data) : data;
    this.length += bytes.length;
    let at = 0;
    if (this.pendingLength > 0) {
      const take = Math.min(64 - this.pendingLength, bytes.length);
      this.pending.set(bytes.subarray(0, take), this.pendingLength);
      this.pendingLength += take;
      at = take;
      if (this.pendingLength < 64) return this;
      compress(this.state, this.pendingView, 0);
      this.pendingLength = 0;
    }
    if (at + 64 <= bytes.length) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (; at + 64 <= bytes.length; at += 64) compress(this.state, view, at);
    }
    this.pending.set(bytes.subarray(at), 0);
    this.pendingLength = bytes.length - at;
    return this;
  }

  /** The digest as 64 lowercase hex digits, what node:crypto's digest('hex') gives. */
  digestHex(): string {
    if (this.finished) throw new AnimGraphError('invalid-state', 'Sha256: digestHex() called twice');
    this.finished = true;
    const bits = this.length * 8;
    const p = this.pending, view = this.pendingView;
    p[this.pendingLength] = 0x80;
    p.fill(0, this.pendingLength + 1);
    if (this.pendingLength >= 56) {
      compress(this.state, view, 0);
      p.fill(0);
    }
    view.setUint32(56, Math.floor(bits / 0x100000000));
    view.setUint32(60, bits >>> 0);
    compress(this.state, view, 0);
    let hex = '';
    for (let i = 0; i < 8; i++) hex += (this.state[i] >>> 0).toString(16).padStart(8, '0');
    return hex;
  }
}

/** Compresses the 64 bytes at o of `view` into the state s. */
function compress(s: Int32Array, view: DataView, o: number): void {
  const w = W;
  for (let i = 0; i < 16; i++, o += 4) w[i] = view.getInt32(o, false);
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15], y = w[i - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (((w[i - 16] + s0) | 0) + ((w[i - 7] + s1) | 0)) | 0;
  }
  let a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (((h + S1) | 0) + ((((e & f) ^ (~e & g)) + K[i]) | 0) + w[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g; g = f; f = e; e = (d + t1) | 0;
    d = c; c = b; b = a; a = (t1 + t2) | 0;
  }
  s[0] = (s[0] + a) | 0; s[1] = (s[1] + b) | 0; s[2] = (s[2] + c) | 0; s[3] = (s[3] + d) | 0;
  s[4] = (s[4] + e) | 0; s[5] = (s[5] + f) | 0; s[6] = (s[6] + g) | 0; s[7] = (s[7] + h) | 0;
}

/** What createSha256 returns: this module's Sha256, or a native one installed by the host. */
export interface Sha256Hash {
  update(data: Uint8Array | string): Sha256Hash;
  digestHex(): string;
}

let nativeSha256: (() => Sha256Hash) | null = null;

/**
 * Installs a native SHA-256 (the Node host installs node:crypto's, about 9x faster than this
 * module on large clip libraries); digests must be identical, so results do not depend on it.
 */
export function useNativeSha256(factory: (() => Sha256Hash) | null): void {
  nativeSha256 = factory;
}

/** A new incremental SHA-256: the native one when the host installed it, else this module's. */
export function createSha256(): Sha256Hash {
  return nativeSha256 !== null ? nativeSha256() : new Sha256();
}

/** SHA-256 of the parts in order, as hex. */
export function sha256Hex(...parts: (Uint8Array | string)[]): string {
  const h = createSha256();
  for (const part of parts) h.update(part);
  return h.digestHex();
}
