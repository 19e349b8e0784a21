/**
 * Hashes of what a database is built from. SHA-256 by runtime/core/sha256.ts, not node:crypto, so pose
 * search runs in a browser; the digests are node:crypto's, so index files written before still load.
 */
import type { ClipBinding } from '../../core/clip.ts';
import { createSha256, type Sha256Hash } from '../../core/sha256.ts';
import type { PoseFeatureSchema } from './features.ts';

/**
 * A clip to index, under the name the searches report. Here, below database.ts (which re-exports
 * it), because the hash reads it and database.ts imports the hash.
 */
export interface IndexedClip {
  name: string;
  binding: ClipBinding;
}

/** What a database was built from, hashed (sha-256, hex). */
export interface PoseSearchHash {
  /** Of everything below, together. */
  hash: string;
  schema: string;
  skeleton: string;
  /** One per clip, in order. */
  clips: string[];
}

function hashTyped(h: Sha256Hash, a: Float64Array | Int32Array): void {
  h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
}

/** Hashes the schema, the skeleton and each clip's keys: an index file is current when these match. */
export function poseSearchHash(schema: PoseFeatureSchema, clips: readonly IndexedClip[]): PoseSearchHash {
  const schemaHash = createSha256().update(JSON.stringify(schema.canonical)).digestHex();
  const sk = schema.skeleton;
  const s = createSha256().update(JSON.stringify(sk.boneNames));
  hashTyped(s, sk.parents);
  hashTyped(s, sk.referencePose.translations);
  hashTyped(s, sk.referencePose.rotations);
  hashTyped(s, sk.referencePose.scales);
  const skeletonHash = s.digestHex();
  const clipHashes = clips.map(({ name, binding }) => {
    const clip = binding.clip;
    const h = createSha256().update(JSON.stringify([name, clip.frameRate, clip.frameCount, clip.interpolation, clip.tracks]));
    hashTyped(h, clip.translations);
    hashTyped(h, clip.rotations);
    hashTyped(h, clip.scales);
    return h.digestHex();
  });
  const all = createSha256().update(JSON.stringify([schemaHash, skeletonHash, clipHashes])).digestHex();
  return { hash: all, schema: schemaHash, skeleton: skeletonHash, clips: clipHashes };
}
