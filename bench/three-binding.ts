/**
 * What handing graph poses to three.js costs, at 1000 characters on the built-in 22-bone biped
 * (walk and run blended), each a Group in one Scene with the biped's bones under it and a Skeleton
 * over them, as a ratio to the graph's own frame in the same process:
 *
 * - naive: the graph's local pose copied into every Bone's position, quaternion and scale
 *   (bindThree with writeMatrices: false, writeLocal: true), then the renderer's part;
 * - apply(): bindThree's apply() alone (characters made one by one with graph.createInstance():
 *   apply() composes their skinning matrices from their local pose, in the WebAssembly kernel where
 *   the engine has it);
 * - apply(), then the renderer's part: what three's renderers do before drawing,
 *   scene.updateMatrixWorld() and every skeleton.update(), which the binding replaces for its bones;
 * - the same two with bindThree's precision: 'single' (the skinning matrices composed in float32, in
 *   the WebAssembly kernel);
 * - crowd: the same with the characters of an InstanceBatch (graph.createInstances(count,
 *   { componentSpace: true })), the WebAssembly kernel on where the engine has it: their component
 *   pass runs in the kernel within crowd.update(), the yardstick, so apply() does the binding's own work
 *   (the skinning matrices, in the kernel too).
 *
 * Each character's Skeleton is made at the origin, then the character placed: its inverse bind
 * matrices are those of every clone of one model. The graph's update + evaluate (crowd.update) is
 * timed in every window, and each figure is the median over windows of its ratio to it, so machine
 * noise hits both sides alike. Times are the process's CPU time (process.cpuUsage), which the
 * other tenants of a shared machine inflate less than the clock. No gate.
 *
 *   node --import tsx bench/three-binding.ts [--count N] [--quick]
 */
import { cpus, loadavg } from 'node:os';
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
  const skeletons: THREE.Skeleton[] = [];
  for (let c = 0; c < count; c++) {
    const character = new THREE.Group();
    const bones = makeThreeBones(graph.skeleton);
    character.add(bones[0]);
    character.updateMatrixWorld(true);
    // Inverse bind matrices from the reference pose at the origin, as every clone of one skinned model has them.
    skeletons.push(new THREE.Skeleton(bones));
    character.position.set((c % 40) * 150, 0, Math.floor(c / 40) * 150);
    character.rotation.y = c * 0.37;
    scene.add(character);
    characters.push(character);
  }
  scene.updateMatrixWorld(true);
  return { scene, characters, skeletons };
}

function spread(instances: readonly AnimGraphInstance[]): void {
  instances.forEach((instance, c) => instance.update((c * 0.013) % 1.1)); // the phases
}

const instances: AnimGraphInstance[] = [];
for (let c = 0; c < count; c++) instances.push(graph.createInstance());
spread(instances);
const crowd = graph.createInstances(count, { componentSpace: true });
spread(crowd.instances);
const naive = makeScene(), direct = makeScene(), single = makeScene(), crowdScene = makeScene();
const naiveBindings: ThreeBinding[] = naive.skeletons.map((s, c) => bindThree(instances[c], s, { writeMatrices: false, writeLocal: true }));
const directBindings: ThreeBinding[] = direct.skeletons.map((s, c) => bindThree(instances[c], s));
const singleBindings: ThreeBinding[] = single.skeletons.map((s, c) => bindThree(instances[c], s, { precision: 'single' }));
if (singleBindings.some((b) => b.precision !== 'single')) console.log('  (no WebAssembly SIMD here: precision \'single\' runs in double precision)');
const crowdBindings: ThreeBinding[] = crowdScene.skeletons.map((s, c) => bindThree(crowd.instances[c], s));

function graphFrame(): void {
  for (let c = 0; c < count; c++) {
    instances[c].update(dt);
    instances[c].evaluate();
  }
}
const crowdFrame = (): void => crowd.update(dt);

/** What the renderer does before drawing: the scene's matrices, each skeleton's update(). */
function rendererPart({ scene, skeletons }: Characters): void {
  scene.updateMatrixWorld();
  for (let c = 0; c < count; c++) skeletons[c].update();
}
const applyAll = (bindings: ThreeBinding[]): void => { for (let c = 0; c < count; c++) bindings[c].apply(); };

interface Case { name: string; graph: () => void; work: () => void; ratios: number[]; ms: number[] }
const cases: Case[] = [
  { name: 'naive: copy local TRS, then the renderer\'s part', graph: graphFrame, work: () => { applyAll(naiveBindings); rendererPart(naive); }, ratios: [], ms: [] },
  { name: 'apply() alone (composed from the local pose)', graph: graphFrame, work: () => applyAll(directBindings), ratios: [], ms: [] },
  { name: 'apply(), then the renderer\'s part', graph: graphFrame, work: () => { applyAll(directBindings); rendererPart(direct); }, ratios: [], ms: [] },
  { name: 'single: apply() alone', graph: graphFrame, work: () => applyAll(singleBindings), ratios: [], ms: [] },
  { name: 'single: apply(), then the renderer\'s part', graph: graphFrame, work: () => { applyAll(singleBindings); rendererPart(single); }, ratios: [], ms: [] },
  { name: 'crowd: apply() alone', graph: crowdFrame, work: () => applyAll(crowdBindings), ratios: [], ms: [] },
  { name: 'crowd: apply(), then the renderer\'s part', graph: crowdFrame, work: () => { applyAll(crowdBindings); rendererPart(crowdScene); }, ratios: [], ms: [] },
];
const graphMs: number[] = [], crowdMs: number[] = [];

/** The process's CPU time so far, in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** One window of `c`: its graph frame and its work, framesPerWindow times; the ratio of their times. */
function window(c: Case): void {
  let graphSpent = 0, spent = 0;
  for (let f = 0; f < framesPerWindow; f++) {
    const t0 = cpuMs();
    c.graph();
    const t1 = cpuMs();
    c.work();
    spent += cpuMs() - t1;
    graphSpent += t1 - t0;
  }
  c.ratios.push(spent / graphSpent);
  c.ms.push(spent / framesPerWindow);
  (c.graph === crowdFrame ? crowdMs : graphMs).push(graphSpent / framesPerWindow);
}

for (let w = 0; w < 3; w++) for (const c of cases) window(c); // warm-up
for (const c of cases) c.ratios.length = c.ms.length = 0;
graphMs.length = crowdMs.length = 0;
for (let w = 0; w < windows; w++) for (const c of w % 2 === 0 ? cases : [...cases].reverse()) window(c);

// The scenes skin with the same matrices: a sanity check that the bench compares like with like.
graphFrame();
applyAll(naiveBindings);
rendererPart(naive);
applyAll(directBindings);
rendererPart(direct);
applyAll(singleBindings);
rendererPart(single);
for (const [name, other] of [['direct', direct], ['single', single]] as const) {
  const a32 = naive.skeletons[count - 1].boneMatrices!, b32 = other.skeletons[count - 1].boneMatrices!;
  let gap = 0;
  for (let i = 0; i < a32.length; i++) gap = Math.max(gap, Math.abs(a32[i] - b32[i]) / Math.max(1, Math.abs(a32[i])));
  if (!(gap < 1e-5)) throw new Error(`the naive and ${name} scenes' bone matrices differ by ${gap}`);
}

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1];
const ms = (x: number): string => `${x.toFixed(2)} ms`.padStart(9);
console.log(`three.js binding, ${count} characters x ${graph.skeleton.boneCount} bones (${windows} windows of ${framesPerWindow} frames, medians; ratios to the graph in the same window)`);
console.log(`  machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}, node ${process.version}`);
console.log(`  ${'graph update + evaluate (graph.createInstance each)'.padEnd(52)}${ms(median(graphMs))}  1`);
for (const c of cases.slice(0, 5)) console.log(`  ${c.name.padEnd(52)}${ms(median(c.ms))}  ${median(c.ratios).toFixed(2)}x`);
console.log(`  ${'crowd.update (createInstances, componentSpace)'.padEnd(52)}${ms(median(crowdMs))}  1`);
for (const c of cases.slice(5)) console.log(`  ${c.name.padEnd(52)}${ms(median(c.ms))}  ${median(c.ratios).toFixed(2)}x`);
console.log('  (the renderer\'s part: scene.updateMatrixWorld() and every skeleton.update())');

// One character's apply() again and again, its data in the cache: the arithmetic alone, against the
// graph's frame per character.
/** Microseconds a call of `binding.apply()`, warmed, then repeated 100,000 times on the same character. */
function loneApplyUs(binding: ThreeBinding): number {
  for (let i = 0; i < 20000; i++) binding.apply(); // warm
  const calls = 100000, start = cpuMs();
  for (let i = 0; i < calls; i++) binding.apply();
  return ((cpuMs() - start) * 1000) / calls;
}
const loneUs = loneApplyUs(directBindings[0]), graphUs = (median(graphMs) * 1000) / count;
console.log(`  one character's apply() repeated, its data in cache: ${loneUs.toFixed(2)} us (the graph: ${graphUs.toFixed(2)} us a character, so ${(loneUs / graphUs).toFixed(2)}x)`);
const singleUs = loneApplyUs(singleBindings[0]);
console.log(`  the same with precision 'single': ${singleUs.toFixed(2)} us (${(singleUs / graphUs).toFixed(2)}x)`);
