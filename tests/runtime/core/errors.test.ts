import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { AnimGraphError, ANIM_GRAPH_ERROR_CODES, type AnimGraphErrorCode } from '../../../runtime/core/errors.ts';
import { Clip } from '../../../runtime/core/clip.ts';
import { ClipCurve } from '../../../runtime/core/clip-events.ts';
import { Pose, checkStorage } from '../../../runtime/core/pose.ts';
import { boneMaskWeights } from '../../../runtime/core/bone-mask.ts';
import { Sha256 } from '../../../runtime/core/sha256.ts';
import { Skeleton, SkeletonError } from '../../../runtime/core/skeleton.ts';
import { expectAnimGraphError } from '../../support/errors.ts';

describe('AnimGraphError', () => {
  it('is an Error with a code, a name and an optional cause', () => {
    const cause = new Error('underneath');
    const error = new AnimGraphError('bad-file', 'the file is bad', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: 'bad-file', name: 'AnimGraphError', message: 'the file is bad', cause });
    expect(String(error)).toBe('AnimGraphError: the file is bad');
    expect(new AnimGraphError('internal', 'x').cause).toBeUndefined();
  });

  it('lists each code once, each documented in errors.ts and in docs/api.md\'s table, in order', () => {
    expect(new Set(ANIM_GRAPH_ERROR_CODES).size).toBe(ANIM_GRAPH_ERROR_CODES.length);
    const code: AnimGraphErrorCode = ANIM_GRAPH_ERROR_CODES[0];
    expect(code).toBe('invalid-argument');
    const source = readFileSync(new URL('../../../runtime/core/errors.ts', import.meta.url), 'utf8');
    expect([...source.matchAll(/^ \* - `([a-z-]+)`: /gm)].map((m) => m[1])).toEqual([...ANIM_GRAPH_ERROR_CODES]);
    const api = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
    const table = api.slice(api.indexOf('\n## Errors\n'), api.indexOf('The classes that extend `AnimGraphError`'));
    expect([...table.matchAll(/^\| `([a-z-]+)` \| /gm)].map((m) => m[1])).toEqual(['code', ...ANIM_GRAPH_ERROR_CODES]);
  });
});

describe('the core throws AnimGraphErrors with a code', () => {
  it('a bad argument to a public call', () => {
    const skeleton = Skeleton.fromDefinitions([{ name: 'root' }, { name: 'tip', parent: 'root' }]);
    expectAnimGraphError(() => boneMaskWeights(skeleton, { mask: { tip: 1 } }, new Float64Array(3)), 'invalid-argument', 'mask of 3 weights for a skeleton of 2 bones');
    const storage = { translations: new Float64Array(6), rotations: new Float64Array(7), scales: new Float64Array(6) };
    expectAnimGraphError(() => checkStorage(storage, 2, 'local'), 'invalid-argument', 'local storage for 2 bones needs 6, 8 and 6 values; rotations has 7');
    const clip = new Clip({ name: 'c', frameRate: 10, frameCount: 3, tracks: [{ bone: 'root', translation: true, rotation: false, scale: false }] });
    expectAnimGraphError(() => clip.sliceFrames(0, 5), 'out-of-range', "clip 'c' has frames 0..2; cannot take 0..5");
  });

  it('inconsistent data: a skeleton, clip keys', () => {
    const error = expectAnimGraphError(() => new Skeleton(['a', 'a'], [-1, 0]), 'invalid-data', /^invalid skeleton:\n {2}bone 1: /);
    expect(error).toBeInstanceOf(SkeletonError);
    expect(error.name).toBe('SkeletonError');
    expectAnimGraphError(() => new Skeleton(['a'], [-1], new Pose(2)), 'invalid-data', 'invalid skeleton:\n  reference pose has 2 bones, skeleton has 1');
    expectAnimGraphError(
      () => new Clip({ name: 'c', frameRate: 10, frameCount: 2, tracks: [{ bone: 'root', translation: true, rotation: false, scale: false }], translations: new Float64Array(5) }),
      'invalid-data', "clip 'c': key arrays do not match 2 frames of 1 tracks at 10 fps",
    );
    expectAnimGraphError(() => new ClipCurve('lean', Float64Array.of(0, 1), Float64Array.of(0)), 'invalid-data', "curve 'lean': needs as many values as times, at least one");
    expectAnimGraphError(() => new ClipCurve('lean', Float64Array.of(0, 0), Float64Array.of(0, 1)), 'invalid-data', "curve 'lean': key times must increase (key 1)");
  });

  it('a call the object cannot take now', () => {
    const hash = new Sha256();
    hash.digestHex();
    expectAnimGraphError(() => hash.update('more'), 'invalid-state', 'Sha256: update() after digestHex()');
    expectAnimGraphError(() => hash.digestHex(), 'invalid-state', 'Sha256: digestHex() called twice');
  });
});
