/**
 * The retarget debug view: beside a character whose graph plays a retargeted clip, the clip's source
 * skeleton playing the source clip at the same clip time, drawn as a stick figure, so the two can
 * be compared. The source is scaled by the hip-height ratio and turned by the retarget's alignment
 * (as the retargeted clip is), turned with the character, and kept with its pelvis beside the
 * character's: the source's own travel is taken out, as the character's root motion is, so the
 * feet of both are seen against the same pelvis.
 */
import * as THREE from 'three';
import { ClipBinding, type Clip, type ClipRetarget } from '../runtime/core/clip.ts';
import { mirrorTable } from '../runtime/core/mirror.ts';
import { sampleClip } from '../runtime/core/sampling.ts';
import type { AnimGraph } from '../runtime/graph/graph.ts';
import type { DebugNode } from '../runtime/node/node.ts';
import { DisplayedPose } from './character.ts';
import { StickFigure } from './figures.ts';
import { state } from './state.ts';

/** A retargeted clip of the graph, by its name in the asset (what players report as `values.clip`). */
interface Retargeted { name: string; clip: Clip; retarget: ClipRetarget }

export class SourceView {
  /** Added beside the character's root (under the same parent): placed every frame. */
  readonly object = new THREE.Group();
  private readonly inner = new THREE.Group();
  private readonly figures = new Map<Clip, { figure: StickFigure; displayed: DisplayedPose; binding: ClipBinding }>();
  private readonly clips: Retargeted[];
  /** The target's left-right axis (its mirror plane's normal) in component space. */
  private readonly lateral: number;
  private readonly v = new THREE.Vector3();
  private readonly w = new THREE.Vector3();

  constructor(graph: AnimGraph, private readonly offset: number) {
    this.clips = [...graph.clipBindings].flatMap(([name, b]) => (b.clip.retarget ? [{ name, clip: b.clip, retarget: b.clip.retarget }] : []));
    this.lateral = this.clips.length > 0 ? mirrorTable(graph.skeleton).axis : 0;
    this.object.add(this.inner);
    this.object.visible = false;
  }

  get active(): boolean {
    return this.clips.length > 0;
  }

  /**
   * Shows the source of the retargeted clip the heaviest player in `tree` plays, at that player's
   * time, beside the character drawn from `target` (component pose) under `root`. Hidden when no
   * such player is relevant.
   */
  show(tree: DebugNode | null, target: DisplayedPose, root: THREE.Object3D, enabled: boolean): void {
    const found = enabled && tree ? this.playing(tree) : null;
    state.retargetSource.shown = found !== null;
    if (found === null) {
      this.object.visible = false;
      return;
    }
    const { entry, time } = found, r = entry.retarget;
    let drawn = this.figures.get(r.source.clip);
    if (drawn === undefined) {
      const displayed = new DisplayedPose(r.source.skeleton);
      // Joints sized in the source's units: the figure is scaled down with the skeleton.
      const figure = new StickFigure(displayed, this.offset * 0.02 / r.scale);
      drawn = { figure, displayed, binding: new ClipBinding(r.source.clip, r.source.skeleton) };
      this.figures.set(r.source.clip, drawn);
    }
    for (const [other, d] of this.figures) d.figure.object.visible = other === r.source.clip;
    if (drawn.figure.object.parent !== this.inner) this.inner.add(drawn.figure.object);
    sampleClip(drawn.displayed.pose, drawn.binding, time, false);
    drawn.displayed.commit();
    drawn.figure.apply();
    // Source component space → the target's: turned by the alignment, scaled by the hip heights.
    const a = r.alignment;
    this.inner.quaternion.set(a[0], a[1], a[2], a[3]);
    this.inner.scale.setScalar(r.scale);
    // The pelvises' offset in the target's component space taken out (their heights above the ground
    // match: the scale is the ratio of the hip heights), plus the offset aside.
    const sourcePelvis = r.map[r.root], st = drawn.displayed.component.translations, tt = target.component.translations;
    const s = this.v.set(st[sourcePelvis * 3], st[sourcePelvis * 3 + 1], st[sourcePelvis * 3 + 2]).multiplyScalar(r.scale).applyQuaternion(this.inner.quaternion);
    const d = this.w.set(tt[r.root * 3] - s.x, tt[r.root * 3 + 1] - s.y, tt[r.root * 3 + 2] - s.z);
    d.setComponent(this.lateral, d.getComponent(this.lateral) + this.offset);
    this.object.quaternion.copy(root.quaternion);
    this.object.position.copy(d.applyQuaternion(root.quaternion).add(root.position));
    this.object.visible = true;
    const out = state.retargetSource;
    out.clip = entry.name;
    out.time = time;
    out.bones = r.source.skeleton.boneCount;
    out.pelvis[0] = st[sourcePelvis * 3];
    out.pelvis[1] = st[sourcePelvis * 3 + 1];
    out.pelvis[2] = st[sourcePelvis * 3 + 2];
  }

  /** The retargeted clip of the heaviest relevant player in the tree, and its play time; null for none. */
  private playing(tree: DebugNode): { entry: Retargeted; time: number } | null {
    let found: { entry: Retargeted; time: number; weight: number } | null = null;
    const visit = (node: DebugNode): void => {
      const values = node.values;
      if (node.weight > 0 && values && typeof values.clip === 'string' && typeof values.time === 'number' && (found === null || node.weight > found.weight)) {
        // A player reports its clip's own name: the asset's name, for a mirrored player's clip too.
        const entry = this.clips.find((c) => c.name === values.clip) ?? this.clips.find((c) => c.clip.name === values.clip);
        if (entry) found = { entry, time: values.time, weight: node.weight };
      }
      for (const child of node.children) visit(child);
    };
    visit(tree);
    return found;
  }

  dispose(): void {
    for (const { figure } of this.figures.values()) figure.dispose();
    this.figures.clear();
  }
}
