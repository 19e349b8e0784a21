import { describe, expect, it } from 'vitest';
import { type GraphProblem } from '../../graphs/loader.ts';
import { checkGraphAsset, loadGraphAsset } from '../../host/files.ts';
import { quatRotateVec3 } from '../../runtime/core/math.ts';
import { runGraph } from '../../host/runner.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { SkeletonError } from '../../runtime/core/skeleton.ts';
import { expectClose } from '../support/graphs.ts';

const HALF_TURN_Y = [0, Math.SQRT1_2, 0, Math.SQRT1_2]; // 90 degrees about +Y

/** A valid asset on the built-in biped with two helper bones and a BendRollHelper; tests break one rule of a copy. */
function asset(): any {
  return {
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    helperBones: [
      { name: 'pad_l', parent: 'clavicle_l', translation: [12, 1, 0] },
      { name: 'plate_l', parent: 'pad_l', translation: [0, 0, 4], rotation: HALF_TURN_Y },
    ],
    clips: { walk: { source: 'builtin:walk' } },
    parameters: { roll: { type: 'float', default: 0.25 }, on: { type: 'bool', default: true } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      armour: {
        type: 'BendRollHelper',
        inputs: { pose: 'walk' },
        properties: {
          helpers: [
            { source: 'upperarm_l', target: 'pad_l', axis: [0, -1, 0], bendWeight: 1, rollWeight: { param: 'roll' } },
            { source: 'hand_l', target: 'lowerarm_l', axis: [0, -1, 0], bendWeight: 0, rollWeight: 0.5, order: 'bendRoll' },
          ],
        },
      },
    },
    output: 'armour',
  };
}

function problems(json: unknown): GraphProblem[] {
  const result = checkGraphAsset(json);
  if (result.ok) throw new Error('expected the asset to be rejected');
  return [...result.problems];
}
const summary = (list: GraphProblem[]) => list.map((p) => `${p.path} [${p.code}]`).sort();

describe('helper bones in graph assets', () => {
  it('are appended after the skeleton’s bones with their parents and offsets, and are posed like any bone', () => {
    const graph = loadGraphAsset(asset());
    const base = sampleSkeleton();
    const skeleton = graph.skeleton;
    expect(skeleton.boneCount).toBe(base.boneCount + 2);
    expect(skeleton.boneNames.slice(0, base.boneCount)).toEqual(base.boneNames);
    expect(skeleton.boneNames.slice(-2)).toEqual(['pad_l', 'plate_l']);
    const pad = skeleton.indexOf('pad_l'), plate = skeleton.indexOf('plate_l');
    expect(skeleton.parents[pad]).toBe(base.indexOf('clavicle_l'));
    expect(skeleton.parents[plate]).toBe(pad); // a helper may parent to an earlier helper
    expectClose(skeleton.referencePose.rotations.subarray(plate * 4, plate * 4 + 4), HALF_TURN_Y, 1e-15);

    // Posed: clips have no track for them, so they keep their offset and follow their parents; --poses lists them.
    const run = runGraph(graph, { frames: 3, fps: 30 });
    expect(run.bones.slice(-2)).toEqual(['pad_l', 'plate_l']);
    expect(run.parents.slice(-2)).toEqual([base.indexOf('clavicle_l'), pad]);
    const frame = run.frames[2];
    expectClose(frame.local![plate].slice(0, 3), [0, 0, 4], 1e-12);
    expectClose(frame.local![plate].slice(3, 7), HALF_TURN_Y, 1e-12);
    // The plate's component position is the pad's plus the pad's rotation applied to the offset.
    const padRow = frame.component![pad], plateRow = frame.component![plate];
    const offset = quatRotateVec3(new Float64Array(3), 0, Float64Array.from(padRow.slice(3, 7)), 0, Float64Array.of(0, 0, 4), 0);
    expectClose(plateRow.slice(0, 3), padRow.slice(0, 3).map((x, i) => x + offset[i]), 1e-9);
    // The pad is driven by the node, so it is not at its reference rotation while the arm swings.
    expect(Math.abs(frame.local![pad][6])).toBeLessThan(0.99999);
  });

  it('reports an unknown parent, a name already used, a parent listed later and a bad rotation, each at its JSON path, all at once', () => {
    const a = asset();
    a.helperBones = [
      { name: 'pad_l', parent: 'collarbone_l' },
      { name: 'hand_l', parent: 'lowerarm_l' },
      { name: 'spike', parent: 'later' },
      // A malformed rotation, but it still takes its place: spike's problem is the order, not an unknown parent.
      { name: 'later', parent: 'pad_l', rotation: [0, 0, 0, 2] },
      { name: 'pad_l', parent: 'root' },
      { name: 'nub', parent: 'root', rotation: [0, 0, 1] },
    ];
    const list = problems(a);
    expect(summary(list)).toEqual([
      '$.helperBones[0].parent [skeleton]',
      '$.helperBones[1].name [skeleton]',
      '$.helperBones[2].parent [skeleton]',
      '$.helperBones[3].rotation [schema]',
      '$.helperBones[4].name [skeleton]',
      '$.helperBones[5].rotation [schema]',
    ]);
    const message = (path: string) => list.find((p) => p.path === path)!.message;
    expect(message('$.helperBones[0].parent')).toBe("bone 'pad_l' names unknown parent 'collarbone_l'");
    expect(message('$.helperBones[1].name')).toBe("the skeleton already has a bone 'hand_l'");
    expect(message('$.helperBones[2].parent')).toBe("bone 'spike' comes before its parent 'later': list parents before children");
    expect(message('$.helperBones[3].rotation')).toBe('a rotation is a unit quaternion [x, y, z, w]; this one has length 2.000');
    expect(message('$.helperBones[4].name')).toBe("bone name 'pad_l' is used twice");
  });

  it('keeps checking nodes against the helper bones that could be added (no knock-on unknown bones)', () => {
    const a = asset();
    a.helperBones.push({ name: 'broken', parent: 'nowhere' });
    a.nodes.armour.properties.helpers[1].target = 'ghost';
    expect(summary(problems(a))).toEqual([
      '$.helperBones[2].parent [skeleton]',
      '$.nodes.armour.properties.helpers[1].target [unknown-bone]',
    ]);
  });

  it('Skeleton.withExtraBones leaves the original skeleton as it was and normalises rotations', () => {
    const base = sampleSkeleton();
    const extended = base.withExtraBones([{ name: 'x', parent: 'head', rotation: [0, 0, 0, 0.9999] }]);
    expect(base.boneCount).toBe(22);
    expect(base.indexOf('x')).toBe(-1);
    expect(extended.indexOf('x')).toBe(22);
    expectClose(extended.referencePose.rotations.subarray(88, 92), [0, 0, 0, 1], 1e-15);
    expect(() => base.withExtraBones([{ name: '', parent: 'head' }])).toThrow(SkeletonError);
  });
});

describe('BendRollHelper properties at load', () => {
  it('loads the valid asset', () => {
    expect(checkGraphAsset(asset()).ok).toBe(true);
  });

  it('reports an unknown bone, a zero axis, a weight outside [-1, 1] and a bad binding inside helpers, each at its path, all at once', () => {
    const a = asset();
    const [first, second] = a.nodes.armour.properties.helpers;
    first.source = 'upperarm_x';
    first.axis = [0, 0, 0];
    second.rollWeight = 1.5;
    second.bendWeight = { param: 'nope' };
    a.nodes.armour.properties.helpers.push(
      { source: 'hand_r', target: 'plate_l', bendWeight: -1.01 },
      { source: 'ghost', target: 'plate_l', rollWeight: { param: 'on' } },
    );
    const list = problems(a);
    // The well-formed fields of a malformed item are still checked.
    expect(summary(list)).toEqual([
      '$.nodes.armour.properties.helpers[0].axis [schema]',
      '$.nodes.armour.properties.helpers[0].source [unknown-bone]',
      '$.nodes.armour.properties.helpers[1].bendWeight.param [unknown-parameter]',
      '$.nodes.armour.properties.helpers[1].rollWeight [schema]',
      '$.nodes.armour.properties.helpers[2].bendWeight [schema]',
      '$.nodes.armour.properties.helpers[3].rollWeight.param [parameter-type]',
      '$.nodes.armour.properties.helpers[3].source [unknown-bone]',
      '$.nodes.armour.properties.helpers[3].target [schema]',
    ]);
    const message = (path: string) => list.find((p) => p.path === path)!.message;
    expect(message('$.nodes.armour.properties.helpers[0].axis')).toBe('a direction must not be zero');
    expect(message('$.nodes.armour.properties.helpers[0].source')).toBe("the skeleton has no bone 'upperarm_x'");
    expect(message('$.nodes.armour.properties.helpers[1].rollWeight')).toBe('Too big: expected number to be <=1');
    expect(message('$.nodes.armour.properties.helpers[3].rollWeight.param')).toBe("property 'rollWeight' is float but parameter 'on' is bool");
    expect(message('$.nodes.armour.properties.helpers[3].target')).toMatch(/bone 'plate_l' is already the target of helpers\[2\]/);
  });

  it('needs at least one helper with a source and a target, and no other fields', () => {
    const a = asset();
    a.nodes.armour.properties.helpers = [];
    expect(summary(problems(a))).toEqual(['$.nodes.armour.properties.helpers [schema]']);
    delete a.nodes.armour.properties.helpers;
    expect(summary(problems(a))).toEqual(['$.nodes.armour.properties.helpers [schema]']);
    a.nodes.armour.properties.helpers = [{ source: 'hand_l', bendWeight: 0.5, twist: 1, order: 'twistFirst' }];
    expect(summary(problems(a))).toEqual([
      '$.nodes.armour.properties.helpers[0] [schema]',
      '$.nodes.armour.properties.helpers[0].order [schema]',
      '$.nodes.armour.properties.helpers[0].target [schema]',
    ]);
  });
});
