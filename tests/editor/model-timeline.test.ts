/**
 * The montage timeline's arithmetic (editor/model/timeline.ts): time and x, snapping to frames,
 * clamping a drag, and the spec an add, a delete, a rename makes, on the sample montage (its clip
 * as the loader loads it) and on small cases with known answers.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset } from '../../graphs/loader.ts';
import {
  addMontageNotify, addMontageSection, montageTimeline, moveNotifyTime, moveSectionStart, removeMontageNotify, removeMontageSection, renameMontageNotify,
  renameMontageSection, setAssetEntry, setMontageNotifyBranching, setMontageSectionNext, snapTime, timelineMarkOf, timelineTicks, timeToX, xToTime,
  type ClipTiming, type JsonObject, type TimelineEdit,
} from '../../editor/model/index.ts';

const examplesDir = new URL('../../graphs/examples/', import.meta.url).pathname;
const asset = (): any => JSON.parse(readFileSync(`${examplesDir}sample-montage.json`, 'utf8'));

/** The clip of the sample's montage as the loader loads it: builtin:run. */
function runClip(): ClipTiming {
  const loaded = checkGraphAsset(asset());
  if (!loaded.ok) throw new Error('the sample does not load');
  const clip = loaded.graph.clipBindings.get('run')!.clip;
  return { duration: clip.duration, frameRate: clip.frameRate };
}

function spec(edit: TimelineEdit): any {
  if (!edit.ok) throw new Error(`refused: ${edit.reason}`);
  return edit.spec;
}

/** The loader's problems with the sample whose montage combo is `montage`. */
function problemsWith(montage: JsonObject): string[] {
  const edited = setAssetEntry(asset(), 'montages', 'combo', montage);
  if (!edited.ok) throw new Error(edited.reason);
  const result = checkGraphAsset(edited.asset);
  return result.ok ? [] : result.problems.map((p) => `${p.path} ${p.code}`);
}

describe('the sample montage on the strip', () => {
  const clip = runClip();

  it('is the run clip: 0.7 s at 30 fps, as the loader measures it', () => {
    expect(clip).toEqual({ duration: 0.7, frameRate: 30 });
  });

  it('draws its sections from start to the next start (the last to the clip\'s end), each with its link, and its notifies', () => {
    const t = montageTimeline(asset().montages.combo, clip);
    expect(t.duration).toBe(0.7);
    expect(t.span).toBe(0.7);
    expect(t.implied).toBe(false);
    expect(t.sections.map((s) => [s.name, s.start, s.end, s.link, s.linkImplied])).toEqual([
      ['windup', 0, 0.25, '→ strike', true],
      ['strike', 0.25, 0.5, '⟲', false],
      ['recover', 0.5, 0.7, '■', true],
    ]);
    expect(t.notifies).toEqual([
      { index: 0, name: 'hit', time: 0.3, branchingPoint: false },
      { index: 1, name: 'comboWindow', time: 0.45, branchingPoint: true },
    ]);
    expect(t.ticks).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
  });

  it('without the clip\'s duration spans a quarter past the last time, and says the duration is unknown', () => {
    const t = montageTimeline(asset().montages.combo, undefined);
    expect(t.duration).toBeUndefined();
    expect(t.frameRate).toBeUndefined();
    expect(t.span).toBeCloseTo(0.5 * 1.25, 12);
    expect(t.sections[2].end).toBe(t.span);
  });

  it('a drag of strike past recover clamps to one frame before it: 14/30 s; before windup\'s start, to one frame after it', () => {
    const m = asset().montages.combo;
    expect(spec(moveSectionStart(m, 1, 0.9, clip)).sections[1].start).toBe(14 / 30);
    expect(spec(moveSectionStart(m, 1, -3, clip)).sections[1].start).toBe(1 / 30);
    // The last section stays before the clip's end: 20/30 s, the last frame but one.
    expect(spec(moveSectionStart(m, 2, 5, clip)).sections[2].start).toBe(20 / 30);
    // Each clamped spec loads; one frame further does not.
    for (const [i, t] of [[1, 14 / 30], [1, 1 / 30], [2, 20 / 30]]) {
      expect(problemsWith(spec(moveSectionStart(m, i, t, clip)))).toEqual([]);
    }
    const past = structuredClone(m);
    past.sections[2].start = 21 / 30;
    expect(problemsWith(past)).toEqual(['$.montages.combo.sections[2].start section-time']);
  });

  it('snaps a drag to the clip\'s frames, k/30 s, and keeps the rest of the spec as it was', () => {
    const m = asset().montages.combo;
    const moved = spec(moveSectionStart(m, 1, 0.3449, clip));
    expect(moved.sections[1].start).toBe(10 / 30);
    expect(moved.sections[1]).toEqual({ name: 'strike', start: 10 / 30, next: 'strike' });
    expect(moved.sections[0]).toBe(m.sections[0]);
    expect(moved.notifies).toBe(m.notifies);
    expect(Object.keys(moved)).toEqual(Object.keys(m));
    expect(m.sections[1].start).toBe(0.25); // the argument untouched
    // The same frame again: the spec itself, no edit.
    expect(spec(moveSectionStart(moved, 1, 0.34, clip))).toBe(moved);
  });

  it('never moves the first section, and refuses a section with no frame between its neighbours', () => {
    const m = asset().montages.combo;
    expect(moveSectionStart(m, 0, 0.1, clip)).toEqual({ ok: false, reason: 'the first section starts at 0' });
    const tight = { ...m, sections: [{ name: 'a', start: 0 }, { name: 'b', start: 0.01 }, { name: 'c', start: 0.02 }] };
    expect(moveSectionStart(tight, 1, 0.5, clip).ok).toBe(false);
  });

  it('a notify dragged past the end clamps to the end, 0.7 s, before the start to 0; it may pass another notify', () => {
    const m = asset().montages.combo;
    expect(spec(moveNotifyTime(m, 0, 3, clip)).notifies[0].time).toBe(0.7);
    expect(spec(moveNotifyTime(m, 1, -1, clip)).notifies[1].time).toBe(0);
    expect(spec(moveNotifyTime(m, 1, 0.1, clip)).notifies[1]).toEqual({ name: 'comboWindow', time: 0.1, branchingPoint: true });
    expect(problemsWith(spec(moveNotifyTime(m, 0, 3, clip)))).toEqual([]);
  });

  it('adds a section in time order with no next: the section before it (no next either) now runs into it, linked ones keep their links, and it loads', () => {
    const m = asset().montages.combo;
    const added = spec(addMontageSection(m, 0.13, clip));
    expect(added.sections).toEqual([
      { name: 'windup', start: 0 }, { name: 'section', start: 4 / 30 }, { name: 'strike', start: 0.25, next: 'strike' }, { name: 'recover', start: 0.5 },
    ]);
    expect(montageTimeline(added, clip).sections.map((s) => s.link)).toEqual(['→ section', '→ strike', '⟲', '■']);
    expect(problemsWith(added)).toEqual([]);
    // After the last: recover now runs into it, and it ends the montage.
    const last = spec(addMontageSection(m, 0.6, clip, 'tail'));
    expect(montageTimeline(last, clip).sections.map((s) => [s.name, s.link])).toEqual([['windup', '→ strike'], ['strike', '⟲'], ['recover', '→ tail'], ['tail', '■']]);
    expect(spec(addMontageSection(added, 0.4, clip)).sections.map((s: any) => s.name)).toEqual(['windup', 'section', 'strike', 'section2', 'recover']);
  });

  it('refuses a section where one starts, at or past the clip\'s end, or under a name taken', () => {
    const m = asset().montages.combo;
    // 0.49 s is frame 15, where recover starts (0.25 s is no frame of 30 fps: a section added there goes to 8/30 s).
    expect(addMontageSection(m, 0.49, clip)).toEqual({ ok: false, reason: 'section \'recover\' starts at 0.5 s already' });
    expect(spec(addMontageSection(m, 0.25, clip)).sections[2]).toEqual({ name: 'section', start: 8 / 30 });
    expect(addMontageSection(m, 0, clip)).toEqual({ ok: false, reason: 'section \'windup\' starts at 0 s already' });
    expect(addMontageSection(m, 0.7, clip)).toEqual({ ok: false, reason: 'a section starts before the end of the clip (0.7 s)' });
    expect(addMontageSection(m, 0.1, clip, 'strike')).toEqual({ ok: false, reason: 'the montage has a section \'strike\' already' });
  });

  it('a montage without sections gets its implied Default at 0 and the new one, after its slot', () => {
    const m = { clip: 'run', slot: 'upperBody', blendIn: 0.1 };
    const t = montageTimeline(m, clip);
    expect(t.implied).toBe(true);
    expect(t.sections.map((s) => [s.name, s.start, s.end, s.link])).toEqual([['Default', 0, 0.7, '■']]);
    const added = spec(addMontageSection(m, 0.4, clip));
    expect(added).toEqual({ clip: 'run', slot: 'upperBody', sections: [{ name: 'Default', start: 0 }, { name: 'section', start: 0.4 }], blendIn: 0.1 });
    expect(Object.keys(added)).toEqual(['clip', 'slot', 'sections', 'blendIn']);
    expect(problemsWith(added)).toEqual([]);
  });

  it('adds a notify snapped, within the clip, after those at or before its time', () => {
    const m = asset().montages.combo;
    const added = spec(addMontageNotify(m, 0.4, clip));
    expect(added.notifies.map((n: any) => [n.name, n.time])).toEqual([['hit', 0.3], ['notify', 0.4], ['comboWindow', 0.45]]);
    expect(spec(addMontageNotify(m, 9, clip, 'end')).notifies[2]).toEqual({ name: 'end', time: 0.7 });
    const none = spec(addMontageNotify({ clip: 'run', slot: 'upperBody', sections: [], rate: 2 }, 0.01, clip));
    expect(none).toEqual({ clip: 'run', slot: 'upperBody', sections: [], notifies: [{ name: 'notify', time: 0 }], rate: 2 });
  });

  it('deletes a section, its time to the one before (the first\'s to the one after, which then starts at 0), links to it following it', () => {
    const m = asset().montages.combo;
    // strike looped on itself: windup ran into it implicitly and now runs into recover.
    const noStrike = spec(removeMontageSection(m, 1));
    expect(noStrike.sections).toEqual([{ name: 'windup', start: 0 }, { name: 'recover', start: 0.5 }]);
    expect(problemsWith(noStrike)).toEqual([]);
    // A link to the section removed takes its link: a → b → c, b removed: a → c.
    const linked = { clip: 'run', slot: 'upperBody', sections: [{ name: 'a', start: 0, next: 'b' }, { name: 'b', start: 0.2, next: 'c' }, { name: 'c', start: 0.4, next: 'a' }] };
    expect(spec(removeMontageSection(linked, 1)).sections).toEqual([{ name: 'a', start: 0, next: 'c' }, { name: 'c', start: 0.4, next: 'a' }]);
    // The first removed: b starts at 0, and c's link to a, which led to b, leads to b.
    expect(spec(removeMontageSection(linked, 0)).sections).toEqual([{ name: 'b', start: 0, next: 'c' }, { name: 'c', start: 0.4, next: 'b' }]);
    // A link to a looping section ends there instead.
    const looped = spec(removeMontageSection({ ...linked, sections: [{ name: 'a', start: 0, next: 'b' }, { name: 'b', start: 0.2, next: 'b' }] }, 1));
    expect(looped.sections).toEqual([{ name: 'a', start: 0, next: null }]);
    // The only section removed: none written, the implied Default.
    expect(spec(removeMontageSection({ clip: 'run', slot: 's', sections: [{ name: 'x', start: 0 }] }, 0))).toEqual({ clip: 'run', slot: 's' });
    expect(removeMontageSection({ clip: 'run', slot: 's' }, 0).ok).toBe(false);
  });

  it('deletes a notify; the last leaves no notifies', () => {
    const m = asset().montages.combo;
    expect(spec(removeMontageNotify(m, 0)).notifies).toEqual([{ name: 'comboWindow', time: 0.45, branchingPoint: true }]);
    expect('notifies' in spec(removeMontageNotify(spec(removeMontageNotify(m, 0)), 0))).toBe(false);
  });

  it('renames a section and every next naming it; refuses a name taken; sets next and branching points', () => {
    const m = asset().montages.combo;
    const renamed = spec(renameMontageSection(m, 1, 'hit2'));
    expect(renamed.sections[1]).toEqual({ name: 'hit2', start: 0.25, next: 'hit2' });
    expect(renameMontageSection(m, 1, 'recover')).toEqual({ ok: false, reason: 'the montage has a section \'recover\' already' });
    expect(spec(renameMontageSection({ clip: 'run', slot: 's' }, 0, 'all')).sections).toEqual([{ name: 'all', start: 0 }]);
    expect(spec(setMontageSectionNext(m, 1, 'recover')).sections[1]).toEqual({ name: 'strike', start: 0.25, next: 'recover' });
    expect(spec(setMontageSectionNext(m, 1, undefined)).sections[1]).toEqual({ name: 'strike', start: 0.25 });
    expect(spec(setMontageSectionNext(m, 0, null)).sections[0]).toEqual({ name: 'windup', start: 0, next: null });
    expect(setMontageSectionNext(m, 0, 'nowhere').ok).toBe(false);
    expect(spec(renameMontageNotify(m, 0, 'impact')).notifies[0]).toEqual({ name: 'impact', time: 0.3 });
    expect(spec(setMontageNotifyBranching(m, 0, true)).notifies[0]).toEqual({ name: 'hit', time: 0.3, branchingPoint: true });
    expect(spec(setMontageNotifyBranching(m, 1, false)).notifies[1]).toEqual({ name: 'comboWindow', time: 0.45 });
  });
});

describe('the strip\'s arithmetic', () => {
  it('snaps to k/30 at 30 fps and to whole milliseconds without a frame rate', () => {
    for (let k = 0; k <= 60; k++) expect(snapTime(k / 30 + 0.012, 30)).toBe(k / 30);
    expect(snapTime(0.0169, 30)).toBe(1 / 30);
    expect(snapTime(0.3004, undefined)).toBe(0.3);
    expect(snapTime(0.12351, undefined)).toBe(0.124);
  });

  it('without the clip, clamps a drag only by the sections around it, to the millisecond', () => {
    const m = { clip: 'x', slot: 's', sections: [{ name: 'a', start: 0 }, { name: 'b', start: 0.2 }, { name: 'c', start: 0.3 }] };
    expect(spec(moveSectionStart(m, 1, 0.9, undefined)).sections[1].start).toBe(0.299);
    expect(spec(moveSectionStart(m, 2, 40, undefined)).sections[2].start).toBe(40);
    expect(spec(moveNotifyTime({ ...m, notifies: [{ name: 'n', time: 0 }] }, 0, 12.3456, undefined)).notifies[0].time).toBe(12.346);
  });

  it('maps time to x and back over the strip, x clamped to it', () => {
    expect(timeToX(0.35, 0.7, 300)).toBe(150);
    expect(xToTime(150, 0.7, 300)).toBe(0.35);
    expect(xToTime(-20, 0.7, 300)).toBe(0);
    expect(xToTime(999, 0.7, 300)).toBe(0.7);
    expect(xToTime(10, 0.7, 0)).toBe(0);
  });

  it('ticks at round steps, at most about 8', () => {
    expect(timelineTicks(2)).toEqual([0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2]);
    expect(timelineTicks(1.1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(timelineTicks(34.5)).toEqual([0, 5, 10, 15, 20, 25, 30]);
    expect(timelineTicks(0)).toEqual([0]);
  });

  it('finds the section or notify a problem\'s path is about', () => {
    expect(timelineMarkOf('$.montages.combo.sections[1].start')).toEqual({ montage: 'combo', kind: 'section', index: 1 });
    expect(timelineMarkOf('$.montages["a b"].notifies[0].time')).toEqual({ montage: 'a b', kind: 'notify', index: 0 });
    expect(timelineMarkOf('$.montages.combo.clip')).toBeUndefined();
    expect(timelineMarkOf('$.clips.run.notifies[0].time')).toBeUndefined();
  });
});
