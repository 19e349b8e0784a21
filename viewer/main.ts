/**
 * The `animgraph view` page: runs the graph here, in the browser (the core is bundled in), draws
 * it with three.js, and shows its parameters and per-frame debug tree. The server (cli/view-server.ts)
 * only serves the graph file, the files it references and a change notice.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { ComponentPose } from '../runtime/core/component-pose.ts';
import type { AnimGraph } from '../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../runtime/graph/instance.ts';
import type { DebugNode } from '../runtime/node/node.ts';
import type { ParameterValue } from '../runtime/node/parameters.ts';
import { Pose } from '../runtime/core/pose.ts';
import { integrateRootMotion, type UpAxis } from '../runtime/jobs/root-motion.ts';
import { formatDebugTree } from '../host/runner.ts';
import type { Skeleton } from '../runtime/core/skeleton.ts';
import { poseBounds, SkinnedFigure, StickFigure, type Figure } from './figures.ts';
import { GraphLoadError, loadViewerGraph, type Resolve } from './load.ts';
import { buildParameterPanel, DebugTreeView } from './panels.ts';

interface Problem { path: string; code: string; message: string }
type GraphInfo = { source: string; asset: unknown } | { source: string; problems: Problem[] };

/** What tests (and the curious, from the console) read: `window.__animgraphViewer`. */
const state = {
  /** 'loading', 'running' (a frame has been drawn) or 'error' (the last load failed; an older graph may still run). */
  status: 'loading' as 'loading' | 'running' | 'error',
  source: '',
  /** The newest simulated frame. */
  frame: 0,
  /** How many graphs have been installed (a reload adds one). */
  loads: 0,
  figure: '' as '' | 'skinned' | 'skeleton',
  bones: 0,
  /** Skinned figures: the graph's bones no three.js bone has (they drive nothing). */
  unboundGraphBones: [] as string[],
  problems: [] as Problem[],
  /** The character's position in the world at the newest frame (root motion moves it), in the graph's axes. */
  root: [0, 0, 0] as number[],
  /** Where the character's root is in the view, x and y from -1 to 1 (the camera follows it, so it stays put). */
  onScreen: [0, 0] as number[],
  /** False once any simulated pose or root transform held a non-finite number. */
  finite: true,
  debugText: '',
};
(window as unknown as { __animgraphViewer: typeof state }).__animgraphViewer = state;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const canvas = $<HTMLCanvasElement>('canvas');
const errorsBox = $('errors');
const statusLine = $('status');
const playButton = $<HTMLButtonElement>('play');
const stepButton = $<HTMLButtonElement>('step');
const speedInput = $<HTMLInputElement>('speed');
const speedLabel = $('speed-label');
const scrubber = $<HTMLInputElement>('scrubber');
const frameLabel = $('frame-label');
const parameterForm = $('parameters');
const debugText = $('debug-text');
const debugTree = new DebugTreeView($('debug-tree'));

// --- the scene -----------------------------------------------------------------------------------
// preserveDrawingBuffer: the canvas can be read back (screenshots, the browser test's pixel check).
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x2b2e33);
scene.add(new THREE.HemisphereLight(0xffffff, 0x404040, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 2);
sun.position.set(1, 2, 1.5);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
camera.position.set(2, 1.5, 4);
const controls = new OrbitControls(camera, canvas);
controls.enableDamping = true;
let grid = makeGrid(0.5, 40);
scene.add(grid);
let gridCell = 0.5;
/** Turns a Z-up character (root motion with up 'z') upright in three's Y-up world. */
const space = new THREE.Group();
scene.add(space);
/** The character's world transform: root motion moves it. */
const characterRoot = new THREE.Group();
space.add(characterRoot);

function resize(): void {
  const { clientWidth: w, clientHeight: h } = canvas.parentElement!;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
}
new ResizeObserver(resize).observe(canvas.parentElement!);
resize();

// --- a loaded graph --------------------------------------------------------------------------------
const HISTORY = 600;

/** The last HISTORY frames (local pose, root transform, time, debug tree), for the scrubber. */
class History {
  private readonly stride: number;
  private readonly poses: Float64Array;
  private readonly worlds = new Float64Array(HISTORY * 7);
  private readonly times = new Float64Array(HISTORY);
  private readonly trees: (DebugNode | null)[] = new Array<DebugNode | null>(HISTORY).fill(null);
  newest = -1;
  count = 0;

  constructor(private readonly boneCount: number) {
    this.stride = boneCount * 10;
    this.poses = new Float64Array(HISTORY * this.stride);
  }

  get oldest(): number { return this.newest - this.count + 1; }

  record(frame: number, time: number, pose: Pose, world: Float64Array, tree: DebugNode): void {
    const slot = frame % HISTORY, n = this.boneCount, at = slot * this.stride;
    this.poses.set(pose.translations, at);
    this.poses.set(pose.rotations, at + 3 * n);
    this.poses.set(pose.scales, at + 7 * n);
    this.worlds.set(world, slot * 7);
    this.times[slot] = time;
    this.trees[slot] = tree;
    this.newest = frame;
    this.count = Math.min(this.count + 1, HISTORY);
  }

  /** Copies frame `frame` into `pose` and `world`; returns its time. */
  read(frame: number, pose: Pose, world: Float64Array): number {
    const slot = frame % HISTORY, n = this.boneCount, at = slot * this.stride;
    pose.translations.set(this.poses.subarray(at, at + 3 * n));
    pose.rotations.set(this.poses.subarray(at + 3 * n, at + 7 * n));
    pose.scales.set(this.poses.subarray(at + 7 * n, at + 10 * n));
    world.set(this.worlds.subarray(slot * 7, slot * 7 + 7));
    return this.times[slot];
  }

  tree(frame: number): DebugNode | null { return this.trees[frame % HISTORY]; }
}

/** The pose on screen (the newest frame, or one the scrubber went back to): what the figure draws. */
class DisplayedPose {
  readonly pose: Pose;
  readonly component: ComponentPose;
  readonly world = Float64Array.of(0, 0, 0, 0, 0, 0, 1);
  constructor(readonly skeleton: Skeleton) {
    this.pose = new Pose(skeleton.boneCount);
    this.component = new ComponentPose(skeleton);
  }
  componentPose(): ComponentPose { return this.component; }
  /** Recomputes the component pose after `pose` changed. */
  commit(): void {
    this.component.setFromLocal(this.pose);
    this.component.ensureAllComponent();
  }
}

interface Character {
  graph: AnimGraph;
  instance: AnimGraphInstance;
  figure: Figure;
  history: History;
  displayed: DisplayedPose;
  world: Float64Array;
  up: UpAxis;
  frame: number;
  time: number;
  skeletonKey: string;
}

let current: Character | null = null;
/** Parameter values set in the panel, kept across reloads where the parameter still fits. */
const parameterValues = new Map<string, ParameterValue>();
let playing = true;
let speed = 1;
let shown = 0;
let loadGeneration = 0;

function isFiniteArray(a: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}

/** Advances the character by dt seconds and records the frame. */
function simulate(c: Character, dt: number): void {
  c.instance.update(dt);
  integrateRootMotion(c.world, c.instance.rootMotion, c.up);
  const pose = c.instance.evaluate();
  if (c.history.count > 0) c.frame++;
  c.time += dt;
  if (state.finite && !(isFiniteArray(pose.translations) && isFiniteArray(pose.rotations) && isFiniteArray(pose.scales) && isFiniteArray(c.world))) {
    state.finite = false;
    console.warn(`animgraph view: frame ${c.frame} holds a non-finite number`);
  }
  c.history.record(c.frame, c.time, pose, c.world, c.instance.gatherDebug());
  state.frame = c.frame;
  state.root[0] = c.world[0];
  state.root[1] = c.world[1];
  state.root[2] = c.world[2];
}

let lastPanelUpdate = -Infinity;
let drawnFrame = -1;

/** Puts frame `frame` on screen: figure, root transform, labels, and (throttled while playing) the debug panels. */
function showFrame(c: Character, frame: number, now: number, force: boolean): void {
  if (frame === drawnFrame && !force) return;
  drawnFrame = frame;
  const time = c.history.read(frame, c.displayed.pose, c.displayed.world);
  c.displayed.commit();
  const w = c.displayed.world;
  characterRoot.position.set(w[0], w[1], w[2]);
  characterRoot.quaternion.set(w[3], w[4], w[5], w[6]);
  characterRoot.updateMatrixWorld(true);
  c.figure.apply();
  scrubber.min = String(c.history.oldest);
  scrubber.max = String(c.history.newest);
  scrubber.value = String(frame);
  frameLabel.textContent = `frame ${frame} · ${time.toFixed(2)} s`;
  if (!force && playing && now - lastPanelUpdate < 100) return;
  lastPanelUpdate = now;
  const tree = c.history.tree(frame);
  if (!tree) return;
  debugTree.show(tree);
  state.debugText = `frame ${frame} time ${time.toFixed(3)}\n${formatDebugTree(tree).join('\n')}`;
  debugText.textContent = state.debugText;
}

// --- loading -----------------------------------------------------------------------------------
function showProblems(source: string, problems: readonly Problem[]): void {
  state.status = 'error';
  state.problems = [...problems];
  document.body.dataset.status = 'error';
  const title = document.createElement('h2');
  title.textContent = `${source} did not load: ${problems.length} problem${problems.length === 1 ? '' : 's'}${current ? ' (still showing the last graph that loaded)' : ''}`;
  const list = document.createElement('ul');
  for (const p of problems) {
    const item = document.createElement('li');
    const code = document.createElement('span');
    code.className = 'code';
    code.textContent = ` [${p.code}]`;
    item.append(`${p.path}: ${p.message}`, code);
    list.append(item);
  }
  errorsBox.replaceChildren(title, list);
  errorsBox.hidden = false;
}

function fetchFile(path: string): Promise<Uint8Array> {
  return fetch(`file?path=${encodeURIComponent(path)}`).then(async (res) => {
    if (!res.ok) throw new Error(`cannot fetch ${path}: ${res.status} ${(await res.text()).trim()}`);
    return new Uint8Array(await res.arrayBuffer());
  });
}

/** The asset's glTF skeleton file, as written, when its skeleton comes from a glTF. */
function gltfSkeletonPath(asset: unknown): string | null {
  const skeleton = (asset as { skeleton?: unknown }).skeleton;
  const path = typeof skeleton === 'object' && skeleton !== null ? (skeleton as { gltf?: unknown }).gltf : undefined;
  return typeof path === 'string' ? path : null;
}

async function loadGltfScene(path: string, resolve: Resolve): Promise<THREE.Object3D> {
  const bytes = await resolve(path);
  const manager = new THREE.LoadingManager();
  // A .gltf's buffers and images are fetched, as the graph's own files, by their path next to it.
  const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '';
  manager.setURLModifier((url) => (/^(data|blob):/.test(url) ? url : `file?path=${encodeURIComponent(folder + decodeURIComponent(url))}`));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const gltf = await new GLTFLoader(manager).parseAsync(buffer, '');
  // bindThree matches GLTFLoader's sanitised node names ('FootL') by the name as written (userData.name).
  return gltf.scene;
}

function upAxisOf(graph: AnimGraph): UpAxis {
  for (const binding of graph.clipBindings.values()) if (binding.clip.rootMotion) return binding.clip.rootMotion.up;
  return 'y';
}

async function loadAndShow(): Promise<void> {
  const generation = ++loadGeneration;
  let info: GraphInfo;
  try {
    const res = await fetch('api/graph');
    info = await res.json() as GraphInfo;
  } catch (e) {
    showProblems('the graph', [{ path: '$', code: 'file', message: `the server did not answer: ${(e as Error).message}` }]);
    return;
  }
  if (generation !== loadGeneration) return;
  state.source = info.source;
  if ('problems' in info) return showProblems(info.source, info.problems);
  const files = new Map<string, Promise<Uint8Array>>();
  // One fetch per file, whoever asks: the loader and GLTFLoader read the same .glb.
  const resolve: Resolve = (path) => {
    let bytes = files.get(path);
    if (!bytes) files.set(path, bytes = fetchFile(path));
    return bytes;
  };
  let character: Character;
  try {
    const graph = await loadViewerGraph(info.asset, info.source, resolve);
    const gltfPath = gltfSkeletonPath(info.asset);
    const gltfScene = gltfPath === null ? null : await loadGltfScene(gltfPath, resolve);
    if (generation !== loadGeneration) return;
    character = install(graph, info.asset, gltfScene);
  } catch (e) {
    if (generation !== loadGeneration) return;
    if (e instanceof GraphLoadError) return showProblems(info.source, e.problems);
    console.warn(e);
    return showProblems(info.source, [{ path: '$', code: 'load', message: (e as Error).message ?? String(e) }]);
  }
  errorsBox.hidden = true;
  state.problems = [];
  current = character;
  drawnFrame = -1;
  showFrame(character, character.frame, performance.now(), true);
  document.title = `${info.source} · animgraph view`;
  $('title').textContent = character.graph.name || info.source;
  $('description').textContent = String((info.asset as { description?: unknown }).description ?? '');
  statusLine.textContent = `${info.source} · ${character.graph.skeleton.boneCount} bones · ${state.figure === 'skinned' ? 'skinned glTF mesh' : 'skeleton'}`;
  state.loads++;
}

function install(graph: AnimGraph, asset: unknown, gltfScene: THREE.Object3D | null): Character {
  const instance = graph.createInstance();
  for (const [name, value] of parameterValues) {
    try {
      if (instance.parameters.has(name)) instance.setParameter(name, value);
    } catch {
      parameterValues.delete(name); // the parameter's type changed: its default stands
    }
  }
  const skeleton = graph.skeleton;
  const displayed = new DisplayedPose(skeleton);
  const previous = current;
  const skeletonKey = JSON.stringify((asset as { skeleton?: unknown }).skeleton);
  const reframe = previous === null || previous.skeletonKey !== skeletonKey;
  const up = upAxisOf(graph);
  // Frame 0 is the initial pose, as `animgraph run` has it: an update of 0 s.
  const c: Character = {
    graph, instance, displayed, up, skeletonKey, figure: null as unknown as Figure,
    history: new History(skeleton.boneCount),
    world: reframe || !previous ? Float64Array.of(0, 0, 0, 0, 0, 0, 1) : Float64Array.from(previous.world),
    frame: 0, time: 0,
  };
  simulate(c, 0);
  const bounds = poseBounds(instance.componentPose(), skeleton.boneCount);
  const extent = Math.max(bounds[3] - bounds[0], bounds[4] - bounds[1], bounds[5] - bounds[2]) || 1;
  let figure: Figure;
  try {
    figure = gltfScene ? new SkinnedFigure(displayed, gltfScene) : new StickFigure(displayed, extent * 0.012);
  } catch (e) {
    throw new GraphLoadError(state.source, [{ path: '$.skeleton', code: 'not-bindable', message: (e as Error).message }]);
  }
  c.figure = figure;
  if (previous) {
    characterRoot.remove(previous.figure.object);
    previous.figure.dispose();
  }
  characterRoot.add(figure.object);
  state.figure = gltfScene ? 'skinned' : 'skeleton';
  state.unboundGraphBones = figure instanceof SkinnedFigure ? [...figure.unusedGraphBones] : [];
  state.bones = skeleton.boneCount;
  space.rotation.x = up === 'z' ? -Math.PI / 2 : 0;
  space.updateMatrixWorld(true);
  if (reframe) frameCamera(c);
  buildParameterPanel(parameterForm, graph.parameterDefinitions, descriptionsOf(asset), parameterValues, (name, value) => {
    parameterValues.set(name, value);
    try {
      current?.instance.setParameter(name, value);
    } catch (e) {
      console.warn((e as Error).message);
    }
  });
  debugTree.clear();
  return c;
}

function descriptionsOf(asset: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const parameters = (asset as { parameters?: unknown }).parameters;
  if (typeof parameters !== 'object' || parameters === null) return out;
  for (const [name, def] of Object.entries(parameters)) {
    const d = (def as { description?: unknown } | null)?.description;
    if (typeof d === 'string') out[name] = d;
  }
  return out;
}

/**
 * A ground grid of `count` × `count` cells, every cell edge its own segment (three's GridHelper
 * draws each line whole, and software rasterisers such as headless Chromium's drop a line that
 * passes behind the camera instead of clipping it: the grid near the character vanished).
 */
function makeGrid(cell: number, count: number): THREE.LineSegments {
  const half = (count * cell) / 2;
  const positions: number[] = [], colors: number[] = [];
  const major = new THREE.Color(0x6b7078), minor = new THREE.Color(0x454950);
  for (let i = 0; i <= count; i++) {
    const a = -half + i * cell;
    const color = i === count / 2 ? major : minor;
    for (let j = 0; j < count; j++) {
      const b0 = -half + j * cell, b1 = b0 + cell;
      positions.push(a, 0, b0, a, 0, b1, b0, 0, a, b1, 0, a);
      for (let k = 0; k < 4; k++) colors.push(color.r, color.g, color.b);
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
  geometry.setAttribute('color', new THREE.Float32BufferAttribute(colors, 3));
  return new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ vertexColors: true }));
}

const followed = new THREE.Vector3();
const followedBefore = new THREE.Vector3();

/** Points the camera at the character's first frame, sized to it, with the grid under its feet. */
function frameCamera(c: Character): void {
  c.history.read(c.frame, c.displayed.pose, c.displayed.world);
  c.displayed.commit();
  characterRoot.position.set(0, 0, 0);
  characterRoot.quaternion.identity();
  characterRoot.updateMatrixWorld(true);
  c.figure.apply();
  // The joints' world bounds: component space through the character's (and the Z-up fix's) transform.
  const box = new THREE.Box3();
  const t = c.displayed.component.translations, v = new THREE.Vector3();
  const toWorld = (c.figure instanceof SkinnedFigure ? c.figure.rootMatrix() : characterRoot.matrixWorld);
  for (let i = 0; i < c.graph.skeleton.boneCount; i++) box.expandByPoint(v.set(t[i * 3], t[i * 3 + 1], t[i * 3 + 2]).applyMatrix4(toWorld));
  // A mesh reaches past its joints (the robot's head is above its head bone): its bind-pose bounds too.
  if (c.figure instanceof SkinnedFigure) box.union(new THREE.Box3().setFromObject(c.figure.object));
  const size = box.getSize(new THREE.Vector3());
  const extent = Math.max(size.x, size.y, size.z) || 1;
  const center = box.getCenter(new THREE.Vector3());
  camera.near = extent / 100;
  camera.far = extent * 400;
  camera.position.set(center.x + extent * 1.3, center.y + extent * 0.5, center.z + extent * 2.2);
  camera.updateProjectionMatrix();
  controls.target.copy(center);
  controls.update();
  scene.remove(grid);
  grid.geometry.dispose();
  (grid.material as THREE.Material).dispose();
  gridCell = extent / 4;
  grid = makeGrid(gridCell, 100);
  grid.position.y = box.min.y;
  scene.add(grid);
  characterRoot.getWorldPosition(followedBefore);
}

/** Keeps the camera and the grid with the character as root motion carries it away. */
function follow(): void {
  characterRoot.getWorldPosition(followed);
  const dx = followed.x - followedBefore.x, dy = followed.y - followedBefore.y, dz = followed.z - followedBefore.z;
  if (dx !== 0 || dy !== 0 || dz !== 0) {
    camera.position.x += dx; camera.position.y += dy; camera.position.z += dz;
    controls.target.x += dx; controls.target.y += dy; controls.target.z += dz;
    followedBefore.copy(followed);
  }
  const ndc = followedBefore.clone().project(camera);
  state.onScreen[0] = ndc.x;
  state.onScreen[1] = ndc.y;
  // Whole cells only: the grid looks endless and the character is seen to move over it.
  grid.position.x = Math.round(followed.x / gridCell) * gridCell;
  grid.position.z = Math.round(followed.z / gridCell) * gridCell;
}

// --- the transport and the loop ------------------------------------------------------------------
function setPlaying(on: boolean): void {
  playing = on;
  playButton.textContent = on ? 'Pause' : 'Play';
  if (current && on) shown = current.frame;
  // The panels lag the playing frame by up to 100 ms: paused, they show the frame on screen at once.
  if (current && !on) showFrame(current, Math.max(current.history.oldest, Math.min(shown, current.history.newest)), performance.now(), true);
}
playButton.addEventListener('click', () => setPlaying(!playing));
stepButton.addEventListener('click', () => {
  if (!current) return;
  setPlaying(false);
  simulate(current, speed / 60);
  shown = current.frame;
  showFrame(current, shown, performance.now(), true);
});
speedInput.addEventListener('input', () => {
  speed = Number(speedInput.value);
  speedLabel.textContent = `${speed.toFixed(2)}×`;
});
scrubber.addEventListener('input', () => {
  shown = Number(scrubber.value);
  setPlaying(false);
});
window.addEventListener('keydown', (e) => {
  if (e.code !== 'Space' || (e.target as HTMLElement).closest('input, button, textarea, select')) return;
  e.preventDefault();
  setPlaying(!playing);
});

let last: number | undefined;
function tick(now: number): void {
  requestAnimationFrame(tick);
  // A long pause (a background tab) is one step of at most 0.1 s, not a jump.
  const dt = last === undefined ? 0 : Math.min((now - last) / 1000, 0.1);
  last = now;
  const c = current;
  if (c) {
    if (playing && dt > 0) {
      simulate(c, dt * speed);
      shown = c.frame;
    }
    showFrame(c, Math.max(c.history.oldest, Math.min(shown, c.history.newest)), now, false);
    follow();
  }
  controls.update();
  renderer.render(scene, camera);
  if (c && state.status !== 'running' && state.problems.length === 0) {
    state.status = 'running';
    document.body.dataset.status = 'running';
  }
}
requestAnimationFrame(tick);

new EventSource('api/events').addEventListener('change', () => { void loadAndShow(); });
void loadAndShow();
