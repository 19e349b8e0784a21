/** The side panel's generated parts: parameter controls, montage buttons and the debug tree. */
import type { DebugNode } from '../runtime/node/node.ts';
import type { ParameterDefinition, ParameterValue } from '../runtime/node/parameters.ts';

/**
 * One control per parameter: a slider and a number field for float, a number field for int, a
 * toggle for bool, three number fields for vec3; a parameter that follows a curve shows the curve's name. `onChange` gets every valid edit as it happens.
 * The form is never submitted: with one number field alone in it (a graph whose one parameter is
 * an int or a float), the browser took Enter there as a submit and reloaded the page.
 */
export function buildParameterPanel(
  form: HTMLElement, definitions: Readonly<Record<string, ParameterDefinition>>, descriptions: Readonly<Record<string, string>>,
  values: ReadonlyMap<string, ParameterValue>, onChange: (name: string, value: ParameterValue) => void,
): void {
  form.replaceChildren();
  if (form instanceof HTMLFormElement) form.onsubmit = (event) => event.preventDefault();
  const names = Object.keys(definitions);
  if (names.length === 0) {
    form.textContent = 'This graph has no parameters.';
    return;
  }
  for (const name of names) {
    const def = definitions[name];
    const value = values.get(name) ?? def.default ?? (def.type === 'vec3' ? [0, 0, 0] : def.type === 'bool' ? false : 0);
    const row = element('div', 'param');
    row.dataset.parameter = name;
    row.dataset.type = def.type;
    const label = element('label');
    label.textContent = name;
    label.title = descriptions[name] ?? '';
    const type = element('span', 'type');
    type.textContent = ` ${def.type}`;
    label.append(type);
    const inputs = element('div', 'inputs');
    row.append(label, inputs);
    form.append(row);
    if (def.curve !== undefined) {
      // Set from its curve at every update: nothing to edit (setParameter refuses it).
      inputs.textContent = `follows curve ${def.curve}`;
      continue;
    }
    switch (def.type) {
      case 'bool': {
        const box = input('checkbox', name);
        box.checked = value === true;
        box.addEventListener('change', () => onChange(name, box.checked));
        inputs.append(box);
        break;
      }
      case 'int': {
        const field = input('number', name);
        field.step = '1';
        field.value = String(value);
        field.addEventListener('input', () => {
          const v = Number(field.value);
          if (field.value.trim() !== '' && Number.isInteger(v)) onChange(name, v);
        });
        inputs.append(field);
        break;
      }
      case 'float': {
        const v0 = typeof value === 'number' ? value : 0;
        // Parameters carry no range: the slider's is derived from the value (sliderSpan), either
        // side of zero, since nothing says the parameter is never negative; the number field takes
        // any value and widens the slider to it.
        const slider = input('range', name);
        setSliderSpan(slider, sliderSpan(v0));
        slider.value = String(v0);
        const field = input('number', `${name}-value`);
        field.step = 'any';
        field.value = String(v0);
        slider.addEventListener('input', () => {
          field.value = slider.value;
          onChange(name, Number(slider.value));
        });
        field.addEventListener('input', () => {
          const v = Number(field.value);
          if (field.value.trim() === '' || !Number.isFinite(v)) return;
          if (Math.abs(v) > Number(slider.max)) setSliderSpan(slider, sliderSpan(v));
          slider.value = String(v);
          onChange(name, v);
        });
        inputs.append(slider, field);
        break;
      }
      case 'vec3': {
        const v0 = Array.isArray(value) ? value : [0, 0, 0];
        const fields = ['x', 'y', 'z'].map((axis, k) => {
          const field = input('number', `${name}.${axis}`);
          field.step = 'any';
          field.value = String(v0[k] ?? 0);
          field.title = axis;
          return field;
        });
        for (const field of fields) {
          field.addEventListener('input', () => {
            const v = fields.map((f) => Number(f.value));
            if (fields.every((f) => f.value.trim() !== '') && v.every(Number.isFinite)) onChange(name, v);
          });
        }
        inputs.append(...fields);
        break;
      }
    }
  }
}

/**
 * The half-width of a float slider for a value: the next of 1, 2 or 5 times a power of ten at or
 * above twice its size, at least 1 (0 → ±1, 0.7 → ±2, 250 → ±500, 1e-6 → ±1).
 */
export function sliderSpan(value: number): number {
  const size = Math.max(1, 2 * Math.abs(value));
  if (!Number.isFinite(size)) return Number.MAX_VALUE;
  const power = 10 ** Math.floor(Math.log10(size));
  for (const step of [1, 2, 5, 10]) if (step * power >= size * (1 - 1e-12)) return step * power;
  return 10 * power;
}

function setSliderSpan(slider: HTMLInputElement, span: number): void {
  slider.min = String(-span);
  slider.max = String(span);
  slider.step = String(span / 200);
}

/** A montage as the montage panel lists it: its name and its sections' names, in order. */
export interface MontageEntry { readonly name: string; readonly sectionNames: readonly string[] }

/**
 * One row per montage: its name, the section to start from (its first by default) and a Play
 * button, then one Stop button for every montage playing. `onPlay` gets the montage and section
 * names (playMontage's), `onStop` nothing (stopMontage()); what `onPlay` throws (a montage whose
 * Slot plays none) is a console warning, the page going on. A graph without montages leaves the
 * container empty and hidden.
 */
export function buildMontagePanel(
  container: HTMLElement, montages: readonly MontageEntry[], onPlay: (name: string, section: string) => void, onStop: () => void,
): void {
  container.replaceChildren();
  container.hidden = montages.length === 0;
  if (montages.length === 0) return;
  for (const m of montages) {
    const row = element('div', 'montage');
    row.dataset.montage = m.name;
    const label = element('label');
    label.textContent = m.name;
    const section = element('select');
    section.name = `montage.${m.name}.section`;
    section.title = 'the section it starts from';
    for (const name of m.sectionNames) {
      const option = element('option');
      option.value = option.textContent = name;
      section.append(option);
    }
    section.hidden = m.sectionNames.length <= 1;
    const play = element('button');
    play.type = 'button';
    play.textContent = 'Play';
    play.dataset.play = m.name;
    play.title = `play ${m.name} (instance.playMontage)`;
    play.onclick = () => {
      try {
        onPlay(m.name, section.value);
      } catch (e) {
        console.warn((e as Error).message);
      }
    };
    row.append(label, section, play);
    container.append(row);
  }
  const stop = element('button');
  stop.type = 'button';
  stop.id = 'stop-montages';
  stop.textContent = 'Stop montages';
  stop.onclick = () => onStop();
  container.append(stop);
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  return e;
}

function input(type: string, name: string): HTMLInputElement {
  const e = element('input');
  e.type = type;
  e.name = name;
  return e;
}

interface TreeRow {
  fill: HTMLElement;
  weight: HTMLElement;
  description: HTMLElement;
  box: HTMLElement;
}

/**
 * The debug tree as nested <details>, a weight bar per node. The DOM is built once per tree shape
 * (the node ids in order) and updated in place after, so a node folded by the user stays folded.
 */
export class DebugTreeView {
  private shape = '';
  private rows: TreeRow[] = [];

  constructor(private readonly container: HTMLElement) {}

  show(tree: DebugNode): void {
    const shape = shapeOf(tree);
    if (shape !== this.shape) {
      this.shape = shape;
      this.rows = [];
      this.container.replaceChildren(this.build(tree));
    }
    let k = 0;
    const visit = (node: DebugNode) => {
      const row = this.rows[k++];
      const percent = `${(node.weight * 100).toFixed(1)}%`;
      row.fill.style.width = percent;
      row.weight.textContent = percent;
      row.description.textContent = node.description;
      row.box.classList.toggle('inactive', node.weight === 0);
      for (const child of node.children) visit(child);
    };
    visit(tree);
  }

  clear(): void {
    this.shape = '';
    this.rows = [];
    this.container.replaceChildren();
  }

  private build(node: DebugNode): HTMLElement {
    const line = element('span', 'dnode');
    const name = element('span', 'name');
    name.textContent = `${node.type}[${node.id}]`;
    const bar = element('span', 'bar');
    const fill = element('span', 'fill');
    bar.append(fill);
    const weight = element('span', 'w');
    const description = element('span', 'desc');
    line.append(name, bar, weight, description);
    let box: HTMLElement;
    if (node.children.length === 0) {
      box = element('div', 'leaf');
      box.append(line);
    } else {
      const details = element('details');
      details.open = true;
      const summary = element('summary');
      summary.append(line);
      details.append(summary);
      box = details;
    }
    box.dataset.node = node.id;
    this.rows.push({ fill, weight, description, box });
    for (const child of node.children) box.append(this.build(child));
    return box;
  }
}

function shapeOf(node: DebugNode): string {
  return `${node.type}[${node.id}](${node.children.map(shapeOf).join(',')})`;
}
