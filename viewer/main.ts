/**
 * The `animgraph view` page: runs the graph here, in the browser (the core is bundled in), draws
 * it with three.js, and shows its parameters and per-frame debug tree. The server (cli/view-server.ts)
 * only serves the graph file, the files it references and a change notice. Here: the controls,
 * loading a graph and the loop; the scene is scene.ts, a character's frames character.ts, what it
 * draws figures.ts.
 */
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { AnimGraphError } from '../runtime/core/errors.ts';
import type { AnimGraph } from '../runtime/graph/graph.ts';
import type { ParameterValue } from '../runtime/node/parameters.ts';
import { formatDebugTree } from '../host/runner.ts';
import { DisplayedPose, History, simulate, upAxisOf, type Character } from './character.ts';
import { poseBounds, SkinnedFigure, StickFigure, type Figure } from './figures.ts';
import { GraphLoadError, loadViewerGraph, type Resolve } from './load.ts';
import { buildMontagePanel, buildParameterPanel, DebugTreeView } from './panels.ts';
import { ViewScene } from './scene.ts';
import { SourceView } from './source-view.ts';
import { state, type Problem } from './state.ts';

type GraphInfo = { source: string; asset: unknown } | { source: string; problems: Problem[] };

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
const montageSection = $('montage-section');
const montagePanel = $('montages');
const sourceToggle = $<HTMLInputElement>('show-source');
const sourceRow = $('source-row');
const debugText = $('debug-text');
const debugTree = new DebugTreeView($('debug-tree'));

// --- the scene -----------------------------------------------------------------------------------
const view = new ViewScene(canvas);
const { space, characterRoot } = view;

// --- a loaded graph --------------------------------------------------------------------------------
let current: Character | null = null;
let sourceView: SourceView | null = null;
/** Parameter values set in the panel, kept across reloads where the parameter still fits. */
const parameterValues = new Map<string, ParameterValue>();
let playing = true;
let speed = 1;
let shown = 0;
let loadGeneration = 0;

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
  sourceView?.show(c.history.tree(frame), c.displayed, characterRoot, sourceToggle.checked);
  view.invalidate();
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
    if (!res.ok) throw new AnimGraphError('io', `cannot fetch ${path}: ${res.status} ${(await res.text()).trim()}`);
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
  // An unnamed node is 'node<index>' to the graph's importer (CesiumMan's joints): named so here too.
  gltf.scene.traverse((object) => {
    const node = gltf.parser.associations.get(object)?.nodes;
    if (node !== undefined && !(typeof object.userData.name === 'string' && object.userData.name.length > 0)) object.userData.name = `node${node}`;
  });
  return gltf.scene;
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
  if (sourceView) {
    space.remove(sourceView.object);
    sourceView.dispose();
  }
  sourceView = new SourceView(graph, extent);
  space.add(sourceView.object);
  sourceRow.hidden = !sourceView.active;
  state.retargetSource.available = sourceView.active;
  state.figure = gltfScene ? 'skinned' : 'skeleton';
  state.unboundGraphBones = figure instanceof SkinnedFigure ? [...figure.unusedGraphBones] : [];
  state.bones = skeleton.boneCount;
  space.rotation.x = up === 'z' ? -Math.PI / 2 : 0;
  space.updateMatrixWorld(true);
  view.invalidate();
  if (reframe) view.frameCamera(c);
  buildParameterPanel(parameterForm, graph.parameterDefinitions, descriptionsOf(asset), parameterValues, (name, value) => {
    parameterValues.set(name, value);
    try {
      current?.instance.setParameter(name, value);
    } catch (e) {
      console.warn((e as Error).message);
    }
  });
  const montages = [...graph.montages.values()];
  montageSection.hidden = montages.length === 0;
  buildMontagePanel(montagePanel, montages, (name, section) => current?.instance.playMontage(name, { section }), () => current?.instance.stopMontage());
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
sourceToggle.addEventListener('change', () => {
  if (current) showFrame(current, Math.max(current.history.oldest, Math.min(shown, current.history.newest)), performance.now(), true);
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
  if (!view.frameDue(now)) return;
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
    view.follow();
  }
  view.render();
  if (c && state.status !== 'running' && state.problems.length === 0) {
    state.status = 'running';
    document.body.dataset.status = 'running';
  }
}
requestAnimationFrame(tick);

new EventSource('api/events').addEventListener('change', () => { void loadAndShow(); });
void loadAndShow();
