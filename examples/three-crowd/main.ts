/**
 * A crowd drawn with three.js: the shipped locomotion example (graphs/examples/sample-locomotion.json)
 * on `count` characters (default 1000, `?count=N`), one InstanceBatch whose component pass runs in
 * the WebAssembly kernel, each character a SkinnedMesh bound with bindThree. Every tenth carries a
 * hat hung under its head bone. The panel shows the frame's CPU split (the graph: crowd.update;
 * the binding: every apply(); the renderer: renderer.render) and renderer.info's draw calls.
 *
 * window.__crowd holds the same figures for tests: see CrowdState.
 */
import * as THREE from 'three';
import { mergeGeometries } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import { loadGraphAsset } from '../../index.ts';
import { bindThree, type ThreeBinding } from '../../three/index.ts';
import type { Skeleton } from '../../runtime/core/skeleton.ts';

/** graphs/examples/sample-locomotion.json, inlined by build.mjs (the page opens from disk, where it could not fetch it). */
declare const LOCOMOTION_ASSET: unknown;

export interface CrowdState {
  status: 'starting' | 'running' | 'failed';
  error: string;
  characters: number;
  frame: number;
  /** CPU milliseconds per frame, averaged over the last frames: crowd.update, every apply(), renderer.render. */
  graphMs: number;
  bindingMs: number;
  rendererMs: number;
  /** renderer.info.render of the last frame. */
  drawCalls: number;
  triangles: number;
  /** Whether every skinning matrix of every character was finite when last checked (every 30 frames). */
  finite: boolean;
  /** Whether the kernel runs the crowd (WebAssembly SIMD). */
  wasm: boolean;
}

const state: CrowdState = {
  status: 'starting', error: '', characters: 0, frame: 0, graphMs: 0, bindingMs: 0, rendererMs: 0, drawCalls: 0, triangles: 0, finite: true, wasm: false,
};
(window as unknown as { __crowd: CrowdState }).__crowd = state;

const params = new URLSearchParams(location.search);
const count = Math.max(1, Math.min(20000, Number(params.get('count') ?? 1000) || 1000));
const SPACING = 120, ROW = Math.ceil(Math.sqrt(count));
/** Forward speed (cm per second) at each gait: idle, walk, run. */
const SPEEDS = [0, 140, 330];

/** The body: a box along each bone from its parent, skinned to the parent, built at the reference pose in component space. */
function bodyGeometry(skeleton: Skeleton, component: Float64Array): THREE.BufferGeometry {
  const parts: THREE.BufferGeometry[] = [];
  const from = new THREE.Vector3(), to = new THREE.Vector3(), up = new THREE.Vector3(0, 1, 0);
  for (let b = 0; b < skeleton.boneCount; b++) {
    const p = skeleton.parents[b];
    if (p < 0) continue;
    from.fromArray(component, p * 3);
    to.fromArray(component, b * 3);
    const length = from.distanceTo(to);
    if (length < 1e-3) continue;
    const width = skeleton.boneNames[b] === 'head' ? 16 : skeleton.boneNames[b].startsWith('spine') ? 22 : 8;
    const box = new THREE.BoxGeometry(width, length, width * 0.8);
    box.applyQuaternion(new THREE.Quaternion().setFromUnitVectors(up, to.clone().sub(from).normalize()));
    box.translate((from.x + to.x) / 2, (from.y + to.y) / 2, (from.z + to.z) / 2);
    const n = box.attributes.position.count;
    box.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(new Uint16Array(n * 4).map((_, i) => (i % 4 === 0 ? p : 0)), 4));
    box.setAttribute('skinWeight', new THREE.Float32BufferAttribute(new Float32Array(n * 4).map((_, i) => (i % 4 === 0 ? 1 : 0)), 4));
    parts.push(box);
  }
  return mergeGeometries(parts)!;
}

function bonesOf(skeleton: Skeleton): THREE.Bone[] {
  const ref = skeleton.referencePose;
  const bones: THREE.Bone[] = [];
  for (let b = 0; b < skeleton.boneCount; b++) {
    const bone = new THREE.Bone();
    bone.name = skeleton.boneNames[b];
    bone.position.fromArray(ref.translations, b * 3);
    bone.quaternion.fromArray(ref.rotations, b * 4);
    bone.scale.fromArray(ref.scales, b * 3);
    if (skeleton.parents[b] >= 0) bones[skeleton.parents[b]].add(bone);
    bones.push(bone);
  }
  return bones;
}

function start(): void {
  const graph = loadGraphAsset(LOCOMOTION_ASSET);
  const crowd = graph.createInstances(count, { componentSpace: true });
  state.wasm = crowd.wasm;
  const skeleton = graph.skeleton;
  // The reference pose in component space, for the body's bind positions: the crowd's rows before any update.
  const reference = Float64Array.from(crowd.instances[0].componentPose().translations);

  const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true }) // kept for a test's screenshot;
  renderer.setPixelRatio(1);
  renderer.setSize(window.innerWidth, window.innerHeight);
  document.body.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x20242c);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x445566, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.5);
  sun.position.set(1, 2, 1.5);
  scene.add(sun);
  const extent = ROW * SPACING;
  const camera = new THREE.PerspectiveCamera(45, window.innerWidth / window.innerHeight, 10, extent * 6);
  camera.position.set(extent * 0.5, extent * 0.75, extent * 1.45);
  camera.lookAt(extent * 0.5, 0, extent * 0.45);
  const floor = new THREE.Mesh(new THREE.PlaneGeometry(extent * 1.6, extent * 1.6), new THREE.MeshLambertMaterial({ color: 0x39404c }));
  floor.rotation.x = -Math.PI / 2;
  floor.position.set(extent * 0.5, 0, extent * 0.5);
  scene.add(floor);

  const geometry = bodyGeometry(skeleton, reference);
  const materials = [0x9aa6b8, 0x5fa8d3, 0xe07a5f].map((color) => new THREE.MeshLambertMaterial({ color }));
  const hatGeometry = new THREE.ConeGeometry(11, 22, 12).translate(0, 20, 0);
  const hatMaterial = new THREE.MeshLambertMaterial({ color: 0xf2cc8f });
  const characters: THREE.Group[] = [];
  const bindings: ThreeBinding[] = [];
  const skeletons: THREE.Skeleton[] = [];
  const gaits = new Int32Array(count);
  for (let c = 0; c < count; c++) {
    const character = new THREE.Group();
    const bones = bonesOf(skeleton);
    character.add(bones[0]);
    const mesh = new THREE.SkinnedMesh(geometry, materials[c % 3]);
    character.add(mesh);
    character.updateMatrixWorld(true);
    const threeSkeleton = new THREE.Skeleton(bones);
    mesh.bind(threeSkeleton); // at the origin: every character shares its inverse bind matrices' values
    if (c % 10 === 0) bones[skeleton.indexOf('head')].add(new THREE.Mesh(hatGeometry, hatMaterial));
    character.position.set((c % ROW) * SPACING, 0, Math.floor(c / ROW) * SPACING);
    character.rotation.y = ((c * 7) % 4) * (Math.PI / 2);
    scene.add(character);
    gaits[c] = c % 3;
    crowd.instances[c].setParameter('gait', gaits[c]);
    characters.push(character);
    skeletons.push(threeSkeleton);
    bindings.push(bindThree(crowd.instances[c], mesh));
  }
  state.characters = count;

  const heading = new THREE.Vector3();
  const average = (previous: number, value: number): number => (state.frame < 2 ? value : previous + (value - previous) * 0.1);
  let last = performance.now();
  const frame = (): void => {
    try {
      const now = performance.now();
      const dt = Math.min(0.1, Math.max(1 / 240, (now - last) / 1000));
      last = now;
      // Staggered gait switches: a tenth of the crowd changes gait every half second.
      const switching = state.frame % 30;
      for (let c = switching; c < count; c += 30) {
        if ((state.frame / 30 + c) % 3 < 1) {
          gaits[c] = (gaits[c] + 1) % 3;
          crowd.instances[c].setParameter('gait', gaits[c]);
        }
      }
      // Move each character along its heading at its gait's speed, wrapping around the square.
      for (let c = 0; c < count; c++) {
        const character = characters[c];
        heading.set(0, 0, 1).applyQuaternion(character.quaternion);
        character.position.addScaledVector(heading, SPEEDS[gaits[c]] * dt);
        character.position.x = ((character.position.x % extent) + extent) % extent;
        character.position.z = ((character.position.z % extent) + extent) % extent;
      }
      const t0 = performance.now();
      crowd.update(dt);
      const t1 = performance.now();
      for (let c = 0; c < count; c++) bindings[c].apply();
      const t2 = performance.now();
      renderer.render(scene, camera);
      const t3 = performance.now();
      state.graphMs = average(state.graphMs, t1 - t0);
      state.bindingMs = average(state.bindingMs, t2 - t1);
      state.rendererMs = average(state.rendererMs, t3 - t2);
      state.drawCalls = renderer.info.render.calls;
      state.triangles = renderer.info.render.triangles;
      if (state.frame % 30 === 0) state.finite = skeletons.every((s) => s.boneMatrices!.every(Number.isFinite));
      state.frame++;
      state.status = 'running';
      panel.textContent =
        `${count} characters x ${skeleton.boneCount} bones (${state.wasm ? 'WebAssembly kernel' : 'JavaScript'})\n` +
        `graph    ${state.graphMs.toFixed(2).padStart(7)} ms\n` +
        `binding  ${state.bindingMs.toFixed(2).padStart(7)} ms\n` +
        `renderer ${state.rendererMs.toFixed(2).padStart(7)} ms\n` +
        `draw calls ${state.drawCalls}, triangles ${state.triangles}`;
      requestAnimationFrame(frame);
    } catch (error) {
      fail(error);
    }
  };
  requestAnimationFrame(frame);
}

const panel = document.createElement('pre');
panel.id = 'stats';
panel.style.cssText = 'position:fixed;left:8px;top:8px;margin:0;padding:6px 8px;background:#000a;color:#e8e8e8;font:12px/1.4 monospace;';
document.body.appendChild(panel);

function fail(error: unknown): void {
  state.status = 'failed';
  state.error = error instanceof Error ? error.message : String(error);
  panel.textContent = `failed: ${state.error}`;
  console.error(error);
}

try {
  start();
} catch (error) {
  fail(error);
}
