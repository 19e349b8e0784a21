/**
 * A montage's timeline, under its row in the asset panel: its clip along a strip with time ticks,
 * each section a segment labelled with its name and link, each notify a marker (branching points
 * drawn as diamonds). A section's start (not the first's) and a notify drag along the strip, snapped
 * and clamped by the model (editor/model/timeline.ts); the release is one edit. A click places the
 * cursor, where Add section and Add notify add; the selected one has its fields below the strip.
 */
import { useEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type PointerEvent as ReactPointerEvent } from 'react';
import {
  addMontageNotify, addMontageSection, montageTimeline, moveNotifyTime, moveSectionStart, removeMontageNotify, removeMontageSection, renameMontageNotify,
  renameMontageSection, setMontageNotifyBranching, setMontageSectionNext, snapTime, timelineMarkOf, timelineTicks, timeToX, xToTime,
  type ClipTiming, type Json, type JsonObject, type TimelineEdit,
} from '../model/index.ts';
import type { EditorProblem } from './state.ts';

/** The strip's drawing, in its viewBox's units (the SVG is as wide as the panel). */
const WIDTH = 380;
const PAD = 10;
const STRIP = WIDTH - 2 * PAD;
const BAND_TOP = 14;
const BAND_BOTTOM = 40;
const MARK_Y = 50;
const HEIGHT = 72;

type Selection = { kind: 'section' | 'notify'; index: number } | null;
/** A drag under way: the spec it started from, the spec it makes, and the span it started with (kept while it lasts: a strip without the clip's duration spans its times, which the drag moves). */
type Drag = { kind: 'section' | 'notify'; index: number; from: JsonObject; spec: JsonObject; span: number; refused?: string };

const seconds = (t: number): string => `${Number(t.toFixed(3))} s`;
const xOf = (t: number, span: number): number => PAD + timeToX(t, span, STRIP);

/** A text (or number) field committed on Enter or when it loses focus, so that typing makes one edit. */
function Field({ name, value, onCommit, number, title }: { name: string; value: string; onCommit: (text: string) => void; number?: boolean; title?: string }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const commit = () => { if (text !== value) onCommit(text); };
  return (
    <input type={number ? 'number' : 'text'} step={number ? 'any' : undefined} name={name} value={text} title={title}
      onChange={(e) => setText(e.target.value)} onBlur={commit} onKeyDown={(e) => { if (e.key === 'Enter') commit(); }} />
  );
}

/** A time typed in a field: a finite number of seconds, or undefined. */
function typedTime(text: string): number | undefined {
  const v = Number(text);
  return text.trim() !== '' && Number.isFinite(v) ? v : undefined;
}

export function MontageTimelineStrip({ name, spec, clip, clipName, problems, playhead, onSpec, onError }: {
  name: string; spec: Json; clip: ClipTiming | undefined; clipName: string; problems: readonly EditorProblem[];
  /** The preview's position in this montage while it plays it, else null: the cursor follows it. */
  playhead: number | null;
  /** One edit of the montage's spec. */
  onSpec: (spec: JsonObject) => void; onError: (message: string) => void;
}) {
  const svg = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const [selected, setSelected] = useState<Selection>(null);
  const [cursor, setCursor] = useState<number | null>(null);
  const shown = drag?.spec ?? spec;
  const t = montageTimeline(shown, clip);
  const span = drag ? drag.span : t.span;
  const ticks = drag ? timelineTicks(span) : t.ticks;
  const fps = t.frameRate;
  useEffect(() => { if (playhead !== null && playhead >= 0) setCursor(snapTime(playhead, fps)); }, [playhead, fps]);

  const marked = { section: new Set<number>(), notify: new Set<number>() };
  for (const p of problems) {
    const mark = timelineMarkOf(p.path);
    if (mark && mark.montage === name) marked[mark.kind].add(mark.index);
  }

  const timeAt = (e: ReactPointerEvent): number => {
    const box = svg.current!.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * WIDTH - PAD;
    return xToTime(x, span, STRIP);
  };
  const commit = (edit: TimelineEdit, select?: Selection) => {
    if (!edit.ok) return onError(`${name}: ${edit.reason}`);
    if (edit.spec !== spec) onSpec(edit.spec);
    if (select !== undefined) setSelected(select);
  };
  const start = (e: ReactPointerEvent, kind: 'section' | 'notify', index: number) => {
    e.stopPropagation();
    setSelected({ kind, index });
    if (kind === 'section' && index === 0) return;
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return;
    svg.current!.setPointerCapture(e.pointerId);
    setDrag({ kind, index, from: spec, spec, span });
  };
  const move = (e: ReactPointerEvent) => {
    if (!drag) return;
    const at = timeAt(e);
    const edit = drag.kind === 'section' ? moveSectionStart(drag.from, drag.index, at, clip) : moveNotifyTime(drag.from, drag.index, at, clip);
    if (!edit.ok) { if (drag.refused !== edit.reason) setDrag({ ...drag, refused: edit.reason }); }
    else if (edit.spec !== drag.spec) setDrag({ ...drag, spec: edit.spec });
  };
  const release = () => {
    if (!drag) return;
    setDrag(null);
    if (drag.spec !== drag.from) onSpec(drag.spec);
    else if (drag.refused !== undefined) onError(`${name}: ${drag.refused}`);
  };

  const section = selected?.kind === 'section' ? t.sections.find((s) => s.index === selected.index) : undefined;
  const notify = selected?.kind === 'notify' ? t.notifies.find((n) => n.index === selected.index) : undefined;
  const names = t.sections.map((s) => s.name);
  const nextValue = (() => {
    const list = spec !== null && typeof spec === 'object' && !Array.isArray(spec) && Array.isArray(spec.sections) ? spec.sections : [];
    const entry = section ? list[section.index] : undefined;
    const next = entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? entry.next : undefined;
    return next === undefined ? '' : JSON.stringify(next);
  })();

  // Delete or Backspace removes the selected section or notify, as the Delete button does, while
  // the focus is in the strip (not typing in its fields); stopped here, the key does not also
  // delete what is selected on the canvas.
  const onKeyDown = (e: ReactKeyboardEvent) => {
    if ((e.key !== 'Delete' && e.key !== 'Backspace') || selected === null) return;
    if ((e.target as HTMLElement).closest('input, textarea, select')) return;
    e.preventDefault();
    e.stopPropagation();
    commit(selected.kind === 'section' ? removeMontageSection(spec, selected.index) : removeMontageNotify(spec, selected.index), null);
  };

  return (
    <div className="timeline" data-montage={name} data-duration={t.duration ?? ''} onKeyDown={onKeyDown}>
      <div className="timeline-head muted">
        <span>{clipName}</span>
        <span className="timeline-duration">{t.duration === undefined ? ' · duration unknown (the clip has not loaded)' : ` · ${seconds(t.duration)}${fps ? ` · ${fps} fps` : ''}`}</span>
      </div>
      <svg ref={svg} tabIndex={0} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} className={drag ? 'dragging' : undefined}
        onPointerDown={(e) => { setSelected(null); setCursor(snapTime(timeAt(e), fps)); }}
        onPointerMove={move} onPointerUp={release} onPointerCancel={() => setDrag(null)}>
        {ticks.map((k) => (
          <g key={k} className="tick">
            <line x1={xOf(k, span)} x2={xOf(k, span)} y1={10} y2={BAND_TOP} />
            <text x={xOf(k, span)} y={9} textAnchor="middle">{k}</text>
          </g>
        ))}
        <rect className={`clip${t.duration === undefined ? ' unknown' : ''}`} x={PAD} y={BAND_TOP} width={STRIP} height={BAND_BOTTOM - BAND_TOP} />
        {t.sections.map((s, i) => {
          const x0 = xOf(Math.min(span, s.start), span), x1 = xOf(Math.min(span, Math.max(s.start, s.end)), span);
          const isSelected = selected?.kind === 'section' && selected.index === s.index;
          return (
            <g key={`s${s.index}`} className={`section${i % 2 ? ' odd' : ''}${marked.section.has(s.index) ? ' has-problem' : ''}${isSelected ? ' selected' : ''}`}
              data-section={s.name} data-index={s.index} data-start={s.start}>
              <rect x={x0} y={BAND_TOP} width={Math.max(0, x1 - x0)} height={BAND_BOTTOM - BAND_TOP}
                onPointerDown={(e) => { e.stopPropagation(); setSelected({ kind: 'section', index: s.index }); setCursor(snapTime(timeAt(e), fps)); }} />
              <text x={x0 + 3} y={BAND_TOP + 10} className="name">{s.name}</text>
              <text x={x0 + 3} y={BAND_BOTTOM - 4} className={`link${s.linkImplied ? ' implied' : ''}`}>{s.link}</text>
              {s.index > 0 ? (
                <g className="handle" onPointerDown={(e) => start(e, 'section', s.index)}>
                  <line x1={x0} x2={x0} y1={BAND_TOP - 2} y2={BAND_BOTTOM + 2} />
                  <rect x={x0 - 5} y={BAND_TOP - 2} width={10} height={BAND_BOTTOM - BAND_TOP + 4} />
                </g>
              ) : null}
            </g>
          );
        })}
        {t.notifies.map((n) => {
          const x = xOf(n.time, span);
          const isSelected = selected?.kind === 'notify' && selected.index === n.index;
          return (
            <g key={`n${n.index}`} className={`notify${n.branchingPoint ? ' branching' : ''}${marked.notify.has(n.index) ? ' has-problem' : ''}${isSelected ? ' selected' : ''}`}
              data-notify={n.name} data-index={n.index} data-time={n.time} onPointerDown={(e) => start(e, 'notify', n.index)}>
              <rect className="hit" x={x - 6} y={BAND_TOP} width={12} height={MARK_Y + 8 - BAND_TOP} />
              <line x1={x} x2={x} y1={BAND_TOP} y2={MARK_Y} />
              {n.branchingPoint
                ? <path d={`M${x} ${MARK_Y - 6} L${x + 6} ${MARK_Y} L${x} ${MARK_Y + 6} L${x - 6} ${MARK_Y} Z`} />
                : <path d={`M${x - 5} ${MARK_Y - 5} L${x + 5} ${MARK_Y - 5} L${x} ${MARK_Y + 4} Z`} />}
              <text x={x} y={HEIGHT - 4} textAnchor="middle">{n.name}</text>
            </g>
          );
        })}
        {/* Problems at a section or notify the strip cannot place (its time not a number) mark the strip. */}
        {[...marked.section].some((i) => !t.sections.some((s) => s.index === i)) || [...marked.notify].some((i) => !t.notifies.some((n) => n.index === i))
          ? <rect className="strip-problem" x={PAD} y={BAND_TOP} width={STRIP} height={BAND_BOTTOM - BAND_TOP} /> : null}
        {cursor !== null ? <line className="cursor" x1={xOf(cursor, span)} x2={xOf(cursor, span)} y1={BAND_TOP - 4} y2={HEIGHT - 12} /> : null}
        {playhead !== null && playhead >= 0 ? <line className="playhead" x1={xOf(playhead, span)} x2={xOf(playhead, span)} y1={BAND_TOP - 4} y2={HEIGHT - 12} /> : null}
      </svg>
      <div className="timeline-tools">
        <button type="button" name={`montages.${name}.add-section`} disabled={cursor === null}
          onClick={() => { if (cursor !== null) { const edit = addMontageSection(spec, cursor, clip); commit(edit, edit.ok ? { kind: 'section', index: sectionIndexAt(edit.spec, cursor, fps) } : undefined); } }}>
          + section
        </button>
        <button type="button" name={`montages.${name}.add-notify`} disabled={cursor === null}
          onClick={() => { if (cursor !== null) { const edit = addMontageNotify(spec, cursor, clip); commit(edit, edit.ok ? { kind: 'notify', index: addedNotifyIndex(spec, edit.spec) } : undefined); } }}>
          + notify
        </button>
        <span className="muted cursor-time">{cursor === null ? 'click the strip to place the cursor' : `at ${seconds(cursor)}`}</span>
      </div>
      {section ? (
        <div className="timeline-fields" data-selected="section">
          <label>section</label>
          <Field name={`montages.${name}.section.name`} value={section.name} onCommit={(to) => commit(renameMontageSection(spec, section.index, to.trim()))} />
          <label>next</label>
          <select name={`montages.${name}.section.next`} value={nextValue}
            onChange={(e) => commit(setMontageSectionNext(spec, section.index, e.target.value === '' ? undefined : JSON.parse(e.target.value) as string | null))}>
            <option value="">(the next in time)</option>
            {names.map((n) => <option key={n} value={JSON.stringify(n)}>{n === section.name ? `${n} (loop)` : n}</option>)}
            <option value="null">(end)</option>
          </select>
          {section.index > 0 ? (
            <Field number name={`montages.${name}.section.start`} value={String(section.start)} title="start (s), snapped and clamped as a drag is"
              onCommit={(text) => { const v = typedTime(text); if (v !== undefined) commit(moveSectionStart(spec, section.index, v, clip)); }} />
          ) : null}
          <button type="button" name={`montages.${name}.section.delete`} disabled={t.implied}
            onClick={() => commit(removeMontageSection(spec, section.index), null)}>Delete</button>
        </div>
      ) : null}
      {notify ? (
        <div className="timeline-fields" data-selected="notify">
          <label>notify</label>
          <Field name={`montages.${name}.notify.name`} value={notify.name} onCommit={(to) => commit(renameMontageNotify(spec, notify.index, to.trim()))} />
          <label title="fired at its exact time within a frame, where a listener's jumpToSection takes effect at once">
            <input type="checkbox" name={`montages.${name}.notify.branching`} checked={notify.branchingPoint}
              onChange={(e) => commit(setMontageNotifyBranching(spec, notify.index, e.target.checked))} /> branching point
          </label>
          <Field number name={`montages.${name}.notify.time`} value={String(notify.time)} title="time (s), snapped and clamped as a drag is"
            onCommit={(text) => { const v = typedTime(text); if (v !== undefined) commit(moveNotifyTime(spec, notify.index, v, clip)); }} />
          <button type="button" name={`montages.${name}.notify.delete`} onClick={() => commit(removeMontageNotify(spec, notify.index), null)}>Delete</button>
        </div>
      ) : null}
    </div>
  );
}

/** The index of the section starting at `time` (snapped as the add snapped it) in an edited spec. */
function sectionIndexAt(spec: JsonObject, time: number, fps: number | undefined): number {
  const list = Array.isArray(spec.sections) ? spec.sections : [];
  const t = snapTime(time, fps);
  const i = list.findIndex((s) => s !== null && typeof s === 'object' && !Array.isArray(s) && s.start === t);
  return i < 0 ? 0 : i;
}

/** The index of the notify an add inserted: the first place the lists differ. */
function addedNotifyIndex(before: Json, after: JsonObject): number {
  const old = before !== null && typeof before === 'object' && !Array.isArray(before) && Array.isArray(before.notifies) ? before.notifies : [];
  const now = Array.isArray(after.notifies) ? after.notifies : [];
  const i = now.findIndex((n, k) => n !== old[k]);
  return i < 0 ? now.length - 1 : i;
}
