/**
 * The editor: the canvas (React Flow) over the model (editor/model), the side panels, the preview,
 * and the loop that ties them: every edit is a new asset, pushed on the history, checked by the
 * loader at once, drawn with its problems, played by the preview when it loads, saved on request.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import {
  Background, Controls, MarkerType, MiniMap, ReactFlow, ReactFlowProvider, applyEdgeChanges, applyNodeChanges, useNodesInitialized, useReactFlow,
  type Connection, type EdgeChange, type NodeChange,
} from '@xyflow/react';
import type { NodeRegistry } from '../../graphs/loader.ts';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import { formatDebugTree } from '../../host/runner.ts';
import { buildMontagePanel, buildParameterPanel } from '../../viewer/panels.ts';
import {
  ANY_STATE_ID, ENTRY_ID, History, OUTPUT_ID, addNode, addState, addTransition, assetChoices, canvas as canvasOf, connect, copyNodes,
  disconnect, formatAsset, locateProblem, moveNodes, palette, pasteNodes, propertyFields, removeNodes, removeState, renameBlendProfile, renameClip, renameMontage, renameNode, renameParameter, renameState,
  ruleText, setAssetEntry, setAssetValue, setProperty, setTransition,
  type AssetSection, type Canvas, type CanvasPath, type ClipTiming, type EditResult, type EditorTypes, type Json, type JsonObject,
} from '../model/index.ts';
import type { Checker } from './checker.ts';
import { edgeTypes, LiveContext, nodeTypes, type FlowEdge, type FlowNode, type Live } from './flow.tsx';
import { AssetPanel, Palette, ProblemsList, PropertiesPanel, StatePanel, TransitionPanel, type Choices } from './panels.tsx';
// The preview (three.js, the viewer's scene) is a chunk of its own, fetched once the canvas is drawn.
import type { Preview, PreviewFrame } from './preview.ts';
import { editorState, type EditorProblem } from './state.ts';

export interface Opened {
  source: string;
  /** The file's text as read (what an unchanged asset saves back to, byte for byte). */
  text: string;
  asset: JsonObject;
  /** Problems of the text the loader cannot see (a key given twice). */
  textProblems: EditorProblem[];
  types: EditorTypes;
  registry?: NodeRegistry;
  checker: Checker;
}

const samePath = (a: CanvasPath, b: CanvasPath) => a.length === b.length && a.every((p, i) => p === b[i]);
const startsWith = (a: CanvasPath, prefix: CanvasPath) => prefix.length <= a.length && prefix.every((p, i) => p === a[i]);

function skeletonKey(asset: JsonObject): string {
  return JSON.stringify(asset.skeleton ?? null);
}

function gltfSkeletonPath(asset: JsonObject): string | null {
  const s = asset.skeleton;
  const path = s !== null && typeof s === 'object' && !Array.isArray(s) ? s.gltf : undefined;
  return typeof path === 'string' ? path : null;
}

/** The debug ids of a canvas's nodes: the canvas path's graph levels joined, as the loader scopes ids ('sm/walk/p'). */
function debugPrefix(path: CanvasPath): string {
  return path.length === 0 ? '' : `${path.join('/')}/`;
}

export function App({ opened }: { opened: Opened }) {
  return (
    <ReactFlowProvider>
      <Editor opened={opened} />
    </ReactFlowProvider>
  );
}

function Editor({ opened }: { opened: Opened }) {
  const { types, checker } = opened;
  const flow = useReactFlow();
  const history = useRef(new History(opened.asset));
  const [asset, setAsset] = useState<JsonObject>(opened.asset);
  /** The text on disk as last read or saved, and the asset it holds. */
  const base = useRef({ text: opened.text, asset: opened.asset });
  const [dirty, setDirty] = useState(false);
  const [path, setPath] = useState<CanvasPath>([]);
  const [problems, setProblems] = useState<EditorProblem[]>(opened.textProblems);
  const [notice, setNoticeText] = useState('');
  const [selectedNodes, setSelectedNodes] = useState<string[]>([]);
  const [selectedEdge, setSelectedEdge] = useState<string | null>(null);
  const [graph, setGraph] = useState<AnimGraph | null>(null);
  /** The last asset the loader loaded and its graph: the montage timelines' clip durations. */
  const [loaded, setLoaded] = useState<{ asset: JsonObject; graph: AnimGraph } | null>(null);
  /** The montage the preview plays and its clip time, as of the last frame shown. */
  const montagePlayhead = useRef<{ name: string; time: number } | null>(null);
  const [frame, setFrame] = useState<PreviewFrame | null>(null);
  const [playing, setPlayingState] = useState(true);
  const [showSource, setShowSource] = useState(true);
  // What the Play button last asked for, for a preview that starts after it was pressed.
  const playingAsked = useRef(true);
  const preview = useRef<Preview | null>(null);
  const previewCanvas = useRef<HTMLCanvasElement>(null);
  const parameterForm = useRef<HTMLFormElement>(null);
  const montagePanel = useRef<HTMLDivElement>(null);
  const lastEditKey = useRef<{ key: string; at: number } | null>(null);
  const clipboard = useRef('');
  const checkGeneration = useRef(0);
  const pendingEdit = useRef<{ generation: number; atFrame: number } | null>(null);
  const lastPanel = useRef(0);
  /** The problem a frame that threw put in the list (Preview.onFailure), until a frame simulates. */
  const stopped = useRef<EditorProblem | null>(null);

  const setNotice = useCallback((text: string) => {
    setNoticeText(text);
    editorState.notice = text;
  }, []);

  // --- the loader on every change, and the preview ---------------------------------------------------
  const install = useCallback((g: AnimGraph, a: JsonObject, scene: import('three').Object3D | null, edit: boolean) => {
    const p = preview.current;
    if (!p) return;
    const atFrame = p.character?.frame ?? 0;
    try {
      p.install(g, skeletonKey(a), scene);
    } catch (e) {
      // The graph loads but its first frame (or binding the figure) failed: a node's own code, a mesh that does not fit.
      setProblems([{ path: '$', code: 'preview', message: `the preview cannot play this graph: ${(e as Error).message}` }]);
      return;
    }
    editorState.installs++;
    if (edit) {
      pendingEdit.current = { generation: p.generation, atFrame };
      editorState.lastEdit = null;
    }
    setGraph(g);
  }, []);

  const gltfScenes = useRef(new Map<string, Promise<import('three').Object3D>>());
  const recheck = useCallback((a: JsonObject, edit: boolean) => {
    const generation = ++checkGeneration.current;
    const done = (result: ReturnType<Checker['checkNow']> & object) => {
      if (generation !== checkGeneration.current) return;
      const found: EditorProblem[] = result.ok ? [] : result.problems.map((p) => ({ path: p.path, code: p.code, message: p.message }));
      const textProblems = a === base.current.asset && base.current.text === opened.text ? opened.textProblems : [];
      setProblems([...textProblems, ...found]);
      editorState.loads = result.ok;
      if (!result.ok) return;
      setLoaded({ asset: a, graph: result.graph });
      const gltf = gltfSkeletonPath(a);
      const p = preview.current;
      if (gltf === null || (p?.character && p.character.skeletonKey === skeletonKey(a))) return install(result.graph, a, null, edit);
      let scene = gltfScenes.current.get(gltf);
      if (!scene) gltfScenes.current.set(gltf, scene = Promise.all([checker.fetchFile(gltf), import('./preview.ts')]).then(([bytes, m]) => m.loadGltfScene(gltf, bytes)));
      scene.then((s) => { if (generation === checkGeneration.current) install(result.graph, a, s.clone(true), edit); })
        .catch((e: Error) => setProblems([{ path: '$.skeleton', code: 'file', message: e.message }]));
    };
    const now = checker.checkNow(a);
    if (now) done(now);
    else checker.check(a).then(done).catch((e: Error) => setProblems([{ path: '$', code: 'load', message: e.message }]));
  }, [checker, install, opened]);

  // The preview, once the canvas is on screen (the graph is drawn first; the preview and the
  // loader's first run, which reads the clips, follow): its frames drive the live weights
  // (throttled) and the edit-to-frame record.
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    if (!painted) return;
    let p: Preview | undefined;
    let gone = false;
    void import('./preview.ts').then(({ Preview }) => {
      if (gone) return;
      p = startPreview(new Preview(previewCanvas.current!));
    });
    return () => { gone = true; p?.dispose(); };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [painted]);
  const startPreview = (p: Preview): Preview => {
    preview.current = p;
    if (!playingAsked.current) p.setPlaying(false);
    p.onFrame = (f, simulated) => {
      editorState.frame = f.frame;
      const instance = p.character?.instance;
      // (montageNames makes an array: read only while a montage plays.)
      const playing = instance?.isMontagePlaying() ? instance.montageNames.find((m) => instance.isMontagePlaying(m)) : undefined;
      editorState.montage = playing === undefined ? null : `${playing}/${instance!.currentMontageSection(playing)}`;
      montagePlayhead.current = playing === undefined ? null : { name: playing, time: instance!.montagePosition(playing) };
      const stop = stopped.current;
      if (simulated && stop) {
        stopped.current = null;
        setProblems((list) => list.filter((x) => x !== stop));
      }
      const pending = pendingEdit.current;
      if (simulated && pending && f.generation === pending.generation) {
        editorState.lastEdit = { atFrame: pending.atFrame, firstFrame: f.frame, debugText: f.tree ? formatDebugTree(f.tree).join('\n') : '' };
        pendingEdit.current = null;
      }
      const now = performance.now();
      if (p.playing && now - lastPanel.current < 100) return;
      lastPanel.current = now;
      setFrame(f);
    };
    // A frame that threw (a custom node's own code): paused, and said at the asset's root until a
    // frame simulates again or the next edit's check replaces the list.
    p.onFailure = (message) => {
      playingAsked.current = false;
      setPlayingState(false);
      const stop: EditorProblem = { path: '$', code: 'preview', message: `the preview stopped at ${message}` };
      stopped.current = stop;
      setProblems((list) => [...list, stop]);
    };
    recheck(history.current.current, false);
    return p;
  };

  // The parameter controls of the graph playing (the viewer's panel).
  useEffect(() => {
    if (!graph || !parameterForm.current || !preview.current) return;
    const p = preview.current;
    const descriptions: Record<string, string> = {};
    for (const [name, spec] of Object.entries((asset.parameters ?? {}) as JsonObject)) {
      const d = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? spec.description : undefined;
      if (typeof d === 'string') descriptions[name] = d;
    }
    buildParameterPanel(parameterForm.current, graph.parameterDefinitions, descriptions, p.parameterValues, (name, value) => p.setParameter(name, value));
    if (montagePanel.current) buildMontagePanel(montagePanel.current, [...graph.montages.values()], (name, section) => p.playMontage(name, section), () => p.stopMontages());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [graph]);

  // --- edits -----------------------------------------------------------------------------------------
  /** Makes an edit's asset current (or shows why it was refused); `key` merges a run of edits of one value into one undo step. */
  const apply = useCallback((result: EditResult, key?: string): boolean => {
    if (!result.ok) {
      setNotice(result.reason);
      return false;
    }
    const now = performance.now();
    const last = lastEditKey.current;
    if (key !== undefined && last && last.key === key && now - last.at < 1000 && history.current.canUndo) history.current.undo();
    lastEditKey.current = key === undefined ? null : { key, at: now };
    history.current.push(result.asset);
    setAsset(result.asset);
    setDirty(result.asset !== base.current.asset);
    setNotice('');
    recheck(result.asset, true);
    return true;
  }, [recheck, setNotice]);

  const travel = useCallback((to: JsonObject | undefined) => {
    if (!to) return;
    lastEditKey.current = null;
    setAsset(to);
    setDirty(to !== base.current.asset);
    recheck(to, true);
  }, [recheck]);
  const undo = useCallback(() => travel(history.current.undo()), [travel]);
  const redo = useCallback(() => travel(history.current.redo()), [travel]);

  const save = useCallback(async () => {
    const a = history.current.current;
    let text: string;
    try {
      text = formatAsset(a, base.current.text);
    } catch (e) {
      setNotice(`not saved: ${(e as Error).message}`);
      return;
    }
    const res = await fetch('api/save', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, base: base.current.text }) });
    const answer = await res.json() as { ok: boolean; reason?: string };
    if (!answer.ok) {
      setNotice(`not saved: ${answer.reason}`);
      return;
    }
    base.current = { text, asset: a };
    setDirty(history.current.current !== a);
    editorState.saves++;
    setNotice(`saved ${opened.source}`);
  }, [opened.source, setNotice]);

  // --- the canvas --------------------------------------------------------------------------------------
  // A canvas gone (its machine or state removed, or undone) shows the top level.
  const model: Canvas = useMemo(() => {
    try {
      return canvasOf(asset, path, types);
    } catch {
      return canvasOf(asset, [], types);
    }
  }, [asset, path, types]);
  useEffect(() => { if (model.path.length !== path.length) setPath([]); }, [model.path, path]);

  const located = useMemo(() => problems.map((p) => {
    try {
      return { problem: p, target: locateProblem(asset, p.path) };
    } catch {
      return { problem: p, target: { canvas: [] as CanvasPath } };
    }
  }), [problems, asset]);

  const open = useCallback((node: { opens?: CanvasPath }) => {
    if (node.opens) {
      setPath(node.opens);
      setSelectedNodes([]);
      setSelectedEdge(null);
    }
  }, []);

  const derivedNodes = useMemo((): FlowNode[] => model.nodes.map((n) => {
    const mine = located.filter((l) => samePath(l.target.canvas, model.path) && l.target.nodeId === n.id);
    const pinProblems: Record<string, EditorProblem[]> = {};
    for (const l of mine) if (l.target.handle) (pinProblems[l.target.handle] ??= []).push(l.problem);
    const inside = n.opens ? located.filter((l) => startsWith(l.target.canvas, n.opens!) && !samePath(l.target.canvas, model.path)).length : 0;
    return {
      id: n.id,
      type: model.kind === 'machine' ? 'state' : 'anim',
      position: { x: n.x, y: n.y },
      data: { node: n, problems: mine.map((l) => l.problem), pinProblems, inside, onOpen: open },
      deletable: n.kind !== 'output' && n.kind !== 'entry' && n.kind !== 'any-state',
    };
  }), [model, located, open]);
  const derivedEdges = useMemo((): FlowEdge[] => model.edges.map((e) => ({
    id: e.id, source: e.source, target: e.target, sourceHandle: model.kind === 'machine' ? 'out' : 'pose',
    targetHandle: e.targetHandle ?? (model.kind === 'machine' ? 'in' : undefined), type: 'weighted', data: { edge: e },
    reconnectable: e.kind === 'link' ? 'target' : false,
    markerEnd: e.kind === 'transition' || e.kind === 'entry' ? { type: MarkerType.ArrowClosed, color: '#c4a7e7', width: 16, height: 16 } : undefined,
  })), [model]);

  const [nodes, setNodes] = useState<FlowNode[]>(derivedNodes);
  const [edges, setEdges] = useState<FlowEdge[]>(derivedEdges);
  useEffect(() => {
    setNodes((old) => {
      const was = new Map(old.map((n) => [n.id, n]));
      return derivedNodes.map((n) => ({ ...n, selected: selectedNodes.includes(n.id), measured: was.get(n.id)?.measured }));
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [derivedNodes]);
  useEffect(() => {
    setEdges(derivedEdges.map((e) => ({ ...e, selected: e.id === selectedEdge })));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [derivedEdges]);

  editorState.canvas = [...model.path];
  editorState.nodes = model.nodes.length;
  editorState.edges = model.edges.length;
  editorState.problems = problems;
  editorState.dirty = dirty;

  const onNodesChange = useCallback((changes: NodeChange<FlowNode>[]) => {
    const kept = changes.filter((c) => c.type !== 'remove');
    setNodes((ns) => applyNodeChanges(kept, ns));
    if (kept.some((c) => c.type === 'select')) {
      setSelectedNodes((sel) => {
        const next = new Set(sel);
        for (const c of kept) if (c.type === 'select') { if (c.selected) next.add(c.id); else next.delete(c.id); }
        return [...next];
      });
    }
  }, []);
  const onEdgesChange = useCallback((changes: EdgeChange<FlowEdge>[]) => {
    const kept = changes.filter((c) => c.type !== 'remove');
    setEdges((es) => applyEdgeChanges(kept, es));
    for (const c of kept) if (c.type === 'select') setSelectedEdge((s) => (c.selected ? c.id : s === c.id ? null : s));
  }, []);

  const onConnect = useCallback((c: Connection) => {
    const a = history.current.current;
    if (model.kind === 'machine') apply(addTransition(a, model.path, c.source === ANY_STATE_ID ? '*' : c.source, c.target));
    else apply(connect(a, model.path, c.source, c.target, c.targetHandle ?? 'pose', types));
  }, [apply, model.kind, model.path, types]);

  // Dragging a wire's end to another pin moves it; dropping it on nothing removes it.
  const reconnected = useRef(false);
  const onReconnectStart = useCallback(() => { reconnected.current = false; }, []);
  const onReconnect = useCallback((old: FlowEdge, c: Connection) => {
    reconnected.current = true;
    const removed = disconnect(history.current.current, model.path, old.id);
    if (!removed.ok) return void setNotice(removed.reason);
    const linked = connect(removed.asset, model.path, c.source, c.target, c.targetHandle ?? 'pose', types);
    if (!linked.ok) return void setNotice(linked.reason);
    apply(linked);
  }, [apply, model.path, setNotice, types]);
  const onReconnectEnd = useCallback((_: unknown, edge: FlowEdge) => {
    if (!reconnected.current) apply(disconnect(history.current.current, model.path, edge.id));
  }, [apply, model.path]);

  const onNodeDragStop = useCallback((_: unknown, __: FlowNode, dragged: FlowNode[]) => {
    const positions: Record<string, { x: number; y: number }> = {};
    for (const n of dragged) positions[n.id] = { x: Math.round(n.position.x), y: Math.round(n.position.y) };
    apply(moveNodes(history.current.current, model.path, positions, types));
  }, [apply, model.path, types]);

  const center = useCallback(() => {
    const box = document.getElementById('flow')!.getBoundingClientRect();
    return flow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 });
  }, [flow]);

  const add = useCallback((type: string, at?: { x: number; y: number }) => {
    const where = at ?? center();
    const a = history.current.current;
    const result = model.kind === 'machine' ? addState(a, model.path, undefined, where) : addNode(a, model.path, type, where, types);
    if (apply(result) && result.ok && result.ids) setSelectedNodes(result.ids);
  }, [apply, center, model.kind, model.path, types]);

  const onDrop = useCallback((e: DragEvent) => {
    const type = e.dataTransfer.getData('application/x-animgraph-type');
    if (!type) return;
    e.preventDefault();
    add(type, flow.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
  }, [add, flow]);

  const deleteSelection = useCallback(() => {
    const a = history.current.current;
    if (selectedEdge) {
      const edge = model.edges.find((e) => e.id === selectedEdge);
      if (!edge) return;
      if (edge.kind === 'transition') apply(setTransition(a, model.path, Number(edge.id.split(':')[1]), undefined));
      else if (edge.kind === 'link') apply(disconnect(a, model.path, edge.id));
      setSelectedEdge(null);
      return;
    }
    const ids = selectedNodes.filter((id) => id !== OUTPUT_ID && id !== ENTRY_ID && id !== ANY_STATE_ID);
    if (ids.length === 0) return;
    if (model.kind === 'machine') {
      let result: EditResult = { ok: true, asset: a };
      for (const id of ids) if (result.ok) result = removeState(result.asset, model.path, id);
      apply(result);
    } else apply(removeNodes(a, model.path, ids));
    setSelectedNodes([]);
  }, [apply, model, selectedEdge, selectedNodes]);

  // Keys: undo/redo, save, copy/paste, delete; not while typing in a field.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = (e.target as HTMLElement).closest?.('input, textarea, select');
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key.toLowerCase() === 's') { e.preventDefault(); void save(); return; }
      if (typing) return;
      if (mod && e.key.toLowerCase() === 'z') { e.preventDefault(); if (e.shiftKey) redo(); else undo(); }
      else if (mod && e.key.toLowerCase() === 'y') { e.preventDefault(); redo(); }
      else if (mod && e.key.toLowerCase() === 'c' && model.kind === 'graph' && selectedNodes.length > 0) {
        clipboard.current = copyNodes(history.current.current, model.path, selectedNodes);
        void navigator.clipboard?.writeText(clipboard.current).catch(() => {});
      } else if (mod && e.key.toLowerCase() === 'v' && model.kind === 'graph' && clipboard.current !== '') {
        const result = pasteNodes(history.current.current, model.path, clipboard.current, center());
        if (apply(result) && result.ok && result.ids) setSelectedNodes(result.ids);
      } else if (e.key === 'Delete' || e.key === 'Backspace') { e.preventDefault(); deleteSelection(); }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [apply, center, deleteSelection, model.kind, model.path, redo, save, selectedNodes, undo]);

  // The file changed on disk: taken as is while nothing is unsaved; else said, and kept.
  useEffect(() => {
    const events = new EventSource('api/events');
    events.addEventListener('change', () => {
      void fetch('api/graph').then((r) => r.json()).then((info: { text?: string }) => {
        if (info.text === undefined || info.text === base.current.text) return;
        setNotice(`${opened.source} changed on disk${dirty ? ': your edits are kept (saving overwrites it)' : ''}; reload the page to edit the file as it is now`);
      });
    });
    return () => events.close();
  }, [dirty, opened.source, setNotice]);

  // --- live values ------------------------------------------------------------------------------------
  const live = useMemo((): Live => {
    if (!frame) return { playing: false, weight: () => undefined, description: () => undefined };
    const prefix = debugPrefix(model.path);
    const debug = frame.debug;
    const outputWeight = frame.tree?.weight;
    if (model.kind === 'machine') {
      // A state's weight is its sub-graph's: the heaviest node in it.
      const weights = new Map<string, number>();
      for (const [id, node] of debug) {
        if (!id.startsWith(prefix)) continue;
        const state = id.slice(prefix.length).split('/')[0];
        weights.set(state, Math.max(weights.get(state) ?? 0, node.weight));
      }
      return {
        playing,
        weight: (id) => (id === ENTRY_ID || id === ANY_STATE_ID ? undefined : weights.get(id) ?? 0),
        description: () => undefined,
      };
    }
    return {
      playing,
      weight: (id) => (id === OUTPUT_ID ? (model.path.length === 0 ? outputWeight : undefined) : debug.get(prefix + id)?.weight ?? (debug.size > 0 ? 0 : undefined)),
      description: (id) => debug.get(prefix + id)?.description,
    };
  }, [frame, model.kind, model.path, playing]);

  useEffect(() => {
    const weights: Record<string, number> = {};
    for (const e of model.edges) {
      const w = e.kind === 'transition' ? Math.min(live.weight(e.source) ?? 0, live.weight(e.target) ?? 0) : live.weight(e.source);
      if (w !== undefined) weights[e.id] = w;
    }
    editorState.weights = weights;
    editorState.weightsFrame = frame?.frame ?? -1;
  }, [live, model.edges, frame]);

  // --- details -----------------------------------------------------------------------------------------
  // Bones of the skeleton the asset names, as the loader last loaded it: also while the preview
  // cannot play that graph (it then plays the one it had) or is still loading its glTF.
  const choices: Choices = useMemo(() => ({ ...assetChoices(asset), bones: loaded ? [...loaded.graph.skeleton.boneNames] : [] }), [asset, loaded]);
  editorState.bones = choices.bones;
  const onError = useCallback((m: string) => setNotice(m), [setNotice]);
  // A clip's timing from the last graph that loaded, while the clip's spec is the one it loaded
  // (so a montage made invalid keeps its clip's duration on its timeline).
  const clipTiming = useCallback((clip: string): ClipTiming | undefined => {
    const binding = loaded?.graph.clipBindings.get(clip);
    if (!loaded || !binding) return undefined;
    const specOf = (a: JsonObject) => JSON.stringify(a.clips !== null && typeof a.clips === 'object' && !Array.isArray(a.clips) && Object.hasOwn(a.clips, clip) ? a.clips[clip] : null);
    if (loaded.asset !== asset && specOf(loaded.asset) !== specOf(asset)) return undefined;
    return { duration: binding.clip.duration, frameRate: binding.clip.frameRate };
  }, [loaded, asset]);
  const selected = selectedNodes.length === 1 ? model.nodes.find((n) => n.id === selectedNodes[0]) : undefined;
  let details;
  if (selectedEdge && model.kind === 'machine' && selectedEdge.startsWith('transition:')) {
    const index = Number(selectedEdge.split(':')[1]);
    const machine = model.edges.find((e) => e.id === selectedEdge);
    const transition = transitionAt(asset, machine?.jsonPath);
    details = transition === undefined ? null : (
      <TransitionPanel index={index} transition={transition} rule={ruleText((transition as JsonObject)?.rule ?? true)}
        onSet={(t) => apply(setTransition(history.current.current, model.path, index, t))} onError={onError} />
    );
  } else if (selected && (selected.kind === 'node')) {
    const fields = propertyFields(asset, model.path, selected.id, types);
    const fieldProblems: Record<string, EditorProblem[]> = {};
    for (const l of located) if (samePath(l.target.canvas, model.path) && l.target.nodeId === selected.id && l.target.property) (fieldProblems[l.target.property] ??= []).push(l.problem);
    details = (
      <PropertiesPanel title={selected.id} type={selected.type} fields={fields} choices={choices} problems={fieldProblems} onError={onError}
        onSet={(name, value) => apply(setProperty(history.current.current, model.path, selected.id, name, value), `${model.path.join('/')}|${selected.id}|${name}`)}
        onRename={(to) => { if (apply(renameNode(history.current.current, model.path, selected.id, to, types))) setSelectedNodes([to]); }} />
    );
  } else if (selected && (selected.kind === 'state' || selected.kind === 'conduit')) {
    details = (
      <StatePanel name={selected.id}
        onRename={(to) => { if (apply(renameState(history.current.current, model.path, selected.id, to))) setSelectedNodes([to]); }}
        onRemove={() => { apply(removeState(history.current.current, model.path, selected.id)); setSelectedNodes([]); }}>
        {selected.opens ? <button type="button" onClick={() => open(selected)}>Open its graph</button> : null}
      </StatePanel>
    );
  } else {
    details = (
      <AssetPanel asset={asset} choices={choices} problems={problems} onError={onError} clipTiming={clipTiming} montagePlayhead={montagePlayhead.current}
        onEntry={(section, name, spec) => apply(setAssetEntry(history.current.current, section, name, spec))}
        onRename={(section, from, to) => apply(RENAMES[section](history.current.current, from, to, types))}
        onValue={(key, value) => apply(setAssetValue(history.current.current, key, value))} />
    );
  }

  const groups = useMemo(() => palette(types), [types]);
  const pick = useCallback((p: EditorProblem) => {
    const target = located.find((l) => l.problem === p)?.target;
    if (!target) return;
    setPath(target.canvas);
    setSelectedEdge(null);
    setSelectedNodes(target.nodeId ? [target.nodeId] : []);
    if (target.nodeId) {
      const n = flow.getNode(target.nodeId);
      if (n) flow.setCenter(n.position.x + 100, n.position.y + 40, { zoom: flow.getZoom(), duration: 200 });
    }
  }, [flow, located]);

  const crumbs: { label: string; path: CanvasPath }[] = [{ label: String(asset.name ?? opened.source), path: [] }];
  for (let i = 1; i <= model.path.length; i++) crumbs.push({ label: model.path[i - 1], path: model.path.slice(0, i) });

  return (
    <div id="editor" data-dirty={dirty ? 'true' : 'false'}>
      <header id="toolbar">
        <nav id="crumbs">
          {crumbs.map((c, i) => (
            <span key={i}>{i > 0 ? ' › ' : ''}<button type="button" className="crumb" data-canvas={c.path.join('/')} onClick={() => setPath(c.path)}>{c.label}</button></span>
          ))}
          <span className="muted"> · {model.kind === 'machine' ? 'state machine' : 'graph'}</span>
        </nav>
        <button type="button" id="undo" onClick={undo} disabled={!history.current.canUndo} title="Ctrl+Z">Undo</button>
        <button type="button" id="redo" onClick={redo} disabled={!history.current.canRedo} title="Ctrl+Shift+Z">Redo</button>
        {model.kind === 'machine' ? <button type="button" id="add-state" onClick={() => add('')}>Add state</button> : null}
        <button type="button" id="save" onClick={() => void save()} title="Ctrl+S">{dirty ? 'Save*' : 'Save'}</button>
        <span id="notice" role="status">{notice}</span>
      </header>
      <aside id="palette">
        {model.kind === 'machine'
          ? <p className="muted">A state machine: Add state (above) adds a state; drag from one state to another to add a transition; a state opens its graph.</p>
          : <Palette groups={groups} onAdd={(t) => add(t)} />}
      </aside>
      <main id="flow" onDragOver={(e) => { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; }} onDrop={onDrop}>
        <LiveContext.Provider value={live}>
          <ReactFlow key={model.path.join('\u0000')} nodes={nodes} edges={edges} nodeTypes={nodeTypes} edgeTypes={edgeTypes}
            onNodesChange={onNodesChange} onEdgesChange={onEdgesChange} onConnect={onConnect}
            onReconnectStart={onReconnectStart} onReconnect={onReconnect} onReconnectEnd={onReconnectEnd}
            onNodeDragStop={onNodeDragStop} deleteKeyCode={null} fitView minZoom={0.1} colorMode="dark" proOptions={{ hideAttribution: true }}>
            <Background />
            <Controls />
            <MiniMap pannable zoomable />
            <FirstPaint onPainted={() => setPainted(true)} />
          </ReactFlow>
        </LiveContext.Provider>
      </main>
      <aside id="side">
        <div id="preview"><canvas id="preview-canvas" ref={previewCanvas} /></div>
        <div id="transport">
          <button type="button" id="play" onClick={() => { const on = !playing; playingAsked.current = on; preview.current?.setPlaying(on); setPlayingState(on); }}>{playing ? 'Pause' : 'Play'}</button>
          <button type="button" id="step" onClick={() => { preview.current?.step(); playingAsked.current = false; setPlayingState(false); }}>Step</button>
          <input id="scrubber" type="range" min={preview.current?.character?.history.oldest ?? 0} max={preview.current?.character?.history.newest ?? 0} step={1}
            value={frame?.frame ?? 0} onChange={(e) => { preview.current?.scrub(Number(e.target.value)); playingAsked.current = false; setPlayingState(false); }} />
          <output id="frame-label">{frame ? `frame ${frame.frame} · ${frame.time.toFixed(2)} s` : ''}</output>
          {preview.current?.sourceAvailable ? (
            <label id="source-toggle" title="the retargeted clip's source skeleton, playing the source clip at the same clip time, beside the character">
              <input type="checkbox" id="show-source" checked={showSource} onChange={(e) => { setShowSource(e.target.checked); preview.current?.setShowSource(e.target.checked); }} /> source
            </label>
          ) : null}
        </div>
        <form id="parameters" autoComplete="off" ref={parameterForm} />
        <div id="montages" ref={montagePanel} />
        {details}
        <ProblemsList problems={problems} onPick={pick} />
      </aside>
    </div>
  );
}

/** Each asset section's rename, which renames the entry and every name of it in the asset. */
const RENAMES: Readonly<Record<AssetSection, (asset: JsonObject, from: string, to: string, types?: EditorTypes) => EditResult>> = {
  parameters: renameParameter, clips: renameClip, montages: renameMontage, blendProfiles: renameBlendProfile,
};

/** The transition object at a JSON path like `$.nodes.sm.properties.transitions[2]`. */
function transitionAt(asset: JsonObject, jsonPath: string | undefined): Json | undefined {
  if (!jsonPath) return undefined;
  let value: Json | undefined = asset;
  for (const m of jsonPath.slice(1).matchAll(/\.([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g)) {
    if (value === null || typeof value !== 'object') return undefined;
    const key = m[1] ?? (m[2] !== undefined ? Number(m[2]) : JSON.parse(`"${m[3]}"`) as string);
    value = (value as Record<string | number, Json>)[key];
  }
  return value;
}

/** Records when the canvas was first drawn with every node measured (a canvas of no nodes is drawn at once). */
function FirstPaint({ onPainted }: { onPainted: () => void }) {
  const ready = useNodesInitialized();
  const empty = useReactFlow().getNodes().length === 0;
  useEffect(() => {
    if (!(ready || empty) || editorState.status === 'ready') return;
    requestAnimationFrame(() => {
      if (editorState.firstPaint === 0) editorState.firstPaint = performance.now();
      editorState.status = 'ready';
      document.body.dataset.status = 'ready';
      onPainted();
    });
  }, [ready, empty, onPainted]);
  return null;
}
