/**
 * AnimGraphInstance.playSlot and stopSlot's arguments, checked and passed on to the slot players
 * that play them (SlotPlayer, listed in the instance's slot table), and their errors: shared with a
 * Crowd, which checks them on the calling thread before handing them to the character's.
 */
import { AnimGraphError } from '../core/errors.ts';
import { describeValue } from '../node/parameters.ts';
import type { PoseNode } from '../node/node.ts';
import type { MontagePlayArgs, MontagePlayOptions, SlotPlayer, SlotPlayOptions } from '../node/slot-player.ts';
import type { Montage } from '../core/montage.ts';

export type { MontagePlayArgs, MontagePlayOptions, SlotPlayArgs, SlotPlayer, SlotPlayOptions } from '../node/slot-player.ts';

/** The AnimGraphError (`unknown-name`) for a slot name the graph has none of (playSlot, an instance's and a Crowd's). */
export function unknownSlotError(graphName: string, slot: string, slotNames: readonly string[]): AnimGraphError {
  return new AnimGraphError('unknown-name', `graph '${graphName}' has no Slot node named '${slot}' (slots: ${slotNames.join(', ') || 'none'})`);
}

/** The AnimGraphError (`unknown-name`) for playSlot given a clip the graph has none of (an instance's and a Crowd's). */
export function unknownClipError(graphName: string, slot: string, clip: string): AnimGraphError {
  return new AnimGraphError('unknown-name', `playSlot('${slot}'): no clip '${clip}' in graph '${graphName}'`);
}

/**
 * Fills `into` with `options` and their defaults (blendIn and blendOut 0.2 s, playRate 1), and
 * throws playSlot's AnimGraphError: `invalid-argument` for options that are not an object, values
 * that are not numbers or keys none of playSlot's, `out-of-range` for blend times not 0 or more and
 * finite, a play rate not above 0 and finite. The numbers go through `into` rather than a return value or
 * arguments, which V8 would box (see SlotPlayArgs).
 */
export function resolveSlotPlay(slot: string, options: SlotPlayOptions | undefined, into: Required<SlotPlayOptions>): void {
  // No options reads no object: a default of `{}` would be a new one per call, and a shared one
  // would be a second shape at the reads below (V8 boxes a number it reads from objects of several shapes).
  into.blendIn = 0.2;
  into.blendOut = 0.2;
  into.playRate = 1;
  if (options !== undefined) {
    if (typeof options !== 'object' || options === null) throw new AnimGraphError('invalid-argument', `playSlot('${slot}'): options are an object ({ blendIn, blendOut, playRate }); got ${options === null ? 'null' : typeof options}`);
    // Each read once: a read V8 boxes (above) would box twice.
    const givenIn = options.blendIn, givenOut = options.blendOut, givenRate = options.playRate;
    // A string compared as a number ('0.2' >= 0) and was kept as one; null became 0.
    if ((givenIn !== undefined && typeof givenIn !== 'number') || (givenOut !== undefined && typeof givenOut !== 'number')
      || (givenRate !== undefined && typeof givenRate !== 'number')) {
      throw slotOptionTypeError(slot, [givenIn, givenOut, givenRate]);
    }
    if (givenIn !== undefined) into.blendIn = givenIn;
    if (givenOut !== undefined) into.blendOut = givenOut;
    if (givenRate !== undefined) into.playRate = givenRate;
    // Options naming none of the three (a misspelt { blendin: 0.5 }) would play with the defaults, silently.
    else if (givenIn === undefined && givenOut === undefined) unknownSlotOptions(slot, options);
  }
  const blendIn = into.blendIn, blendOut = into.blendOut, playRate = into.playRate;
  if (!(blendIn >= 0 && blendIn < Infinity) || !(blendOut >= 0 && blendOut < Infinity)) {
    throw new AnimGraphError('out-of-range', `playSlot('${slot}'): blendIn and blendOut are seconds, 0 or more (got ${blendIn}, ${blendOut})`);
  }
  if (!(playRate > 0 && playRate < Infinity)) throw new AnimGraphError('out-of-range', `playSlot('${slot}'): playRate must be above 0 and finite (got ${playRate})`);
}

/** playSlot's AnimGraphError for option values that are not numbers (a function of its own: no closure in resolveSlotPlay). */
function slotOptionTypeError(slot: string, given: readonly unknown[]): AnimGraphError {
  const shown = given.map((v) => (v === undefined ? 'undefined' : JSON.stringify(v) ?? String(v)));
  return new AnimGraphError('invalid-argument', `playSlot('${slot}'): blendIn, blendOut and playRate are numbers (got ${shown.join(', ')})`);
}

/** Throws for options with keys but none of playSlot's (called only then, so the common path enumerates nothing). */
function unknownSlotOptions(slot: string, options: object): void {
  const keys = Object.keys(options);
  if (keys.length > 0) throw new AnimGraphError('invalid-argument', `playSlot('${slot}'): unknown option${keys.length === 1 ? '' : 's'} ${keys.map((k) => `'${k}'`).join(', ')} (options: blendIn, blendOut, playRate)`);
}

/**
 * Throws stopSlot's AnimGraphError: `invalid-argument` for a blend-out time that is no number (a
 * string such as '0.5' would otherwise compare as one), `out-of-range` for one that is not 0 or more
 * and finite.
 */
export function checkSlotStop(slot: string, blendOut: number): void {
  if (typeof blendOut !== 'number') throw new AnimGraphError('invalid-argument', `stopSlot('${slot}'): blendOut is a number of seconds (got ${describeValue(blendOut)})`);
  if (!(blendOut >= 0 && blendOut < Infinity)) throw new AnimGraphError('out-of-range', `stopSlot('${slot}'): blendOut is seconds, 0 or more (got ${blendOut})`);
}

/**
 * Slot options for code that refills one object per call rather than making one: made with
 * fractions, so that V8 lays its fields out as doubles from the start and writes them in place
 * (see CONTRIBUTING.md, "Numbers in the frame loop").
 */
export function refillableSlotOptions(): Required<SlotPlayOptions> {
  return { blendIn: 0.5, blendOut: 0.5, playRate: 0.5 };
}

/** Whether `node` plays slots (nodes/Slot.ts, or a custom node of the same shape). */
export function isSlotPlayer(node: PoseNode): node is PoseNode & SlotPlayer {
  const candidate = node as Partial<SlotPlayer>;
  return typeof candidate.slotName === 'string' && typeof candidate.playClip === 'function';
}

/**
 * The instance's slot table: the slot players among `nodes` by slot name, in the nodes' order; null
 * when there are none (most graphs). Each player of a name after the first is asked to follow those
 * listed before it, in order (SlotPlayer.follow): one that follows one shows what it plays and is
 * left out of the table, so that a play goes to the name's timeline once (every Slot of a name
 * follows the first Slot); one that follows none is listed, and played on too.
 */
export function bindSlotPlayers(nodes: readonly PoseNode[]): Map<string, (PoseNode & SlotPlayer)[]> | null {
  let slots: Map<string, (PoseNode & SlotPlayer)[]> | null = null;
  for (const node of nodes) {
    if (!isSlotPlayer(node)) continue;
    slots ??= new Map();
    const list = slots.get(node.slotName);
    if (list === undefined) slots.set(node.slotName, [node]);
    else if (node.follow === undefined || !list.some((first) => node.follow!(first))) list.push(node);
  }
  return slots;
}

/** The AnimGraphError (`unknown-name`) for a montage name the graph has none of. */
export function unknownMontageError(graphName: string, call: string, montage: string, montageNames: readonly string[]): AnimGraphError {
  return new AnimGraphError('unknown-name', `${call}: graph '${graphName}' has no montage '${montage}' (montages: ${montageNames.join(', ') || 'none'})`);
}

/** The AnimGraphError (`unknown-name`) for a section a montage has none of. */
export function unknownSectionError(call: string, montage: Montage, section: string): AnimGraphError {
  return new AnimGraphError('unknown-name', `${call}: montage '${montage.name}' has no section '${section}' (sections: ${montage.sectionNames.join(', ')})`);
}

/**
 * Fills `into` with playMontage's options for `montage` (section by index, default the first; rate
 * default 1) and throws its AnimGraphError: `invalid-argument` for options that are not an object,
 * a section that is not a string, a rate that is not a number or unknown keys; `unknown-name` for a
 * section the montage has none of; `out-of-range` for a rate not above 0 and finite.
 */
export function resolveMontagePlay(montage: Montage, options: MontagePlayOptions | undefined, into: MontagePlayArgs): void {
  into.section = 0;
  into.rate = 1;
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) throw new AnimGraphError('invalid-argument', `playMontage('${montage.name}'): options are an object ({ section, rate }); got ${options === null ? 'null' : typeof options}`);
  const section = options.section, rate = options.rate;
  if (section !== undefined && typeof section !== 'string') throw new AnimGraphError('invalid-argument', `playMontage('${montage.name}'): section is a section's name (got ${describeValue(section)})`);
  if (rate !== undefined && typeof rate !== 'number') throw new AnimGraphError('invalid-argument', `playMontage('${montage.name}'): rate is a number (got ${describeValue(rate)})`);
  if (section === undefined && rate === undefined) unknownMontageOptions(`playMontage('${montage.name}')`, options);
  if (section !== undefined) {
    const index = montage.sectionIndex(section);
    if (index < 0) throw unknownSectionError(`playMontage('${montage.name}')`, montage, section);
    into.section = index;
  }
  if (rate !== undefined) {
    if (!(rate > 0 && rate < Infinity)) throw new AnimGraphError('out-of-range', `playMontage('${montage.name}'): rate must be above 0 and finite (got ${rate})`);
    into.rate = rate;
  }
}

/** Throws for options with keys but none of playMontage's. */
function unknownMontageOptions(call: string, options: object): void {
  const keys = Object.keys(options);
  if (keys.length > 0) throw new AnimGraphError('invalid-argument', `${call}: unknown option${keys.length === 1 ? '' : 's'} ${keys.map((k) => `'${k}'`).join(', ')} (options: section, rate)`);
}

/** Montage args for code that refills one object per call (fields laid out as a double and a small integer from the start). */
export function refillableMontageArgs(): MontagePlayArgs {
  return { section: 0, rate: 0.5 };
}

/** Whether any of `players` plays a clip. */
export function anyPlaying(players: readonly SlotPlayer[]): boolean {
  for (let i = 0; i < players.length; i++) if (players[i].playing) return true;
  return false;
}
