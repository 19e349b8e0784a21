import { EventEmitter } from 'eventemitter3';

/**
 * Events a graph instance emits. Handlers receive positional arguments (no event objects), so
 * emitting inside the frame loop allocates nothing.
 */
export interface AnimGraphEvents {
  /** A looping SequencePlayer wrapped past the end (or the start, when playing backwards). */
  sequenceLooped: (nodeId: string, clip: string, time: number) => void;
  /** A non-looping SequencePlayer reached the end (or the start, when playing backwards). */
  sequenceEnded: (nodeId: string, clip: string, time: number) => void;
  /** User code set a parameter to a different value. */
  parameterChanged: (name: string, value: number | boolean | readonly number[], previous: number | boolean | readonly number[]) => void;
  /** A node was updated this frame but not on the previous one (its branch's weight rose above zero). */
  nodeBecameRelevant: (nodeId: string, type: string) => void;
  /** An InertialBlend or Inertialization node started a transition lasting `duration` seconds. */
  inertializationStarted: (nodeId: string, duration: number) => void;
  /** A transition ended (ran its duration, or was cut short by a new one: see `interrupted`). */
  inertializationEnded: (nodeId: string, duration: number, interrupted: boolean) => void;
  /**
   * A PoseSearchBlend's `motion` became an index outside its clips [0, clipCount - 1] (or changed
   * to another such index). The node keeps playing the clip it was playing.
   */
  motionOutOfRange: (nodeId: string, motion: number, clipCount: number) => void;
  /**
   * A playing clip crossed a notify authored on it (its `notifies`), at `weight`: the player's
   * absolute weight, above 0.00001 (a slot's clip or montage: its weight in the slot, fired once
   * in the name of the slot's first Slot node). Fired once per crossing, in the order the play time
   * crosses them, looping and playing backwards included.
   */
  notify: (name: string, nodeId: string, weight: number) => void;
  /** A playing clip entered a range notify (crossed its start forwards, or its end backwards). */
  notifyBegin: (name: string, nodeId: string, weight: number) => void;
  /** A playing clip left a range notify (crossed its end forwards, or its start backwards). */
  notifyEnd: (name: string, nodeId: string, weight: number) => void;
  /**
   * A clip played by AnimGraphInstance.playSlot in slot `slot` ended: blended out at its end, or
   * `interrupted` (cut short by another playSlot or by stopSlot, blended out from where it was).
   * `nodeId` is the slot's first Slot node in the order AnimGraphInstance.nodes lists them (what
   * plays on a slot name is the instance's, shown by every Slot of the name, and its events fire
   * once), as for the montage events below.
   */
  slotEnded: (slot: string, nodeId: string, clip: string, interrupted: boolean) => void;
  /** AnimGraphInstance.playMontage started montage `montage` on the slot whose first Slot node is `nodeId`. */
  montageStarted: (montage: string, nodeId: string) => void;
  /**
   * A montage went from section `previous` to section `section`: at the end of `previous`, along
   * its link (a section linking to itself included), or by jumpToSection.
   */
  montageSectionChanged: (montage: string, nodeId: string, section: string, previous: string) => void;
  /**
   * A montage's notify was crossed (in the order the montage crosses them). A branching point fires
   * at its exact time within the frame, the montage held there while listeners run; others once
   * the frame's move has passed them.
   */
  montageNotify: (name: string, montage: string, nodeId: string, branchingPoint: boolean) => void;
  /**
   * A montage started blending out: near the end of its last section (auto blend out), or
   * `interrupted` by stopMontage, stopSlot, or another montage or clip played in its slot or group.
   */
  montageBlendingOut: (montage: string, nodeId: string, interrupted: boolean) => void;
  /** A montage ended: blended out at its end, or `interrupted` (see montageBlendingOut) once blended out or dropped. */
  montageEnded: (montage: string, nodeId: string, interrupted: boolean) => void;
  /** A StateMachine entered a state (its entry state on the first update; never a conduit). */
  stateEntered: (nodeId: string, state: string) => void;
  /** A StateMachine left its active state for another (or, re-entering, for the same one). */
  stateExited: (nodeId: string, state: string) => void;
  /** A StateMachine started a transition lasting `duration` seconds (through any conduits: `from` and `to` are states). */
  transitionStarted: (nodeId: string, from: string, to: string, duration: number) => void;
}

export class AnimGraphEventEmitter extends EventEmitter<AnimGraphEvents> {
  /**
   * Whether anyone listens to an event. Nodes check it before emitting from the frame loop, where
   * emitting allocates (its arguments; see CONTRIBUTING.md, "Numbers in the frame loop").
   */
  has(event: keyof AnimGraphEvents): boolean {
    return this.listenerCount(event) > 0;
  }
}
