/**
 * Renders stacked time plots as a standalone SVG document: panels sharing one time axis, each
 * with its own value axis, grid, ticks and legend, and dashed vertical markers (parameter changes)
 * drawn through every panel. No DOM and no node:* imports, so a browser tool can use it as is.
 *
 * The output is deterministic: every coordinate and label is printed with a fixed number of
 * decimals (no locale, no shortest-round-trip printing), so the same document gives the same bytes.
 * Elements carry data-* attributes (data-panel, data-series, data-marker, data-time, data-value,
 * data-y-min/max, data-plot-box) so tests and tools can read the plot back without guessing at
 * colours or positions.
 */

/** One line of a panel: a value per frame of the document's `times`; null (or non-finite) leaves a gap. */
export interface PlotSeries {
  /** Stable key, written as data-series (e.g. `bone.tx`, `weight.walk`). */
  key: string;
  label: string;
  values: readonly (number | null)[];
  color?: string;
}

/** Isolated events of a panel (a pose-search switch and its cost): a dot and a label each. */
export interface PlotPoints {
  key: string;
  label: string;
  points: readonly { time: number; value: number; label?: string }[];
  color?: string;
  /** Hollow dots, for a secondary quantity (the runner-up's cost). */
  hollow?: boolean;
}

export interface PlotPanel {
  key: string;
  title: string;
  /** The value axis label (units). */
  unit: string;
  series: readonly PlotSeries[];
  points?: readonly PlotPoints[];
  /** A fixed value range (weights: [0, 1]); otherwise fitted to the data. */
  range?: readonly [number, number];
  /** Shown in the panel when it has nothing to draw. */
  emptyNote?: string;
  /** Height of the plot area in pixels (default 130; grown to fit the legend). */
  height?: number;
}

/** A vertical dashed line through every panel (a parameter change), labelled above the first panel. */
export interface PlotMarker {
  time: number;
  label: string;
}

export interface PlotDocument {
  title: string;
  subtitle?: string;
  /** Seconds of each sample; every series has one value per entry. */
  times: readonly number[];
  panels: readonly PlotPanel[];
  markers?: readonly PlotMarker[];
}

const WIDTH = 1000;
const PLOT_LEFT = 80;
const PLOT_RIGHT = 760;
const LEGEND_X = PLOT_RIGHT + 20;
const LEGEND_ROW = 15;
const MIN_PANEL_HEIGHT = 130;
const PANEL_TITLE = 22;
const PANEL_GAP = 36;
const MARKER_ROW = 14;
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
/** After the palette's ten colours the series repeat them with these dashes. */
const DASHES = ['', '6 3', '2 2', '8 3 2 3'];

/** Escapes text for XML character data and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;'))
    // Characters XML 1.0 forbids outright (control characters other than tab, newline, return).
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd');
}

/** Fixed-decimal printing without `-0.00`. */
export function fixed(value: number, decimals: number): string {
  const text = value.toFixed(decimals);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** A "nice" tick step (1, 2, 2.5 or 5 times a power of ten) near span / count. */
export function niceStep(span: number, count: number): number {
  const raw = span / count;
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / magnitude;
  const nice = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
  return nice * magnitude;
}

/** Decimals that print every multiple of `step` exactly (0.25 → 2, 5 → 0). */
export function stepDecimals(step: number): number {
  for (let d = 0; d < 10; d++) {
    const scaled = step * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
  }
  return 10;
}

interface Axis { min: number; max: number; step: number; decimals: number }

/** A value axis covering [lo, hi] rounded out to whole tick steps; a flat or empty range is widened. */
function valueAxis(lo: number, hi: number, fixedRange?: readonly [number, number]): Axis {
  if (fixedRange) {
    const step = niceStep(fixedRange[1] - fixedRange[0], 4);
    return { min: fixedRange[0], max: fixedRange[1], step, decimals: stepDecimals(step) };
  }
  if (!(lo <= hi)) { lo = 0; hi = 1; }
  if (hi - lo <= 1e-9 * Math.max(1, Math.abs(hi))) {
    const pad = Math.abs(hi) > 0 ? Math.abs(hi) * 0.1 : 1;
    lo -= pad; hi += pad;
  }
  // Spans below a thousandth of the values' size (rounding noise on a bone that root motion keeps
  // in place) are widened to that, so a flat line reads as flat rather than as noise in 8 decimals.
  const minSpan = 1e-3 * Math.max(1, Math.abs(lo), Math.abs(hi));
  if (hi - lo < minSpan) {
    const mid = (lo + hi) / 2;
    lo = mid - minSpan / 2; hi = mid + minSpan / 2;
  }
  const step = niceStep(hi - lo, 4);
  return { min: Math.floor(lo / step + 1e-9) * step, max: Math.ceil(hi / step - 1e-9) * step, step, decimals: stepDecimals(step) };
}

/** Ticks k·step within [min, max], computed from integers so they do not drift. */
function ticks(axis: Axis): number[] {
  const out: number[] = [];
  const first = Math.ceil(axis.min / axis.step - 1e-9), last = Math.floor(axis.max / axis.step + 1e-9);
  for (let k = first; k <= last; k++) out.push(k * axis.step);
  return out;
}

const px = (v: number) => fixed(v, 2);

/** Label widths for stacking marker labels: an estimate at 11 px sans-serif. */
const textWidth = (text: string) => text.length * 6.2;

/** A number as printed in a folded panel: at most 6 decimals, trailing zeros dropped (0, 95, 0.25). */
export function shortNumber(value: number): string {
  const text = fixed(value, 6);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/**
 * Each series' value when every series of the panel is constant over the run (its finite values
 * all equal its first, to 1e-9 of its size) and the panel has no points; otherwise undefined.
 * Such a panel is folded into a line of text: a flat line in a full panel says no more and takes
 * the room of one that does.
 */
export function constantSeries(panel: PlotPanel): number[] | undefined {
  if (panel.series.length === 0 || (panel.points ?? []).some((p) => p.points.length > 0)) return undefined;
  const values: number[] = [];
  for (const s of panel.series) {
    const finite = s.values.filter((v): v is number => v !== null && Number.isFinite(v));
    if (finite.length === 0) return undefined;
    const first = finite[0];
    if (finite.some((v) => Math.abs(v - first) > 1e-9 * Math.max(1, Math.abs(first)))) return undefined;
    values.push(first);
  }
  return values;
}

/**
 * For each series of a panel, the earlier series it equals on every frame (its index), or -1. A
 * series drawn exactly over another would hide it: it is drawn dashed over the first instead, so
 * both colours show, and its legend says which it equals.
 */
export function sameAsEarlier(series: readonly PlotSeries[]): number[] {
  const same = series.map(() => -1);
  series.forEach((s, i) => {
    for (let j = 0; j < i && same[i] < 0; j++) {
      if (same[j] < 0 && s.values.length === series[j].values.length && s.values.every((v, f) => v === series[j].values[f]) && s.values.some((v) => v !== null)) same[i] = j;
    }
  });
  return same;
}

const FOLDED_ROW = 16;

export function renderPlotSvg(doc: PlotDocument): string {
  const times = doc.times;
  const t0 = times.length > 0 ? times[0] : 0;
  const tLast = times.length > 0 ? times[times.length - 1] : 0;
  const t1 = tLast > t0 ? tLast : t0 + 1;
  const timeStep = niceStep(t1 - t0, 8);
  const timeAxis: Axis = { min: t0, max: t1, step: timeStep, decimals: stepDecimals(timeStep) };
  const xOf = (t: number) => PLOT_LEFT + ((t - t0) / (t1 - t0)) * (PLOT_RIGHT - PLOT_LEFT);

  // Marker labels go in rows above the first panel: each takes the first row where it does not
  // overlap the label before it.
  const markers = [...(doc.markers ?? [])].filter((m) => m.time >= t0 - 1e-9 && m.time <= t1 + 1e-9)
    .map((m, i) => ({ ...m, i })).sort((a, b) => a.time - b.time || a.i - b.i);
  const rowEnds: number[] = [];
  const placed = markers.map((m) => {
    const x = xOf(m.time);
    let row = rowEnds.findIndex((end) => end < x - 2);
    if (row < 0) { row = rowEnds.length; rowEnds.push(0); }
    rowEnds[row] = x + 3 + textWidth(m.label);
    return { ...m, x, row };
  });

  const out: string[] = [];
  let y = doc.subtitle ? 58 : 40;
  const markerBand = rowEnds.length * MARKER_ROW;
  y += markerBand;
  const markerLabelBase = y;
  const body: string[] = [];

  const constants = doc.panels.map(constantSeries);
  // The time axis title goes under the last panel drawn as a plot (folded ones have no time axis).
  const lastPlotted = constants.reduce((last, c, i) => (c === undefined ? i : last), -1);
  doc.panels.forEach((panel, panelIndex) => {
    const constant = constants[panelIndex];
    if (constant !== undefined) {
      const g: string[] = [`<g data-panel="${escapeXml(panel.key)}" data-constant="true">`];
      panel.series.forEach((s, i) => {
        const text = panel.series.length === 1 ? `${panel.title}: constant ${shortNumber(constant[i])} ${panel.unit}`
          : `${panel.title}, ${s.label}: constant ${shortNumber(constant[i])} ${panel.unit}`;
        g.push(`<text data-series="${escapeXml(s.key)}" data-value="${fixed(constant[i], 6)}" x="${PLOT_LEFT}" y="${px(y + 12 + i * FOLDED_ROW)}" fill="#555">${escapeXml(text)}</text>`);
      });
      g.push('</g>');
      body.push(...g);
      y += panel.series.length * FOLDED_ROW + 8;
      return;
    }
    const same = sameAsEarlier(panel.series);
    const legendRows = panel.series.length + same.filter((j) => j >= 0).length + (panel.points?.length ?? 0);
    const height = Math.max(panel.height ?? MIN_PANEL_HEIGHT, legendRows * LEGEND_ROW + 10);
    const top = y + PANEL_TITLE, bottom = top + height;
    let lo = Infinity, hi = -Infinity;
    for (const s of panel.series) for (const v of s.values) if (v !== null && Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    for (const p of panel.points ?? []) for (const q of p.points) if (Number.isFinite(q.value)) { lo = Math.min(lo, q.value); hi = Math.max(hi, q.value); }
    const axis = valueAxis(lo, hi, panel.range);
    const yOf = (v: number) => bottom - ((v - axis.min) / (axis.max - axis.min)) * height;
    const g: string[] = [];
    g.push(`<g data-panel="${escapeXml(panel.key)}" data-y-min="${fixed(axis.min, 6)}" data-y-max="${fixed(axis.max, 6)}" `
      + `data-plot-box="${PLOT_LEFT} ${px(top)} ${PLOT_RIGHT - PLOT_LEFT} ${px(height)}">`);
    g.push(`<text x="${PLOT_LEFT}" y="${px(top - 7)}" font-weight="bold">${escapeXml(panel.title)}</text>`);
    g.push(`<rect x="${PLOT_LEFT}" y="${px(top)}" width="${PLOT_RIGHT - PLOT_LEFT}" height="${px(height)}" fill="#fcfcfc" stroke="#999"/>`);
    // Value axis: grid lines, ticks, labels, unit.
    for (const v of ticks(axis)) {
      const yy = px(yOf(v));
      g.push(`<line x1="${PLOT_LEFT}" y1="${yy}" x2="${PLOT_RIGHT}" y2="${yy}" stroke="#e4e4e4"/>`);
      g.push(`<line x1="${PLOT_LEFT - 4}" y1="${yy}" x2="${PLOT_LEFT}" y2="${yy}" stroke="#666"/>`);
      g.push(`<text x="${PLOT_LEFT - 6}" y="${yy}" text-anchor="end" dominant-baseline="middle">${fixed(v, axis.decimals)}</text>`);
    }
    const unitY = px((top + bottom) / 2);
    g.push(`<text x="16" y="${unitY}" text-anchor="middle" transform="rotate(-90 16 ${unitY})">${escapeXml(panel.unit)}</text>`);
    // Time axis on every panel (they share it), its title under the last one.
    for (const t of ticks(timeAxis)) {
      const xx = px(xOf(t));
      g.push(`<line x1="${xx}" y1="${px(top)}" x2="${xx}" y2="${px(bottom)}" stroke="#efefef"/>`);
      g.push(`<line x1="${xx}" y1="${px(bottom)}" x2="${xx}" y2="${px(bottom + 4)}" stroke="#666"/>`);
      g.push(`<text x="${xx}" y="${px(bottom + 15)}" text-anchor="middle">${fixed(t, timeAxis.decimals)}</text>`);
    }
    if (panelIndex === lastPlotted) {
      g.push(`<text x="${px((PLOT_LEFT + PLOT_RIGHT) / 2)}" y="${px(bottom + 30)}" text-anchor="middle">time (s)</text>`);
    }
    for (const m of placed) {
      g.push(`<line data-marker="${escapeXml(m.label)}" data-time="${fixed(m.time, 6)}" x1="${px(m.x)}" y1="${px(top)}" x2="${px(m.x)}" y2="${px(bottom)}" `
        + 'stroke="#444" stroke-dasharray="4 3"/>');
    }
    // Series, split at gaps; each run of finite values is one polyline (a lone value a dot). A
    // series equal to an earlier one on every frame is dashed over it: with n equal series, the
    // k-th later one draws the k-th of every n dashes, and the first shows in the gaps.
    const dashOf = (i: number): { dash: string; offset: number } => {
      if (same[i] < 0) return { dash: panel.series[i].color ? '' : DASHES[Math.floor(i / PALETTE.length) % DASHES.length], offset: 0 };
      const group = same.filter((j) => j === same[i]).length + 1;
      const k = same.slice(0, i + 1).filter((j) => j === same[i]).length;
      return { dash: `6 ${6 * (group - 1)}`, offset: -6 * k };
    };
    panel.series.forEach((s, i) => {
      const color = s.color ?? PALETTE[i % PALETTE.length];
      const { dash, offset } = dashOf(i);
      const dashAttr = dash ? ` stroke-dasharray="${dash}"${offset !== 0 ? ` stroke-dashoffset="${offset}"` : ''}` : '';
      let run: string[] = [];
      const flush = () => {
        if (run.length === 1) {
          const [cx, cy] = run[0].split(',');
          g.push(`<circle data-series="${escapeXml(s.key)}" cx="${cx}" cy="${cy}" r="1.5" fill="${color}"/>`);
        } else if (run.length > 1) {
          g.push(`<polyline data-series="${escapeXml(s.key)}" fill="none" stroke="${color}" stroke-width="1.5"${dashAttr} points="${run.join(' ')}"/>`);
        }
        run = [];
      };
      for (let f = 0; f < times.length; f++) {
        const v = s.values[f];
        if (v === null || v === undefined || !Number.isFinite(v)) flush();
        else run.push(`${px(xOf(times[f]))},${px(yOf(v))}`);
      }
      flush();
    });
    (panel.points ?? []).forEach((p, i) => {
      const color = p.color ?? PALETTE[(panel.series.length + i) % PALETTE.length];
      for (const q of p.points) {
        const cx = px(xOf(q.time)), cy = px(yOf(q.value));
        g.push(`<circle data-series="${escapeXml(p.key)}" data-time="${fixed(q.time, 6)}" data-value="${fixed(q.value, 6)}" cx="${cx}" cy="${cy}" r="3.5" `
          + (p.hollow ? `fill="white" stroke="${color}" stroke-width="1.5"/>` : `fill="${color}"/>`));
        if (q.label) g.push(`<text x="${px(xOf(q.time) + 5)}" y="${px(yOf(q.value) - 5)}" fill="${color}">${escapeXml(q.label)}</text>`);
      }
    });
    if (panel.emptyNote && panel.series.length === 0 && (panel.points ?? []).every((p) => p.points.length === 0)) {
      g.push(`<text x="${px((PLOT_LEFT + PLOT_RIGHT) / 2)}" y="${px((top + bottom) / 2)}" text-anchor="middle" fill="#888">${escapeXml(panel.emptyNote)}</text>`);
    }
    // Legend, one row per series then per point set.
    let row = 0;
    panel.series.forEach((s, i) => {
      const color = s.color ?? PALETTE[i % PALETTE.length];
      const { dash } = dashOf(i);
      const ly = px(top + 10 + row++ * LEGEND_ROW);
      g.push(`<line x1="${LEGEND_X}" y1="${ly}" x2="${LEGEND_X + 18}" y2="${ly}" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`);
      g.push(`<text x="${LEGEND_X + 24}" y="${ly}" dominant-baseline="middle">${escapeXml(s.label)}</text>`);
      // A series drawn dashed over an equal one says so on a row of its own (the legend is narrow).
      if (same[i] >= 0) {
        g.push(`<text x="${LEGEND_X + 24}" y="${px(top + 10 + row++ * LEGEND_ROW)}" dominant-baseline="middle" fill="#555">${escapeXml(`(same as ${panel.series[same[i]].label})`)}</text>`);
      }
    });
    (panel.points ?? []).forEach((p, i) => {
      const color = p.color ?? PALETTE[(panel.series.length + i) % PALETTE.length];
      const ly = px(top + 10 + row++ * LEGEND_ROW);
      g.push(`<circle cx="${LEGEND_X + 9}" cy="${ly}" r="3.5" ${p.hollow ? `fill="white" stroke="${color}" stroke-width="1.5"` : `fill="${color}"`}/>`);
      g.push(`<text x="${LEGEND_X + 24}" y="${ly}" dominant-baseline="middle">${escapeXml(p.label)}</text>`);
    });
    g.push('</g>');
    body.push(...g);
    y = bottom + PANEL_GAP;
  });

  const height = Math.ceil(y + 4);
  out.push('<?xml version="1.0" encoding="UTF-8"?>');
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" `
    + 'font-family="Helvetica, Arial, sans-serif" font-size="11">');
  out.push(`<title>${escapeXml(doc.title)}</title>`);
  out.push(`<rect width="${WIDTH}" height="${height}" fill="white"/>`);
  out.push(`<text x="${PLOT_LEFT}" y="22" font-size="15" font-weight="bold">${escapeXml(doc.title)}</text>`);
  if (doc.subtitle) out.push(`<text x="${PLOT_LEFT}" y="40" fill="#555">${escapeXml(doc.subtitle)}</text>`);
  for (const m of placed) {
    out.push(`<text data-marker-label="${escapeXml(m.label)}" x="${px(m.x + 3)}" y="${px(markerLabelBase - 4 - m.row * MARKER_ROW)}" fill="#444">${escapeXml(m.label)}</text>`);
  }
  out.push(...body);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
