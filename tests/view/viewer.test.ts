/**
 * The viewer page in headless Chromium (Debian's chromium driven by playwright-core): the page
 * the build bundles, served by the view server, running a graph. Screenshots go to out/view/.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkGraphAsset } from '../../graphs/loader.ts';
import { SOFTWARE_RENDERER } from '../../viewer/antialias.ts';
import { startViewServer, type PageAssets } from '../../cli/view-server.ts';
import { canvasVariance, collectErrors, describeWithBrowser, launchBrowser, type Browser, viewerAssets } from '../support/browser.ts';
import { hasSharedData, readShared, SHARED_DATA } from '../support/shared-data.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(root, 'out', 'view');
const SAMPLE = join(root, 'graphs/examples/sample-locomotion.json');
const ROBOT = join(root, 'graphs/examples/robot-locomotion.json');
const CMU_POSE_SEARCH = join(root, 'graphs/examples/cmu-pose-search.json');
const MONTAGE = join(root, 'graphs/examples/sample-montage.json');

interface ViewerState {
  renderer: string | null; antialias: boolean; frameRate: number; status: string; frame: number; loads: number; figure: string; bones: number; finite: boolean; debugText: string; unboundGraphBones: string[]; root: number[]; onScreen: number[]; drawn: number;
  problems: { path: string; code: string; message: string }[];
  retargetSource: { available: boolean; shown: boolean };
}
const viewerState = (page: Page) => page.evaluate(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer);

describeWithBrowser('animgraph view in headless Chromium', () => {
  let browser: Browser;
  let assets: PageAssets;

  beforeAll(async () => {
    [browser, assets] = await Promise.all([launchBrowser(), viewerAssets()]);
    mkdirSync(OUT, { recursive: true });
  }, 60000);
  afterAll(() => browser?.close());

  it('draws the sample graph, lists every parameter, and setting gait switches the active input, with no console error', async () => {
    const server = await startViewServer(SAMPLE, { port: 0, assets });
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    try {
      await page.goto(server.url);
      await page.waitForFunction(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.frame >= 5, null, { timeout: 20000 });
      const state = await viewerState(page);
      expect(state).toMatchObject({ status: 'running', figure: 'skeleton', bones: 22, finite: true, problems: [] });
      expect(await page.locator('body').getAttribute('data-status')).toBe('running');
      // Chromium renders WebGL in software here (SwiftShader: tests/support/browser.ts), where the
      // view leaves multisampling off (chooseAntialias, tests/view/antialias.test.ts) and draws
      // 30 frames a second (chooseFrameRate, tests/view/frame-rate.test.ts).
      expect(state.renderer).toMatch(SOFTWARE_RENDERER);
      expect(state.antialias).toBe(false);
      expect(state.frameRate).toBe(30);

      // A blank canvas (nothing drawn, or only the clear colour) has a variance of 0.
      expect(await canvasVariance(page)).toBeGreaterThan(20);

      const asset = JSON.parse(readFileSync(SAMPLE, 'utf8'));
      const rows = await page.locator('[data-parameter]').evaluateAll((els) => els.map((e) => [
        (e as HTMLElement).dataset.parameter, (e as HTMLElement).dataset.type, [...e.querySelectorAll('input')].map((i) => i.type).join(','),
      ]));
      expect(rows).toEqual(Object.entries(asset.parameters as Record<string, { type: string }>).map(([name, p]) => [name,
        p.type, { float: 'range,number', int: 'number', bool: 'checkbox', vec3: 'number,number,number' }[p.type]]));

      // The text is the CLI's --debug text, frame line included.
      expect(state.debugText).toMatch(/^frame \d+ time \d+\.\d{3}\nOutput\[output\]<W:100\.0%>\n {2}CopyBone\[headFollowsHand\]<W:100\.0%>/);
      expect(state.debugText).toContain('BlendList[locomotion]<W:100.0%> (Active: 1');
      expect(await page.locator('[data-node=walk] .w').first().textContent()).toBe('100.0%');
      expect(await page.locator('#montage-section').isHidden()).toBe(true); // a graph without montages

      // Paused, the panels show the frame on screen; the scrubber goes back to an earlier one.
      await page.locator('#play').click();
      const paused = await viewerState(page);
      expect(await page.locator('#play').textContent()).toBe('Play');
      expect(await page.locator('#debug-text').textContent()).toBe(paused.debugText);
      expect(paused.debugText.startsWith(`frame ${paused.frame} time `)).toBe(true);
      const drawnBefore = paused.drawn;
      await page.locator('#scrubber').fill('2');
      expect(await page.locator('#frame-label').textContent()).toMatch(/^frame 2 · \d+\.\d\d s$/);
      // The frame scrubbed to is drawn; then, nothing changing, nothing more is drawn.
      await page.waitForFunction((n) => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.drawn > n, drawnBefore, { timeout: 10000 });
      const drawnStill = (await viewerState(page)).drawn;
      await page.waitForTimeout(500);
      expect((await viewerState(page)).drawn).toBe(drawnStill);
      expect(await page.locator('#debug-text').textContent()).toMatch(/^frame 2 time /);
      expect((await viewerState(page)).frame).toBe(paused.frame); // looking back simulates nothing
      await page.locator('#play').click();

      await page.locator('[data-parameter=gait] input').fill('2');
      await page.waitForFunction(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.debugText.includes('(Active: 2'), null, { timeout: 10000 });
      // The BlendList's 0.2 s blend into the run: then the run has all the weight, in the tree as in the text.
      // Waited for together: the run shows 100.0% from 99.95% on, a frame before the walk's last share is gone.
      await page.waitForFunction(() => document.querySelector('[data-node=run] .w')?.textContent === '100.0%'
        && document.querySelector('[data-node=walk]')?.classList.contains('inactive') === true, null, { timeout: 10000 });
      expect(await page.locator('[data-node=walk]').getAttribute('class')).toContain('inactive');
      expect((await viewerState(page)).finite).toBe(true);

      await page.screenshot({ path: join(OUT, 'sample-locomotion.png') });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it('plays a montage from the section picked in its row, and stops it', async () => {
    const server = await startViewServer(MONTAGE, { port: 0, assets });
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    const debugText = () => page.evaluate(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.debugText);
    try {
      // ?fps= sets the most frames a second the view simulates and draws, whatever the renderer.
      await page.goto(`${server.url}?fps=20`);
      await page.waitForFunction(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.frame >= 2, null, { timeout: 20000 });
      expect((await viewerState(page)).frameRate).toBe(20);
      // Paused, frame by frame with Step: nothing is drawn between steps.
      await page.locator('#play').click();
      expect(await page.locator('#montage-section').isVisible()).toBe(true);
      expect(await page.locator('select[name="montage.combo.section"] option').allTextContents()).toEqual(['windup', 'strike', 'recover']);
      expect(await debugText()).toContain("Slot[upperBody]<W:100.0%> ('upperBody' (source))");
      await page.locator('select[name="montage.combo.section"]').selectOption('strike');
      await page.locator('[data-play=combo]').click();
      await page.locator('#step').click();
      // The Slot plays the montage's clip from the strike section (0.25 s to 0.5 s in the run clip),
      // which windup (0 to 0.25 s) is not, and which links to itself: it plays until stopped.
      const played = /'upperBody' 'run' [\d.]+% Play Time: ([\d.]+)/.exec(await debugText());
      expect(played).not.toBeNull();
      expect(Number(played![1])).toBeGreaterThanOrEqual(0.25);
      expect(Number(played![1])).toBeLessThan(0.5);
      // Stopped, it blends out over its 0.15 s: 9 frames (unstopped, the strike section would loop on).
      await page.locator('#stop-montages').click();
      for (let i = 0; i < 10; i++) await page.locator('#step').click();
      expect(await debugText()).toContain("Slot[upperBody]<W:100.0%> ('upperBody' (source))");
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it('lists the problems of a graph that does not load, with their JSON paths and codes, and shows the graph once the file is fixed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-view-page-'));
    const graph = join(dir, 'broken.json');
    const good = JSON.parse(readFileSync(SAMPLE, 'utf8'));
    delete good.$schema;
    const bad = structuredClone(good);
    bad.nodes.walk.type = 'SequencePlayr';
    bad.nodes.locomotion.inputs.poses[2] = 'sprint';
    bad.parameters.gait.default = 'fast';
    writeFileSync(graph, JSON.stringify(bad));
    const expected = checkGraphAsset(bad);
    if (expected.ok) throw new Error('the broken graph loads');

    const server = await startViewServer(graph, { port: 0, assets });
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    try {
      await page.goto(server.url);
      await page.waitForSelector('body[data-status=error]', { timeout: 20000 });
      const items = await page.locator('#errors li').allTextContents();
      expect(items).toEqual(expected.problems.map((p) => `${p.path}: ${p.message} [${p.code}]`));
      expect(items.length).toBeGreaterThanOrEqual(3);
      expect(items.some((t) => t.startsWith('$.nodes.walk.type: ') && t.endsWith('[unknown-node-type]'))).toBe(true);
      expect(await page.locator('#errors h2').textContent()).toBe(`broken.json did not load: ${items.length} problems`);
      await page.screenshot({ path: join(OUT, 'load-errors.png') });

      // The server kept running; the page reloads the graph when the file changes.
      writeFileSync(graph, JSON.stringify(good));
      await page.waitForFunction(() => {
        const s = (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer;
        return s.loads === 1 && s.status === 'running' && s.frame >= 3;
      }, null, { timeout: 20000 });
      expect(await page.locator('#errors').isHidden()).toBe(true);
      expect(await canvasVariance(page)).toBeGreaterThan(20);

      // Broken again while a graph runs: the problems show over the last good graph, which keeps playing.
      writeFileSync(graph, '{ "format": "animgraph/1", "skeleton": "builtin:biped", "nodes": {}, "output": "x" ');
      await page.waitForSelector('body[data-status=error]', { timeout: 20000 });
      expect(await page.locator('#errors li').allTextContents()).toEqual([expect.stringMatching(/^\$: not valid JSON: .* \[schema\]$/)]);
      expect(await page.locator('#errors h2').textContent()).toContain('(still showing the last graph that loaded)');
      const before = (await viewerState(page)).frame;
      await page.waitForFunction((f) => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.frame > f + 2, before, { timeout: 10000 });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await server.close();
    }
  });

  // The bundled page loads a glTF graph with fetch (the graph and its .glb through
  // the server), runs it and reports finite poses; the robot is drawn as its skinned mesh.
  it.skipIf(!hasSharedData)(`runs the glTF robot graph in the page with fetch, as its skinned mesh, with finite poses${hasSharedData ? '' : ` (skipped: ${SHARED_DATA} not found)`}`, async () => {
    const server = await startViewServer(ROBOT, { port: 0, assets });
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    const fetched: string[] = [];
    page.on('request', (r) => fetched.push(new URL(r.url()).pathname + new URL(r.url()).search));
    try {
      // Multisampled, as on a GPU: this screenshot is the README's (docs/viewer.png).
      await page.goto(`${server.url}?antialias=1`);
      await page.waitForFunction(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.frame >= 10
        || (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.status === 'error', null, { timeout: 30000 });
      const state = await viewerState(page);
      expect(state.problems).toEqual([]);
      expect(state).toMatchObject({ status: 'running', figure: 'skinned', finite: true, antialias: true });
      expect(state.bones).toBe(43);
      // Every bone of the graph drives a bone of the mesh ('Foot.L' too, which GLTFLoader renames 'FootL').
      expect(state.unboundGraphBones).toEqual([]);
      // The .glb came through the server once, by its path as the asset writes it.
      expect(fetched.filter((p) => p.startsWith('/file?'))).toEqual([`/file?path=${encodeURIComponent('../../../shared/data/gltf/RobotExpressive.glb')}`]);
      expect(await canvasVariance(page)).toBeGreaterThan(20);
      await page.locator('[data-parameter=gait] input').fill('2');
      await page.waitForFunction(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.debugText.includes('(Active: 2'), null, { timeout: 10000 });
      const before = (await viewerState(page)).frame;
      await page.waitForFunction((f) => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.frame > f + 10, before, { timeout: 10000 });
      expect((await viewerState(page)).finite).toBe(true);
      await page.screenshot({ path: join(OUT, 'robot-locomotion.png') });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it.skipIf(!hasSharedData)(`moves a BVH character by its root motion over the grid, the camera following${hasSharedData ? '' : ` (skipped: ${SHARED_DATA} not found)`}`, async () => {
    const server = await startViewServer(CMU_POSE_SEARCH, { port: 0, assets });
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    try {
      await page.goto(server.url);
      await page.waitForFunction(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.frame >= 2
        || (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.status === 'error', null, { timeout: 30000 });
      const start = await viewerState(page);
      expect(start).toMatchObject({ status: 'running', figure: 'skeleton', bones: 101, problems: [] });
      // No clip of it is retargeted: no source is drawn, and no checkbox offers one.
      expect(start.retargetSource).toMatchObject({ available: false, shown: false });
      expect(await page.isVisible('#source-row')).toBe(false);
      // The walk covers about 1.3 m (130 cm, the BVH's units) a second: a second of it moves the root well past 50 cm.
      await page.waitForFunction((t) => {
        const s = (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer;
        return Math.hypot(s.root[0] - t[0], s.root[2] - t[2]) > 50;
      }, start.root, { timeout: 15000 });
      const moved = await viewerState(page);
      expect(moved.finite).toBe(true);
      // The camera moved with it: the root is where it was in the view (within the frame's orbit damping).
      expect(Math.abs(moved.onScreen[0] - start.onScreen[0])).toBeLessThan(0.05);
      expect(Math.abs(moved.onScreen[1] - start.onScreen[1])).toBeLessThan(0.05);
      expect(await canvasVariance(page)).toBeGreaterThan(20);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
