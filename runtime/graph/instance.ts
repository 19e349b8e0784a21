/**
 * A character as code drives it between frames: its parameters and slots, its update rate, its
 * curves, nodes and debug tree, over its frame (InstanceFrame, instance-frame.ts).
 */
import { AnimGraphError } from '../core/errors.ts';
import type { DebugNode, PoseNode } from '../node/node.ts';
import type { ParameterValue } from '../node/parameters.ts';
import type { CompiledGraph } from './compiled-graph.ts';
import type { InstanceOutput } from './instance-build.ts';
import { InstanceFrame } from './instance-frame.ts';
import { Interpolation } from './interpolation.ts';
import { bindPoseSnapshots, savePoseSnapshot, type PoseSnapshots } from './pose-snapshots.ts';
import {
  anyPlaying, checkSlotStop, refillableMontageArgs, refillableSlotOptions, resolveMontagePlay, resolveSlotPlay, unknownClipError, unknownMontageError,
  unknownSectionError, unknownSlotError, type MontagePlayOptions, type SlotPlayer, type SlotPlayOptions,
} from './slot-play.ts';
import type { Montage } from '../core/montage.ts';
import { describeValue } from '../node/parameters.ts';
import { checkUpdateRate, DEFAULT_UPDATE_RATE_OPTIONS, interpolatesSkipped, normalizePhase, type UpdateRateOptions } from './update-rate.ts';

/** The one SlotPlayArgs playSlot fills: every instance on the thread shares it (see SlotPlayer.playClip). */
const slotPlayArgs = refillableSlotOptions();
/** The one MontagePlayArgs playMontage fills, likewise. */
const montagePlayArgs = refillableMontageArgs();

/**
 * Per-character state: node instances, parameters, pose buffers and events. User code sets
 * parameters between frames, then calls update(dt) and evaluate().
 */
export class AnimGraphInstance extends InstanceFrame {
  private nodeMap: ReadonlyMap<string, PoseNode> | null = null;
  /** The pose snapshots by name (savePoseSnapshot); null until a graph without PoseSnapshot nodes saves one. */
  private snapshots: PoseSnapshots | null;

  constructor(graph: CompiledGraph, output: InstanceOutput = {}) {
    super(graph, output);
    this.snapshots = bindPoseSnapshots(this.builtNodes, this.skeleton);
  }

  /**
   * Saves the pose last shown (what the last evaluate returned; the reference pose before the
   * first update) under `name`, for the graph's PoseSnapshot nodes of that name to output from
   * their next evaluation on (Unreal's SavePoseSnapshot: snapshot a ragdoll's pose, then blend
   * from it to a getup clip). A name saved again is overwritten; snapshots outlast reset(). The
   * storage for the names the graph's PoseSnapshot nodes read is made with the instance, so saving
   * them allocates nothing; any other name is stored too (its pose made at its first save). Throws
   * an AnimGraphError (`invalid-argument`) for a name that is not a non-empty string.
   */
  savePoseSnapshot(name: string): void {
    this.snapshots = savePoseSnapshot(this.snapshots, name, this.output);
  }

  /** The instance's nodes by id (the graph's node ids, state machines' states' nodes included). */
  get nodes(): ReadonlyMap<string, PoseNode> {
    return this.nodeMap ??= new Map(this.builtNodes.map((node) => [node.id, node]));
  }

  /**
   * The value of curve `name` this frame: the curves of the clips that played in the last update
   * (sampled at their play times), blended by their players' absolute weights; a clip without the
   * curve counts as 0. Throws an AnimGraphError (`unknown-name`) for a name no clip of the graph
   * carries (see AnimGraph.curveNames), as a misspelt name is a bug to hear of at once, not a 0 to
   * miss.
   */
  curve(name: string): number {
    const slot = this.graph.curveSlots.get(name);
    if (slot === undefined) {
      const known = this.graph.curveNames;
      throw new AnimGraphError('unknown-name', `no clip of graph '${this.graph.name}' has a curve '${name}' (curves: ${known.length > 0 ? known.join(', ') : 'none'})`);
    }
    return this.curveValues[slot];
  }

  /**
   * Plays clip `clipName` (a clip of the graph asset) in slot `slot`, over the pose of every Slot
   * node of that name (one play, which they all show), blending in over blendIn seconds and out over the last blendOut seconds of the clip; it ends
   * by itself (event `slotEnded`). A clip already playing there blends out over the new blendIn
   * (it ends as `interrupted`). Throws an AnimGraphError for an unknown slot or clip
   * (`unknown-name`), options out of range (`out-of-range`: negative or non-finite blend times, a
   * play rate not above 0) or of the wrong type (`invalid-argument`). Allocates nothing, given
   * options of one shape (the same fields given) or none: V8 boxes a number it reads from objects
   * of several shapes at one place, here 16 bytes for each number given.
   */
  playSlot(slot: string, clipName: string, options?: SlotPlayOptions): void {
    const players = this.slotPlayers(slot);
    const clip = this.graph.clipBindings.get(clipName);
    if (clip === undefined) throw unknownClipError(this.graph.name, slot, clipName);
    const args = slotPlayArgs;
    resolveSlotPlay(slot, options, args);
    const blendIn = args.blendIn, blendOut = args.blendOut, playRate = args.playRate;
    // Written again before each player: a slotEnded listener of the one before may have played another clip.
    // Indexed loops here: a for-of allocates an iterator while V8 has not optimised the code, which
    // for a character playing a clip now and then is always.
    for (let i = 0; i < players.length; i++) {
      args.blendIn = blendIn;
      args.blendOut = blendOut;
      args.playRate = playRate;
      players[i].playClip(clip, args);
    }
  }

  /** Blends out whatever plays in slot `slot` over `blendOut` seconds (default 0.2). Throws for an unknown slot. */
  stopSlot(slot: string, blendOut = 0.2): void {
    const players = this.slotPlayers(slot);
    checkSlotStop(slot, blendOut);
    for (let i = 0; i < players.length; i++) players[i].stopClips(blendOut);
  }

  /** The names playSlot takes: the graph's Slot nodes' (each once, in the graph's order). */
  get slotNames(): string[] {
    return [...(this.slots?.keys() ?? [])];
  }

  /** Whether a clip plays in slot `slot` (blending in, playing or blending out). Throws for an unknown slot. */
  isSlotPlaying(slot: string): boolean {
    return anyPlaying(this.slotPlayers(slot));
  }

  /**
   * isSlotPlaying for the slot at `index` in slotNames, false for an index out of range: for
   * loops over every character's slots, which look up no name.
   */
  isSlotPlayingAt(index: number): boolean {
    return index >= 0 && index < this.slotLists.length && anyPlaying(this.slotLists[index]);
  }

  /**
   * Plays montage `name` (an entry of the graph asset's `montages`) on its slot (every Slot node of
   * that name shows it), from the start of section `options.section` (default its first) at `options.rate` times its
   * own rate (default 1), blending in over its blendIn by its curve. What plays in the slot blends
   * out over that time (a montage as interrupted), as does every montage of its slot group playing
   * in another slot. Sections play on along their links (see docs/asset-format.md, "Montages");
   * events montageStarted, montageSectionChanged, montageNotify, montageBlendingOut, montageEnded
   * follow it. Throws an AnimGraphError before anything changes: `unknown-name` for an unknown
   * montage, section or slot, `invalid-argument` for options of the wrong type or unknown keys,
   * `out-of-range` for a rate not above 0 and finite. Allocates nothing once the slot has played a
   * montage in each of its two voices.
   */
  playMontage(name: string, options?: MontagePlayOptions): void {
    const montage = this.montageNamed('playMontage', name);
    const players = this.slotPlayers(montage.slot);
    const args = montagePlayArgs;
    resolveMontagePlay(montage, options, args);
    for (let i = 0; i < players.length; i++) {
      if (players[i].playMontage === undefined) throw new AnimGraphError('invalid-argument', `playMontage('${name}'): the slot player '${players[i].id}' of slot '${montage.slot}' plays no montages`);
    }
    const section = args.section, rate = args.rate;
    // The montages of its group in other slots blend out over its blend in.
    const lists = this.slotLists;
    for (let l = 0; l < lists.length; l++) {
      const list = lists[l];
      if (list === players) continue;
      for (let i = 0; i < list.length; i++) {
        const active = list[i].activeMontage;
        if (active !== undefined && active !== null && active.group === montage.group) list[i].stopMontage!(active, montage.blendInTime);
      }
    }
    for (let i = 0; i < players.length; i++) {
      args.section = section;
      args.rate = rate;
      players[i].playMontage!(montage, args);
    }
  }

  /**
   * Jumps montage `montage` (default: every montage playing) to the start of section `section`
   * (Unreal's Montage_JumpToSection); the next update plays from there, and a call from a
   * branching point's listener plays the rest of that frame from there. Root motion counts no
   * motion for the jump. Acts on montages playing and not blending out; returns whether one
   * jumped. Throws an AnimGraphError (`unknown-name`) for an unknown montage, or a section the
   * montage (without one named, every montage playing) has none of. Allocates nothing.
   */
  jumpToSection(section: string, montage?: string): boolean {
    return this.sectionCall(0, section, null, montage);
  }

  /**
   * Links section `from` of montage `montage` (default: every montage playing) to `to` for the
   * rest of this play (Unreal's Montage_SetNextSection): `from` then goes on to `to` when it ends;
   * null ends the montage after it. Returns whether a montage playing took the link. Throws as
   * jumpToSection does, for either section.
   */
  setNextSection(from: string, to: string | null, montage?: string): boolean {
    return this.sectionCall(1, from, to, montage);
  }

  /**
   * Blends out montage `montage` (default: every montage playing) over `blendOut` seconds (default
   * each montage's own blend out) by its blend-out curve: montageBlendingOut and, once blended
   * out, montageEnded, both `interrupted`. Throws an AnimGraphError for an unknown montage
   * (`unknown-name`) or a blend-out time that is no number (`invalid-argument`) or not 0 or more and
   * finite (`out-of-range`).
   */
  stopMontage(blendOut?: number, montage?: string): void {
    const only = montage === undefined ? null : this.montageNamed('stopMontage', montage);
    if (blendOut !== undefined) {
      if (typeof blendOut !== 'number') throw new AnimGraphError('invalid-argument', `stopMontage: blendOut is a number of seconds (got ${describeValue(blendOut)})`);
      if (!(blendOut >= 0 && blendOut < Infinity)) throw new AnimGraphError('out-of-range', `stopMontage: blendOut is seconds, 0 or more (got ${blendOut})`);
    }
    const lists = this.slotLists;
    for (let l = 0; l < lists.length; l++) {
      for (let i = 0; i < lists[l].length; i++) lists[l][i].stopMontage?.(only, blendOut === undefined ? -1 : blendOut);
    }
  }

  /** Whether montage `montage` (default: any) plays and is not blending out. Throws for an unknown montage. */
  isMontagePlaying(montage?: string): boolean {
    return this.activePlayer(montage) !== null;
  }

  /** The clip time of montage `montage` (default: the first playing), -1 when it does not play (or blends out). */
  montagePosition(montage?: string): number {
    const player = this.activePlayer(montage);
    return player === null ? -1 : player.montagePosition!;
  }

  /** The section montage `montage` (default: the first playing) plays, null when it does not play (or blends out). */
  currentMontageSection(montage?: string): string | null {
    const player = this.activePlayer(montage);
    return player === null ? null : player.activeMontage!.sectionNames[player.montageSection!];
  }

  /** The names playMontage takes: the graph asset's montages. */
  get montageNames(): string[] {
    return [...this.graph.montages.keys()];
  }

  private montageNamed(call: string, name: string): Montage {
    const montage = this.graph.montages.get(name);
    if (montage === undefined) throw unknownMontageError(this.graph.name, call, name, this.montageNames);
    return montage;
  }

  /** The first slot player whose active montage is `montage` (any, when undefined), null for none. */
  private activePlayer(montage: string | undefined): SlotPlayer | null {
    const only = montage === undefined ? null : this.montageNamed('montage query', montage);
    const lists = this.slotLists;
    for (let l = 0; l < lists.length; l++) {
      for (let i = 0; i < lists[l].length; i++) {
        const active = lists[l][i].activeMontage;
        if (active !== undefined && active !== null && (only === null || active === only)) return lists[l][i];
      }
    }
    return null;
  }

  /** jumpToSection (kind 0) and setNextSection (kind 1): every name checked before any montage changes. */
  private sectionCall(kind: number, section: string, to: string | null, montage: string | undefined): boolean {
    const call = kind === 0 ? 'jumpToSection' : 'setNextSection';
    const only = montage === undefined ? null : this.montageNamed(call, montage);
    if (typeof section !== 'string') throw new AnimGraphError('invalid-argument', `${call}: a section is named by a string (got ${describeValue(section)})`);
    if (kind === 1 && to !== null && typeof to !== 'string') throw new AnimGraphError('invalid-argument', `${call}: the next section is a name or null (got ${describeValue(to)})`);
    const lists = this.slotLists;
    // Checked first: the named montage, or every montage playing, has the sections.
    if (only !== null) {
      if (only.sectionIndex(section) < 0) throw unknownSectionError(call, only, section);
      if (to !== null && only.sectionIndex(to) < 0) throw unknownSectionError(call, only, to);
    } else {
      for (let l = 0; l < lists.length; l++) {
        for (let i = 0; i < lists[l].length; i++) {
          const active = lists[l][i].activeMontage;
          if (active === undefined || active === null) continue;
          if (active.sectionIndex(section) < 0) throw unknownSectionError(call, active, section);
          if (to !== null && active.sectionIndex(to) < 0) throw unknownSectionError(call, active, to);
        }
      }
    }
    let done = false;
    for (let l = 0; l < lists.length; l++) {
      for (let i = 0; i < lists[l].length; i++) {
        const player = lists[l][i], active = player.activeMontage;
        if (active === undefined || active === null || (only !== null && active !== only)) continue;
        const index = active.sectionIndex(section);
        if (kind === 0) done = player.jumpToSection!(active, index) || done;
        else done = player.setNextSection!(active, index, to === null ? -1 : active.sectionIndex(to)) || done;
      }
    }
    return done;
  }

  private slotPlayers(slot: string): readonly SlotPlayer[] {
    const players = this.slots?.get(slot);
    if (players === undefined) {
      throw unknownSlotError(this.graph.name, slot, this.slotNames);
    }
    return players;
  }

  /**
   * Sets a parameter between frames. Throws an AnimGraphError for an unknown name (`unknown-name`),
   * a value of the wrong type (`invalid-argument`), or a parameter that follows a curve
   * (`invalid-state`: each update sets it).
   */
  setParameter(name: string, value: ParameterValue): void {
    this.parameters.set(name, value);
  }

  getParameter(name: string): ParameterValue {
    return this.parameters.get(name);
  }

  /**
   * Updates and evaluates the graph on one frame in `rate` only (Unreal's update-rate
   * optimisation, for a level of detail chosen in code, by distance for instance), and shows on
   * every frame a pose interpolated between its last two evaluations: translations and scales
   * lerped, rotations nlerped in one hemisphere; curves lerped likewise. 1 (the default) updates
   * every frame. The graph runs ahead of the displayed time by up to rate - 1 frames, so that the
   * interval the display crosses is already evaluated: its events fire when the graph crosses
   * them (in order, once per crossing, none lost), up to rate - 1 frames before the pose shows
   * them; `rootMotion` reports, each frame, its share (by time) of what the graph's updates
   * reported, which adds up to the same total. Evaluation frames are those where
   * (frame + phase) % rate is 0, frame counting updates: give a crowd's characters different
   * phases to spread their evaluations over the frames.
   *
   * A change takes effect at the next update without a jump: going to a lower rate interpolates
   * from the pose shown; going back to 1 interpolates until the display reaches the graph's time.
   * Throws an AnimGraphError for a rate that is not a whole number from 1 to MAX_UPDATE_RATE (255)
   * or a phase that is not a whole number (`out-of-range`, or `invalid-argument` for one that is no
   * number), or options that are not `{ interpolate }` with a boolean (`invalid-argument`). The
   * first rate above 1 allocates the instance's two interpolation poses; afterwards nothing is
   * allocated.
   *
   * `{ interpolate: false }` (Unreal's bInterpolateSkippedFrames off, for the farthest
   * characters): the graph is updated on the scheduled frames only, by all the time since its last
   * update, so it evaluates at the displayed time, and skipped frames hold its pose and cost
   * nothing (not even a copy, nor the component pose again). Events then fire on the update that
   * crosses them, up to rate - 1 frames late, and root motion is reported whole on that frame.
   */
  setUpdateRate(rate: number, phase = 0, options: UpdateRateOptions = DEFAULT_UPDATE_RATE_OPTIONS): void {
    checkUpdateRate(rate, phase);
    const interpolate = interpolatesSkipped(options);
    const clock = this.clock;
    clock.rate = rate;
    clock.phase = normalizePhase(phase, rate);
    clock.interpolate = interpolate;
    if (rate === 1 || this.interpolating) return;
    this.interpolation ??= new Interpolation(this.output, this.curveValues.length, this.clock, this.interpolationStorage?.());
    this.startInterpolating();
  }

  /** The update rate: the graph is updated and evaluated on one frame in this many. */
  get updateRate(): number {
    return this.clock.rate;
  }

  /** The phase of the evaluation frames, in [0, updateRate). */
  get updatePhase(): number {
    return this.clock.phase;
  }

  /** Whether skipped frames interpolate (true, the default) or hold the last pose (see setUpdateRate). */
  get interpolatesSkippedFrames(): boolean {
    return this.clock.interpolate;
  }

  /** Seconds the graph runs ahead of the displayed time (see setUpdateRate): 0 at full rate. */
  get lookAhead(): number {
    return this.interpolating ? Math.max(0, this.clock.ahead) : 0;
  }

  gatherDebug(): DebugNode {
    return this.root.gatherDebug();
  }
}
