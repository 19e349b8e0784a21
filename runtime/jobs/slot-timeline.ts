/**
 * What plays on one slot name of one instance (Unreal's montage instances, which live on the anim
 * instance rather than in its slot nodes): the clips of playSlot and the montages of playMontage,
 * their clocks, sections and blend weights, and their events. Every Slot node of the name reads the
 * one SlotTimeline: the first Slot of the name in the instance's slot table makes it, and the others
 * follow it when the instance is built (SlotPlayer.follow). It moves on once per graph update, by the
 * first of its Slots the update reaches or, when the update reaches none, after the update (see
 * nodes/Slot.ts), and fires its events once, naming the first Slot (`id`).
 */
import { easeAt, LINEAR_BLEND, type BlendCurve } from '../core/blend-curve.ts';
import type { ClipBinding } from '../core/clip.ts';
import type { Montage } from '../core/montage.ts';
import type { AnimGraphEventEmitter } from '../node/events.ts';
import type { GraphRuntime, InitializeContext, UpdateContext } from '../node/node.ts';
import type { MontagePlayArgs, SlotPlayArgs, SlotPlayer } from '../node/slot-player.ts';
import { ClipPlayback, usePlaybackNumbers } from './clip-playback.ts';
import { MONTAGE_AT_END, MONTAGE_REPLACED, MontagePlay } from './montage-play.ts';

/**
 * One clip played in a slot: its clock, and the numbers of its blend in and out (fields of one
 * small class, written in place: see CONTRIBUTING.md, "Numbers in the frame loop").
 */
export class SlotVoice {
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
export const SLOT_VOICES = 2;

/**
 * [0] a blend's progress, eased in place (easeAt): scratch within one call, which every timeline on
 * the thread shares (one typed array fewer per character: see CONTRIBUTING.md, "Objects per character").
 */
const ease = new Float64Array(1);

export class SlotTimeline implements SlotPlayer {
  /** [older, newer]: the newer one is on top; a lone clip is always the newer. */
  readonly voices: SlotVoice[];
  /** The voices' clip clocks, in voice order (a fixed array: see usePlaybackNumbers). */
  private readonly clocks: readonly ClipPlayback[];
  /**
   * The graph update (GraphRuntime.updateCounter) the voices last moved on in: a Slot reached
   * again in that update, or another of the name, reads them as they are. -1 after a new
   * initialization pass (the counter starts over).
   */
  advancedAt = -1;
  /** Whether the voice makeRoom dropped played a montage; whether it moved a voice under. */
  private droppedMontage = false;
  private movedUnder = false;
  /** The instance's events, from the first initialize on. */
  private events: AnimGraphEventEmitter | null = null;
  /** The initialization pass that last initialized a Slot of the name: a state entered again keeps what plays. */
  private initializedBy: InitializeContext | null = null;

  constructor(
    /** The first Slot of the name, which every event names. */
    readonly id: string,
    readonly slotName: string,
    /** What the voices hold until playSlot gives them a clip (never sampled: they are inactive till then). */
    noClip: ClipBinding,
    /** Where the voices' clip clocks go in the instance's per-frame numbers (SLOT_VOICES × CLOCK_NUMBERS of them), -1: their own. */
    private readonly clockNumbers: number,
  ) {
    this.voices = Array.from({ length: SLOT_VOICES }, () => new SlotVoice(noClip, id));
    this.clocks = this.voices.map((v) => v.playback);
  }

  /**
   * Called at each initialize of each Slot of the name. A new pass (the instance's reset) stops what
   * plays, interrupted, as Unreal stops every montage when an anim instance is initialised again: a
   * montage not yet blending out says so, then each voice's end, once both voices are stopped. The
   * pass a state is entered again in is the one it was built in: its voices played on meanwhile.
   */
  initialize(graph: GraphRuntime, ctx: InitializeContext): void {
    usePlaybackNumbers(this.clocks, graph.frameNumbers, this.clockNumbers);
    this.events = graph.events;
    if (this.initializedBy === ctx) return;
    this.initializedBy = ctx;
    this.advancedAt = -1;
    const under = this.voices[0], top = this.voices[1];
    const underPlayed = under.active, topPlayed = top.active;
    under.active = false;
    under.weight = 0;
    top.active = false;
    top.weight = 0;
    if (underPlayed) this.emitStopped(under);
    if (topPlayed) this.emitStopped(top);
  }

  get playing(): boolean {
    return this.voices[1].active;
  }

  /** Starts `clip` on top (see nodes/Slot.ts). Allocates nothing. */
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
    const play = v.montage ??= new MontagePlay(montage, this.id, this.events);
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
    const events = this.events;
    if (events !== null && events.has('montageStarted')) events.emit('montageStarted', montage.name, this.id);
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
    const events = this.events;
    if (events !== null && events.has('montageBlendingOut')) events.emit('montageBlendingOut', v.montage!.montage.name, this.id, interrupted);
  }

  /** slotEnded for a clip, or montageEnded for a montage, named `name`, that has ended. */
  private emitEnded(name: string, montage: boolean, interrupted: boolean): void {
    const events = this.events;
    if (events === null) return;
    if (montage) {
      if (events.has('montageEnded')) events.emit('montageEnded', name, this.id, interrupted);
    } else if (events.has('slotEnded')) events.emit('slotEnded', this.slotName, this.id, name, interrupted);
  }

  /** The events of a voice stopped at once (by a reset): blending out (a montage not yet), then its end, interrupted. */
  private emitStopped(v: SlotVoice): void {
    if (v.isMontage && !v.stopping) this.emitBlendingOut(v, true);
    this.emitEnded(v.isMontage ? v.montage!.montage.name : v.playback.binding.clip.name, v.isMontage, true);
  }

  /**
   * Moves the active voices on by ctx.deltaTime and sets their weights, firing a montage's section
   * changes, its own notifies and its blend out as they happen; once per graph update (advancedAt),
   * by the Slot that does (see nodes/Slot.ts), which then reports the voices' clip notifies and
   * calls settleEnds. A lone voice left is always the newer one.
   */
  advance(ctx: UpdateContext): void {
    this.advancedAt = ctx.graph.updateCounter;
    for (let i = 0; i < 2; i++) if (this.voices[i].active) this.advanceVoice(ctx, this.voices[i]);
    // The older voice may have ended.
    if (!this.voices[1].active && this.voices[0].active) {
      const v = this.voices[0];
      this.voices[0] = this.voices[1];
      this.voices[1] = v;
    }
  }

  /** Ends the voices that have played out or blended out, and emits their events. */
  settleEnds(): void {
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
    const play = v.montage!, m = play.montage, dt = ctx.deltaTime;
    v.elapsed += dt;
    const result = play.advance(ctx);
    // A listener played something else on this voice, which plays from the next update.
    if (result === MONTAGE_REPLACED || !v.active) return;
    if (v.stopping) {
      v.stopElapsed += dt;
      if (v.stopDuration > 0 && v.stopElapsed < v.stopDuration) {
        ease[0] = v.stopElapsed / v.stopDuration;
        easeAt(v.blendOutCurve, ease, 0);
        v.weight = v.stopWeight * (1 - ease[0]);
      } else v.weight = 0;
      return;
    }
    let w = 1;
    if (v.blendIn > 0 && v.elapsed < v.blendIn) {
      ease[0] = v.elapsed / v.blendIn;
      easeAt(m.blendInCurve, ease, 0);
      w = ease[0];
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
}
