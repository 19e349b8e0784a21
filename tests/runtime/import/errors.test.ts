import { describe, expect, it } from 'vitest';
import { BvhError, loadBvh } from '../../../runtime/import/bvh.ts';
import { GltfError, gltfClip, gltfRig, readGltf } from '../../../runtime/import/gltf.ts';
import { sampleClip } from '../../../runtime/import/sample-data.ts';
import { expectAnimGraphError } from '../../support/errors.ts';

const gltfText = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));

describe('the importers throw AnimGraphErrors with a code', () => {
  it('a bad file: BVH and glTF', () => {
    const bvh = expectAnimGraphError(() => loadBvh('MOTION\n', 'walk', 'walk.bvh'), 'bad-file', "malformed BVH walk.bvh:\n  line 1: expected 'HIERARCHY' at the start of the file");
    expect(bvh).toBeInstanceOf(BvhError);
    expect(bvh.name).toBe('BvhError');
    const gltf = expectAnimGraphError(() => readGltf(gltfText({ asset: { version: '1.0' } }), { source: 'old.gltf' }), 'bad-file', 'old.gltf: asset.version must be "2.x" (glTF 2.0), found "1.0"');
    expect(gltf).toBeInstanceOf(GltfError);
    expect(gltf).toMatchObject({ name: 'GltfError', gltfCode: 'malformed', source: 'old.gltf' });
  });

  it('an unknown name: a glTF animation or skin, a built-in clip', () => {
    const doc = readGltf(gltfText({ asset: { version: '2.0' }, nodes: [{ name: 'hips' }], skins: [{ name: 'body', joints: [0] }] }), { source: 'rig.gltf' });
    const animation = expectAnimGraphError(() => gltfClip(doc, 'Run'), 'unknown-name', /^rig\.gltf: no animation "Run"/);
    expect(animation).toMatchObject({ gltfCode: 'unknown-animation' });
    expect(expectAnimGraphError(() => gltfRig(doc, 'legs'), 'unknown-name')).toMatchObject({ gltfCode: 'unknown-skin' });
    expectAnimGraphError(() => sampleClip('jog'), 'unknown-name', "no built-in clip 'jog' (have: idle, walk, run, aim)");
  });
});
