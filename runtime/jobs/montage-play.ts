/**
 * The clock of one montage playing on a slot (Unreal's FAnimMontageInstance, its position and
 * sections): moves through the montage's sections by a frame's time, following their links, firing
 * its notifies and section changes, and keeps the spans of clip time the frame covered, one per
 * section played in, so that root motion across a section change is the motion of the part of the
 * section left plus that of the part of the section entered (never the clip's motion between them).
 */
import type { Montage } from '../core/montage.ts';
import type { AnimGraphEventEmitter } from '../node/events.ts';
import type { UpdateContext } from '../node/node.ts';

/** The most spans one frame of a montage covers (section changes and branching points + 1); the frame's time past them is dropped. */
export const MAX_MONTAGE_SPANS = 16;
/** advance()'s result: the montage reached the end of a section that links to none. */
export const MONTAGE_AT_END = 1;
/** advance()'s result: a listener played another montage or clip on the voice; stop reading it. */
export const MONTAGE_REPLACED = 2;

/**
 * One voice's montage clock. Number fields of one class written in place, and the spans in a typed
 * array (see CONTRIBUTING.md, "Numbers in the frame loop"); made at a slot voice's first montage
 * (runtime/jobs/slot-timeline.ts).
 */
export class MontagePlay {
  montage: Montage;
  /** The section playing, and the clip time in it. */
  section = 0;
  position = 0.5;
  /** Clip seconds per second: the montage's rate times playMontage's. */
  rate = 0.5;
  /** This play's links (setNextSection changes them), sized for the largest montage played yet. */
  next: Int32Array;
  /** [from, to, fromStart] per span the last advance covered. */
  readonly spans = new Float64Array(MAX_MONTAGE_SPANS * 3);
  spanCount = 0;
  /** Whether the next span starts where the montage was started or jumped to (a notify there fires). */
  startPending = true;
  /** Counts plays and jumps from code, so that advance sees a listener's between two spans. */
  plays = 0;
  jumps = 0;
  /** Held at the end of its last section (the montage has ended, or holds there without auto blend out). */
  atEnd = false;
  /** The id of the first Slot node of its slot, which events name. */
  readonly owner: string;
  /** The instance's events. */
  private readonly events: AnimGraphEventEmitter | null;

  constructor(montage: Montage, owner: string, events: AnimGraphEventEmitter | null) {
    this.montage = montage;
    this.owner = owner;
    this.events = events;
    this.next = new Int32Array(montage.next.length);
  }

  /** Starts `montage` at the start of `section`, at `rate` times its own. */
  start(montage: Montage, section: number, rate: number): void {
    this.montage = montage;
    if (this.next.length < montage.next.length) this.next = new Int32Array(montage.next.length);
    this.next.set(montage.next);
    this.section = section;
    this.position = montage.starts[section];
    this.rate = rate * montage.rate;
    this.startPending = true;
    this.atEnd = false;
    this.spanCount = 0;
    this.plays++;
  }

  /** Jumps to the start of `section` (the next advance plays from there; mid-advance, the rest of the frame does). */
  jumpTo(section: number): void {
    const from = this.section;
    this.section = section;
    this.position = this.montage.starts[section];
    this.startPending = true;
    this.atEnd = false;
    this.jumps++;
    this.emitSectionChanged(from);
  }

  /**
   * Moves the montage on by ctx.deltaTime × rate through its sections: a section's end goes on to
   * its next section's start (firing montageSectionChanged), a branching point stops the move while
   * montageNotify runs for it, and the other notifies crossed fire once their span is moved. Returns
   * MONTAGE_AT_END when a section without a next one has been played to its end (the position holds
   * there), MONTAGE_REPLACED when a listener played something else on the voice, else 0.
   */
  advance(ctx: UpdateContext): number {
    const m = this.montage, ends = m.ends, starts = m.starts, times = m.notifyTimes, branching = m.branchingPoints;
    const plays = this.plays;
    const spans = this.spans;
    let remaining = ctx.deltaTime * this.rate;
    if (!(remaining >= 0 && remaining < Infinity)) remaining = 0;
    this.spanCount = 0;
    if (this.atEnd) {
      // Held at the end: a span of no length, for the curves there.
      spans[0] = this.position; spans[1] = this.position; spans[2] = 0;
      this.spanCount = 1;
      return MONTAGE_AT_END;
    }
    for (;;) {
      const s = this.section, from = this.position, end = ends[s], inclusive = this.startPending;
      this.startPending = false;
      let to = from + remaining, reachedEnd = false, branch = false;
      if (to >= end) {
        to = end;
        reachedEnd = true;
      }
      // The first branching point the span reaches ends it.
      for (let i = 0; i < times.length; i++) {
        const t = times[i];
        if (branching[i] === 1 && (t > from || (inclusive && t === from)) && t <= to) {
          to = t;
          reachedEnd = to === end;
          branch = true;
          break;
        }
      }
      const k = this.spanCount * 3;
      spans[k] = from; spans[k + 1] = to; spans[k + 2] = inclusive ? 1 : 0;
      this.spanCount++;
      remaining -= to - from;
      if (remaining < 0) remaining = 0;
      this.position = to;
      const jumps = this.jumps;
      if (times.length > 0) this.fireNotifies(k);
      if (this.plays !== plays) return MONTAGE_REPLACED;
      if (this.jumps !== jumps) {
        // A listener jumped: the rest of the frame plays from there.
        if (this.spanCount < MAX_MONTAGE_SPANS) continue;
        return 0;
      }
      if (reachedEnd) {
        const next = this.next[s];
        if (next < 0) {
          this.atEnd = true;
          return MONTAGE_AT_END;
        }
        this.section = next;
        this.position = starts[next];
        // Entering the section that follows in time goes on from where the last span ended, whose
        // notifies at that time have fired; any other is a new pass, whose notifies at its start fire.
        this.startPending = starts[next] !== end;
        this.emitSectionChanged(s);
        if (this.plays !== plays) return MONTAGE_REPLACED;
        if (this.spanCount < MAX_MONTAGE_SPANS) continue;
        return 0;
      }
      if (branch && remaining > 0 && this.spanCount < MAX_MONTAGE_SPANS) continue;
      return 0;
    }
  }

  /**
   * Fires montageNotify for the notifies in the span at spans[at] (from, to] ([from, to] when it
   * starts a pass), in time order. The span's times are read from the array, not passed: a double
   * passed to a call V8 does not inline is boxed (see CONTRIBUTING.md, "Numbers in the frame loop").
   */
  private fireNotifies(at: number): void {
    const events = this.events;
    if (events === null || !events.has('montageNotify')) return;
    const spans = this.spans, from = spans[at], to = spans[at + 1], inclusive = spans[at + 2] > 0;
    const m = this.montage, times = m.notifyTimes, names = m.notifyNames, plays = this.plays, jumps = this.jumps;
    for (let i = 0; i < times.length; i++) {
      const t = times[i];
      if (t > to) break;
      if (t > from || (inclusive && t === from)) {
        events.emit('montageNotify', names[i], m.name, this.owner, m.branchingPoints[i] === 1);
        // A listener that played or jumped ends this span's notifies: the rest belong to a move that no longer happens.
        if (this.plays !== plays || this.jumps !== jumps) return;
      }
    }
  }

  private emitSectionChanged(from: number): void {
    const events = this.montageEvents();
    if (events === null) return;
    const names = this.montage.sectionNames;
    events.emit('montageSectionChanged', this.montage.name, this.owner, names[this.section], names[from]);
  }

  private montageEvents(): AnimGraphEventEmitter | null {
    const events = this.events;
    return events !== null && events.has('montageSectionChanged') ? events : null;
  }
}
