import { describe, expect, it } from 'vitest';
import { Clip, ClipBinding } from '../../../runtime/core/clip.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import {
  deserializePoseSearchDatabase, PoseFeatureSchema, PoseIndexError, PoseSearchDatabase, serializePoseSearchDatabase, type IndexedClip,
} from '../../../runtime/jobs/pose-search/index.ts';
import { extractRootMotion } from '../../../runtime/jobs/root-motion.ts';
import { expectAnimGraphError } from '../../support/errors.ts';

const skeleton = Skeleton.fromDefinitions([{ name: 'root' }, { name: 'hip', parent: 'root', translation: [0, 90, 0] }, { name: 'foot', parent: 'hip', translation: [0, -85, 0] }]);
const tracks = skeleton.boneNames.map((bone) => ({ bone, translation: true, rotation: true, scale: false }));
const clip = new Clip({ name: 'still', frameRate: 30, frameCount: 31, tracks });
const clips: IndexedClip[] = [{ name: 'still', binding: new ClipBinding(clip, skeleton) }];

describe('the jobs throw AnimGraphErrors with a code', () => {
  it('bad data for a public constructor: a feature schema', () => {
    expectAnimGraphError(() => new PoseFeatureSchema({ positions: { weight: 1, bones: ['toe'] } }, skeleton), 'invalid-data', /^invalid feature schema: features\.positions\.bones\.0: /);
  });

  it('a bad file: an index file truncated, not an index, or stale', () => {
    const schema = new PoseFeatureSchema({ positions: { weight: 1, bones: ['foot'] } }, skeleton);
    const bytes = serializePoseSearchDatabase(PoseSearchDatabase.build(schema, clips));
    const cut = expectAnimGraphError(() => deserializePoseSearchDatabase(bytes.subarray(0, bytes.length - 16), schema, clips), 'bad-file', /truncated/);
    expect(cut).toBeInstanceOf(PoseIndexError);
    expect(cut.name).toBe('PoseIndexError');
    expect(expectAnimGraphError(() => deserializePoseSearchDatabase(new TextEncoder().encode('{"not": "an index"}'), schema, clips), 'bad-file'))
      .toMatchObject({ foreign: true, stale: false });
    const other = new PoseFeatureSchema({ positions: { weight: 2, bones: ['foot'] } }, skeleton);
    expect(expectAnimGraphError(() => deserializePoseSearchDatabase(bytes, other, clips), 'bad-file', /^stale index file: /)).toMatchObject({ stale: true });
  });

  it('an unknown name: a root bone the clip has no track for', () => {
    expectAnimGraphError(() => extractRootMotion(clip, 'pelvis'), 'unknown-name', "clip 'still' has no track for root bone 'pelvis'");
  });

  it('a PoseIndexError takes a code and a cause', () => {
    const cause = new RangeError('underneath');
    expect(new PoseIndexError('m', false, false, { cause })).toMatchObject({ code: 'bad-file', cause });
    const bigEndian = new PoseIndexError('m', false, false, { code: 'not-supported' });
    expect(bigEndian.code).toBe('not-supported');
    expect('cause' in bigEndian).toBe(false);
  });
});
