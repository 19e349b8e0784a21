/**
 * The side panels: the palette, the details of what is selected (a node's properties, a state, a
 * transition), the asset's own values and named sections, and the problems list.
 */
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import {
  assetRowOf, blendProfileExample, clipExample, montageExample,
  type AssetSection, type AssetValueKey, type ClipTiming, type Json, type JsonObject, type PropertyField,
} from '../model/index.ts';
import type { EditorProblem } from './state.ts';
import { MontageTimelineStrip } from './timeline.tsx';

// --- the palette ---------------------------------------------------------------------------------
export type PaletteGroups = { category: string; types: { type: string; title: string; summary: string }[] }[];

export function Palette({ groups, onAdd }: { groups: PaletteGroups; onAdd: (type: string) => void }) {
  const [query, setQuery] = useState('');
  const q = query.trim().toLowerCase();
  const shown = useMemo(() => groups
    .map((g) => ({ ...g, types: g.types.filter((t) => q === '' || `${t.type} ${t.title} ${t.summary} ${g.category}`.toLowerCase().includes(q)) }))
    .filter((g) => g.types.length > 0), [groups, q]);
  return (
    <div id="palette-inner">
      <input id="palette-search" type="search" placeholder="search nodes" value={query} onChange={(e) => setQuery(e.target.value)} />
      {shown.map((g) => (
        <section key={g.category} className="palette-group" data-category={g.category}>
          <h3>{g.category}</h3>
          {g.types.map((t) => (
            <button key={t.type} type="button" className="palette-item" data-type={t.type} title={t.summary} draggable
              onDragStart={(e) => { e.dataTransfer.setData('application/x-animgraph-type', t.type); e.dataTransfer.effectAllowed = 'copy'; }}
              onClick={() => onAdd(t.type)}>
              {t.title}
            </button>
          ))}
        </section>
      ))}
      {shown.length === 0 ? <p className="muted">No node type matches.</p> : null}
    </div>
  );
}

// --- controls --------------------------------------------------------------------------------------
/** A text field committed on Enter or when it loses focus; shows `value` again when it changes. */
function CommitText({ value, onCommit, name, multiline, placeholder }: { value: string; onCommit: (text: string) => void; name: string; multiline?: boolean; placeholder?: string }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const commit = () => { if (text !== value) onCommit(text); };
  if (multiline) {
    return <textarea name={name} value={text} rows={Math.min(10, Math.max(2, text.split('\n').length))} onChange={(e) => setText(e.target.value)} onBlur={commit} />;
  }
  return (
    <input type="text" name={name} value={text} placeholder={placeholder} onChange={(e) => setText(e.target.value)} onBlur={commit}
      onKeyDown={(e) => { if (e.key === 'Enter') commit(); }} />
  );
}

function jsonText(value: Json | undefined): string {
  return value === undefined ? '' : JSON.stringify(value);
}

/** Parses a JSON text typed in a field; an empty text is undefined (the value removed). */
function parseTyped(text: string): { ok: true; value: Json | undefined } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch (e) {
    return { ok: false, message: `not JSON: ${(e as Error).message}` };
  }
}

export interface Choices { clips: string[]; parameters: { name: string; type: string }[]; blendProfiles: string[]; cachedPoses: string[]; slots: string[]; bones: string[] }

function Select({ name, value, options, onChange, empty = '(none)' }: { name: string; value: string; options: readonly string[]; onChange: (v: string) => void; empty?: string }) {
  const all = options.includes(value) || value === '' ? options : [value, ...options];
  return (
    <select name={name} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{empty}</option>
      {all.map((o) => <option key={o} value={o}>{o}</option>)}
    </select>
  );
}

/** The control of one property, from its field's kind: what the meta says it is. */
function FieldControl({ field, choices, onSet, onError }: { field: PropertyField; choices: Choices; onSet: (value: Json | undefined) => void; onError: (message: string) => void }) {
  const v = field.value;
  const bound = v !== null && typeof v === 'object' && !Array.isArray(v) && ('param' in v || 'curve' in v);
  const binding = field.bindable ? (
    <select className="binding" name={`${field.name}.binding`} value={bound ? ('param' in (v as JsonObject) ? 'param' : 'curve') : 'value'}
      onChange={(e) => {
        const to = e.target.value;
        if (to === 'value') onSet(field.default ?? undefined);
        else if (to === 'param') onSet({ param: choices.parameters[0]?.name ?? '' });
        else onSet({ curve: '' });
      }} title="a constant, or bound to a parameter or a curve">
      <option value="value">value</option>
      <option value="param">{'{param}'}</option>
      <option value="curve">{'{curve}'}</option>
    </select>
  ) : null;
  if (bound) {
    const o = v as JsonObject;
    const control = 'param' in o
      ? <Select name={field.name} value={String(o.param)} options={choices.parameters.map((p) => p.name)} onChange={(name) => onSet({ ...o, param: name })} />
      : <CommitText name={field.name} value={String(o.curve ?? '')} onCommit={(name) => onSet({ ...o, curve: name })} placeholder="curve name" />;
    return <>{binding}{control}</>;
  }
  const number = (int: boolean) => {
    const value = typeof v === 'number' ? v : typeof field.default === 'number' ? field.default : 0;
    const ranged = field.min !== undefined && field.max !== undefined && Number.isFinite(field.min) && Number.isFinite(field.max);
    const set = (text: string) => {
      const n = Number(text);
      if (text.trim() === '') return onSet(undefined);
      if (!Number.isFinite(n) || (int && !Number.isInteger(n))) return onError(`${field.title}: '${text}' is not ${int ? 'a whole number' : 'a number'}`);
      onSet(n);
    };
    return (
      <>
        {binding}
        {ranged ? <input type="range" name={`${field.name}.slider`} min={field.min} max={field.max} step={int ? 1 : (field.max! - field.min!) / 200} value={value} onChange={(e) => set(e.target.value)} /> : null}
        <input type="number" name={field.name} step={int ? 1 : 'any'} value={v === undefined ? '' : value} placeholder={field.default === undefined ? '' : String(field.default)}
          onChange={(e) => set(e.target.value)} />
      </>
    );
  };
  switch (field.kind) {
    case 'number': return number(false);
    case 'int': return number(true);
    case 'bool': return <>{binding}<input type="checkbox" name={field.name} checked={v === undefined ? field.default === true : v === true} onChange={(e) => onSet(e.target.checked)} /></>;
    case 'enum': return <Select name={field.name} value={typeof v === 'string' ? v : ''} options={field.options ?? []} onChange={(s) => onSet(s === '' ? undefined : s)} empty={field.default === undefined ? '(none)' : `(default: ${String(field.default)})`} />;
    case 'clip': return <Select name={field.name} value={typeof v === 'string' ? v : ''} options={choices.clips} onChange={(s) => onSet(s === '' ? undefined : s)} />;
    case 'bone': return <Select name={field.name} value={typeof v === 'string' ? v : ''} options={choices.bones} onChange={(s) => onSet(s === '' ? undefined : s)} />;
    case 'parameter': return <Select name={field.name} value={typeof v === 'string' ? v : ''} options={choices.parameters.map((p) => p.name)} onChange={(s) => onSet(s === '' ? undefined : s)} />;
    case 'blend-profile': return <Select name={field.name} value={typeof v === 'string' ? v : ''} options={choices.blendProfiles} onChange={(s) => onSet(s === '' ? undefined : s)} />;
    case 'string': return <CommitText name={field.name} value={typeof v === 'string' ? v : ''} onCommit={(s) => onSet(s === '' ? undefined : s)} />;
    case 'vec3': {
      const a = Array.isArray(v) ? v : Array.isArray(field.default) ? field.default : [0, 0, 0];
      return (
        <>
          {binding}
          {[0, 1, 2].map((k) => (
            <input key={k} type="number" step="any" name={`${field.name}.${'xyz'[k]}`} value={String(a[k] ?? 0)}
              onChange={(e) => {
                const n = Number(e.target.value);
                if (!Number.isFinite(n) || e.target.value.trim() === '') return;
                const next = [...a] as Json[];
                next[k] = n;
                onSet(next);
              }} />
          ))}
        </>
      );
    }
    default:
      return (
        <CommitText name={field.name} multiline value={v === undefined ? '' : JSON.stringify(v, null, 2)}
          onCommit={(text) => { const r = parseTyped(text); if (r.ok) onSet(r.value); else onError(`${field.title}: ${r.message}`); }} />
      );
  }
}

export function PropertiesPanel({ title, type, fields, choices, problems, onSet, onRename, onError, children }: {
  title: string; type?: string; fields: PropertyField[]; choices: Choices; problems: Record<string, EditorProblem[]>;
  onSet: (name: string, value: Json | undefined) => void; onRename: (to: string) => void; onError: (message: string) => void; children?: ReactNode;
}) {
  return (
    <div id="details" data-details="node">
      <h2>{title}{type ? <span className="muted"> · {type}</span> : null}</h2>
      <div className="field" data-property="@id">
        <label title="The node's id: links, the output and the debug tree name it; renaming it renames those too">id</label>
        <div className="control"><CommitText name="@id" value={title} onCommit={(to) => { if (to.trim() !== '') onRename(to.trim()); }} /></div>
      </div>
      {children}
      {fields.length === 0 ? <p className="muted">No properties.</p> : null}
      {fields.map((f) => (
        <div key={f.name} className={`field${problems[f.name] ? ' field-problem' : ''}`} data-property={f.name} data-kind={f.kind}>
          <label title={f.description}>{f.title}{f.required ? ' *' : ''}{f.unit ? <span className="muted"> ({f.unit})</span> : null}</label>
          <div className="control"><FieldControl field={f} choices={choices} onSet={(value) => onSet(f.name, value)} onError={onError} /></div>
          {problems[f.name]?.map((p, i) => <div key={i} className="problem-text">{p.message}</div>)}
        </div>
      ))}
    </div>
  );
}

/** A transition: its rule as text and its JSON, edited whole. */
export function TransitionPanel({ index, transition, rule, onSet, onError }: { index: number; transition: Json; rule: string; onSet: (t: Json | undefined) => void; onError: (m: string) => void }) {
  return (
    <div id="details" data-details="transition">
      <h2>Transition {index}</h2>
      <p className="rule">{rule}</p>
      <CommitText name="transition" multiline value={JSON.stringify(transition, null, 2)}
        onCommit={(text) => { const r = parseTyped(text); if (r.ok && r.value !== undefined) onSet(r.value); else onError(r.ok ? 'a transition cannot be empty: delete it instead' : `transition: ${r.message}`); }} />
      <button type="button" onClick={() => onSet(undefined)}>Delete transition</button>
    </div>
  );
}

export function StatePanel({ name, onRename, onRemove, children }: { name: string; onRename: (to: string) => void; onRemove: () => void; children?: ReactNode }) {
  return (
    <div id="details" data-details="state">
      <h2>State {name}</h2>
      <div className="field"><label>name</label><div className="control"><CommitText name="state-name" value={name} onCommit={(to) => { if (to.trim() !== '') onRename(to.trim()); }} /></div></div>
      {children}
      <button type="button" onClick={onRemove}>Delete state</button>
    </div>
  );
}

/** What each named section's rows are called, and the spec its add row starts from (from the asset's own clips, slots and bones). */
const SECTIONS: readonly { section: AssetSection; title: string; example: (asset: JsonObject, choices: Choices) => Json }[] = [
  { section: 'parameters', title: 'Parameters', example: () => ({ type: 'float', default: 0 }) },
  { section: 'clips', title: 'Clips', example: (asset) => clipExample(asset) },
  { section: 'montages', title: 'Montages', example: (_, choices) => montageExample(choices) },
  { section: 'blendProfiles', title: 'Blend profiles', example: (_, choices) => blendProfileExample(choices.bones) },
];

/** The asset's single values: each a text (name, description), a choice (units) or JSON. */
const VALUES: readonly { key: AssetValueKey; title: string; kind: 'text' | 'units' | 'json'; description: string }[] = [
  { key: 'name', title: 'name', kind: 'text', description: 'Display name of the graph' },
  { key: 'description', title: 'description', kind: 'text', description: 'What the graph is for' },
  { key: 'skeleton', title: 'skeleton', kind: 'json', description: '"builtin:biped", { "bvh": file }, { "file": a JSON skeleton } or { "gltf": file, "skin": ... }' },
  { key: 'units', title: 'units', kind: 'units', description: 'The length unit of the skeleton and clips (default: the source\'s)' },
  { key: 'helperBones', title: 'helper bones', kind: 'json', description: 'Bones added after the skeleton\'s own, each with a parent and an offset' },
  { key: 'mirror', title: 'mirror', kind: 'json', description: 'The mirror table: the plane and the bone pairs that swap' },
];

/**
 * The asset's own values and its named sections (parameters, clips, montages, blend profiles):
 * each spec as JSON, a row to add one, the loader's problems under the row they are about.
 */
export function AssetPanel({ asset, choices, problems, clipTiming, montagePlayhead, onEntry, onRename, onValue, onError }: {
  asset: JsonObject; choices: Choices; problems: readonly EditorProblem[];
  /** A clip's duration and frame rate as the loader last loaded it, undefined when unknown (each montage's timeline spans its clip). */
  clipTiming: (clip: string) => ClipTiming | undefined;
  /** The montage the preview plays and its clip time, or null. */
  montagePlayhead: { name: string; time: number } | null;
  onEntry: (section: AssetSection, name: string, spec: Json | undefined) => void;
  onRename: (section: AssetSection, from: string, to: string) => void;
  onValue: (key: AssetValueKey, value: Json | undefined) => void; onError: (m: string) => void;
}) {
  const rowProblems = new Map<string, EditorProblem[]>();
  for (const p of problems) {
    const row = assetRowOf(p.path);
    if (row === undefined) continue;
    const key = 'key' in row ? row.key : `${row.section}/${row.name ?? ''}`;
    let list = rowProblems.get(key);
    if (list === undefined) rowProblems.set(key, list = []);
    list.push(p);
  }
  const problemsOf = (key: string) => rowProblems.get(key)?.map((p, i) => <div key={i} className="problem-text">{p.message}</div>);
  const section = ({ section: what, title, example }: (typeof SECTIONS)[number]) => {
    const held = asset[what];
    const entries = Object.entries((typeof held === 'object' && held !== null && !Array.isArray(held) ? held : {}) as JsonObject);
    return (
      <section key={what} data-section={what}>
        <h2>{title}</h2>
        {entries.length === 0 ? <p className="muted">None.</p> : null}
        {problemsOf(`${what}/`)}
        {entries.map(([name, spec]) => (
          <div key={name} className={`field${rowProblems.has(`${what}/${name}`) ? ' field-problem' : ''}`} data-name={name}>
            <CommitText name={`${what}.${name}.name`} value={name} onCommit={(to) => { if (to.trim() !== '') onRename(what, name, to.trim()); }} />
            <div className="control">
              <CommitText name={`${what}.${name}`} value={jsonText(spec)} onCommit={(text) => { const r = parseTyped(text); if (r.ok) onEntry(what, name, r.value); else onError(`${name}: ${r.message}`); }} />
              <button type="button" title="delete" onClick={() => onEntry(what, name, undefined)}>×</button>
            </div>
            {problemsOf(`${what}/${name}`)}
            {what === 'montages' ? (
              <MontageTimelineStrip name={name} spec={spec} problems={rowProblems.get(`${what}/${name}`) ?? []} onError={onError}
                clipName={typeof (spec as JsonObject)?.clip === 'string' ? String((spec as JsonObject).clip) : '(no clip)'}
                clip={typeof (spec as JsonObject)?.clip === 'string' ? clipTiming(String((spec as JsonObject).clip)) : undefined}
                playhead={montagePlayhead?.name === name ? montagePlayhead.time : null}
                onSpec={(edited) => onEntry(what, name, edited)} />
            ) : null}
          </div>
        ))}
        <AddRow what={what} example={JSON.stringify(example(asset, choices))} onAdd={(name, text) => { const r = parseTyped(text); if (r.ok && r.value !== undefined) onEntry(what, name, r.value); else onError(`${name}: ${r.ok ? 'give a spec' : r.message}`); }} />
      </section>
    );
  };
  return (
    <div id="asset-panel">
      <section data-section="asset">
        <h2>Graph</h2>
        {VALUES.map(({ key, title, kind, description }) => {
          const v = asset[key];
          let control: ReactNode;
          if (kind === 'text') control = <CommitText name={`asset.${key}`} value={typeof v === 'string' ? v : jsonText(v)} onCommit={(t) => onValue(key, t === '' ? undefined : t)} />;
          else if (kind === 'units') control = <Select name={`asset.${key}`} value={typeof v === 'string' ? v : ''} options={['cm', 'm']} onChange={(u) => onValue(key, u === '' ? undefined : u)} />;
          else control = <CommitText name={`asset.${key}`} value={jsonText(v)} onCommit={(t) => { const r = parseTyped(t); if (r.ok) onValue(key, r.value); else onError(`${title}: ${r.message}`); }} />;
          return (
            <div key={key} className={`field${rowProblems.has(key) ? ' field-problem' : ''}`} data-value={key}>
              <label title={description}>{title}</label>
              <div className="control">{control}</div>
              {problemsOf(key)}
            </div>
          );
        })}
      </section>
      {SECTIONS.map(section)}
    </div>
  );
}

/** An add row: a name and a spec, the spec following the example (which changes with the asset and its skeleton) until typed in. */
function AddRow({ what, example, onAdd }: { what: string; example: string; onAdd: (name: string, spec: string) => void }) {
  const [name, setName] = useState('');
  const [spec, setSpec] = useState(example);
  const [typed, setTyped] = useState(false);
  useEffect(() => { if (!typed) setSpec(example); }, [example, typed]);
  return (
    <div className="field add-row">
      <input type="text" name={`${what}.new-name`} placeholder="name" value={name} onChange={(e) => setName(e.target.value)} />
      <div className="control">
        <input type="text" name={`${what}.new-spec`} value={spec} onChange={(e) => { setSpec(e.target.value); setTyped(true); }} />
        <button type="button" disabled={name.trim() === ''} onClick={() => { onAdd(name.trim(), spec); setName(''); }}>Add</button>
      </div>
    </div>
  );
}

export function ProblemsList({ problems, onPick }: { problems: readonly EditorProblem[]; onPick: (p: EditorProblem) => void }) {
  return (
    <section id="problems">
      <h2>Problems{problems.length > 0 ? ` (${problems.length})` : ''}</h2>
      {problems.length === 0 ? <p className="muted" id="no-problems">The graph loads.</p> : (
        <ul>
          {problems.map((p, i) => (
            <li key={i} data-path={p.path} onClick={() => onPick(p)}>{`${p.path}: ${p.message}`}<span className="code"> [{p.code}]</span></li>
          ))}
        </ul>
      )}
    </section>
  );
}
