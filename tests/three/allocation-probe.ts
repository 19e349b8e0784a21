/**
 * Bytes allocated per frame by a ThreeBinding's apply(), in a plain Node process
 * (`node --expose-gc --import tsx`; see tests/support/allocation-probe.ts for why not in vitest).
 * apply() then skeleton.update() (the renderer's call, which the binding replaces), per frame; with
 * a prop hung under a bone and a bone named in boneWorldMatrices, the scene's updateMatrixWorld too
 * (the walk the binding replaces under the bones); and for a character of a crowd (an InstanceBatch
whose kernel composes its component pose), crowd.update then apply(), once with bare bones (every
graph bone in three and no other, nothing hung: apply()'s shortest path); and a character made on its
own with bare bones (apply() composing from its local pose), in double and in single precision. Prints one JSON line:
{ perApply, perApplyAll, perApplyHung, perApplyCrowd, perApplyBare, perApplyLoneBare, perApplyLoneSingle, moved }.
 */
import { Object3D } from 'three';
import { loadGraphAsset } from '../../graphs/loader.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { bindThree } from '../../three/index.ts';
import { bytesPerFrame } from '../support/allocation.ts';
import { bipedInstance } from '../support/graphs.ts';
import { buildCharacter } from './scene.ts';

const skeleton = sampleSkeleton();
const options = {
  position: [120, 5, -40], rotation: [0, 1, 0, 0.8], armatureRotation: [1, 0, 0, -Math.PI / 2],
  omit: ['ball_l'], extra: [{ name: 'socket', parent: 'hand_r', position: [0, -8, 3] }],
} as const;

const NODES = {
  walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
  run: { type: 'SequencePlayer', properties: { clip: 'run' } },
  blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.35 } },
};

function probe(mode: 'direct' | 'all' | 'hung' | 'crowd' | 'bare' | 'loneBare' | 'loneSingle'): { perFrame: number; moved: boolean } {
  const all = mode === 'all', bare = mode === 'bare' || mode === 'loneBare' || mode === 'loneSingle';
  const crowd = mode === 'crowd' || mode === 'bare' ? loadGraphAsset({ format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } }, nodes: NODES, output: 'blend' })
    .createInstances(4, { componentSpace: true }) : null;
  const g = crowd === null ? bipedInstance(NODES, 'blend') : crowd.instances[2];
  const c = buildCharacter(skeleton, {
    ...options, position: [...options.position], rotation: [...options.rotation], armatureRotation: [...options.armatureRotation],
    extra: bare ? [] : options.extra.map((e) => ({ ...e, position: [...e.position] as [number, number, number] })),
    omit: bare ? [] : options.omit,
  });
  const binding = bindThree(g, c.mesh!, { writeLocal: all, boneWorldMatrices: mode === 'hung' ? ['foot_l'] : all, precision: mode === 'loneSingle' ? 'single' : 'double' });
  if (mode === 'loneSingle' && binding.precision !== 'single') throw new Error('the single-precision probe runs in double precision');
  const hung = mode === 'hung';
  if (hung) {
    const sword = new Object3D();
    sword.position.set(0, -12, 0);
    sword.add(new Object3D());
    c.byName.get('hand_l')!.add(sword);
  }
  const bones = c.skeleton.boneMatrices!;
  const foot = skeleton.indexOf('foot_l') * 16 + 13;
  const frame = (): void => {
    if (crowd !== null) crowd.update(1 / 60);
    else g.update(1 / 60);
    binding.apply();
    if (hung) c.scene.updateMatrixWorld();
    c.skeleton.update();
  };
  frame();
  const before = bones[foot];
  frame();
  const moved = bones[foot] !== before;
  return { perFrame: bytesPerFrame(frame, { untilFloor: true }).perFrame, moved };
}

const direct = probe('direct');
const all = probe('all');
const hung = probe('hung');
const crowd = probe('crowd');
const bare = probe('bare');
const loneBare = probe('loneBare');
const loneSingle = probe('loneSingle');
console.log(JSON.stringify({
  perApply: direct.perFrame, perApplyAll: all.perFrame, perApplyHung: hung.perFrame, perApplyCrowd: crowd.perFrame, perApplyBare: bare.perFrame,
  perApplyLoneBare: loneBare.perFrame, perApplyLoneSingle: loneSingle.perFrame,
  moved: direct.moved && all.moved && hung.moved && crowd.moved && bare.moved && loneBare.moved && loneSingle.moved,
}));
