/** The three.js scene the character stands in: lights, camera and controls, a ground grid that follows it. */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { chooseAntialias, webglRendererName } from './antialias.ts';
import { chooseFrameRate, FramePacer } from './frame-rate.ts';
import type { Character } from './character.ts';
import { SkinnedFigure } from './figures.ts';
import { state } from './state.ts';

export class ViewScene {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
  readonly controls: OrbitControls;
  /** Turns a Z-up character (root motion with up 'z') upright in three's Y-up world. */
  readonly space = new THREE.Group();
  /** The character's world transform: root motion moves it. */
  readonly characterRoot = new THREE.Group();
  private grid = makeGrid(0.5, 40);
  private gridCell = 0.5;
  private readonly followed = new THREE.Vector3();
  private readonly followedBefore = new THREE.Vector3();
  private readonly projected = new THREE.Vector3();
  /** Whether something drawn changed since the last render. */
  private stale = true;
  /** Which display frames the page simulates and draws (frame-rate.ts). */
  private readonly pacer: FramePacer;

  constructor(private readonly canvas: HTMLCanvasElement) {
    // preserveDrawingBuffer: the canvas can be read back (screenshots, the browser test's pixel check).
    state.renderer = webglRendererName();
    const antialias = chooseAntialias(location.search, state.renderer);
    const renderer = this.renderer = new THREE.WebGLRenderer({ canvas, antialias, preserveDrawingBuffer: true });
    state.antialias = renderer.getContext().getContextAttributes()?.antialias === true;
    renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    state.frameRate = chooseFrameRate(location.search, state.renderer);
    this.pacer = new FramePacer(state.frameRate);
    const scene = this.scene;
    scene.background = new THREE.Color(0x2b2e33);
    scene.add(new THREE.HemisphereLight(0xffffff, 0x404040, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 2);
    sun.position.set(1, 2, 1.5);
    scene.add(sun);
    this.camera.position.set(2, 1.5, 4);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.enableDamping = true;
    scene.add(this.grid);
    scene.add(this.space);
    this.space.add(this.characterRoot);
    new ResizeObserver(() => this.resize()).observe(canvas.parentElement!);
    this.resize();
  }

  private resize(): void {
    const { clientWidth: w, clientHeight: h } = this.canvas.parentElement!;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / Math.max(h, 1);
    this.camera.updateProjectionMatrix();
    this.stale = true;
  }

  /**
   * Whether the page simulates and draws on the display frame at `now` (requestAnimationFrame's
   * time): every one on a GPU, about 30 a second on a software renderer (frame-rate.ts).
   */
  frameDue(now: number): boolean {
    return this.pacer.due(now);
  }

  /** Marks the picture out of date (a pose shown, objects added or removed): the next render draws it. */
  invalidate(): void {
    this.stale = true;
  }

  /** Points the camera at the character's first frame, sized to it, with the grid under its feet. */
  frameCamera(c: Character): void {
    const { camera, controls, characterRoot } = this;
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
    this.scene.remove(this.grid);
    this.grid.geometry.dispose();
    (this.grid.material as THREE.Material).dispose();
    this.gridCell = extent / 4;
    this.grid = makeGrid(this.gridCell, 100);
    this.grid.position.y = box.min.y;
    this.scene.add(this.grid);
    characterRoot.getWorldPosition(this.followedBefore);
    this.stale = true;
  }

  /** Keeps the camera and the grid with the character as root motion carries it away. */
  follow(): void {
    const { camera, controls, followed, followedBefore, grid, gridCell } = this;
    this.characterRoot.getWorldPosition(followed);
    const dx = followed.x - followedBefore.x, dy = followed.y - followedBefore.y, dz = followed.z - followedBefore.z;
    if (dx !== 0 || dy !== 0 || dz !== 0) {
      camera.position.x += dx; camera.position.y += dy; camera.position.z += dz;
      controls.target.x += dx; controls.target.y += dy; controls.target.z += dz;
      followedBefore.copy(followed);
      this.stale = true;
    }
    const ndc = this.projected.copy(followedBefore).project(camera);
    state.onScreen[0] = ndc.x;
    state.onScreen[1] = ndc.y;
    // Whole cells only: the grid looks endless and the character is seen to move over it.
    grid.position.x = Math.round(followed.x / gridCell) * gridCell;
    grid.position.z = Math.round(followed.z / gridCell) * gridCell;
  }

  /**
   * Draws the picture if it changed: a pose shown (invalidate), the camera moved (by the controls,
   * their damping or follow) or the canvas resized. A paused page then leaves the CPU idle, where a
   * software renderer (a machine without a GPU) would redraw the same picture at full cost every frame.
   */
  render(): void {
    const moved = this.controls.update();
    if (!moved && !this.stale) return;
    this.stale = false;
    this.renderer.render(this.scene, this.camera);
    state.drawn++;
  }
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
