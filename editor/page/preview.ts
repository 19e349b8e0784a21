/**
 * The editor's preview: the viewer's scene and character (viewer/scene.ts, viewer/character.ts,
 * viewer/figures.ts) playing the graph being edited. A graph that loads after an edit replaces the
 * instance at once, keeping the figure (and the glTF mesh) while the skeleton is the same, so the
 * next frame drawn is the edited graph's.
 */
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import type { DebugNode } from '../../runtime/node/node.ts';
import type { ParameterValue } from '../../runtime/node/parameters.ts';
import { DisplayedPose, History, simulate, upAxisOf, type Character } from '../../viewer/character.ts';
import { poseBounds, SkinnedFigure, StickFigure, type Figure } from '../../viewer/figures.ts';
import { ViewScene } from '../../viewer/scene.ts';
import { SourceView } from '../../viewer/source-view.ts';
import { state as viewState } from '../../viewer/state.ts';

export type Fetch = (path: string) => Promise<Uint8Array>;

/** A glTF file's scene for the skinned figure; its buffers and images fetched next to it, through the server. */
export async function loadGltfScene(path: string, bytes: Uint8Array): Promise<THREE.Object3D> {
  const manager = new THREE.LoadingManager();
  const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '';
  manager.setURLModifier((url) => (/^(data|blob):/.test(url) ? url : `file?path=${encodeURIComponent(folder + decodeURIComponent(url))}`));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return (await new GLTFLoader(manager).parseAsync(buffer, '')).scene;
}

export interface PreviewFrame {
  frame: number;
  time: number;
  /** The debug tree of the frame on screen, by node id (scoped ids inside sub-graphs: 'sm/walk/p'). */
  debug: Map<string, DebugNode>;
  tree: DebugNode | null;
  /** Which install (a graph loaded after an edit) the frame came from. */
  generation: number;
}

function indexTree(tree: DebugNode | null): Map<string, DebugNode> {
  const out = new Map<string, DebugNode>();
  const visit = (node: DebugNode) => {
    out.set(node.id, node);
    for (const child of node.children) visit(child);
  };
  if (tree) visit(tree);
  return out;
}

export class Preview {
  readonly view: ViewScene;
  private current: (Character & { generation: number }) | null = null;
  readonly parameterValues = new Map<string, ParameterValue>();
  /** The retarget source beside the character (the viewer's), for a graph that plays retargeted clips. */
  private sourceView: SourceView | null = null;
  /** Whether the retarget source is drawn when the graph has one (the transport's checkbox: setShowSource). */
  private showSource = true;
  /** The character's size, which places the retarget source aside. */
  private extent = 1;
  playing = true;
  speed = 1;
  shown = 0;
  generation = 0;
  private last: number | undefined;
  private running = true;
  /** Called after each frame is simulated (or shown again), with what it shows. */
  onFrame: (frame: PreviewFrame, simulated: boolean) => void = () => {};
  /**
   * Called when simulating a frame of the graph playing threw (a node's own code: a custom node
   * type), with the frame and the error's message; the preview has paused on the frame before.
   */
  onFailure: (message: string) => void = () => {};

  constructor(canvas: HTMLCanvasElement) {
    this.view = new ViewScene(canvas);
    requestAnimationFrame(this.tick);
  }

  get character(): Character | null { return this.current; }

  /**
   * Plays `graph` from now on. The figure stays while the skeleton (its asset value) does; frame
   * numbers go on counting, so the first frame of the new graph is the next one. Throws, having
   * changed nothing, where the graph's first frame throws.
   */
  install(graph: AnimGraph, skeletonKey: string, gltfScene: THREE.Object3D | null): void {
    const previous = this.current;
    const instance = graph.createInstance();
    for (const [name, value] of this.parameterValues) {
      try {
        if (instance.parameters.has(name)) instance.setParameter(name, value);
      } catch {
        this.parameterValues.delete(name);
      }
    }
    const skeleton = graph.skeleton;
    const same = previous !== null && previous.skeletonKey === skeletonKey && previous.graph.skeleton.boneCount === skeleton.boneCount;
    // The graph's first frame, before anything of the preview changes: a node whose own code throws
    // (a custom node type) leaves the preview playing the graph it had, and the caller says why.
    // (A graph on another skeleton has its first frame simulated below, before it is shown too.)
    if (same) {
      instance.update(0);
      instance.evaluate();
    }
    const displayed = same ? previous.displayed : new DisplayedPose(skeleton);
    const c: Character & { generation: number } = {
      graph, instance, displayed, up: upAxisOf(graph), skeletonKey,
      figure: same ? previous.figure : null as unknown as Figure,
      history: same ? previous.history : new History(skeleton.boneCount),
      world: same ? previous.world : Float64Array.of(0, 0, 0, 0, 0, 0, 1),
      frame: same ? previous.frame : 0, time: same ? previous.time : 0,
      generation: ++this.generation,
    };
    if (!same) {
      simulate(c, 0);
      const bounds = poseBounds(instance.componentPose(), skeleton.boneCount);
      const extent = this.extent = Math.max(bounds[3] - bounds[0], bounds[4] - bounds[1], bounds[5] - bounds[2]) || 1;
      c.figure = gltfScene ? new SkinnedFigure(displayed, gltfScene) : new StickFigure(displayed, extent * 0.012);
      if (previous) {
        this.view.characterRoot.remove(previous.figure.object);
        previous.figure.dispose();
      }
      this.view.characterRoot.add(c.figure.object);
      this.view.space.rotation.x = c.up === 'z' ? -Math.PI / 2 : 0;
      this.view.space.updateMatrixWorld(true);
      this.view.frameCamera(c);
    }
    // Each graph its own: an edit may add, remove or change a retargeted clip.
    if (this.sourceView) {
      this.view.space.remove(this.sourceView.object);
      this.sourceView.dispose();
    }
    this.sourceView = new SourceView(graph, this.extent);
    this.view.space.add(this.sourceView.object);
    viewState.retargetSource.available = this.sourceView.active;
    this.current = c;
    if (!same) this.show(c.frame, true);
  }

  /** Whether the graph playing has a retargeted clip, whose source the preview can draw beside it. */
  get sourceAvailable(): boolean {
    return this.sourceView?.active ?? false;
  }

  setShowSource(on: boolean): void {
    this.showSource = on;
    if (this.current) this.show(this.clamp(this.shown), false);
  }

  setParameter(name: string, value: ParameterValue): void {
    this.parameterValues.set(name, value);
    try {
      this.current?.instance.setParameter(name, value);
    } catch (e) {
      console.warn((e as Error).message);
    }
  }

  /** Plays montage `name` from `section` on the graph playing (until the next edit reinstalls it). */
  playMontage(name: string, section: string): void {
    this.current?.instance.playMontage(name, { section });
  }

  /** Blends out every montage playing. */
  stopMontages(): void {
    this.current?.instance.stopMontage();
  }

  setPlaying(on: boolean): void {
    this.playing = on;
    if (this.current && on) this.shown = this.current.frame;
    if (this.current && !on) this.show(this.clamp(this.shown), false);
  }

  step(): void {
    const c = this.current;
    if (!c) return;
    this.playing = false;
    if (!this.simulate(c, this.speed / 60)) return;
    this.shown = c.frame;
    this.show(c.frame, true);
  }

  /** simulate(), or, where the graph's code throws, paused and onFailure called: false. */
  private simulate(c: Character, dt: number): boolean {
    try {
      simulate(c, dt);
      return true;
    } catch (e) {
      this.playing = false;
      this.onFailure(`frame ${c.frame + 1}: ${(e as Error).message}`);
      return false;
    }
  }

  scrub(frame: number): void {
    this.playing = false;
    this.shown = frame;
    this.show(this.clamp(frame), false);
  }

  private clamp(frame: number): number {
    const c = this.current!;
    return Math.max(c.history.oldest, Math.min(frame, c.history.newest));
  }

  private show(frame: number, simulated: boolean): void {
    const c = this.current;
    if (!c) return;
    const time = c.history.read(frame, c.displayed.pose, c.displayed.world);
    c.displayed.commit();
    const w = c.displayed.world, root = this.view.characterRoot;
    root.position.set(w[0], w[1], w[2]);
    root.quaternion.set(w[3], w[4], w[5], w[6]);
    root.updateMatrixWorld(true);
    c.figure.apply();
    const tree = c.history.tree(frame);
    this.sourceView?.show(tree, c.displayed, root, this.showSource);
    this.view.invalidate();
    this.onFrame({ frame, time, tree, debug: indexTree(tree), generation: c.generation }, simulated);
  }

  private readonly tick = (now: number): void => {
    if (!this.running) return;
    requestAnimationFrame(this.tick);
    if (!this.view.frameDue(now)) return;
    const dt = this.last === undefined ? 0 : Math.min((now - this.last) / 1000, 0.1);
    this.last = now;
    const c = this.current;
    if (c) {
      if (this.playing && dt > 0 && this.simulate(c, dt * this.speed)) {
        this.shown = c.frame;
        this.show(c.frame, true);
      }
      this.view.follow();
    }
    this.view.render();
  };

  dispose(): void {
    this.running = false;
  }
}
