/**
 * The contract between an instance's playSlot and the nodes that play clips on demand (Slot): the
 * instance checks the arguments (runtime/graph/slot-play.ts) and hands them to the node.
 */
import type { ClipBinding } from '../core/clip.ts';
import type { Montage } from '../core/montage.ts';

/** How AnimGraphInstance.playSlot plays a clip (every field optional). */
export interface SlotPlayOptions {
  /** Seconds the clip takes to blend in over the slot's source (default 0.2; 0 cuts in). */
  blendIn?: number;
  /** Seconds it takes to blend out before its end (default 0.2; 0 cuts out at the end). */
  blendOut?: number;
  /** Clip seconds per second (default 1); above 0 and finite. */
  playRate?: number;
}

/**
 * How AnimGraphInstance.playSlot passes a clip's timing to a SlotPlayer: every field given, checked.
 * The numbers travel in an object rather than as arguments: see CONTRIBUTING.md, "Numbers in the
 * frame loop".
 */
export type SlotPlayArgs = Readonly<Required<SlotPlayOptions>>;

/** How AnimGraphInstance.playMontage plays a montage (every field optional). */
export interface MontagePlayOptions {
  /** The section to start at (default the montage's first). */
  section?: string;
  /** Times the montage's own rate (default 1); above 0 and finite. */
  rate?: number;
}

/** How AnimGraphInstance.playMontage passes a montage's start to a SlotPlayer: the section by index, checked. */
export interface MontagePlayArgs {
  section: number;
  rate: number;
}

/**
 * What AnimGraphInstance.playSlot drives: a node playing clips over its input on demand
 * (nodes/Slot.ts). The instance's slot table lists, per slot name, the first player of the name in
 * the graph's build order (instance.nodes' order: every node after those it links to) and each
 * later one that follows none listed before it (see `follow`): playSlot and the montage calls go
 * to each player listed, once.
 */
export interface SlotPlayer {
  /** The node's id; events of what it plays name it. */
  readonly id: string;
  readonly slotName: string;
  /**
   * Called when an instance is built, on each player of a slot name after the first, with the
   * players of the name listed before it, in order, until it returns true. Returning true, the
   * player shows what `first` plays from then on (one timeline per slot name: played, advanced and
   * its events fired once, in `first`'s name) and the instance's calls go to `first` alone; a player
   * without `follow`, or that follows none, is played on by itself.
   */
  follow?(first: SlotPlayer): boolean;
  /**
   * Starts `clip` with `args`' timing. `args` is the caller's, reused by its next call: read it on
   * entry, before anything (an event) can run code that plays another clip. Allocates nothing.
   */
  playClip(clip: ClipBinding, args: SlotPlayArgs): void;
  /** Blends out whatever plays over `blendOut` seconds from now. */
  stopClips(blendOut: number): void;
  /** Whether a clip plays (blending in, playing or blending out). */
  readonly playing: boolean;
  /**
   * Starts `montage` at section args.section (args read on entry, as playClip's), over whatever
   * plays (blended out over the montage's blend in). Allocates nothing once the node has played a
   * montage.
   */
  playMontage?(montage: Montage, args: MontagePlayArgs): void;
  /** Jumps the montage playing (not blending out) to the start of `section`, if it is `montage`; whether it did. */
  jumpToSection?(montage: Montage, section: number): boolean;
  /** Links section `from` of the montage playing, if it is `montage`, to `to` (-1: the montage ends after it) for this play; whether it did. */
  setNextSection?(montage: Montage, from: number, to: number): boolean;
  /** Blends out the montage playing (`montage`, or any: null) over `blendOut` seconds, its own blend out when negative. */
  stopMontage?(montage: Montage | null, blendOut: number): void;
  /** The montage playing and not blending out, null for none. */
  readonly activeMontage?: Montage | null;
  /** The active montage's clip time and section index (see activeMontage); -1 without one. */
  readonly montagePosition?: number;
  readonly montageSection?: number;
}
