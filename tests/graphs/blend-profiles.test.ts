import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../host/files.ts';

const asset = (blendProfiles: unknown, listProfile?: string, extra: Record<string, unknown> = {}) => ({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' } },
  blendProfiles,
  nodes: {
    idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    list: { type: 'BlendList', inputs: { poses: ['idle', 'walk'] }, properties: listProfile === undefined ? {} : { blendProfile: listProfile } },
  },
  output: 'list',
  ...extra,
});
const problems = (json: unknown) => {
  const result = checkGraphAsset(json);
  return result.ok ? [] : result.problems.map((p) => [p.path, p.code]);
};

describe('blendProfiles in an asset', () => {
  it('loads profiles and binds each to the skeleton once, shared by every instance', () => {
    const graph = loadGraphAsset(asset({ slow: { mode: 'timeFactor', branches: [{ bone: 'spine_01', scale: 0.5 }], bones: { head: 0 } } }, 'slow'));
    const profile = graph.blendProfiles.get('slow')!;
    expect(profile.mode).toBe('timeFactor');
    const names = graph.skeleton.boneNames;
    expect(profile.scales[names.indexOf('pelvis')]).toBe(1);
    expect(profile.scales[names.indexOf('hand_l')]).toBe(0.5);
    expect(profile.scales[names.indexOf('head')]).toBe(0);
  });

  it('reports every problem at once, each at its JSON path with its code', () => {
    const json = asset({
      bad: {
        mode: 'timeFactor',
        bones: { tail: 0.5, neck: 2 },
        branches: [{ bone: 'wing', scale: 0.5 }],
        filters: [{ bone: 'spine_01', depth: 1 }],
      },
      negative: { mode: 'weightFactor', bones: { neck: -1 } },
      huge: { mode: 'weightFactor', bones: { neck: 1 } },
      mask: { mode: 'blendMask', filters: [{ bone: 'nope', depth: 0 }], bones: { neck: 1.5 } },
      odd: { mode: 'speedFactor' },
    }, 'mask');
    // A JSON number beyond the float range reads as Infinity.
    (json.blendProfiles as Record<string, { bones: Record<string, number> }>).huge.bones.neck = JSON.parse('1e400');
    expect(problems(json)).toEqual([
      ['$.blendProfiles.negative.bones.neck', 'schema'],
      ['$.blendProfiles.huge.bones.neck', 'schema'],
      ['$.blendProfiles.odd.mode', 'schema'],
      ['$.blendProfiles.bad.bones.tail', 'unknown-bone'],
      ['$.blendProfiles.bad.bones.neck', 'schema'],
      ['$.blendProfiles.bad.branches[0].bone', 'unknown-bone'],
      ['$.blendProfiles.bad.filters', 'schema'],
      ['$.blendProfiles.mask.bones.neck', 'schema'],
      ['$.blendProfiles.mask.filters[0].bone', 'unknown-bone'],
      ['$.nodes.list.properties.blendProfile', 'blend-profile-mode'],
    ]);
  });

  it('reports an undeclared profile name, but not one whose definition is malformed (reported once, there)', () => {
    expect(problems(asset({}, 'missing'))).toEqual([['$.nodes.list.properties.blendProfile', 'unknown-blend-profile']]);
    expect(problems(asset({ broken: { mode: 'timeFactor', bones: { neck: 'fast' } } }, 'broken'))).toEqual([['$.blendProfiles.broken.bones.neck', 'schema']]);
  });

  it('refuses __proto__ as a profile name, and finds no inherited name (toString)', () => {
    const json = JSON.parse('{"__proto__": {"mode": "timeFactor"}}');
    expect(problems(asset(json, 'toString'))).toEqual([
      ['$.blendProfiles.__proto__', 'schema'],
      ['$.nodes.list.properties.blendProfile', 'unknown-blend-profile'],
    ]);
    // A profile may be called toString as an own name.
    expect(problems(asset({ toString: { mode: 'timeFactor' } }, 'toString'))).toEqual([]);
  });
});
