/**
 * The contract between an instance's playSlot and the nodes that play clips on demand (Slot): the
 * instance checks the arguments (runtime/graph/slot-play.ts) and hands them to the node.
 */
import type { ClipBinding } from '../core/clip.ts';

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

/** What AnimGraphInstance.playSlot drives: a node playing clips over its input on demand (nodes/Slot.ts). */
export interface SlotPlayer {
  readonly id: string;
  readonly slotName: string;
  /**
   * Starts `clip` with `args`' timing. `args` is the caller's, reused by its next call: read it on
   * entry, before anything (an event) can run code that plays another clip. Allocates nothing.
   */
  playClip(clip: ClipBinding, args: SlotPlayArgs): void;
  /** Blends out whatever plays over `blendOut` seconds from now. */
  stopClips(blendOut: number): void;
  /** Whether a clip plays (blending in, playing or blending out). */
  readonly playing: boolean;
}
