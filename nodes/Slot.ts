import * as z from 'zod';
import { Clip, ClipBinding } from '../runtime/core/clip.ts';
import { CLOCK_NUMBERS, ClipPlayback, usePlaybackNumbers } from '../runtime/jobs/clip-playback.ts';
import type { MontagePlayArgs, SlotPlayArgs, SlotPlayer } from '../runtime/node/slot-player.ts';
import { easeAt, LINEAR_BLEND, type BlendCurve } from '../runtime/core/blend-curve.ts';
import type { Montage } from '../runtime/core/montage.ts';
import { MONTAGE_AT_END, MONTAGE_REPLACED, MontagePlay } from '../runtime/jobs/montage-play.ts';
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
 * One clip played in a slot: its clock, and the numbers of its blend in and out (fields of one
 * small class, written in place: see CONTRIBUTING.md, "Numbers in the frame loop").
 */
class SlotVoice {
  readonly playback: ClipPlayback;
  active = false;
  /** Seconds since playSlot started it. */
  elapsed = 0;
  blendIn = 0;
  blendOut = 0;
  /** Cut short: blending out from stopWeight over stopDuration seconds, stopElapsed so far. */
  stopping = false;
  stopWeight = 0;
  stopDuration = 0;
  stopElapsed = 0;
  /** This frame's blend weight over what is below it (the source, or an older voice). */
  weight = 0;
  /** Whether the clip has played to its end (a clip of no length at once). */
  ended = false;
  /** The voice's montage clock, made at its first montage; `isMontage` says whether it plays one now. */
  montage: MontagePlay | null = null;
  isMontage = false;
  /** The curve its blend out follows (a montage's; linear for a clip). */
  blendOutCurve: BlendCurve = LINEAR_BLEND;
  /** Whether its blend out was asked for (stopped, or played over), not its end's. */
  interrupted = false;

  constructor(binding: ClipBinding, owner: string) {
    this.playback = new ClipPlayback(binding);
    this.playback.owner = owner;
    this.playback.looping = false;
  }
}

/** How many clips a slot plays at once (its voices: one blending out under the newer). */
const VOICES = 2;

/**
 * Plays clips over its source pose on demand from code (Unreal's slot with a montage):
 * `instance.playSlot(name, clip, { blendIn, blendOut, playRate })` starts a clip, blended in from
 * the source over blendIn seconds and out over the clip's last blendOut seconds; it ends by
 * itself (event `slotEnded`). A clip started while another plays goes on top of it, and the one
 * below blends out over the new clip's blendIn from the weight it had, so nothing pops. With a
 * `filterBone`, only that bone and its descendants (ramping in over `filterDepth` bones) take the
 * clip: an upper-body one-shot over locomotion.
 *
 * Weights: with the top clip at weight w1 and the one below at w0, the top clip's absolute share
 * is w1, the one below's w0 × (1 − w1) and the source's (1 − w0) × (1 − w1); notifies, curves and
 * root motion follow those shares. Filtered, the source keeps its whole weight (the bones outside
 * the filter are all its own), except for its curves, scaled by its share so that the clip's
 * curves override them as its pose does.
 *
 * What it plays goes on whether or not the Slot is updated, as Unreal's AnimInstance advances its
 * montages whichever slot nodes are relevant: after a graph update in which the Slot was not
 * updated (its branch has no weight), afterGraphUpdate moves its voices on by the update's delta
 * time, with the same sections, blends, notifies, ends and events, and reports neither root motion
 * nor curves, since its pose is in nobody's output. A state entered again re-initializes the Slot
 * in the initialization pass it was built in, which keeps its voices: the state shows the montage
 * where it has got to. A new pass (the instance's reset) stops everything, interrupted.
 */
export class Slot extends LocalPoseNode implements SlotPlayer {
  /** [older, newer]: the newer one is on top; a lone clip is always the newer. */
  private readonly voices: SlotVoice[];
  /** The voices' clip clocks, in voice order. */
  private readonly clocks: readonly ClipPlayback[];
  /** [1 − w, w] for blending a voice into the pose; [2] a blend's progress eased (easeAt). */
  private readonly weights = new Float64Array(3);
  /** The source's share this frame: (1 − w0) × (1 − w1). */
  private readonly sourceShare = new Float64Array(1);
  /** Whether the voice makeRoom dropped played a montage; whether it moved a voice under. */
  private droppedMontage = false;
  private movedUnder = false;
  /** Whether the source was updated this frame. */
  private sourceUpdated = false;
  /** Per-bone weight of the filter (1 everywhere without one); bones with a weight, in order. */
  private mask: Float64Array;
  private maskedBones: Int32Array;
  /** Curve values before the source's update, to scale what it adds (filtered only). */
  private curvesBefore = new Float64Array(0);
  private readonly inputLinks: readonly Link[];
  /** The initialization pass that last initialized the node: one state entry after another keeps what plays. */
  private initializedBy: InitializeContext | null = null;

  constructor(
    id: string,
    readonly slotName: string,
    private readonly source: PoseLink,
    private readonly filterBone: string,
    private readonly filterDepth: number,
    /** What the voices hold until playSlot gives them a clip (never sampled: they are inactive till then). */
    noClip: ClipBinding,
    boneCount: number,
    /** Where the voices' clip clocks go in the instance's per-frame numbers (NodeBuild.numbers, VOICES of them), -1: their own. */
    private readonly clockNumbers = -1,
  ) {
    super(id, 'Slot');
    this.inputLinks = [source];
    this.voices = Array.from({ length: VOICES }, () => new SlotVoice(noClip, id));
    this.clocks = this.voices.map((v) => v.playback);
    this.mask = new Float64Array(boneCount).fill(1);
    this.maskedBones = Int32Array.from({ length: boneCount }, (_, i) => i);
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  get playing(): boolean {
    return this.voices[1].active;
  }

  /** Starts `clip` on top (see the class comment). Allocates nothing. */
  playClip(clip: ClipBinding, args: SlotPlayArgs): void {
    const blendIn = args.blendIn, blendOut = args.blendOut, playRate = args.playRate;
    // The clip dropped to make room ends (slotEnded) only once the new one is in place: a listener
    // may play another clip on this slot, which must find it whole.
    const dropped = this.makeRoom();
    if (this.movedUnder) this.stopVoice(this.voices[0], blendIn);
    const v = this.voices[1], p = v.playback;
    if (v.montage !== null) v.montage.plays++;
    v.isMontage = false;
    v.blendOutCurve = LINEAR_BLEND;
    v.interrupted = false;
    v.active = true;
    v.elapsed = 0;
    v.blendIn = blendIn;
    v.blendOut = blendOut;
    v.stopping = false;
    v.ended = false;
    v.weight = 0;
    p.binding = clip;
    p.rate = playRate;
    p.time = 0;
    p.restart();
    this.emitMoved(dropped);
  }

  /**
   * Puts the newer voice under (`movedUnder`: the caller blends it out, passing its blend time
   * itself, as a double crossing one more call would be boxed) and frees the other for a new play;
   * returns the name of what was dropped to make room, if anything, whose end emitMoved reports
   * once the new play is in place (a listener may play another clip on this slot, which must find
   * it whole).
   */
  private makeRoom(): string | null {
    // Indexed rather than destructured: unoptimised, a destructuring allocates an iterator and its results.
    const under = this.voices[0], top = this.voices[1];
    let dropped: string | null = null;
    if (top.active) {
      if (under.active) {
        // Its name read now: the voice is the one the new play reuses.
        this.droppedMontage = under.isMontage;
        dropped = under.isMontage ? under.montage!.montage.name : under.playback.binding.clip.name;
        under.active = false;
        under.weight = 0;
      }
      this.voices[0] = top;
      this.voices[1] = under;
      top.interrupted = true;
    }
    this.movedUnder = top.active;
    return dropped;
  }

  /** The events of a play: the voice put under blending out (a montage), and the dropped voice's end. */
  private emitMoved(dropped: string | null): void {
    const under = this.voices[0];
    if (under.active && under.isMontage && under.stopping && under.stopElapsed === 0) this.emitBlendingOut(under, true);
    if (dropped !== null) this.emitEnded(dropped, this.droppedMontage, true);
  }

  stopClips(blendOut: number): void {
    for (let i = 0; i < 2; i++) {
      const v = this.voices[i];
      if (!v.active || v.stopping) continue;
      this.stopVoice(v, blendOut);
      v.interrupted = true;
      if (v.isMontage) this.emitBlendingOut(v, true);
    }
  }

  playMontage(montage: Montage, args: MontagePlayArgs): void {
    const section = args.section, rate = args.rate;
    const dropped = this.makeRoom();
    if (this.movedUnder) this.stopVoice(this.voices[0], montage.blendInTime);
    const v = this.voices[1], p = v.playback;
    const play = v.montage ??= new MontagePlay(montage, this.id, this.graph.events);
    play.start(montage, section, rate);
    v.isMontage = true;
    v.blendOutCurve = montage.blendOutCurve;
    v.interrupted = false;
    v.active = true;
    v.elapsed = 0;
    v.blendIn = montage.blendInTime;
    v.blendOut = montage.blendOutTime;
    v.stopping = false;
    v.ended = false;
    v.weight = 0;
    p.binding = montage.binding;
    // What it interrupts blends out (and what it dropped ends) before it starts.
    this.emitMoved(dropped);
    const events = this.graph.events;
    if (events.has('montageStarted')) events.emit('montageStarted', montage.name, this.id);
  }

  get activeMontage(): Montage | null {
    const v = this.voices[1];
    return v.active && v.isMontage && !v.stopping ? v.montage!.montage : null;
  }

  get montagePosition(): number {
    const v = this.voices[1];
    return v.active && v.isMontage && !v.stopping ? v.montage!.position : -1;
  }

  get montageSection(): number {
    const v = this.voices[1];
    return v.active && v.isMontage && !v.stopping ? v.montage!.section : -1;
  }

  jumpToSection(montage: Montage, section: number): boolean {
    if (this.activeMontage !== montage) return false;
    this.voices[1].montage!.jumpTo(section);
    return true;
  }

  setNextSection(montage: Montage, from: number, to: number): boolean {
    if (this.activeMontage !== montage) return false;
    this.voices[1].montage!.next[from] = to;
    return true;
  }

  stopMontage(montage: Montage | null, blendOut: number): void {
    const v = this.voices[1], active = this.activeMontage;
    if (active === null || (montage !== null && active !== montage)) return;
    this.stopVoice(v, blendOut < 0 ? active.blendOutTime : blendOut);
    v.interrupted = true;
    this.emitBlendingOut(v, true);
  }

  private stopVoice(v: SlotVoice, duration: number): void {
    v.stopping = true;
    v.stopWeight = v.weight;
    v.stopDuration = duration;
    v.stopElapsed = 0;
  }

  private emitBlendingOut(v: SlotVoice, interrupted: boolean): void {
    const events = this.graph.events;
    if (events.has('montageBlendingOut')) events.emit('montageBlendingOut', v.montage!.montage.name, this.id, interrupted);
  }

  /** slotEnded for a clip, or montageEnded for a montage, named `name`, that has ended. */
  private emitEnded(name: string, montage: boolean, interrupted: boolean): void {
    const events = this.graph.events;
    if (montage) {
      if (events.has('montageEnded')) events.emit('montageEnded', name, this.id, interrupted);
    } else if (events.has('slotEnded')) events.emit('slotEnded', this.slotName, this.id, name, interrupted);
  }

  /** The events of a voice stopped at once (by a reset): blending out (a montage not yet), then its end, interrupted. */
  private emitStopped(v: SlotVoice): void {
    if (v.isMontage && !v.stopping) this.emitBlendingOut(v, true);
    this.emitEnded(v.isMontage ? v.montage!.montage.name : v.playback.binding.clip.name, v.isMontage, true);
  }

  protected override onInitialize(ctx: InitializeContext): void {
    usePlaybackNumbers(this.clocks, this.graph.frameNumbers, this.clockNumbers);
    // Indexed, no for-of, and the curve buffer made only when its size changes: this runs at each
    // entry of a state, in the frame loop (see CONTRIBUTING.md, "Numbers in the frame loop").
    // Entering a state again is the same pass: its voices played on meanwhile (afterGraphUpdate).
    // A new pass (the instance reset) stops what plays, interrupted, as Unreal stops every montage
    // when an anim instance is initialised again: a montage not yet blending out says so, then
    // each voice's end, once both voices are stopped.
    if (this.initializedBy !== ctx) {
      const under = this.voices[0], top = this.voices[1];
      const underPlayed = under.active, topPlayed = top.active;
      under.active = false;
      under.weight = 0;
      top.active = false;
      top.weight = 0;
      if (underPlayed) this.emitStopped(under);
      if (topPlayed) this.emitStopped(top);
    }
    this.initializedBy = ctx;
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
   * After a graph update that did not update the Slot, its voices play on (see the class comment):
   * the short path here, so that this check, made every frame, is optimised early (see
   * CONTRIBUTING.md, "Numbers in the frame loop").
   */
  override afterGraphUpdate(top: UpdateContext): void {
    if (this.relevant || !(this.voices[0].active || this.voices[1].active)) return;
    this.play(top, false);
  }

  /**
   * A frame of the Slot: its voices moved on by ctx.deltaTime, their weights set and, `seen` (the
   * Slot updated), its source updated under them and their root motion, notifies and curves
   * reported; unseen, their notifies alone (a clip's at the voice's share of the Slot, as if it
   * were seen at full weight). Then their ends and events. One function for both, so that the
   * unseen frame runs code every updated Slot's frame keeps optimised (see CONTRIBUTING.md,
   * "Numbers in the frame loop").
   */
  private play(ctx: UpdateContext, seen: boolean): void {
    this.advanceVoices(ctx);
    const under = this.voices[0], top = this.voices[1];
    const w0 = under.active ? under.weight : 0, w1 = top.active ? top.weight : 0;
    this.sourceShare[0] = (1 - w0) * (1 - w1);
    if (seen) this.updateSource(ctx);
    if (under.active) {
      under.playback.weight = w0 * (1 - w1);
      this.report(ctx, under, seen);
    }
    if (top.active) {
      top.playback.weight = w1;
      this.report(ctx, top, seen);
    }
    this.settleEnds();
  }

  /** Updates the source at its share (sourceShare[0]), or filtered at its own weight with its curves scaled by the share. */
  private updateSource(ctx: UpdateContext): void {
    const filtered = this.filterBone !== '' && (this.voices[1].active || this.voices[0].active);
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
   * Reports what a voice's move produced (see play): a montage's span by span (root motion and the
   * clip's notifies of each, its curves at the last), so that a section change adds the motion
   * within the section left and within the section entered, never the clip's motion between them.
   */
  private report(ctx: UpdateContext, v: SlotVoice, seen: boolean): void {
    const p = v.playback;
    if (!v.isMontage) {
      if (seen) p.reportRootMotion(ctx);
      else p.reportNotifiesAlone(ctx);
      return;
    }
    const play = v.montage!, count = play.spanCount, spans = play.spans;
    for (let i = 0; i < count; i++) {
      p.moveSpan(spans, i * 3, seen && i === count - 1);
      if (seen) p.reportRootMotion(ctx);
      else p.reportNotifiesAlone(ctx);
    }
  }

  /** Moves the active voices on; a lone voice left is always the newer one. */
  private advanceVoices(ctx: UpdateContext): void {
    for (let i = 0; i < 2; i++) if (this.voices[i].active) this.advanceVoice(ctx, this.voices[i]);
    // The older voice may have ended.
    if (!this.voices[1].active && this.voices[0].active) {
      const v = this.voices[0];
      this.voices[0] = this.voices[1];
      this.voices[1] = v;
    }
  }

  /** Ends the voices that have played out or blended out, and emits their events. */
  private settleEnds(): void {
    // Both voices' ends are settled, and their names read, before either's event, for the same
    // reason as in playClip. A montage's end is interrupted when asked for; a clip's when it was
    // stopped before its end.
    let first: string | null = null, second: string | null = null;
    let firstMontage = false, secondMontage = false, firstInterrupted = false, secondInterrupted = false;
    for (let i = 0; i < 2; i++) {
      const v = this.voices[i];
      if (!v.active || !(v.ended || (v.stopping && v.weight <= 0))) continue;
      v.active = false;
      v.weight = 0;
      const name = v.isMontage ? v.montage!.montage.name : v.playback.binding.clip.name;
      const interrupted = v.isMontage ? v.interrupted : v.stopping;
      if (first === null) {
        first = name;
        firstMontage = v.isMontage;
        firstInterrupted = interrupted;
      } else {
        second = name;
        secondMontage = v.isMontage;
        secondInterrupted = interrupted;
      }
    }
    if (first !== null) this.emitEnded(first, firstMontage, firstInterrupted);
    if (second !== null) this.emitEnded(second, secondMontage, secondInterrupted);
  }

  /** Moves a voice's clip and blend clocks on by this frame and sets its weight. */
  private advanceVoice(ctx: UpdateContext, v: SlotVoice): void {
    if (v.isMontage) {
      this.advanceMontage(ctx, v);
      return;
    }
    const p = v.playback;
    v.elapsed += ctx.deltaTime;
    p.advance(ctx);
    v.ended = p.atEnd || !(p.binding.clip.duration > 0);
    if (v.ended) {
      v.weight = 0;
      return;
    }
    if (v.stopping) {
      v.stopElapsed += ctx.deltaTime;
      v.weight = v.stopDuration > 0 && v.stopElapsed < v.stopDuration ? v.stopWeight * (1 - v.stopElapsed / v.stopDuration) : 0;
      return;
    }
    let w = 1;
    if (v.blendIn > 0 && v.elapsed < v.blendIn) w = v.elapsed / v.blendIn;
    if (v.blendOut > 0) {
      const remaining = (p.binding.clip.duration - p.time) / p.rate;
      if (remaining < v.blendOut && remaining / v.blendOut < w) w = remaining / v.blendOut;
    }
    v.weight = w;
  }

  /**
   * Moves a montage voice on and sets its weight: the montage's blend in by its curve, then its
   * blend out, which starts by itself (enableAutoBlendOut) once the last section (one that links to
   * none) has no more than the blend-out time left, and lasts what is left, so that the weight
   * reaches 0 at the section's end; at that end, without auto blend out, the montage holds.
   */
  private advanceMontage(ctx: UpdateContext, v: SlotVoice): void {
    const play = v.montage!, m = play.montage, ease = this.weights, dt = ctx.deltaTime;
    v.elapsed += dt;
    const result = play.advance(ctx);
    // A listener played something else on this voice, which plays from the next update.
    if (result === MONTAGE_REPLACED || !v.active) return;
    if (v.stopping) {
      v.stopElapsed += dt;
      if (v.stopDuration > 0 && v.stopElapsed < v.stopDuration) {
        ease[2] = v.stopElapsed / v.stopDuration;
        easeAt(v.blendOutCurve, ease, 2);
        v.weight = v.stopWeight * (1 - ease[2]);
      } else v.weight = 0;
      return;
    }
    let w = 1;
    if (v.blendIn > 0 && v.elapsed < v.blendIn) {
      ease[2] = v.elapsed / v.blendIn;
      easeAt(m.blendInCurve, ease, 2);
      w = ease[2];
    }
    v.weight = w;
    if (!m.autoBlendOut || play.next[play.section] >= 0) return;
    const left = result === MONTAGE_AT_END ? 0 : (m.ends[play.section] - play.position) / play.rate;
    if (left > v.blendOut) return;
    this.stopVoice(v, left);
    v.interrupted = false;
    if (!(left > 0)) v.weight = 0;
    this.emitBlendingOut(v, false);
  }

  protected onEvaluate(out: Pose): void {
    const under = this.voices[0], top = this.voices[1];
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
      const v = this.voices[i];
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
    const top = this.voices[1];
    if (!top.active) return `'${this.slotName}' (source)`;
    const under = this.voices[0];
    const below = under.active ? `, '${under.playback.binding.clip.name}' ${(under.weight * 100).toFixed(1)}% out` : '';
    return `'${this.slotName}' '${top.playback.binding.clip.name}' ${(top.weight * 100).toFixed(1)}% Play Time: ${top.playback.time.toFixed(3)}${below}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    const top = this.voices[1], under = this.voices[0];
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
    values.sourceWeight = top.active || under.active ? this.sourceShare[0] : 1;
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
    new Slot(id, p.name ?? id, inputs.source, p.filterBone, p.filterDepth, shared!, boneCount, numbers(VOICES * CLOCK_NUMBERS)),
});
