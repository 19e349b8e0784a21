/**
 * Writing graph poses into three.js, two ways, at 1000 characters on the built-in 22-bone biped
 * (walk and run blended): each character is a Group in one Scene with the biped's bones under it.
 *
 * - naive: the graph's local pose copied into every Bone's position, quaternion and scale
 *   (bindThree with writeMatrices: false, writeLocal: true), then scene.updateMatrixWorld(), which
 *   recomposes every bone's local and world matrix;
 * - direct: bindThree's apply(): each bone's world matrix written from the component pose
 *   (converting the pose to component space is counted here), then the same
 *   scene.updateMatrixWorld(), which the renderer runs every frame anyway and which now skips the
 *   bound bones' matrices but still walks them.
 *
 * The graph's own update + evaluate is timed separately, as the yardstick. skeleton.update()
 * (bone matrices × inverse bind matrices, done by the renderer) costs the same in both and is
 * left out. Windows alternate so machine noise hits both paths; prints ms per frame (medians)
 * and the ratio. No gate.
 *
 *   node --import tsx bench/three-binding.ts [--count N] [--quick]
 */
import { performance } from 'node:perf_hooks';
import * as THREE from 'three';
import { loadGraphAsset } from '../host/files.ts';
import type { AnimGraphInstance } from '../runtime/graph/instance.ts';
import { bindThree, type ThreeBinding } from '../three/index.ts';
import { makeThreeBones } from './three-crowd.ts';

const args = process.argv.slice(2);
const countAt = args.indexOf('--count');
const count = countAt >= 0 && Number(args[countAt + 1]) > 0 ? Number(args[countAt + 1]) : 1000;
const windows = args.includes('--quick') ? 6 : 20;
const framesPerWindow = 20;
const dt = 1 / 60;

const graph = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.35 } },
  },
  output: 'blend',
});

interface Characters { scene: THREE.Scene; characters: THREE.Group[]; skeletons: THREE.Skeleton[] }

function makeScene(): Characters {
  const scene = new THREE.Scene();
  const characters: THREE.Group[] = [];
  const bones: THREE.Bone[][] = [];
  for (let c = 0; c < count; c++) {
    const character = new THREE.Group();
    character.position.set((c % 40) * 150, 0, Math.floor(c / 40) * 150);
    character.rotation.y = c * 0.37;
    bones.push(makeThreeBones(graph.skeleton));
    character.add(bones[c][0]);
    scene.add(character);
    characters.push(character);
  }
  scene.updateMatrixWorld(true);
  // Inverse bind matrices from the reference pose, as a skinned mesh bound at it would have.
  return { scene, characters, skeletons: bones.map((b) => new THREE.Skeleton(b)) };
}

const instances: AnimGraphInstance[] = [];
for (let c = 0; c < count; c++) {
  const instance = graph.createInstance();
  instance.update((c * 0.013) % 1.1); // spread the phases
  instances.push(instance);
}
const naive = makeScene(), direct = makeScene();
const naiveBindings: ThreeBinding[] = naive.skeletons.map((s, c) => bindThree(instances[c], s, { writeMatrices: false, writeLocal: true }));
const directBindings: ThreeBinding[] = direct.skeletons.map((s, c) => bindThree(instances[c], s));

function graphFrame(): void {
  for (let c = 0; c < count; c++) {
    instances[c].update(dt);
    instances[c].evaluate();
  }
}

/** The binding's writes, then what the renderer does before drawing: the scene's matrices, each skeleton's update(). */
function writeFrame(bindings: ThreeBinding[], { scene, skeletons }: Characters): void {
  for (let c = 0; c < count; c++) bindings[c].apply();
  scene.updateMatrixWorld();
  for (let c = 0; c < count; c++) skeletons[c].update();
}

/** ms per frame of `work`, run framesPerWindow times after the graph has advanced each frame. */
function window(work: (() => void) | null): number {
  let spent = 0;
  for (let f = 0; f < framesPerWindow; f++) {
    const t0 = performance.now();
    graphFrame();
    const t1 = performance.now();
    if (work === null) spent += t1 - t0;
    else {
      work();
      spent += performance.now() - t1;
    }
  }
  return spent / framesPerWindow;
}

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1];

const naiveWork = (): void => writeFrame(naiveBindings, naive);
const directWork = (): void => writeFrame(directBindings, direct);
const applyOnly = (): void => { for (let c = 0; c < count; c++) directBindings[c].apply(); };
for (let w = 0; w < 3; w++) { window(naiveWork); window(directWork); window(applyOnly); window(null); } // warm-up

const times = { graph: [] as number[], naive: [] as number[], direct: [] as number[], apply: [] as number[] };
for (let w = 0; w < windows; w++) {
  if (w % 2 === 0) {
    times.naive.push(window(naiveWork));
    times.direct.push(window(directWork));
  } else {
    times.direct.push(window(directWork));
    times.naive.push(window(naiveWork));
  }
  times.apply.push(window(applyOnly));
  times.graph.push(window(null));
}

// The two scenes skin with the same matrices: a sanity check that the bench compares like with like.
naiveWork();
directWork();
const a32 = naive.skeletons[count - 1].boneMatrices!, b32 = direct.skeletons[count - 1].boneMatrices!;
let gap = 0;
for (let i = 0; i < a32.length; i++) gap = Math.max(gap, Math.abs(a32[i] - b32[i]) / Math.max(1, Math.abs(a32[i])));
if (!(gap < 1e-5)) throw new Error(`the naive and direct scenes' bone matrices differ by ${gap}`);

const ms = (x: number): string => `${x.toFixed(2)} ms`;
const g = median(times.graph), n = median(times.naive), d = median(times.direct), a = median(times.apply);
console.log(`three.js binding, ${count} characters x ${graph.skeleton.boneCount} bones (${windows} windows of ${framesPerWindow} frames, medians)`);
console.log(`  graph update + evaluate                          ${ms(g)}`);
console.log(`  naive: copy local TRS, then the renderer's part  ${ms(n)}  (${(n / g).toFixed(2)}x the graph)`);
console.log(`  direct: apply(), then the renderer's part        ${ms(d)}  (${(d / g).toFixed(2)}x the graph; apply() alone ${ms(a)})`);
console.log(`  (the renderer's part: scene.updateMatrixWorld() and every skeleton.update())`);
console.log(`  naive / direct: ${(n / d).toFixed(1)}x`);
