/**
 * The editor page in headless Chromium (Debian's chromium driven by playwright-core, as the
 * viewer's tests): the page the build bundles, served by the edit server, drawing, editing,
 * checking, playing and saving graphs. Screenshots go to out/editor/.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkGraphAsset } from '../../graphs/loader.ts';
import { startEditServer } from '../../cli/edit-server.ts';
import type { PageAssets } from '../../cli/local-server.ts';
import { collectErrors, describeWithBrowser, editorAssets, launchBrowser, type Browser } from '../support/browser.ts';
import { cliArgs } from '../support/compiled-sources.ts';
import { examplesWithDistinctStateMachines } from '../support/example-instances.ts';
import { STRESS, stress } from '../support/stress.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(root, 'out', 'editor');
const EXAMPLES = join(root, 'graphs', 'examples');
const FIXTURE = join(root, 'tests/editor/fixtures/custom-nodes.mjs');

interface EditorState {
  status: string; canvas: string[]; nodes: number; edges: number; loads: boolean; installs: number; frame: number; firstPaint: number;
  timings: { script: number; graph: number };
  notice: string; saves: number; dirty: boolean; weights: Record<string, number>; weightsFrame: number; bones: string[];
  problems: { path: string; code: string; message: string }[];
  lastEdit: null | { atFrame: number; firstFrame: number; debugText: string };
}
const editorState = (page: Page) => page.evaluate(() => (window as unknown as { __animgraphEditor: EditorState }).__animgraphEditor);
/** Waits until `test` (an expression of the page's state `s` and `arg`) holds; a timeout says what the state was. */
async function waitFor(page: Page, test: string, arg?: unknown, timeout = 20000): Promise<void> {
  try {
    await page.waitForFunction(`((s, arg) => ${test})(window.__animgraphEditor, ${JSON.stringify(arg ?? null)})`, null, { timeout });
  } catch (e) {
    const state = await editorState(page).catch(() => undefined);
    throw new Error(`waiting for ${test}: ${(e as Error).message.split('\n')[0]}\nstate: ${JSON.stringify({ ...state, weights: undefined })}`);
  }
}

/** Presses Step `count` times, each time waiting for the paused preview to show the next frame. */
async function step(page: Page, count = 1): Promise<void> {
  for (let i = 0; i < count; i++) {
    const before = (await editorState(page)).frame;
    await page.locator('#step').click();
    await waitFor(page, 's.frame > arg', before);
  }
}

type Obj = Record<string, any>;

/** `text` written as `name` in a fresh folder: the graph file a page test opens, edits and saves. */
function graphFile(name: string, text: string): string {
  const graph = join(mkdtempSync(join(tmpdir(), 'animgraph-edit-page-')), name);
  writeFileSync(graph, text);
  return graph;
}

/** What a graph canvas of `nodes` and `output` holds, counted from the asset: nodes (and the output node) and links. */
function graphCounts(nodes: Obj, output: unknown): { nodes: number; edges: number } {
  const ids = new Set(Object.keys(nodes));
  let edges = typeof output === 'string' && ids.has(output) ? 1 : 0;
  for (const node of Object.values(nodes)) {
    for (const value of Object.values((node.inputs ?? {}) as Obj)) {
      for (const source of Array.isArray(value) ? value : [value]) if (typeof source === 'string' && ids.has(source)) edges++;
    }
    if (node.type === 'UseCachedPose' && ids.has(node.properties?.cache)) edges++;
  }
  return { nodes: ids.size + 1, edges };
}

/** A machine canvas: its states with the entry and any-state markers; its transitions and the entry's wire. */
function machineCounts(properties: Obj): { nodes: number; edges: number } {
  const states = Object.keys(properties.states ?? {});
  const transitions = (properties.transitions ?? []).filter((t: Obj) => (t.from === '*' || states.includes(t.from)) && states.includes(t.to));
  return { nodes: states.length + 2, edges: transitions.length + (states.includes(properties.entry) ? 1 : 0) };
}

const drawn = (page: Page) => page.evaluate(() => ({
  nodes: document.querySelectorAll('.react-flow__node').length,
  edges: document.querySelectorAll('.react-flow__edge').length,
}));

/** Drags from a node's pose output to a pin (`handle` of node `target`), as a user does. */
async function drag(page: Page, source: string, target: string, handle: string): Promise<void> {
  const from = await page.locator(`.react-flow__node[data-id="${source}"] .react-flow__handle.source`).boundingBox();
  const to = await page.locator(`.react-flow__node[data-id="${target}"] .react-flow__handle[data-handleid="${handle}"]`).boundingBox();
  if (!from || !to) throw new Error(`no handle to drag: ${source} -> ${target}.${handle}`);
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
  await page.mouse.up();
}

const TWO_PLAYERS = `{
  "format": "animgraph/1",
  "name": "two players",
  "skeleton": "builtin:biped",
  "clips": {
    "walk": { "source": "builtin:walk" },
    "run": { "source": "builtin:run" }
  },
  "nodes": {
    "walk": { "type": "SequencePlayer", "properties": { "clip": "walk" }, "editor": { "comment": "kept" } },
    "run": { "type": "SequencePlayer", "properties": { "clip": "run" } }
  },
  "output": "walk"
}
`;

describeWithBrowser('animgraph edit in headless Chromium', () => {
  let browser: Browser;
  let assets: PageAssets;
  /** The page's script files that hold the preview (its scene, three.js), which a paused open holds back. */
  let previewScripts: Set<string>;

  beforeAll(async () => {
    [browser, assets] = await Promise.all([launchBrowser(), editorAssets()]);
    previewScripts = new Set([...assets].filter(([f, { body }]) => f.endsWith('.js') && Buffer.from(body).includes('followedBefore')).map(([f]) => f));
    mkdirSync(OUT, { recursive: true });
  }, 120000);
  afterAll(() => browser?.close());

  /**
   * The editor on `graph`, its canvas drawn. `paused`: the preview paused at once, for a test of the
   * canvas alone: a paused preview draws nothing, where a playing one keeps a core of this machine
   * busy rendering in software (which the other test files running beside it would wait for).
   * `query`: the page's, as `?antialias=1`.
   */
  async function open(graph: string, paused = false, query = ''): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
    const server = await startEditServer(graph, { port: 0, assets });
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1500, height: 860 });
    const errors = collectErrors(page);
    // Paused before the preview starts: the preview's chunk (its scene, three.js) is held back
    // until Pause has been pressed. (Only that request is routed: every other goes straight to the
    // server, not through this process.)
    let pressed = (): void => {};
    if (paused) {
      const held = new Promise<void>((resolve) => { pressed = resolve; });
      expect(previewScripts.size).toBeGreaterThan(0);
      await page.route((url) => previewScripts.has(url.pathname.slice(url.pathname.lastIndexOf('/') + 1)), async (route) => {
        await held;
        await route.continue();
      });
    }
    await page.goto(server.url + query, paused ? { waitUntil: 'commit' } : undefined);
    if (paused) {
      await page.locator('#play').click();
      pressed();
    }
    await page.waitForSelector('body[data-status=ready]', { timeout: 30000 });
    return { page, errors, close: async () => { await page.close(); await server.close(); } };
  }

  it('draws every example graph (quick: those with a state machine, each machine once), and the canvas of every state machine in it, node for node and wire for wire', async () => {
    const every = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')).sort();
    expect(every.length).toBeGreaterThanOrEqual(13);
    // Quick: the examples with a state machine, whose canvases nest, each machine once (the sample
    // graphs share one). What every example's canvas holds is checked without a browser too
    // (tests/editor/model-canvas.test.ts); each page here costs seconds of this machine's software rendering.
    const files = stress(examplesWithDistinctStateMachines(every), every);
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(files).toContain('sample-state-machine.json');
    const seen: string[] = [];
    for (const file of files) {
      const asset = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8'));
      const { page, errors, close } = await open(join(EXAMPLES, file), true);
      try {
        const expected = graphCounts(asset.nodes, asset.output);
        await waitFor(page, 'document.querySelectorAll(".react-flow__edge").length >= arg', expected.edges).catch(() => {});
        expect(await drawn(page), file).toEqual(expected);
        expect(await editorState(page), file).toMatchObject({ canvas: [], ...expected });
        for (const [id, node] of Object.entries(asset.nodes as Obj)) {
          if (node.type !== 'StateMachine') continue;
          await page.locator(`.react-flow__node[data-id="${id}"] button.open`).click();
          const machine = machineCounts(node.properties);
          await waitFor(page, 's.canvas.length === 1 && document.querySelectorAll(".react-flow__edge").length >= arg', machine.edges).catch(() => {});
          expect(await drawn(page), `${file} ${id}`).toEqual(machine);
          // Each state with a graph opens it.
          for (const [name, state] of Object.entries((node.properties.states ?? {}) as Obj)) {
            if (state.conduit) continue;
            await page.locator(`.react-flow__node[data-id="${name}"] button.open`).click();
            const inner = graphCounts(state.nodes, state.output);
            await waitFor(page, 's.canvas.length === 2 && document.querySelectorAll(".react-flow__edge").length >= arg', inner.edges).catch(() => {});
            expect(await drawn(page), `${file} ${id} › ${name}`).toEqual(inner);
            expect((await editorState(page)).canvas).toEqual([id, name]);
            await page.locator(`button.crumb[data-canvas="${id}"]`).click();
            await waitFor(page, 's.canvas.length === 1');
          }
          await page.locator('button.crumb[data-canvas=""]').click();
          await waitFor(page, 's.canvas.length === 0');
          seen.push(`${file} ${id}`);
        }
        expect(errors.filter((e) => e.startsWith('uncaught')), file).toEqual([]);
      } finally {
        await close();
      }
    }
    expect(seen).toContain('sample-state-machine.json locomotion');
  });

  it('adds a BlendTwo between two players, wires it to the output, sets its alpha (in the preview the next frame), saves a file the loader loads; refuses an invalid link with the loader\'s message; marks a problem on its node; undoes back to the file byte for byte', async () => {
    const graph = graphFile('two.json', TWO_PLAYERS);
    // Paused: Step simulates the frames this needs; Play only where the test is of playing.
    const { page, errors, close } = await open(graph, true);
    try {
      await waitFor(page, 's.loads && s.installs >= 1');
      await step(page, 3);
      await page.locator('#palette-search').fill('blendtwo');
      await page.locator('.palette-item[data-type=BlendTwo]').click();
      await waitFor(page, 's.nodes === 4');
      const id = await page.evaluate(() => [...document.querySelectorAll('.react-flow__node')].map((n) => n.getAttribute('data-id')!).find((i) => !['walk', 'run', '@output'].includes(i))!);
      expect(id).toMatch(/^blendTwo/);
      await drag(page, id, '@output', 'pose');
      await waitFor(page, 's.edges === 1 && s.notice === ""');
      await drag(page, 'walk', id, 'A');
      await waitFor(page, 's.edges === 2');
      await drag(page, 'run', id, 'B');
      await waitFor(page, 's.edges === 3 && s.loads');

      // run feeds B already: linking it to A too is refused, with the loader's message for that asset.
      const linked = JSON.parse(TWO_PLAYERS);
      linked.nodes[id] = { type: 'BlendTwo', inputs: { A: 'run', B: 'run' } };
      linked.output = id;
      const refusal = checkGraphAsset(linked);
      if (refusal.ok) throw new Error('the doubly linked graph loads');
      await drag(page, 'run', id, 'A');
      await waitFor(page, 's.notice !== ""');
      const notice = (await editorState(page)).notice;
      expect(refusal.problems.map((p) => p.message)).toContain(notice);
      expect(await page.locator('#notice').textContent()).toBe(notice);
      expect((await editorState(page)).edges).toBe(3);

      // Alpha, through the details panel; the preview plays it from the very next frame.
      await page.locator(`.react-flow__node[data-id="${id}"] .head`).click();
      const installs = (await editorState(page)).installs;
      await page.locator('[data-property=alpha] input[type=number]').fill('0.3');
      await waitFor(page, 's.installs > arg', installs);
      await page.locator('#step').click();
      await waitFor(page, 's.lastEdit !== null');
      const edit = (await editorState(page)).lastEdit!;
      expect(edit.firstFrame).toBe(edit.atFrame + 1);
      expect(edit.debugText).toContain(`BlendTwo[${id}]<W:100.0%> (Alpha: 30.0%)`);

      await page.locator('#save').click();
      await waitFor(page, 's.saves === 1');
      const savedText = readFileSync(graph, 'utf8');
      const saved = JSON.parse(savedText);
      const check = checkGraphAsset(saved);
      expect(check.ok, JSON.stringify(check.ok ? [] : check.problems)).toBe(true);
      expect(saved.nodes[id]).toMatchObject({ type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.3 } });
      expect(saved.output).toBe(id);
      expect(saved.nodes.walk.editor).toEqual({ comment: 'kept' }); // a key the editor does not know
      // Two-space indentation, the lines nobody touched as they were.
      expect(savedText).toContain('\n  "clips": {\n    "walk": { "source": "builtin:walk" },\n');
      expect(savedText).toContain('    "run": { "type": "SequencePlayer", "properties": { "clip": "run" } }');
      expect(savedText.endsWith('}\n')).toBe(true);

      // A problem: B unlinked. Marked on the BlendTwo and its pin B, on nothing else, and listed as the loader words it.
      await page.locator(`[data-testid="rf__edge-link:${id}:B"]`).click({ force: true });
      await page.keyboard.press('Delete');
      await waitFor(page, 's.edges === 2 && s.problems.length > 0');
      const broken = structuredClone(saved);
      delete broken.nodes[id].inputs.B;
      const expected = checkGraphAsset(broken);
      if (expected.ok) throw new Error('the graph loads without B');
      expect((await editorState(page)).problems).toEqual(expected.problems.map((p) => ({ path: p.path, code: p.code, message: p.message })));
      expect(await page.locator('.has-problem').evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id')))).toEqual([id]);
      expect(await page.locator(`.react-flow__node[data-id="${id}"] .pin-problem`).evaluateAll((els) => els.map((e) => e.getAttribute('data-handle')))).toEqual(['B']);
      expect(await page.locator('#problems li').allTextContents()).toEqual(expected.problems.map((p) => `${p.path}: ${p.message} [${p.code}]`));
      // The preview keeps playing the last graph that loaded.
      const frame = (await editorState(page)).frame;
      await page.locator('#play').click();
      await waitFor(page, 's.frame > arg + 2', frame);
      await page.locator('#play').click();
      await page.screenshot({ path: join(OUT, 'problem.png') });

      // Undo everything, save: the file as it was, byte for byte.
      while (await page.locator('#undo').isEnabled()) await page.locator('#undo').click();
      await waitFor(page, 's.nodes === 3 && s.edges === 1');
      await page.locator('#save').click();
      await waitFor(page, 's.saves === 2');
      expect(readFileSync(graph, 'utf8')).toBe(TWO_PLAYERS);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('copies and pastes nodes, adds a transition by dragging from state to state, and undoes both', async () => {
    const graph = graphFile('machine.json', readFileSync(join(EXAMPLES, 'sample-state-machine.json'), 'utf8'));
    const { page, errors, close } = await open(graph, true);
    try {
      // Paused before the preview started: it shows the graph's first frame and stays there.
      await waitFor(page, 's.loads && s.installs >= 1');
      const still = (await editorState(page)).frame;
      await page.waitForTimeout(400);
      expect((await editorState(page)).frame).toBe(still);
      expect(await page.locator('#play').textContent()).toBe('Play');
      const asset = JSON.parse(readFileSync(graph, 'utf8'));
      await page.locator('.react-flow__node[data-id="locomotion"] button.open').click();
      await waitFor(page, 's.canvas.length === 1');
      const transitions = asset.nodes.locomotion.properties.transitions.length;
      await drag(page, 'jump', 'run', 'in');
      await waitFor(page, 's.edges === arg', transitions + 2);
      expect(await page.locator(`.edge-label[data-edge-id="transition:${transitions}"]`).textContent()).toMatch(/ · 0\.2 s$/);
      // Into the walk state's graph: its player copied and pasted, under a new id, its properties kept.
      await page.locator('.react-flow__node[data-id="walk"] button.open').click();
      await waitFor(page, 's.canvas.length === 2 && s.nodes === 2');
      await page.locator('.react-flow__node[data-id="clip"] .head').click();
      await page.keyboard.press('Control+c');
      await page.keyboard.press('Control+v');
      await waitFor(page, 's.nodes === 3');
      const ids = await page.evaluate(() => [...document.querySelectorAll('.react-flow__node')].map((n) => n.getAttribute('data-id')));
      const pasted = ids.find((i) => i !== 'clip' && i !== '@output')!;
      expect(pasted).toMatch(/^clip\d*$/);
      expect(await page.locator(`.react-flow__node[data-id="${pasted}"] .head .title`).textContent()).toBe('Sequence Player');
      await page.locator('#undo').click();
      await waitFor(page, 's.nodes === 2');
      await page.locator('#undo').click();
      await page.locator('button.crumb[data-canvas="locomotion"]').click();
      await waitFor(page, 's.canvas.length === 1 && s.edges === arg', transitions + 1);
      expect((await editorState(page)).dirty).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('edits the asset\'s own values, montages and clips in the asset panel (a rename followed everywhere), shows a montage\'s problem under its row, and plays the montage in the preview', async () => {
    const original = readFileSync(join(EXAMPLES, 'sample-montage.json'), 'utf8');
    const graph = graphFile('montage.json', original);
    // Paused: Step simulates the frames this needs.
    const { page, errors, close } = await open(graph, true);
    try {
      await waitFor(page, 's.loads && s.installs >= 1');
      const panel = page.locator('#asset-panel');
      expect(await panel.locator('[data-section=montages] [data-name]').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['combo']);
      // A new montage starts from the asset's first clip in its Slot's slot.
      expect(await panel.locator('input[name="montages.new-spec"]').inputValue()).toBe('{"clip":"idle","slot":"upperBody"}');
      // Rename the montage; its name in the preview's rows follows.
      const name = panel.locator('input[name="montages.combo.name"]');
      await name.fill('attack');
      await name.press('Enter');
      await waitFor(page, 's.installs >= 2 && document.querySelector("[data-play=attack]") !== null');
      // A section past the clip's end: the loader's problem under the montage's row, and the fix.
      const spec = panel.locator('input[name="montages.attack"]');
      const good = await spec.inputValue();
      const montage = JSON.parse(good);
      await spec.fill(JSON.stringify({ ...montage, sections: [{ name: 'windup', start: 0 }, { name: 'strike', start: 99 }] }));
      await spec.press('Enter');
      await waitFor(page, 's.problems.some((p) => p.path === "$.montages.attack.sections[1].start")');
      expect(await panel.locator('[data-section=montages] [data-name=attack].field-problem .problem-text').count()).toBe(1);
      await spec.fill(good);
      await spec.press('Enter');
      await waitFor(page, 's.problems.length === 0 && s.loads');
      // A clip renamed: the montage and the players that name it follow.
      const clipName = panel.locator('input[name="clips.run.name"]');
      await clipName.fill('sprint');
      await clipName.press('Enter');
      await waitFor(page, 's.problems.length === 0 && document.querySelector("input[name=\\"clips.sprint.name\\"]") !== null');
      // The graph's description, a single value.
      const description = panel.locator('input[name="asset.description"]');
      await description.fill('Edited in the asset panel.');
      await description.press('Enter');
      // Play the montage from its strike section: the preview's instance plays it.
      await page.locator('select[name="montage.attack.section"]').selectOption('strike');
      await page.locator('[data-play=attack]').click();
      await page.locator('#step').click();
      await waitFor(page, 's.montage === "attack/strike"');
      await page.locator('#stop-montages').click();
      await page.locator('#step').click();
      await waitFor(page, 's.montage === null');
      await page.locator('#save').click();
      await waitFor(page, 's.saves === 1');
      const saved = JSON.parse(readFileSync(graph, 'utf8'));
      expect(Object.keys(saved.montages)).toEqual(['attack']);
      expect(saved.montages.attack).toEqual({ ...JSON.parse(original).montages.combo, clip: 'sprint' });
      expect(saved.nodes.locomotion.properties.states.run.nodes.clip.properties.clip).toBe('sprint');
      expect(saved.description).toBe('Edited in the asset panel.');
      expect(checkGraphAsset(saved).ok).toBe(true);
      expect(errors.filter((e) => e.startsWith('uncaught'))).toEqual([]);
    } finally {
      await close();
    }
  });

  it('plays: the wires of a crossfade thin out and thicken frame by frame as their weights change', async () => {
    const { page, errors, close } = await open(join(EXAMPLES, 'sample-locomotion.json'));
    try {
      await waitFor(page, 's.loads && s.frame >= 5');
      await page.locator('#play').click();
      await page.locator('[data-parameter=gait] input').fill('2');
      const walk: number[] = [], run: number[] = [];
      for (let step = 0; step < 24; step++) {
        const before = (await editorState(page)).frame;
        await page.locator('#step').click();
        await waitFor(page, 's.weightsFrame > arg', before);
        const s = await editorState(page);
        walk.push(s.weights['link:locomotion:poses:1']);
        run.push(s.weights['link:locomotion:poses:2']);
      }
      // The BlendList's 0.2 s blend from walk to run: from all walk to all run, through values between.
      expect(walk[0]).toBeGreaterThan(0.9);
      expect(walk[walk.length - 1]).toBe(0);
      expect(run[run.length - 1]).toBe(1);
      expect(walk.filter((w) => w > 0.1 && w < 0.9).length).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < walk.length; i++) expect(walk[i]).toBeLessThanOrEqual(walk[i - 1]);
      // Drawn so: the wire's width follows its weight.
      const width = await page.locator('[data-testid="rf__edge-link:locomotion:poses:2"] path.react-flow__edge-path').evaluate((p) => getComputedStyle(p).strokeWidth);
      expect(width).toBe('6px');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('measures the first paint of the largest example', async () => {
    const count = (nodes: Obj): number => Object.values(nodes).reduce((n: number, node: Obj) => n + 1
      + (node.type === 'StateMachine' ? Object.values((node.properties?.states ?? {}) as Obj).reduce((m: number, s: Obj) => m + (s.nodes ? count(s.nodes) : 0), 0) : 0), 0);
    const sizes = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')).map((f) => ({ f, n: count(JSON.parse(readFileSync(join(EXAMPLES, f), 'utf8')).nodes) }));
    const largest = sizes.sort((a, b) => b.n - a.n || a.f.localeCompare(b.f))[0];
    const first = await open(join(EXAMPLES, largest.f));
    const { firstPaint, timings } = await editorState(first.page);
    await first.close();
    expect(firstPaint).toBeGreaterThan(timings.graph);
    expect(timings.graph).toBeGreaterThan(timings.script);
    // Reported, not asserted: a time on a shared machine is no test.
    const report = { graph: largest.f, nodes: largest.n, scriptMs: Math.round(timings.script), graphReadMs: Math.round(timings.graph), firstPaintMs: Math.round(firstPaint) };
    writeFileSync(join(OUT, 'first-paint.json'), `${JSON.stringify(report)}\n`);
    console.log(`animgraph edit: first paint of ${largest.f} (${largest.n} nodes): ${JSON.stringify(report)} (ms from navigation)`);
  });

  // Pictures for the README, which assert only that the page drew them multisampled: the long
  // variant only (ANIMGRAPH_STRESS=1, as .ci/run runs it), for two more pages of software rendering.
  it.runIf(STRESS)('takes the README\'s screenshots, multisampled', async () => {
    // Paused, the screenshots' frames stepped to: 5 frames, then 150 ms (9 frames) into the run.
    // Multisampled, as on a GPU (chooseAntialias leaves it off in software): the README's pictures.
    const locomotion = await open(join(EXAMPLES, 'sample-locomotion.json'), true, '?antialias=1');
    try {
      await waitFor(locomotion.page, 's.loads');
      await step(locomotion.page, 5);
      await locomotion.page.locator('[data-parameter=gait] input').fill('2');
      await locomotion.page.locator('.react-flow__node[data-id="locomotion"] .head').click();
      await step(locomotion.page, 9); // frames for the weights on the wires
      expect(await locomotion.page.evaluate(() => (window as unknown as { __animgraphViewer: { antialias: boolean } }).__animgraphViewer.antialias)).toBe(true);
      await locomotion.page.screenshot({ path: join(OUT, 'editor-locomotion.png') });
    } finally {
      await locomotion.close();
    }
    // The state machine with its states placed by hand, as a user leaves them (saved under the
    // asset's editor key); the automatic layout puts this machine's states in one row.
    const placed = JSON.parse(readFileSync(join(EXAMPLES, 'sample-state-machine.json'), 'utf8'));
    placed.editor = { positions: { locomotion: {
      '@entry': [0, 150], idle: [170, 120], walk: [470, 120], run: [770, 120], '@any': [170, 420], jump: [470, 420], land: [770, 420],
    } } };
    const placedFile = join(mkdtempSync(join(tmpdir(), 'animgraph-edit-shot-')), 'sample-state-machine.json');
    writeFileSync(placedFile, JSON.stringify(placed, null, 2));
    // 5 frames, then 600 ms (36 frames) at speed 100.
    const machine = await open(placedFile, true, '?antialias=1');
    try {
      await waitFor(machine.page, 's.loads');
      await step(machine.page, 5);
      await machine.page.locator('.react-flow__node[data-id="locomotion"] button.open').click();
      await waitFor(machine.page, 's.canvas.length === 1');
      await machine.page.locator('[data-parameter=speed] input[type=number]').fill('100');
      await step(machine.page, 36);
      await machine.page.screenshot({ path: join(OUT, 'editor-state-machine.png') });
    } finally {
      await machine.close();
    }
  });

  it('takes custom node types from --nodes: in the palette, drawn with their meta, loaded and played by the page through its import map; a graph of them that loads but cannot play is reported, the preview playing on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-edit-nodes-'));
    const graph = join(dir, 'custom.json');
    const asset = JSON.parse(TWO_PLAYERS);
    // `boosted` reads its gain from a parameter: above 1.9, its frame throws.
    asset.parameters = { boost: { type: 'float', default: 1 } };
    asset.nodes.boosted = { type: 'Passthrough', inputs: { pose: 'walk' }, properties: { gain: { param: 'boost' } } };
    asset.nodes.pass = { type: 'Passthrough', inputs: { pose: 'boosted' }, properties: { gain: 1.5 } };
    asset.output = 'pass';
    writeFileSync(graph, `${JSON.stringify(asset, null, 2)}\n`);
    const child = spawn(process.execPath, cliArgs(['edit', graph, '--nodes', FIXTURE, '--port', '0']),
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    try {
      const deadline = Date.now() + 90000;
      while (!/http:\/\/127\.0\.0\.1:\d+\//.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no URL printed; stdout: ${out} stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await page.goto(out.match(/http:\/\/127\.0\.0\.1:\d+\//)![0]);
      await page.waitForSelector('body[data-status=ready]', { timeout: 30000 });
      await waitFor(page, 's.loads && s.frame >= 3');
      expect((await editorState(page)).problems).toEqual([]);
      expect(await page.locator('.palette-group[data-category=Blends] .palette-item[data-type=Passthrough]').textContent()).toBe('Pass Through');
      expect(await page.locator('.react-flow__node[data-id="pass"] .head .title').textContent()).toBe('Pass Through');
      await waitFor(page, 'document.querySelector(\'.react-flow__node[data-id="pass"] .live .desc\')?.textContent === "gain 1.50"');
      // Its property, from its spec and meta, edited like a built-in's.
      await page.locator('.react-flow__node[data-id="pass"] .head').click();
      expect(await page.locator('[data-property=gain] label').textContent()).toBe('Gain');
      await page.locator('[data-property=gain] input[type=number]').fill('0.5');
      await waitFor(page, 's.lastEdit !== null');
      expect((await editorState(page)).lastEdit!.debugText).toContain('Passthrough[pass]<W:100.0%> (gain 0.50)');
      // A graph that loads but whose first frame throws (the node's own code, above 1.9): the page
      // says the preview cannot play it, and the preview plays on the graph it had.
      const before = await editorState(page);
      await page.locator('[data-property=gain] input[type=number]').fill('1.95');
      await waitFor(page, 's.problems.length > 0');
      const refused = await editorState(page);
      expect(refused.problems).toEqual([{ path: '$', code: 'preview', message: 'the preview cannot play this graph: Passthrough: a gain above 1.9 fails on purpose' }]);
      expect(refused).toMatchObject({ loads: true, installs: before.installs });
      await waitFor(page, 's.frame > arg + 3', refused.frame);
      expect(await page.locator('.react-flow__node[data-id="pass"] .live .desc').textContent()).toBe('gain 0.50');
      // A helper bone added meanwhile: the graph loads on a skeleton of 23 bones that the preview
      // cannot play either; the bones offered for properties are that skeleton's, not the preview's.
      expect((await editorState(page)).bones).toHaveLength(22);
      await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } }); // nothing selected: the asset panel
      const helpers = page.locator('#asset-panel input[name="asset.helperBones"]');
      await helpers.fill('[{ "name": "prop_r", "parent": "hand_r", "translation": [0, 10, 0] }]');
      await helpers.press('Enter');
      await waitFor(page, 's.bones.length === 23');
      expect(await editorState(page)).toMatchObject({ loads: true, installs: before.installs });
      expect((await editorState(page)).bones.at(-1)).toBe('prop_r');
      expect((await editorState(page)).problems.map((p) => p.code)).toEqual(['preview']);
      await page.locator('.react-flow__node[data-id="pass"] .head').click();
      // Under 1.9 again: installed, and nothing to report.
      await page.locator('[data-property=gain] input[type=number]').fill('1');
      await waitFor(page, 's.installs > arg && s.problems.length === 0', before.installs);
      await waitFor(page, 'document.querySelector(\'.react-flow__node[data-id="pass"] .live .desc\')?.textContent === "gain 1.00"');
      // A frame that throws later (a parameter taking the node above 1.9): the preview pauses on the
      // frame before and says which frame threw; played again once the parameter is back, it clears.
      await page.locator('[data-parameter=boost] input[type=number]').fill('1.95');
      await waitFor(page, 's.problems.length > 0');
      const stopped = await editorState(page);
      expect(stopped.problems).toEqual([{ path: '$', code: 'preview', message: `the preview stopped at frame ${stopped.frame + 1}: Passthrough: a gain above 1.9 fails on purpose` }]);
      expect(await page.locator('#play').textContent()).toBe('Play');
      await page.waitForTimeout(300);
      expect((await editorState(page)).frame).toBe(stopped.frame);
      await page.locator('[data-parameter=boost] input[type=number]').fill('1');
      await page.locator('#play').click();
      await waitFor(page, 's.frame > arg + 3 && s.problems.length === 0', stopped.frame);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      child.kill('SIGTERM');
    }
  });
  it('edits a montage on its timeline: a notify dragged snaps to the clip\'s frames (one undo step), a section\'s drag clamps before the next, a notify added at the cursor, a problem marked on its section; the add rows start from the asset\'s names', async () => {
    const original = readFileSync(join(EXAMPLES, 'sample-montage.json'), 'utf8');
    const graph = graphFile('montage.json', original);
    const { page, errors, close } = await open(graph, true);
    try {
      const strip = page.locator('.timeline[data-montage=combo]');
      // The run clip as the loader loaded it: 0.7 s at 30 fps.
      await waitFor(page, 's.loads && document.querySelector(".timeline[data-montage=combo]")?.dataset.duration === "0.7"');
      expect(await strip.locator('.timeline-duration').textContent()).toBe(' · 0.7 s · 30 fps');
      expect(await strip.locator('.section').evaluateAll((els) => els.map((e) => [e.getAttribute('data-section'), e.querySelector('.link')!.textContent])))
        .toEqual([['windup', '→ strike'], ['strike', '⟲'], ['recover', '■']]);
      expect(await strip.locator('.notify.branching').getAttribute('data-notify')).toBe('comboWindow');
      // The add rows: a clip in the form of the first (builtin:idle), a blend profile at the skeleton's second bone, once the skeleton has loaded.
      expect(await page.locator('input[name="clips.new-spec"]').inputValue()).toBe('{"source":"builtin:idle"}');
      await waitFor(page, 'document.querySelector(\'input[name="blendProfiles.new-spec"]\').value === arg', '{"mode":"timeFactor","branches":[{"bone":"pelvis","scale":0.5}]}');
      await strip.scrollIntoViewIfNeeded();
      // Where a time is on screen: between the ticks at 0 and 0.7 s.
      const ticks = await strip.locator('.tick line').evaluateAll((els) => els.map((e) => { const b = e.getBoundingClientRect(); return b.left + b.width / 2; }));
      const xAt = (t: number) => ticks[0] + (t / 0.7) * (ticks[ticks.length - 1] - ticks[0]);
      const box = (await strip.locator('svg').boundingBox())!;
      const dragTo = async (selector: string, t: number) => {
        const from = (await strip.locator(selector).boundingBox())!;
        await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
        await page.mouse.down();
        await page.mouse.move(xAt(t), from.y + from.height / 2, { steps: 6 });
        await page.mouse.up();
      };

      // hit, at 0.3 s, dragged to 0.41 s: 12/30 s on release, in the asset and its JSON row.
      await dragTo('.notify[data-notify=hit] path', 0.41);
      await waitFor(page, 'document.querySelector(".timeline[data-montage=combo] .notify[data-notify=hit]")?.dataset.time === arg', String(12 / 30));
      expect(JSON.parse(await page.locator('input[name="montages.combo"]').inputValue()).notifies[0]).toEqual({ name: 'hit', time: 0.4 });
      await page.locator('#save').click();
      await waitFor(page, 's.saves === 1');
      expect(readFileSync(graph, 'utf8')).toBe(original.replace('{ "name": "hit", "time": 0.3 }', '{ "name": "hit", "time": 0.4 }'));
      // The drag was one edit: one undo puts hit back, and the file saves as it was.
      await page.locator('#undo').click();
      await waitFor(page, 'document.querySelector(".timeline[data-montage=combo] .notify[data-notify=hit]")?.dataset.time === "0.3"');
      expect(await page.locator('#undo').isEnabled()).toBe(false);
      await page.locator('#save').click();
      await waitFor(page, 's.saves === 2');
      expect(readFileSync(graph, 'utf8')).toBe(original);

      // strike's start dragged past recover's (0.5 s): clamped to the frame before it, 14/30 s; it loads.
      await dragTo('.section[data-section=strike] .handle rect', 0.65);
      await waitFor(page, 'document.querySelector(".timeline[data-montage=combo] .section[data-section=strike]")?.dataset.start === arg', String(14 / 30));
      await waitFor(page, 's.loads && s.problems.length === 0');
      await page.locator('#undo').click();
      await waitFor(page, 'document.querySelector(".timeline[data-montage=combo] .section[data-section=strike]")?.dataset.start === "0.25"');

      // A click on the strip at 0.6 s places the cursor; + notify adds one there, selected; the Delete key removes it.
      await page.mouse.click(xAt(0.6), box.y + box.height * 0.8);
      expect(await strip.locator('.cursor-time').textContent()).toBe('at 0.6 s');
      await strip.locator('button[name="montages.combo.add-notify"]').click();
      await waitFor(page, 'document.querySelectorAll(".timeline[data-montage=combo] .notify").length === 3');
      expect(await strip.locator('.notify[data-notify=notify]').getAttribute('data-time')).toBe('0.6');
      expect(await strip.locator('[data-selected=notify] input[name="montages.combo.notify.name"]').inputValue()).toBe('notify');
      await page.keyboard.press('Delete');
      await waitFor(page, 'document.querySelectorAll(".timeline[data-montage=combo] .notify").length === 2');
      // The montage played in the preview: the cursor follows its clip time, from 0.
      expect(await strip.locator('.playhead').count()).toBe(0);
      await page.locator('[data-play=combo]').click();
      await page.locator('#step').click();
      await waitFor(page, 's.montage === "combo/windup" && document.querySelector(".timeline[data-montage=combo] .playhead") !== null');
      expect(Number((await strip.locator('.cursor-time').textContent())!.match(/^at (\S+) s$/)![1])).toBeLessThan(0.1);
      await page.locator('#stop-montages').click();
      await page.locator('#step').click();
      await waitFor(page, 's.montage === null');

      // A section made invalid through the JSON row: the loader's problem under the row, its section marked on the strip, the clip's duration still known.
      const spec = page.locator('input[name="montages.combo"]');
      const good = await spec.inputValue();
      await spec.fill(JSON.stringify({ ...JSON.parse(good), sections: [{ name: 'windup', start: 0 }, { name: 'strike', start: 0.6 }, { name: 'recover', start: 0.5 }] }));
      await spec.press('Enter');
      await waitFor(page, 's.problems.some((p) => p.path === "$.montages.combo.sections[2].start")');
      expect(await strip.locator('.section.has-problem').evaluateAll((els) => els.map((e) => e.getAttribute('data-section')))).toEqual(['recover']);
      expect(await strip.getAttribute('data-duration')).toBe('0.7');
      await page.locator('#asset-panel [data-section=montages]').screenshot({ path: join(OUT, 'montage-timeline.png') });
      // A clip the asset lacks: no duration, the strip says so.
      await spec.fill(JSON.stringify({ ...JSON.parse(good), clip: 'nope' }));
      await spec.press('Enter');
      await waitFor(page, 's.problems.some((p) => p.path === "$.montages.combo.clip")');
      expect(await strip.getAttribute('data-duration')).toBe('');
      expect(await strip.locator('.timeline-duration').textContent()).toBe(' · duration unknown (the clip has not loaded)');
      // The strip then spans a quarter past the last time, 0.625 s: recover dragged past its end stops there (the span held while dragging).
      const handle = (await strip.locator('.section[data-section=recover] .handle rect').boundingBox())!;
      await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width + 60, handle.y + handle.height / 2, { steps: 6 });
      await page.mouse.up();
      await waitFor(page, 'document.querySelector(".timeline[data-montage=combo] .section[data-section=recover]")?.dataset.start === "0.625"');
      expect(errors.filter((e) => e.startsWith('uncaught'))).toEqual([]);
    } finally {
      await close();
    }
  });
});
