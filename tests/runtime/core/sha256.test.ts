import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Sha256, sha256Hex } from '../../../runtime/core/sha256.ts';
import { mulberry32 } from '../../../bench/crowd-cases.ts';

describe('sha256', () => {
  it('gives the FIPS 180-4 / NIST test vectors', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
    expect(sha256Hex('abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu'))
      .toBe('cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1');
    const a = new Uint8Array(1_000_000).fill(0x61);
    expect(sha256Hex(a)).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
    // The same million 'a's fed in uneven pieces: the pending partial block is carried correctly.
    const h = new Sha256();
    for (let at = 0, step = 1; at < a.length; at += step, step = (step * 7 + 3) % 997) h.update(a.subarray(at, Math.min(at + step, a.length)));
    expect(h.digestHex()).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('equals node:crypto on random inputs of every length around the block and padding boundaries', () => {
    const random = mulberry32(1234);
    const lengths = [...Array.from({ length: 140 }, (_, i) => i), 1000, 4095, 4096, 65537];
    for (const n of lengths) {
      const bytes = Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
      const split = Math.floor(random() * (n + 1));
      const text = `é∑ ${n} ✓`;
      const expected = createHash('sha256').update(text).update(bytes.subarray(0, split)).update(bytes.subarray(split)).digest('hex');
      expect(sha256Hex(text, bytes.subarray(0, split), bytes.subarray(split)), `length ${n}`).toBe(expected);
    }
  });

  it('hashes a view by its own bytes, not its whole buffer', () => {
    const buffer = new Uint8Array(100).map((_, i) => i);
    const view = buffer.subarray(13, 77);
    expect(sha256Hex(view)).toBe(createHash('sha256').update(view).digest('hex'));
  });

  it('refuses to be used after its digest', () => {
    const h = new Sha256().update('x');
    h.digestHex();
    expect(() => h.update('y')).toThrow(/after digestHex/);
    expect(() => h.digestHex()).toThrow(/twice/);
  });
});

describe('the native SHA-256 the Node host installs', () => {
  it('is used once host/files.ts is loaded, and gives the portable digests', async () => {
    const { createSha256, Sha256, useNativeSha256 } = await import('../../../runtime/core/sha256.ts');
    await import('../../../host/files.ts');
    const data = new Uint8Array(100_003).map((_, i) => (i * 7919) & 255);
    const native = createSha256();
    expect(native).not.toBeInstanceOf(Sha256);
    expect(native.update('clip').update(data).digestHex()).toBe(new Sha256().update('clip').update(data).digestHex());
    useNativeSha256(null);
    expect(createSha256()).toBeInstanceOf(Sha256);
  });
});
