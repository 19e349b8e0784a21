import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { defaultPlotBone, quatToEulerDegrees, recordPlot, unwrapDegrees } from '../../cli/plot.ts';
import { constantSeries, escapeXml, renderPlotSvg, sameAsEarlier, shortNumber, type PlotDocument } from '../../cli/plot-svg.ts';
import { loadGraphFile } from '../../host/files.ts';
import type { DebugNode } from '../../runtime/node/node.ts';
import { runGraph } from '../../host/runner.ts';
import { describeWithData } from '../support/shared-data.ts';
import { allElements, parseXml, XmlError, type XmlElement } from '../support/xml.ts';

const root = new URL('../../', import.meta.url).pathname;
const sample = `${root}graphs/examples/sample-locomotion.json`;
const inertial = `${root}graphs/examples/sample-inertial.json`;

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const io: Io = { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false };
  const code = await main(args, io);
  return { code, out, err };
}

const tmp = () => mkdtempSync(join(tmpdir(), 'animgraph-plot-'));

async function plot(...args: string[]): Promise<{ svg: string; tree: XmlElement; out: string }> {
  const file = join(tmp(), 'plot.svg');
  const { code, out, err } = await cli('plot', ...args, '--out', file);
  expect(err).toBe('');
  expect(code).toBe(0);
  const svg = readFileSync(file, 'utf8');
  return { svg, tree: parseXml(svg), out };
}

/** The panel holding a series, and the value its polyline draws at `frame`, read back from the pixels. */
function plotted(tree: XmlElement, series: string, frame: number): { value: number; x: number; resolution: number } {
  const panel = allElements(tree).find((e) => e.attributes['data-panel'] !== undefined
    && e.children.some((c) => c.attributes['data-series'] === series));
  if (!panel) throw new Error(`no panel draws ${series}`);
  const line = panel.children.find((c) => c.name === 'polyline' && c.attributes['data-series'] === series)!;
  const [, top, , height] = panel.attributes['data-plot-box'].split(' ').map(Number);
  const min = Number(panel.attributes['data-y-min']), max = Number(panel.attributes['data-y-max']);
  const [x, y] = line.attributes.points.split(' ')[frame].split(',').map(Number);
  // Pixels are printed to 0.01: the value is known to half of that, scaled to the axis.
  return { value: min + ((top + height - y) / height) * (max - min), x, resolution: (0.006 / height) * (max - min) };
}

const seriesKeys = (tree: XmlElement) => new Set(allElements(tree).map((e) => e.attributes['data-series']).filter((k) => k !== undefined));

function findNode(tree: DebugNode, id: string): DebugNode | undefined {
  if (tree.id === id) return tree;
  for (const child of tree.children) {
    const found = findNode(child, id);
    if (found) return found;
  }
  return undefined;
}

describe('animgraph plot on the sample locomotion graph', () => {
  it('writes a well-formed SVG with the bone channels, every node weight and the gait marker', async () => {
    const { tree, out } = await plot(sample, '--seconds', '1', '--set', 'gait=2@0.5');
    expect(out).toMatch(/^wrote .*plot\.svg: \d+ panels, \d+ series, 31 frames\n$/);
    expect(tree.name).toBe('svg');
    expect(tree.attributes.xmlns).toBe('http://www.w3.org/2000/svg');
    const keys = seriesKeys(tree);
    for (const k of ['bone.tx', 'bone.ty', 'bone.tz', 'bone.rx', 'bone.ry', 'bone.rz']) expect(keys).toContain(k);
    for (const id of ['headFollowsHand', 'locomotion', 'idle', 'walk', 'run']) expect(keys).toContain(`weight.${id}`);
    expect(keys).not.toContain('weight.output');
    // No inertializing, stride-warping or pose-search node: no panel for them.
    expect([...keys].filter((k) => /^(inertial|stride|poseSearch)\./.test(k))).toEqual([]);
    const marker = allElements(tree).filter((e) => e.attributes['data-marker'] === 'gait=2');
    expect(marker.length).toBeGreaterThanOrEqual(3); // one dashed line per panel
    expect(marker.every((e) => e.attributes['data-time'] === '0.500000' && e.attributes['stroke-dasharray'])).toBe(true);
    expect(allElements(tree).find((e) => e.attributes['data-marker-label'] === 'gait=2')?.text).toBe('gait=2');
    // The marker is where the polylines have frame 15 (0.5 s).
    expect(Number(marker[0].attributes.x1)).toBeCloseTo(plotted(tree, 'weight.run', 15).x, 2);
    expect(tree.children.find((e) => e.name === 'title')?.text).toBe('Sample locomotion');
  });

  it('draws the numbers runGraph computes: pelvis height, and run at a third of the weight 1/30 s after the switch', async () => {
    const { tree } = await plot(sample, '--seconds', '1', '--set', 'gait=2@0.5');
    const result = runGraph(loadGraphFile(sample), { seconds: 1, timeline: [{ name: 'gait', value: 2, time: 0.5 }] });
    const pelvis = result.bones.indexOf('pelvis');
    expect(defaultPlotBone(result.bones)).toBe(pelvis);
    for (const frame of [0, 10, 20, 30]) {
      const height = plotted(tree, 'bone.ty', frame);
      expect(Math.abs(height.value - result.frames[frame].component![pelvis][1])).toBeLessThan(height.resolution);
    }
    // 0.5 s: gait 2 requested; the blend has run 1/30 of its 0.2 s at frame 15, 2/30 at frame 16.
    const run16 = plotted(tree, 'weight.run', 16);
    expect(Math.abs(run16.value - 1 / 3)).toBeLessThan(run16.resolution);
    expect(findNode(result.frames[16].debug!, 'run')!.weight).toBeCloseTo(1 / 3, 12);
    expect(plotted(tree, 'weight.run', 14).value).toBe(0);
    expect(Math.abs(plotted(tree, 'weight.walk', 16).value - 2 / 3)).toBeLessThan(run16.resolution);
  });

  it('gives rotations as Euler angles that rebuild the pose quaternion (q = qz·qy·qx), local space when asked', () => {
    const graph = loadGraphFile(sample);
    const timeline = [{ name: 'gait', value: 2, time: 0.3 }];
    const result = runGraph(graph, { seconds: 1, timeline });
    for (const space of ['component', 'local'] as const) {
      const doc = recordPlot(graph, { seconds: 1, timeline, bone: 'thigh_l', space });
      const thigh = result.bones.indexOf('thigh_l');
      const rotation = (axis: string) => doc.panels.find((p) => p.key === `bone.r${axis}`)!.series[0].values;
      const translation = doc.panels.find((p) => p.key === 'bone.tz')!.series[0].values;
      let turned = 0;
      for (const frame of [0, 12, 25]) {
        const row = result.frames[frame][space]![thigh];
        expect(translation[frame]).toBe(row[2]);
        const [ax, ay, az] = ['x', 'y', 'z'].map((a) => (rotation(a)[frame]! * Math.PI) / 360); // half angles
        // qz·qy·qx, multiplied out.
        const [cx, sx, cy, sy, cz, sz] = [Math.cos(ax), Math.sin(ax), Math.cos(ay), Math.sin(ay), Math.cos(az), Math.sin(az)];
        const q = [
          cz * cy * sx - sz * sy * cx,
          cz * sy * cx + sz * cy * sx,
          sz * cy * cx - cz * sy * sx,
          cz * cy * cx + sz * sy * sx,
        ];
        const sign = Math.sign(q[0] * row[3] + q[1] * row[4] + q[2] * row[5] + q[3] * row[6]);
        for (let k = 0; k < 4; k++) expect(q[k] * sign).toBeCloseTo(row[3 + k], 9);
        turned += Math.abs(rotation('x')[frame]!) + Math.abs(rotation('y')[frame]!) + Math.abs(rotation('z')[frame]!);
      }
      expect(turned).toBeGreaterThan(10); // the thigh swings: the check above compared real rotations
    }
  });

  it('unwraps angles across ±180° so a steady turn is a straight line', () => {
    // A turn about z through 179° then 181°, which atan2 gives as -179°: plotted as 181°.
    const out = [0, 0, 0];
    const h = (deg: number) => (deg * Math.PI) / 360;
    expect(quatToEulerDegrees(0, 0, Math.sin(h(179)), Math.cos(h(179)), out)[2]).toBeCloseTo(179, 9);
    const raw = quatToEulerDegrees(0, 0, Math.sin(h(181)), Math.cos(h(181)), out)[2];
    expect(raw).toBeCloseTo(-179, 9);
    expect(unwrapDegrees(raw, 179)).toBeCloseTo(181, 9);
    expect(unwrapDegrees(-170, 530)).toBeCloseTo(550, 9); // several turns on
    expect(unwrapDegrees(10, -5)).toBe(10);
  });

  it('is deterministic: the same run gives the same bytes', async () => {
    const a = await plot(sample, '--frames', '20', '--fps', '24', '--set', 'gait=1@0.2', '--set', 'speed=1.5@0.4');
    const b = await plot(sample, '--frames', '20', '--fps', '24', '--set', 'gait=1@0.2', '--set', 'speed=1.5@0.4');
    expect(a.svg).toBe(b.svg);
    expect(a.svg).not.toMatch(/NaN|Infinity|undefined|-0\.00\b/);
    expect(allElements(a.tree).filter((e) => e.attributes['data-marker-label']).map((e) => e.text)).toEqual(['gait=1', 'speed=1.5']);
  });

  it('plots the bone named by --bone, and lists the bones for an unknown one (exit 2)', async () => {
    const { tree } = await plot(sample, '--frames', '5', '--bone', 'hand_r');
    expect(allElements(tree).some((e) => e.name === 'text' && e.text === 'hand_r: translation y (component space)')).toBe(true);
    const bad = await cli('plot', sample, '--bone', 'tail', '--out', join(tmp(), 'x.svg'));
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--bone 'tail': no such bone (bones: root, pelvis,");
    expect(bad.err).toContain('hand_r');
  });
});

describe('animgraph plot: inertialization', () => {
  it('plots the time left in the InertialBlend transition from the switch frame', async () => {
    const { tree } = await plot(inertial, '--seconds', '1', '--set', 'running=true@0.5');
    expect(seriesKeys(tree)).toContain('inertial.gait.remaining');
    for (const id of ['gait', 'walk', 'run']) expect(seriesKeys(tree)).toContain(`weight.${id}`);
    // blendTime 0.3: the request's frame (0.5 s) is time 0 of the transition; it ends 0.3 s later.
    const expected: Record<number, number> = { 14: 0, 15: 0.3, 18: 0.2, 21: 0.1, 24: 0, 30: 0 };
    for (const [frame, left] of Object.entries(expected)) {
      const p = plotted(tree, 'inertial.gait.remaining', Number(frame));
      expect(Math.abs(p.value - left)).toBeLessThan(p.resolution);
    }
    const doc = recordPlot(loadGraphFile(inertial), { seconds: 1, timeline: [{ name: 'running', value: true, time: 0.5 }] });
    const remaining = doc.panels.find((p) => p.key === 'inertialization')!.series[0].values;
    expect(remaining[16]).toBeCloseTo(0.3 - 1 / 30, 12);
  });

  it('plots the largest inertialization offset over the bones, as the node reports it, decaying to 0', async () => {
    const { tree } = await plot(inertial, '--seconds', '1', '--set', 'running=true@0.5');
    expect(seriesKeys(tree)).toContain('offset.gait.translation');
    expect(seriesKeys(tree)).toContain('offset.gait.rotation');
    const doc = recordPlot(loadGraphFile(inertial), { seconds: 1, timeline: [{ name: 'running', value: true, time: 0.5 }] });
    const run = runGraph(loadGraphFile(inertial), { seconds: 1, timeline: [{ name: 'running', value: true, time: 0.5 }] });
    const rotation = doc.panels.find((p) => p.key === 'inertialOffsets')!.series.find((s) => s.key === 'offset.gait.rotation')!.values;
    const reported = (f: number) => run.frames[f].debug!.children[0].values!.offsetRotation as number;
    expect(rotation[14]).toBe(0);
    expect(rotation[15]).toBeGreaterThan(1); // the walk and the run differ by degrees at the switch
    for (const f of [15, 17, 20]) expect(rotation[f]).toBe(reported(f));
    expect(rotation[24]).toBe(0);
  });
});

describe('animgraph plot: errors', () => {
  it('needs --out (exit 2)', async () => {
    const { code, err } = await cli('plot', sample);
    expect(code).toBe(2);
    expect(err).toContain('animgraph plot: needs --out FILE.svg');
  });

  it('says which file it could not write (exit 3)', async () => {
    const file = join(tmp(), 'no-such-folder', 'plot.svg');
    const { code, err, out } = await cli('plot', sample, '--frames', '3', '--out', file);
    expect(code).toBe(3);
    // The one line every command prints (it said 'animgraph plot:' and named the file twice).
    expect(err).toBe(`animgraph: cannot write ${file}: ENOENT: no such file or directory\n`);
    expect(out).toBe('');
  });

  it('prints every graph problem with its JSON path (exit 1)', async () => {
    const dir = tmp();
    const bad = JSON.parse(readFileSync(sample, 'utf8'));
    bad.nodes.walk.type = 'Walker';
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(bad));
    const { code, err } = await cli('plot', file, '--out', join(dir, 'bad.svg'));
    expect(code).toBe(1);
    expect(err).toContain("$.nodes.walk.type: unknown node type 'Walker'");
  });

  it('rejects bad options as run does (exit 2)', async () => {
    const out = join(tmp(), 'x.svg');
    expect((await cli('plot', sample, '--out', out, '--set', 'pace=1')).err).toContain("unknown parameter 'pace'");
    expect((await cli('plot', sample, '--out', out, '--frames', '3', '--seconds', '1')).code).toBe(2);
    expect((await cli('plot', sample, '--out', out, '--space', 'world')).err).toContain("--space takes 'component' or 'local'");
    expect((await cli('plot', sample, '--out', out, '--fps', '0')).code).toBe(2);
  });
});

describe('the committed example plot', () => {
  it('is what the command in docs/cli.md writes today', async () => {
    const { svg } = await plot(sample, '--seconds', '1.5', '--set', 'gait=2@0.5', '--set', 'gait=0@1');
    expect(readFileSync(`${root}docs/plot-sample-locomotion.svg`, 'utf8')).toBe(svg);
    expect(readFileSync(`${root}docs/cli.md`, 'utf8')).toContain('--seconds 1.5 --set gait=2@0.5 --set gait=0@1 --out plot.svg');
  });

  it('comes from a renderer with no Node imports (it can run in a browser)', () => {
    expect(readFileSync(`${root}cli/plot-svg.ts`, 'utf8')).not.toMatch(/from\s+['"](node:|fs|path)/);
  });
});

describe('renderPlotSvg', () => {
  const doc = (over: Partial<PlotDocument> = {}): PlotDocument => ({
    title: 'A & B <graph>',
    times: [0, 0.1, 0.2, 0.3],
    panels: [{
      key: 'p"1', title: 'weights of "a<b>" & \'c\'', unit: 'w',
      series: [{ key: 'weight.a<b>&"c"', label: 'a<b> & "c"', values: [0, 0.5, null, 1] }],
    }],
    markers: [{ time: 0.1, label: 'mode=<1>' }, { time: 0.1, label: 'x&y=2' }, { time: 9, label: 'after the end' }],
    ...over,
  });

  it('escapes ids and labels, and splits a series at gaps', () => {
    const tree = parseXml(renderPlotSvg(doc()));
    const all = allElements(tree);
    const lines = all.filter((e) => e.attributes['data-series'] === 'weight.a<b>&"c"');
    // Frames 0-1 are a polyline; frame 3 alone is a dot.
    expect(lines.map((e) => e.name)).toEqual(['polyline', 'circle']);
    expect(lines[0].attributes.points.split(' ')).toHaveLength(2);
    expect(all.find((e) => e.attributes['data-panel'])?.attributes['data-panel']).toBe('p"1');
    expect(all.some((e) => e.text === 'a<b> & "c"')).toBe(true);
    // Markers at the same time stack in two label rows; one past the end is left out.
    const labels = all.filter((e) => e.attributes['data-marker-label']);
    expect(labels.map((e) => e.text)).toEqual(['mode=<1>', 'x&y=2']);
    expect(labels[0].attributes.y).not.toBe(labels[1].attributes.y);
    expect(escapeXml('\u0001<')).toBe('\ufffd&lt;');
  });

  it('draws a single frame, a flat series and a panel with nothing in it without NaN', () => {
    for (const d of [
      doc({ times: [0], panels: [{ key: 'flat', title: 't', unit: 'u', series: [{ key: 's', label: 's', values: [5] }] }] }),
      doc({ panels: [{ key: 'flat', title: 't', unit: 'u', series: [{ key: 's', label: 's', values: [0, 0, 0, 0] }] }] }),
      doc({ panels: [{ key: 'empty', title: 't', unit: 'u', series: [], points: [{ key: 'c', label: 'c', points: [] }], emptyNote: 'no switch' }] }),
    ]) {
      const svg = renderPlotSvg(d);
      expect(svg).not.toMatch(/NaN|Infinity/);
      parseXml(svg);
    }
    expect(renderPlotSvg(doc({ panels: [{ key: 'e', title: 't', unit: 'u', series: [], emptyNote: 'no switch' }] }))).toContain('>no switch</text>');
  });

  it('the test parser rejects what is not well-formed', () => {
    for (const bad of ['<a><b></a></b>', '<a x=1/>', '<a x="1" x="2"/>', '<a>&nbsp;</a>', '<a>A & B</a>', '<a/><b/>', '<a x="<"/>', '<a>']) {
      expect(() => parseXml(bad), bad).toThrow(XmlError);
    }
    expect(parseXml('<?xml version="1.0"?>\n<a x="&amp;&#60;"><b>t&lt;</b></a>\n').children[0].text).toBe('t<');
  });
});

describeWithData('animgraph plot on CMU data', () => {
  it('marks each pose-search switch with the cost runGraph reports, and the clips\' shares', async () => {
    const file = `${root}graphs/examples/cmu-pose-search.json`;
    const { tree } = await plot(file, '--seconds', '1.5', '--set', 'motion=2@1');
    const result = runGraph(loadGraphFile(file), { seconds: 1.5, timeline: [{ name: 'motion', value: 2, time: 1 }] });
    const values = findNode(result.frames[30].debug!, 'locomotion')!.values!;
    expect(values.motion).toBe(2);
    const cost = values.matchCost as number;
    expect(cost).toBeGreaterThan(0);
    const dots = allElements(tree).filter((e) => e.attributes['data-series'] === 'poseSearch.locomotion.cost');
    expect(dots).toHaveLength(1);
    expect(dots[0].attributes['data-time']).toBe('1.000000');
    expect(Number(dots[0].attributes['data-value'])).toBeCloseTo(cost, 6);
    expect(allElements(tree).some((e) => e.text === `${cost.toFixed(3)} (motion 2)`)).toBe(true);
    const runnerUp = allElements(tree).filter((e) => e.attributes['data-series'] === 'poseSearch.locomotion.runnerUpCost');
    expect(Number(runnerUp[0].attributes['data-value'])).toBeCloseTo(values.runnerUpCost as number, 6);
    // The default bone is the hips; the crossfade moves weight from motion 0 to motion 2.
    expect(allElements(tree).some((e) => e.text === 'CC_Base_Hip: translation y (component space)')).toBe(true);
    const to2 = plotted(tree, 'weight.locomotion.motion2', 35);
    expect(Math.abs(to2.value - weightOf(findNode(result.frames[35].debug!, 'locomotion')!, 2))).toBeLessThan(to2.resolution);
    expect(weightOf(findNode(result.frames[35].debug!, 'locomotion')!, 2)).toBeGreaterThan(0.3);
    expect(plotted(tree, 'weight.locomotion.motion2', 29).value).toBe(0);
  });

  it('plots a StrideWarping node\'s stride scale', async () => {
    const file = `${root}graphs/examples/cmu-stride-warping.json`;
    const graph = loadGraphFile(file);
    const doc = recordPlot(graph, { frames: 10 });
    const result = runGraph(graph, { frames: 10 });
    const scale = doc.panels.find((p) => p.key === 'stride')!.series.find((s) => s.key === 'stride.warp.scale')!;
    expect(scale.values[9]).toBe(findNode(result.frames[9].debug!, 'warp')!.values!.strideScale);
  });

  it('plots the offset a StrideWarping node moves the pelvis by, as its debug tree reports it', async () => {
    const file = `${root}graphs/examples/cmu-stride-warping.json`;
    const timeline = [{ name: 'speed', value: 160, time: 0.5 }];
    const { tree } = await plot(file, '--seconds', '1.5', '--set', 'speed=160@0.5');
    const result = runGraph(loadGraphFile(file), { seconds: 1.5, timeline });
    const doc = recordPlot(loadGraphFile(file), { seconds: 1.5, timeline });
    const panel = doc.panels.find((p) => p.key === 'pelvisOffset')!;
    expect(panel.title).toBe('Stride warping: pelvis offset (component space, cm)');
    let lowest = 0;
    for (const f of [0, 20, 40]) {
      const offset = findNode(result.frames[f].debug!, 'warp')!.values!.pelvisOffset as number[];
      panel.series.forEach((s, k) => expect(s.values[f], s.key).toBe(offset[k]));
      lowest = Math.min(lowest, offset[1]);
      const drawn = plotted(tree, 'pelvisOffset.warp.y', f);
      expect(Math.abs(drawn.value - offset[1])).toBeLessThan(drawn.resolution);
    }
    expect(panel.series.map((s) => s.key)).toEqual(['pelvisOffset.warp.x', 'pelvisOffset.warp.y', 'pelvisOffset.warp.z']);
    expect(lowest).toBeLessThan(-1); // lowered once the speed goes up
  });
});

function weightOf(debug: DebugNode, motion: number): number {
  const v = debug.values!;
  const clips = v.clips as number[], weights = v.weights as number[];
  return clips.reduce((sum, m, i) => sum + (m === motion ? weights[i] : 0), 0) * debug.weight;
}

describe('animgraph plot: room for what moves', () => {
  const panelOf = (tree: XmlElement, key: string) => allElements(tree).find((e) => e.attributes['data-panel'] === key)!;

  it('folds a panel whose series are constant into a line saying so; those that move stay plots', async () => {
    const { tree } = await plot(sample, '--seconds', '1', '--set', 'gait=2@0.5');
    // The sample's pelvis moves only up and down and turns only about Y: four of its six channels are 0 throughout.
    const folded = allElements(tree).filter((e) => e.attributes['data-constant'] === 'true').map((e) => e.attributes['data-panel']);
    expect(folded).toEqual(['bone.tx', 'bone.tz', 'bone.rx', 'bone.rz']);
    const tx = panelOf(tree, 'bone.tx');
    expect(tx.children.map((c) => c.name)).toEqual(['text']);
    expect(tx.children[0]!.text).toBe('pelvis: translation x (component space): constant 0 cm');
    expect(tx.children[0]!.attributes['data-value']).toBe('0.000000');
    for (const key of ['bone.ty', 'bone.ry', 'weights']) expect(panelOf(tree, key).attributes['data-plot-box']).toBeDefined();
    // The time axis title is under the last plotted panel (weights), and the page is as tall as what it holds.
    const weightsBox = panelOf(tree, 'weights').attributes['data-plot-box']!.split(' ').map(Number);
    expect(Number(tree.attributes.height)).toBe(Math.ceil(weightsBox[1]! + weightsBox[3]! + 36 + 4));
    expect(Number(tree.attributes.height)).toBeLessThan(700); // six bone panels unfolded took over 1000
  });

  it('folds only what is constant to 1e-9 of its size, and says each value', () => {
    const doc = (values: (number | null)[][], unit = 'cm'): PlotDocument => ({
      title: 't', times: [0, 1, 2, 3],
      panels: [{ key: 'p', title: 'P', unit, series: values.map((v, i) => ({ key: `s${i}`, label: `S${i}`, values: v })) }],
    });
    const folded = (d: PlotDocument) => allElements(parseXml(renderPlotSvg(d))).filter((e) => e.attributes['data-constant'] === 'true').length === 1;
    expect(folded(doc([[95, 95, null, 95 + 9e-8]]))).toBe(true);
    expect(folded(doc([[95, 95, 95, 95 + 2e-7]]))).toBe(false);
    expect(folded(doc([[0, 0, 0, 1e-6]]))).toBe(false);
    expect(folded(doc([[null, null, null, null]]))).toBe(false);
    const two = allElements(parseXml(renderPlotSvg(doc([[1, 1, 1, 1], [0.25, 0.25, 0.25, 0.25]], 'weight')))).filter((e) => e.attributes['data-series']);
    expect(two.map((e) => e.text)).toEqual(['P, S0: constant 1 weight', 'P, S1: constant 0.25 weight']);
    expect(shortNumber(100)).toBe('100');
    expect(shortNumber(-0.5)).toBe('-0.5');
    expect(constantSeries({ key: 'k', title: 't', unit: 'u', series: [], points: [{ key: 'c', label: 'c', points: [{ time: 0, value: 1 }] }] })).toBeUndefined();
  });

  it('names rotation channels by axis only (which is roll, pitch or yaw depends on the skeleton)', () => {
    const doc = recordPlot(loadGraphFile(sample), { frames: 2 });
    const labels = doc.panels.filter((p) => p.key.startsWith('bone.r')).map((p) => p.series[0]!.label);
    expect(labels).toEqual(['pelvis rotation x', 'pelvis rotation y', 'pelvis rotation z']);
  });

  it('draws a weight line equal to another on every frame dashed over it, and says so in the legend', async () => {
    const { tree } = await plot(sample, '--seconds', '1', '--set', 'gait=2@0.5');
    // CopyBone headFollowsHand and BlendList locomotion both stay at weight 1.
    const line = (key: string) => allElements(tree).find((e) => e.name === 'polyline' && e.attributes['data-series'] === key)!;
    expect(line('weight.headFollowsHand').attributes['stroke-dasharray']).toBeUndefined();
    expect(line('weight.locomotion').attributes['stroke-dasharray']).toBe('6 6');
    expect(line('weight.locomotion').attributes['stroke-dashoffset']).toBe('-6');
    expect(line('weight.locomotion').attributes.points).toBe(line('weight.headFollowsHand').attributes.points);
    expect(line('weight.idle').attributes['stroke-dasharray']).toBeUndefined(); // equal to others on some frames only
    expect(allElements(tree).some((e) => e.text === '(same as headFollowsHand (CopyBone))')).toBe(true);
    // Three equal lines: the second and third each take one dash in three, the first shows in the rest.
    const three = (v: number[]) => ({ key: `k${v.length}`, label: 'x', values: v });
    expect(sameAsEarlier([three([1, 2]), three([0, 0]), three([1, 2]), three([1, 2])])).toEqual([-1, -1, 0, 0]);
    const svg = parseXml(renderPlotSvg({ title: 't', times: [0, 1], panels: [{ key: 'p', title: 'P', unit: 'u', series: [
      { key: 'a', label: 'A', values: [0, 1] }, { key: 'b', label: 'B', values: [0, 1] }, { key: 'c', label: 'C', values: [0, 1] }] }] }));
    const dashes = ['a', 'b', 'c'].map((k) => allElements(svg).find((e) => e.attributes['data-series'] === k)!.attributes);
    expect(dashes.map((d) => [d['stroke-dasharray'], d['stroke-dashoffset']])).toEqual([[undefined, undefined], ['6 12', '-6'], ['6 12', '-12']]);
  });
});
