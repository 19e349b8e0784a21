import * as z from 'zod';
import { Clip, ClipBinding } from '../runtime/core/clip.ts';
import { CLOCK_NUMBERS } from '../runtime/jobs/clip-playback.ts';
import type { MontagePlayArgs, SlotPlayArgs, SlotPlayer } from '../runtime/node/slot-player.ts';
import type { Montage } from '../runtime/core/montage.ts';
import { SLOT_VOICES, SlotTimeline, type SlotVoice } from '../runtime/jobs/slot-timeline.ts';
import {
  LocalPoseNode, ZERO_WEIGHT, type CacheBonesContext, type DebugNode, type InitializeContext, type Link, type NodeType, type PoseLink,
  type UpdateContext,
} from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { poseLerpBones } from '../runtime/core/pose-bones.ts';
import type { Skeleton } from '../runtime/core/skeleton.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';
import { lazy } from '../runtime/core/lazy.ts';

/**
 * Plays clips over its source pose on demand from code (Unreal's slot with a montage):
 * `instance.playSlot(name, clip, { blendIn, blendOut, playRate })` starts a clip, blended in from
 * the source over blendIn seconds and out over the clip's last blendOut seconds; it ends by
 * itself (event `slotEnded`). A clip started while another plays goes on top of it, and the one
 * below blends out over the new clip's blendIn from the weight it had, so nothing pops. With a
 * `filterBone`, only that bone and its descendants (ramping in over `filterDepth` bones) take the
 * clip: an upper-body one-shot over locomotion.
 *
 * What plays on a slot name is the instance's, not the node's: a SlotTimeline
 * (runtime/jobs/slot-timeline.ts) per name, made by the first Slot of the name and followed by the
 * others (follow), holds the clips and montages, their times, sections and blend weights, and fires
 * their events, once, in the first Slot's name. Each Slot shows it over its own source, by its own
 * filter, and reports its root motion and curves by its own branch weight.
 *
 * Weights: with the top clip at weight w1 and the one below at w0, the top clip's share of the
 * Slot is w1, the one below's w0 × (1 − w1) and the source's (1 − w0) × (1 − w1); curves and root
 * motion follow those shares times the Slot's weight, and the clips' notifies fire at their shares
 * alone (the top clip's is its own blend weight, at which Unreal's montages fire theirs). Filtered, the
 * source keeps its whole weight (the bones outside the filter are all its own), except for its
 * curves, scaled by its share so that the clip's curves override them as its pose does.
 *
 * The timeline moves on once per graph update, whether or not a Slot of the name is updated, as
 * Unreal's AnimInstance advances its montages whichever slot nodes are relevant: the first Slot of
 * the name the update reaches moves it (firing its events), and the others reached read it as it is;
 * after a graph update that reached none, the first Slot's afterGraphUpdate moves it on by the
 * update's delta time, with the same sections, blends, notifies, ends and events, and reports
 * neither root motion nor curves, since its pose is in nobody's output. A state entered again
 * re-initializes its Slots in the initialization pass they were built in, which keeps what plays:
 * the state shows the montage where it has got to. A new pass (the instance's reset) stops
 * everything, interrupted.
 */
export class Slot extends LocalPoseNode implements SlotPlayer {
  /** What plays on the slot name: the node's own until it follows the name's first Slot (follow). */
  private timeline: SlotTimeline;
  /** Whether it follows another Slot's timeline (that Slot moves it on when no Slot of the name is updated). */
  private follows = false;
  /** [1 − w, w] for blending a voice into the pose. */
  private readonly weights = new Float64Array(2);
  /** The source's share this frame: (1 − w0) × (1 − w1). */
  private readonly sourceShare = new Float64Array(1);
  /** Whether the source was updated this frame. */
  private sourceUpdated = false;
  /** Per-bone weight of the filter (1 everywhere without one); bones with a weight, in order. */
  private mask: Float64Array;
  private maskedBones: Int32Array;
  /** Curve values before the source's update, to scale what it adds (filtered only). */
  private curvesBefore = new Float64Array(0);
  private readonly inputLinks: readonly Link[];

  constructor(
    id: string,
    readonly slotName: string,
    private readonly source: PoseLink,
    private readonly filterBone: string,
    private readonly filterDepth: number,
    /** What the voices hold until playSlot gives them a clip (never sampled: they are inactive till then). */
    noClip: ClipBinding,
    boneCount: number,
    /** Where the voices' clip clocks go in the instance's per-frame numbers (NodeBuild.numbers, SLOT_VOICES of them), -1: their own. */
    clockNumbers = -1,
  ) {
    super(id, 'Slot');
    this.inputLinks = [source];
    this.timeline = new SlotTimeline(id, slotName, noClip, clockNumbers);
    this.mask = new Float64Array(boneCount).fill(1);
    this.maskedBones = Int32Array.from({ length: boneCount }, (_, i) => i);
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  /** Shows what `first` plays, if it is a Slot (see SlotPlayer.follow). */
  follow(first: SlotPlayer): boolean {
    if (!(first instanceof Slot) || first === this) return false;
    this.timeline = first.timeline;
    this.follows = true;
    return true;
  }

  // The instance's calls, on the name's timeline.
  get playing(): boolean { return this.timeline.playing; }
  /** Starts `clip` on top (see the class comment). Allocates nothing. */
  playClip(clip: ClipBinding, args: SlotPlayArgs): void { this.timeline.playClip(clip, args); }
  stopClips(blendOut: number): void { this.timeline.stopClips(blendOut); }
  playMontage(montage: Montage, args: MontagePlayArgs): void { this.timeline.playMontage(montage, args); }
  get activeMontage(): Montage | null { return this.timeline.activeMontage; }
  get montagePosition(): number { return this.timeline.montagePosition; }
  get montageSection(): number { return this.timeline.montageSection; }
  jumpToSection(montage: Montage, section: number): boolean { return this.timeline.jumpToSection(montage, section); }
  setNextSection(montage: Montage, from: number, to: number): boolean { return this.timeline.setNextSection(montage, from, to); }
  stopMontage(montage: Montage | null, blendOut: number): void { this.timeline.stopMontage(montage, blendOut); }

  protected override onInitialize(ctx: InitializeContext): void {
    // Runs at each entry of a state, in the frame loop: the curve buffer is made only when its size
    // changes (see CONTRIBUTING.md, "Numbers in the frame loop").
    this.timeline.initialize(this.graph, ctx);
    this.sourceUpdated = false;
    const curves = ctx.graph.curveValues.length;
    if (this.curvesBefore.length !== curves) this.curvesBefore = new Float64Array(curves);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    if (this.filterBone === '') return;
    const bone = ctx.boneIndex(this.id, this.filterBone);
    if (bone < 0) return;
    this.mask = filterWeights(ctx.skeleton, bone, this.filterDepth);
    const masked: number[] = [];
    this.mask.forEach((w, i) => { if (w > 0) masked.push(i); });
    this.maskedBones = Int32Array.from(masked);
  }

  protected onUpdate(ctx: UpdateContext): void {
    this.play(ctx, true);
  }

  /**
   * After a graph update that reached no Slot of the name, the first Slot moves the timeline on
   * (see the class comment): the first, since the instance calls afterGraphUpdate in reverse build
   * order, so that a cache updating another Slot's branch has done so first. The short path here,
   * so that this check, made every frame, is optimised early (see CONTRIBUTING.md, "Numbers in the
   * frame loop").
   */
  override afterGraphUpdate(top: UpdateContext): void {
    const t = this.timeline;
    if (this.follows || t.advancedAt === this.graph.updateCounter || !(t.voices[0].active || t.voices[1].active)) return;
    this.play(top, false);
  }

  /**
   * A frame of the Slot: the timeline moved on by ctx.deltaTime, unless a Slot of the name already
   * did so in this update; `seen` (the Slot updated), its source updated under the voices and their
   * root motion and curves reported; and, by the Slot that moved the timeline, the voices' clip
   * notifies (at their shares of the slot), then their ends and events. One function for both, so
   * that the unseen frame runs code every updated Slot's frame keeps optimised (see CONTRIBUTING.md,
   * "Numbers in the frame loop").
   */
  private play(ctx: UpdateContext, seen: boolean): void {
    const t = this.timeline, moves = t.advancedAt !== this.graph.updateCounter;
    if (moves) t.advance(ctx);
    const under = t.voices[0], top = t.voices[1];
    const w0 = under.active ? under.weight : 0, w1 = top.active ? top.weight : 0;
    this.sourceShare[0] = (1 - w0) * (1 - w1);
    if (seen) this.updateSource(ctx);
    if (under.active) {
      under.playback.weight = w0 * (1 - w1);
      this.report(ctx, under, seen, moves);
    }
    if (top.active) {
      top.playback.weight = w1;
      this.report(ctx, top, seen, moves);
    }
    if (moves) t.settleEnds();
  }

  /** Updates the source at its share (sourceShare[0]), or filtered at its own weight with its curves scaled by the share. */
  private updateSource(ctx: UpdateContext): void {
    const voices = this.timeline.voices;
    const filtered = this.filterBone !== '' && (voices[1].active || voices[0].active);
    const curves = this.graph.curveValues, before = this.curvesBefore;
    if (filtered) before.set(curves);
    const child = ctx.child();
    if (!filtered) child.weight *= this.sourceShare[0];
    this.sourceUpdated = this.source.update(child);
    ctx.gatherReports();
    if (filtered) {
      const share = this.sourceShare[0];
      for (let c = 0; c < curves.length; c++) {
        const gap = curves[c] - before[c];
        // Curve values are held within the largest double, but the source's change can be twice
        // that (from -MAX to MAX): Infinity, whose product with a zero share (a voice at full
        // weight) is NaN. Weighing the two ends instead cannot overflow when their signs differ.
        if (gap - gap === 0) curves[c] = before[c] + gap * share;
        else curves[c] = before[c] * (1 - share) + curves[c] * share;
      }
    }
  }

  /**
   * Reports what a voice's move produced (see play): `seen`, its root motion and curves; `notifies`,
   * its clip's notifies, at its share of the slot. A montage's span by span (root motion and the
   * clip's notifies of each, its curves at the last), so that a section change adds the motion
   * within the section left and within the section entered, never the clip's motion between them.
   */
  private report(ctx: UpdateContext, v: SlotVoice, seen: boolean, notifies: boolean): void {
    const p = v.playback;
    if (!v.isMontage) {
      if (seen) p.reportMotionAndCurves(ctx);
      if (notifies) p.reportNotifiesAlone(ctx);
      return;
    }
    const play = v.montage!, count = play.spanCount, spans = play.spans;
    for (let i = 0; i < count; i++) {
      p.moveSpan(spans, i * 3, seen && i === count - 1);
      if (seen) p.reportMotionAndCurves(ctx);
      if (notifies) p.reportNotifiesAlone(ctx);
    }
  }

  protected onEvaluate(out: Pose): void {
    const voices = this.timeline.voices, under = voices[0], top = voices[1];
    const useUnder = under.active && under.weight > ZERO_WEIGHT, useTop = top.active && top.weight > ZERO_WEIGHT;
    if (this.filterBone !== '') {
      this.source.evaluate(out);
      // The weights read here, where every frame goes: blendFiltered runs only while a clip plays,
      // and would box a weight it read while unoptimised (CONTRIBUTING.md, "Numbers in the frame loop").
      this.weights[0] = under.weight;
      this.weights[1] = top.weight;
      if (useUnder) this.blendFiltered(out, under, 0);
      if (useTop) this.blendFiltered(out, top, 1);
      return;
    }
    // The source is left out when its share is nil: the lowest voice then stands for it.
    let started = this.sourceUpdated;
    if (started) this.source.evaluate(out);
    // The older voice (unless the newer covers it), then the newer, each over what is below it.
    // Weighted here, not in a function called only while a clip plays, which stays cold (see
    // CONTRIBUTING.md, "Numbers in the frame loop").
    const blendUnder = useUnder && top.weight < 1 - ZERO_WEIGHT;
    for (let i = 0; i < 2; i++) {
      const v = voices[i];
      if (!(i === 0 ? blendUnder : useTop)) continue;
      if (started) {
        this.weights[0] = 1 - v.weight;
        this.weights[1] = v.weight;
        v.playback.sampleBlendInto(out, this.weights);
      } else v.playback.sample(out);
      started = true;
    }
    if (!started) this.source.evaluate(out);
  }

  /** Blends a voice's pose into `out` bone by bone, by its weight (weights[index]) times the filter's. */
  private blendFiltered(out: Pose, v: SlotVoice, index: number): void {
    const pool = this.graph.posePool;
    const pose = pool.acquire();
    v.playback.sample(pose);
    poseLerpBones(out, pose, this.maskedBones, this.mask, this.weights, index);
    pool.release(pose);
  }

  protected override debugDescription(): string {
    const top = this.timeline.voices[1];
    if (!top.active) return `'${this.slotName}' (source)`;
    const under = this.timeline.voices[0];
    const below = under.active ? `, '${under.playback.binding.clip.name}' ${(under.weight * 100).toFixed(1)}% out` : '';
    return `'${this.slotName}' '${top.playback.binding.clip.name}' ${(top.weight * 100).toFixed(1)}% Play Time: ${top.playback.time.toFixed(3)}${below}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    const top = this.timeline.voices[1], under = this.timeline.voices[0];
    const values: Record<string, number | boolean | string> = { slot: this.slotName, playing: top.active };
    if (top.active) {
      values.clip = top.playback.binding.clip.name;
      if (top.isMontage) {
        const play = top.montage!;
        values.montage = play.montage.name;
        values.section = play.montage.sectionNames[play.section];
      }
      values.time = top.playback.time;
      values.weight = top.weight;
      values.blendingOut = top.stopping;
    }
    if (under.active) {
      values.previousClip = under.playback.binding.clip.name;
      values.previousWeight = under.weight;
    }
    // From the timeline, not this Slot's last update: a Slot not updated shows the slot as it is.
    values.sourceWeight = (1 - (under.active ? under.weight : 0)) * (1 - (top.active ? top.weight : 0));
    node.values = values;
  }
}

/**
 * Unreal's branch filter as per-bone weights: `bone` and its descendants, the weight rising over
 * `depth` bones below it (1/depth at the bone, 1 from `depth` − 1 bones below on); depth 0 or 1
 * gives the whole branch weight 1. Other bones 0.
 */
export function filterWeights(skeleton: Skeleton, bone: number, depth: number): Float64Array {
  const parents = skeleton.parents, weights = new Float64Array(skeleton.boneCount);
  for (let i = 0; i < weights.length; i++) {
    let below = 0, at = i;
    while (at >= 0 && at !== bone) {
      at = parents[at];
      below++;
    }
    if (at === bone) weights[i] = depth > 1 ? Math.min(1, (below + 1) / depth) : 1;
  }
  return weights;
}

export const SlotType: NodeType = defineBuiltInNodeType({
  type: 'Slot',
  space: 'local',
  properties: {
    name: { kind: 'object', schema: lazy(() => z.string().min(1)) },
    filterBone: { kind: 'bone', optional: true },
    filterDepth: { kind: 'int', default: 0, min: 0, bindable: false },
  },
  inputs: [{ name: 'source', kind: 'pose', space: 'local' }],
  // The voices' clips are given by playSlot; till then they hold an empty clip, one per graph.
  prepare: ({ skeleton }) => new ClipBinding(new Clip({ name: '', frameRate: 30, frameCount: 1, tracks: [] }), skeleton),
  create: ({ id, boneCount, properties: p, inputs, numbers, shared }) =>
    new Slot(id, p.name ?? id, inputs.source, p.filterBone, p.filterDepth, shared!, boneCount, numbers(SLOT_VOICES * CLOCK_NUMBERS)),
});
