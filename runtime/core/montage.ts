/*
 * Montages (Unreal's UAnimMontage): a clip cut into named sections that play in an order their
 * links give, with notifies of their own, played in a Slot by AnimGraphInstance.playMontage. This
 * file holds the asset's form (montageSchema), its checks and the compiled, immutable Montage every
 * instance of a graph shares; the playing is runtime/jobs/montage-play.ts and nodes/Slot.ts.
 */
import * as z from 'zod';
import { blendCurveSchema, compileBlendCurve, LINEAR_BLEND, type BlendCurve } from './blend-curve.ts';
import type { Clip, ClipBinding } from './clip.ts';
import { AnimGraphError } from './errors.ts';
import { lazy } from './lazy.ts';

/** The slot group a montage belongs to when its asset names none (Unreal's). */
export const DEFAULT_SLOT_GROUP = 'DefaultGroup';
/** The section a montage has when its asset lists none: the whole clip. */
export const DEFAULT_SECTION = 'Default';
/** Blend in and out times of a montage whose asset gives none, in seconds (Unreal's). */
export const DEFAULT_MONTAGE_BLEND = 0.25;
/** The most sections and notifies one montage may have. */
export const MAX_MONTAGE_SECTIONS = 256;
export const MAX_MONTAGE_NOTIFIES = 1024;

const seconds = lazy(() => z.number().min(0).max(1e6));
const montageBlendSchema = lazy(() => z.union([
  seconds.describe('Seconds, with the linear curve.'),
  z.object({
    time: seconds.optional().describe(`Seconds (default ${DEFAULT_MONTAGE_BLEND}).`),
    curve: blendCurveSchema.optional().describe('The curve the weight follows over the time (default linear).'),
  }).strict(),
]));

/** How a graph asset writes one montage (an entry of its top-level `montages`). */
export const montageSchema = lazy(() => z.object({
  clip: z.string().min(1).describe('A clip of the asset: what the montage plays.'),
  slot: z.string().min(1).describe('The name of the Slot nodes that play it.'),
  group: z.string().min(1).optional()
    .describe(`Its slot group (default "${DEFAULT_SLOT_GROUP}"): playing a montage stops every other montage of its group, in any slot, blending them out over its blend in.`),
  sections: z.array(z.object({
    name: z.string().min(1).describe('Unique within the montage.'),
    start: seconds.describe('Clip seconds where the section starts; it ends where the next section in time starts (the last at the clip\'s end).'),
    next: z.union([z.string().min(1), z.null()]).optional()
      .describe('The section played when this one ends: a section\'s name (its own loops it), null to end the montage here. Absent: the section after it in time, and none after the last.'),
  }).strict()).min(1).max(MAX_MONTAGE_SECTIONS).optional()
    .describe(`Named sections in time order, the first at 0. Absent: one section "${DEFAULT_SECTION}" over the whole clip.`),
  notifies: z.array(z.object({
    name: z.string().min(1),
    time: seconds.describe('Clip seconds.'),
    branchingPoint: z.boolean().optional()
      .describe('Fired at its exact time within a frame, the montage stopped there while its listeners run: a jumpToSection from a listener plays the rest of the frame in the section jumped to (default false: fired once the frame\'s move has passed it).'),
  }).strict()).max(MAX_MONTAGE_NOTIFIES).optional(),
  blendIn: montageBlendSchema.optional().describe(`How the montage blends in over the slot's source: seconds, or { time, curve } (default ${DEFAULT_MONTAGE_BLEND} s, linear).`),
  blendOut: montageBlendSchema.optional().describe(`How it blends out, at its end or when stopped: seconds, or { time, curve } (default ${DEFAULT_MONTAGE_BLEND} s, linear).`),
  rate: z.number().gt(0).max(1e6).optional().describe('Clip seconds per second (default 1), times the rate playMontage gives.'),
  enableAutoBlendOut: z.boolean().optional()
    .describe('True (the default): the montage blends out over its last blendOut seconds and ends. False: it holds its last pose at full weight until stopMontage.'),
}).strict());

export type MontageJson = z.infer<typeof montageSchema>;

/** A problem with a montage, at a path inside its entry. */
export interface MontageProblem {
  readonly path: readonly (string | number)[];
  /** The loader's problem code. */
  readonly code: 'unknown-clip' | 'duplicate-key' | 'section-time' | 'unknown-section' | 'notify-time' | 'curve-keys';
  readonly message: string;
}

/**
 * What is wrong with a montage (its structure already checked by montageSchema) that the schema
 * cannot say: an unknown clip, sections not in time order or not starting at 0, a section past the
 * clip's end, repeated section names, a link to no section, a notify past the clip's end, a blend
 * curve that does not compile. `clipOf` gives a clip of the asset by name.
 */
export function montageProblems(json: MontageJson, clipOf: (name: string) => Clip | undefined): MontageProblem[] {
  const problems: MontageProblem[] = [];
  const clip = clipOf(json.clip);
  if (clip === undefined) problems.push({ path: ['clip'], code: 'unknown-clip', message: `unknown clip '${json.clip}'` });
  const duration = clip?.duration ?? Infinity;
  const sections = json.sections ?? [];
  const names = new Set<string>();
  sections.forEach((s, i) => {
    if (names.has(s.name)) problems.push({ path: ['sections', i, 'name'], code: 'duplicate-key', message: `section '${s.name}' is named twice` });
    names.add(s.name);
    if (i === 0 && s.start !== 0) problems.push({ path: ['sections', 0, 'start'], code: 'section-time', message: `the first section starts at 0 (got ${s.start})` });
    if (i > 0 && !(s.start > sections[i - 1].start)) {
      problems.push({ path: ['sections', i, 'start'], code: 'section-time', message: `sections are listed in time order, each after the one before (${s.start} is not after ${sections[i - 1].start})` });
    }
    if (i > 0 && !(s.start < duration)) {
      problems.push({ path: ['sections', i, 'start'], code: 'section-time', message: `section '${s.name}' starts at ${s.start}, not before the end of clip '${json.clip}' (${duration} s)` });
    }
  });
  sections.forEach((s, i) => {
    if (typeof s.next === 'string' && !names.has(s.next)) {
      problems.push({ path: ['sections', i, 'next'], code: 'unknown-section', message: `no section '${s.next}' in the montage (sections: ${[...names].join(', ')})` });
    }
  });
  (json.notifies ?? []).forEach((n, i) => {
    if (n.time > duration) problems.push({ path: ['notifies', i, 'time'], code: 'notify-time', message: `notify '${n.name}' at ${n.time} s is past the end of clip '${json.clip}' (${duration} s)` });
  });
  for (const key of ['blendIn', 'blendOut'] as const) {
    const blend = json[key];
    if (typeof blend !== 'object' || blend.curve === undefined) continue;
    const curve = compileBlendCurve(blend.curve, (name) => clipOf(name)?.curves);
    if (typeof curve === 'string') problems.push({ path: [key, 'curve'], code: curve.startsWith('the keys') ? 'curve-keys' : 'unknown-clip', message: curve });
  }
  return problems;
}

/**
 * A montage compiled for a graph: its clip bound to the skeleton, its sections as typed arrays (in
 * time order), its notifies sorted by time, its blends. Immutable, shared by every instance.
 */
export class Montage {
  readonly binding: ClipBinding;
  readonly slot: string;
  readonly group: string;
  readonly sectionNames: readonly string[];
  /** Each section's start and end, in clip seconds. */
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  /** Each section's next section as the asset links it, -1 for none (the montage ends there). */
  readonly next: Int32Array;
  /** Notifies sorted by time (the asset's order among equal times). */
  readonly notifyTimes: Float64Array;
  readonly notifyNames: readonly string[];
  /** 1 for a branching point. */
  readonly branchingPoints: Uint8Array;
  readonly blendInTime: number;
  readonly blendInCurve: BlendCurve;
  readonly blendOutTime: number;
  readonly blendOutCurve: BlendCurve;
  readonly rate: number;
  readonly autoBlendOut: boolean;
  private readonly sectionIndices: ReadonlyMap<string, number>;

  /** Builds `json`, which montageProblems found nothing wrong with; throws an AnimGraphError (`invalid-data`) otherwise. */
  constructor(readonly name: string, json: MontageJson, binding: ClipBinding | undefined, clipOf: (name: string) => Clip | undefined) {
    const problems = montageProblems(json, clipOf);
    if (problems.length > 0 || binding === undefined) {
      const first = problems[0];
      throw new AnimGraphError('invalid-data', `montage '${name}': ${first ? `${first.path.join('.')}: ${first.message}` : `no clip '${json.clip}'`}`);
    }
    this.binding = binding;
    this.slot = json.slot;
    this.group = json.group ?? DEFAULT_SLOT_GROUP;
    const sections = json.sections ?? [{ name: DEFAULT_SECTION, start: 0 }];
    const duration = binding.clip.duration;
    this.sectionNames = sections.map((s) => s.name);
    this.sectionIndices = new Map(this.sectionNames.map((s, i) => [s, i]));
    this.starts = Float64Array.from(sections, (s) => s.start);
    this.ends = Float64Array.from(sections, (s, i) => (i + 1 < sections.length ? sections[i + 1].start : duration));
    this.next = Int32Array.from(sections, (s, i) => {
      if (s.next === null) return -1;
      if (s.next === undefined) return i + 1 < sections.length ? i + 1 : -1;
      return this.sectionIndices.get(s.next)!;
    });
    const notifies = (json.notifies ?? []).map((n, order) => ({ ...n, order })).sort((a, b) => a.time - b.time || a.order - b.order);
    this.notifyTimes = Float64Array.from(notifies, (n) => n.time);
    this.notifyNames = notifies.map((n) => n.name);
    this.branchingPoints = Uint8Array.from(notifies, (n) => (n.branchingPoint ? 1 : 0));
    const blend = (b: MontageJson['blendIn']): [number, BlendCurve] => {
      if (b === undefined) return [DEFAULT_MONTAGE_BLEND, LINEAR_BLEND];
      if (typeof b === 'number') return [b, LINEAR_BLEND];
      return [b.time ?? DEFAULT_MONTAGE_BLEND, compileBlendCurve(b.curve, (c) => clipOf(c)?.curves) as BlendCurve];
    };
    [this.blendInTime, this.blendInCurve] = blend(json.blendIn);
    [this.blendOutTime, this.blendOutCurve] = blend(json.blendOut);
    this.rate = json.rate ?? 1;
    this.autoBlendOut = json.enableAutoBlendOut ?? true;
  }

  /** The index of section `name`, -1 for none. */
  sectionIndex(name: string): number {
    return this.sectionIndices.get(name) ?? -1;
  }
}
