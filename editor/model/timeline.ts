// A montage on a timeline: what the asset panel's strip draws, and the montage spec a drag, an add
// or a delete makes of it. Times are clip seconds; a spec is the montage's JSON as the asset holds it.
import { DEFAULT_SECTION } from '../../runtime/core/montage.ts';
import { isObject, parseJsonPath, setIn, withKeyInOrder } from './json.ts';
import type { Json, JsonObject } from './types.ts';

/** What the timeline knows of a montage's clip, from the graph the loader loaded. */
export interface ClipTiming {
  /** Seconds, as the loader measures it (a section must start before it, a notify at or before it). */
  duration: number;
  /** Frames per second: times snap to k / frameRate. */
  frameRate: number;
}

export interface TimelineSection {
  /** Its index in the spec's `sections`; 0 for the implied section of a spec without `sections`. */
  index: number;
  name: string;
  start: number;
  /** Where it ends: the next section's start, the last the clip's end (the strip's end when unknown). */
  end: number;
  /** Its `next` link as a label: '→ strike', '⟲' (itself), '■' (the montage ends there). */
  link: string;
  /** The link is the format's default (`next` absent): the section after it in time, none after the last. */
  linkImplied: boolean;
}

export interface TimelineNotify {
  /** Its index in the spec's `notifies`. */
  index: number;
  name: string;
  time: number;
  branchingPoint: boolean;
}

export interface MontageTimeline {
  /** The clip's duration; undefined when the clip is not loaded. */
  duration: number | undefined;
  frameRate: number | undefined;
  /** Seconds the strip spans: the duration, else a quarter past the last section start or notify (1 s for none). */
  span: number;
  /** The spec has no `sections`: one section `Default` over the whole clip. */
  implied: boolean;
  sections: TimelineSection[];
  notifies: TimelineNotify[];
  /** Times to label along the strip, from 0 to the span. */
  ticks: number[];
}

/** A montage spec edited, or why the edit is not made. */
export type TimelineEdit = { ok: true; spec: JsonObject } | { ok: false; reason: string };

/** The grid times snap to where the frame rate is unknown: 1 ms. */
const MS_GRID = 1000;
/** A montage spec's keys in the format's order: where a key an edit adds goes. */
const SPEC_ORDER = ['clip', 'slot', 'group', 'sections', 'notifies', 'blendIn', 'blendOut', 'rate', 'enableAutoBlendOut'];

const isTime = (v: Json | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

function sectionsOf(spec: Json | undefined): { list: Json[]; implied: boolean } {
  const s = isObject(spec) ? spec.sections : undefined;
  if (Array.isArray(s)) return { list: s, implied: false };
  return { list: [{ name: DEFAULT_SECTION, start: 0 }], implied: true };
}

function notifiesOf(spec: Json | undefined): Json[] {
  const n = isObject(spec) ? spec.notifies : undefined;
  return Array.isArray(n) ? n : [];
}

const nameOf = (entry: Json): string => (isObject(entry) && typeof entry.name === 'string' ? entry.name : '');
const startOf = (entry: Json): number | undefined => (isObject(entry) && isTime(entry.start) ? entry.start : undefined);

/** The montage as the strip draws it: its sections over the clip, its notifies, the ticks. */
export function montageTimeline(spec: Json | undefined, clip: ClipTiming | undefined): MontageTimeline {
  const { list, implied } = sectionsOf(spec);
  const notifies: TimelineNotify[] = [];
  notifiesOf(spec).forEach((n, index) => {
    if (isObject(n) && isTime(n.time)) notifies.push({ index, name: nameOf(n), time: n.time, branchingPoint: n.branchingPoint === true });
  });
  const duration = clip && isTime(clip.duration) && clip.duration >= 0 ? clip.duration : undefined;
  let span: number;
  if (duration !== undefined && duration > 0) span = duration;
  else {
    const last = Math.max(0, ...list.map((s) => startOf(s) ?? 0), ...notifies.map((n) => n.time));
    span = duration === 0 ? 1 : last > 0 ? last * 1.25 : 1;
  }
  const names = list.map(nameOf);
  const sections: TimelineSection[] = [];
  list.forEach((s, index) => {
    const start = startOf(s);
    if (start === undefined) return;
    const following = list.slice(index + 1).map(startOf).find((t) => t !== undefined);
    const next = isObject(s) ? s.next : undefined;
    let link: string;
    if (next === undefined) link = index + 1 < list.length ? `→ ${names[index + 1]}` : '■';
    else if (next === null) link = '■';
    else if (next === names[index]) link = '⟲';
    else link = `→ ${String(next)}`;
    sections.push({ index, name: names[index], start, end: following ?? duration ?? span, link, linkImplied: next === undefined });
  });
  return { duration, frameRate: clip && clip.frameRate > 0 ? clip.frameRate : undefined, span, implied, sections, notifies, ticks: timelineTicks(span) };
}

/** Tick times for a strip of `span` seconds: multiples of a round step (0.05, 0.1, 0.25, 0.5, 1, 2, 5 s, ...), at most about 8. */
export function timelineTicks(span: number): number[] {
  if (!(span > 0) || !Number.isFinite(span)) return [0];
  const steps = [1, 2, 2.5, 5];
  let step = 0;
  for (let decade = 1e-3; step === 0; decade *= 10) for (const s of steps) if (step === 0 && span / (s * decade) <= 8) step = s * decade;
  const ticks: number[] = [];
  for (let k = 0; k * step <= span * (1 + 1e-9); k++) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

/** The x of `time` on a strip `width` wide spanning `span` seconds from x = 0. */
export function timeToX(time: number, span: number, width: number): number {
  return span > 0 ? (time / span) * width : 0;
}

/** The time at `x` on a strip `width` wide spanning `span` seconds, within [0, span]. */
export function xToTime(x: number, span: number, width: number): number {
  if (!(width > 0)) return 0;
  return Math.min(1, Math.max(0, x / width)) * span;
}

const gridOf = (frameRate: number | undefined): number => (frameRate !== undefined && frameRate > 0 ? frameRate : MS_GRID);
// The grid tests allow 1e-9 of a step, so that k / rate (which times rate may not give back k exactly) counts as on it.
/** The first grid time strictly after t. */
const gridAbove = (t: number, rate: number): number => (Math.floor(t * rate + 1e-9) + 1) / rate;
/** The last grid time strictly before t. */
const gridBelow = (t: number, rate: number): number => (Math.ceil(t * rate - 1e-9) - 1) / rate;
/** The last grid time at or before t. */
const gridAtOrBelow = (t: number, rate: number): number => Math.floor(t * rate + 1e-9) / rate;

/** `time` on the clip's frames (k / frameRate), or on whole milliseconds where the frame rate is unknown. */
export function snapTime(time: number, frameRate: number | undefined): number {
  const rate = gridOf(frameRate);
  return Math.round(time * rate) / rate;
}

const done = (spec: JsonObject): TimelineEdit => ({ ok: true, spec });
const refuse = (reason: string): TimelineEdit => ({ ok: false, reason });
const seconds = (t: number): string => `${Number(t.toFixed(4))} s`;

function asSpec(spec: Json | undefined): JsonObject | undefined {
  return isObject(spec) ? spec : undefined;
}

/** An edit's spec and its sections, section `index` among them; or the edit refused. */
function sectionEdit(spec: Json | undefined, index: number): { s: JsonObject; list: Json[]; implied: boolean } | TimelineEdit {
  const s = asSpec(spec);
  if (!s) return refuse('the montage is not an object');
  const { list, implied } = sectionsOf(s);
  if (!Number.isInteger(index) || index < 0 || index >= list.length) return refuse(`no section ${index}`);
  return { s, list, implied };
}

/** An edit's spec and its notifies, notify `index` among them (`object`: and an object); or the edit refused. */
function notifyEdit(spec: Json | undefined, index: number, object: boolean): { s: JsonObject; list: Json[] } | TimelineEdit {
  const s = asSpec(spec);
  if (!s) return refuse('the montage is not an object');
  const list = notifiesOf(s);
  if (!Number.isInteger(index) || index < 0 || index >= list.length || (object && !isObject(list[index]))) return refuse(`no notify ${index}`);
  return { s, list };
}

/**
 * Section `index` (not the first, which stays at 0) moved to `time`: snapped to the clip's frames
 * (whole milliseconds where the frame rate is unknown) and clamped so that it stays strictly after
 * the section before it and before the one after it and the clip's end, each by at least one step
 * of the grid. The spec itself when the start does not change.
 */
export function moveSectionStart(spec: Json | undefined, index: number, time: number, clip: ClipTiming | undefined): TimelineEdit {
  const at = sectionEdit(spec, index);
  if ('ok' in at) return at;
  const { s, list } = at;
  if (at.implied) return refuse(`no section ${index}`);
  if (index === 0) return refuse('the first section starts at 0');
  const rate = gridOf(clip?.frameRate);
  const low = gridAbove(startOf(list[index - 1]) ?? 0, rate);
  const limit = Math.min(startOf(list[index + 1]) ?? Infinity, clip ? clip.duration : Infinity);
  const high = Number.isFinite(limit) ? gridBelow(limit, rate) : Infinity;
  if (low > high) return refuse(`no ${clip?.frameRate ? 'frame' : 'millisecond'} between the sections around '${nameOf(list[index])}' for it to start at`);
  const t = Math.min(high, Math.max(low, snapTime(time, clip?.frameRate)));
  if (startOf(list[index]) === t) return done(s);
  return done(setIn(s, ['sections', index, 'start'], t) as JsonObject);
}

/**
 * Notify `index` moved to `time`: snapped as sections are, and clamped within the clip, [0, its
 * duration] (at or after 0 where the duration is unknown). The spec itself when the time does not change.
 */
export function moveNotifyTime(spec: Json | undefined, index: number, time: number, clip: ClipTiming | undefined): TimelineEdit {
  const at = notifyEdit(spec, index, true);
  if ('ok' in at) return at;
  const { s, list } = at;
  const rate = gridOf(clip?.frameRate);
  const high = clip ? gridAtOrBelow(clip.duration, rate) : Infinity;
  const t = Math.min(high, Math.max(0, snapTime(time, clip?.frameRate)));
  if ((list[index] as JsonObject).time === t) return done(s);
  return done(setIn(s, ['notifies', index, 'time'], t) as JsonObject);
}

/** A fresh name from `base`: base, base2, base3, ... not in `taken`. */
function freshName(base: string, taken: readonly string[]): string {
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) if (!taken.includes(`${base}${i}`)) return `${base}${i}`;
}

/**
 * A section added at `time` (snapped), named `name` (default: section, section2, ...), in time
 * order among the others, with no `next`: the section before it, if it has no `next` either, now
 * runs into it, and it into the one after it, as the format links sections without `next` (so a
 * montage without links still plays through as its clip). A spec without `sections` (one section
 * `Default` over the clip) gets `Default` at 0 and the new one. Refused at a time where a section
 * starts already, or at or past the clip's end.
 */
export function addMontageSection(spec: Json | undefined, time: number, clip: ClipTiming | undefined, name?: string): TimelineEdit {
  const s = asSpec(spec);
  if (!s) return refuse('the montage is not an object');
  const { list } = sectionsOf(s);
  const names = list.map(nameOf);
  const as = name ?? freshName('section', names);
  if (as === '') return refuse('a section needs a name');
  if (names.includes(as)) return refuse(`the montage has a section '${as}' already`);
  const t = Math.max(0, snapTime(time, clip?.frameRate));
  if (clip && !(t < clip.duration)) return refuse(`a section starts before the end of the clip (${seconds(clip.duration)})`);
  const same = list.findIndex((e) => startOf(e) === t);
  if (same >= 0) return refuse(`section '${names[same]}' starts at ${seconds(t)} already`);
  let at = list.length;
  while (at > 0 && !((startOf(list[at - 1]) ?? 0) < t)) at--;
  if (at === 0) return refuse('the first section starts at 0');
  const next = [...list.slice(0, at), { name: as, start: t }, ...list.slice(at)];
  return done(withKeyInOrder(s, 'sections', next, SPEC_ORDER));
}

/**
 * A notify added at `time` (snapped, within the clip), named `name` (default: notify, notify2,
 * ...), after the notifies at or before that time.
 */
export function addMontageNotify(spec: Json | undefined, time: number, clip: ClipTiming | undefined, name?: string): TimelineEdit {
  const s = asSpec(spec);
  if (!s) return refuse('the montage is not an object');
  const list = notifiesOf(s);
  const as = name ?? freshName('notify', list.map(nameOf));
  if (as === '') return refuse('a notify needs a name');
  const rate = gridOf(clip?.frameRate);
  const t = Math.min(clip ? gridAtOrBelow(clip.duration, rate) : Infinity, Math.max(0, snapTime(time, clip?.frameRate)));
  let at = list.length;
  while (at > 0 && !(isObject(list[at - 1]) && isTime((list[at - 1] as JsonObject).time) && ((list[at - 1] as JsonObject).time as number) <= t)) at--;
  return done(withKeyInOrder(s, 'notifies', [...list.slice(0, at), { name: as, time: t }, ...list.slice(at)], SPEC_ORDER));
}

/**
 * Section `index` removed; its time goes to the section before it (the first's to the one after
 * it, which then starts at 0). A `next` that named it names where it led instead: its own `next`,
 * the section after it in time where it had none, null (the end) where it looped or ended. The
 * last section removed leaves the spec without `sections` (one section over the clip).
 */
export function removeMontageSection(spec: Json | undefined, index: number): TimelineEdit {
  const at = sectionEdit(spec, index);
  if ('ok' in at) return at;
  const { s, list } = at;
  if (at.implied) return refuse(`the montage has only its implied section '${DEFAULT_SECTION}'`);
  if (list.length === 1) return done(withKeyInOrder(s, 'sections', undefined, SPEC_ORDER));
  const gone = nameOf(list[index]);
  const link = isObject(list[index]) ? list[index].next : undefined;
  let to: Json;
  if (link === undefined) to = index + 1 < list.length ? nameOf(list[index + 1]) : null;
  else to = link === gone ? null : link;
  let next: Json[] = list.filter((_, i) => i !== index);
  next = next.map((e) => (isObject(e) && e.next === gone && gone !== '' ? setIn(e, ['next'], to) : e));
  if (index === 0 && isObject(next[0])) next[0] = setIn(next[0], ['start'], 0);
  return done(setIn(s, ['sections'], next) as JsonObject);
}

/** Notify `index` removed (the last leaves the spec without `notifies`). */
export function removeMontageNotify(spec: Json | undefined, index: number): TimelineEdit {
  const at = notifyEdit(spec, index, false);
  if ('ok' in at) return at;
  const { s, list } = at;
  return done(withKeyInOrder(s, 'notifies', list.length === 1 ? undefined : list.filter((_, i) => i !== index), SPEC_ORDER));
}

/** The spec with its sections listed (the implied `Default` written out), for an edit of one. */
function explicitSections(s: JsonObject): JsonObject {
  return Array.isArray(s.sections) ? s : withKeyInOrder(s, 'sections', sectionsOf(s).list, SPEC_ORDER);
}

/** Section `index` renamed `to`, and every `next` that named it. Refused for an empty name or one another section has. */
export function renameMontageSection(spec: Json | undefined, index: number, to: string): TimelineEdit {
  const at = sectionEdit(spec, index);
  if ('ok' in at) return at;
  const { s, list } = at;
  if (to === '') return refuse('a section needs a name');
  const from = nameOf(list[index]);
  if (to === from) return done(s);
  if (list.some((e, i) => i !== index && nameOf(e) === to)) return refuse(`the montage has a section '${to}' already`);
  const next = list.map((e, i) => {
    let out = i === index ? setIn(e, ['name'], to) : e;
    if (isObject(out) && out.next === from && from !== '') out = setIn(out, ['next'], to);
    return out;
  });
  return done(setIn(explicitSections(s), ['sections'], next) as JsonObject);
}

/**
 * Section `index`'s `next`: a section's name (its own loops it), null (the montage ends there), or
 * undefined (the key removed: the section after it in time). Refused for a name no section has.
 */
export function setMontageSectionNext(spec: Json | undefined, index: number, next: string | null | undefined): TimelineEdit {
  const at = sectionEdit(spec, index);
  if ('ok' in at) return at;
  const { s, list } = at;
  if (typeof next === 'string' && !list.some((e) => nameOf(e) === next)) return refuse(`no section '${next}' in the montage`);
  const entry = list[index];
  if (isObject(entry) && (next === undefined ? !Object.hasOwn(entry, 'next') : entry.next === next)) return done(s);
  return done(setIn(explicitSections(s), ['sections', index, 'next'], next) as JsonObject);
}

/** Notify `index` renamed `to` (names of notifies need not be unique: several may fire one event). */
export function renameMontageNotify(spec: Json | undefined, index: number, to: string): TimelineEdit {
  const at = notifyEdit(spec, index, false);
  if ('ok' in at) return at;
  const { s, list } = at;
  if (to === '') return refuse('a notify needs a name');
  if (nameOf(list[index]) === to) return done(s);
  return done(setIn(s, ['notifies', index, 'name'], to) as JsonObject);
}

/** Notify `index` made a branching point (true) or an ordinary notify (false: the key removed, its default). */
export function setMontageNotifyBranching(spec: Json | undefined, index: number, branchingPoint: boolean): TimelineEdit {
  const at = notifyEdit(spec, index, true);
  if ('ok' in at) return at;
  const { s, list } = at;
  if (((list[index] as JsonObject).branchingPoint === true) === branchingPoint) return done(s);
  return done(setIn(s, ['notifies', index, 'branchingPoint'], branchingPoint ? true : undefined) as JsonObject);
}

/**
 * The section or notify of a montage a problem's JSON path is about
 * ('$.montages.combo.sections[1].start' is section 1 of combo); undefined for any other path.
 */
export function timelineMarkOf(jsonPath: string): { montage: string; kind: 'section' | 'notify'; index: number } | undefined {
  const keys = parseJsonPath(jsonPath) ?? [];
  const [top, montage, list, index] = keys;
  if (top !== 'montages' || typeof montage !== 'string' || typeof index !== 'number') return undefined;
  if (list === 'sections') return { montage, kind: 'section', index };
  if (list === 'notifies') return { montage, kind: 'notify', index };
  return undefined;
}

