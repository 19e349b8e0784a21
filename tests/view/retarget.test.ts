/**
 * The retargeting examples in the viewer (headless Chromium, as tests/view/viewer.test.ts): the CMU
 * walk on the skinned robot and on CesiumMan, drawn and played with no console error, and the
 * retarget source skeleton drawn beside the robot, in the viewer and in the editor's preview.
 * Screenshots go to out/view/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEditServer } from '../../cli/edit-server.ts';
import { startViewServer, type PageAssets } from '../../cli/view-server.ts';
import { canvasVariance, collectErrors, describeWithBrowser, editorAssets, launchBrowser, type Browser, viewerAssets } from '../support/browser.ts';
import { describeIfData, hasSharedData, readShared } from '../support/shared-data.ts';
import { ComponentPose } from '../../runtime/core/component-pose.ts';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import { loadBvh } from '../../runtime/import/bvh.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(root, 'out', 'view');

interface ViewerState {
  status: string; frame: number; figure: string; bones: number; finite: boolean; debugText: string; unboundGraphBones: string[]; problems: unknown[];
  retargetSource: { available: boolean; shown: boolean; clip: string; time: number; bones: number; pelvis: number[] };
}
const viewerState = (page: Page) => page.evaluate(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer);

/**
 * The retarget source skeleton beside the robot: drawn at the character's clip time, the capture's
 * own pose there; the checkbox hides it.
 */
async function checkSource(page: Page, toggle = '#source-row', debugText = async (): Promise<string> => (await viewerState(page)).debugText): Promise<void> {
  await page.click('#play'); // paused: the panels and the source show the frame on screen
  // Stepped on, frame by frame, to a clip time past 0.2 s where the pause fell near the start of the
  // looping clip: there the source could not be told from one that stays at time 0.
  for (let steps = 0; ; steps++) {
    const before = (await viewerState(page)).retargetSource.time;
    if (before > 0.2) break;
    expect(steps).toBeLessThan(60);
    await page.click('#step');
    await expect.poll(async () => (await viewerState(page)).retargetSource.time, { timeout: 5000 }).not.toBe(before);
  }
  const s = await viewerState(page);
  expect(await page.isVisible(toggle)).toBe(true);
  const { skeleton, clip } = loadBvh(readShared('bvh/cmu/007_04.bvh'), 'walk');
  expect(s.retargetSource).toMatchObject({ available: true, shown: true, clip: 'cmuWalk', bones: skeleton.boneCount });
  // The character's player reports its play time in its debug line: the source was sampled at it.
  // (Polled: a page may draw its panels a moment after the frame.)
  expect(s.retargetSource.time).toBeGreaterThan(0.2);
  await expect.poll(async () => /'cmuWalk' Play Time: ([0-9.]+)/.exec(await debugText())?.[1], { timeout: 5000 }).toBe(s.retargetSource.time.toFixed(3));
  // The source drawn is the capture at that time (the asset's frames 1 to the last): its pelvis where the file puts it.
  const pose = sampleClip(new Pose(skeleton.boneCount), new ClipBinding(clip.sliceFrames(1), skeleton), s.retargetSource.time, false);
  const cs = new ComponentPose(skeleton);
  cs.setFromLocal(pose);
  const pelvis = skeleton.indexOf('CC_Base_Pelvis');
  cs.ensureComponent(pelvis);
  for (let k = 0; k < 3; k++) expect(Math.abs(s.retargetSource.pelvis[k] - cs.translations[pelvis * 3 + k])).toBeLessThan(1e-9);
  writeFileSync(join(OUT, toggle === '#source-row' ? 'retarget-source.png' : 'retarget-source-editor.png'), await page.locator('canvas').first().screenshot());
  // The toggle hides it.
  await page.click('#show-source');
  expect((await viewerState(page)).retargetSource.shown).toBe(false);
}

describeIfData(hasSharedData)('retargeted examples', () => {
  describeWithBrowser('in the viewer and the editor\'s preview (headless Chromium)', () => {
    let browser: Browser;
    let assets: PageAssets;
    let editorPage: PageAssets;
    beforeAll(async () => {
      [browser, assets, editorPage] = await Promise.all([launchBrowser(), viewerAssets(), editorAssets()]);
      mkdirSync(OUT, { recursive: true });
    }, 60000);
    afterAll(() => browser?.close());

    it.each([
      ['cmu-robot-retarget.json', 43, 'skinned', 'mirror via clip'],
      ['cmu-cesium-retarget.json', 19, 'skinned', 'mirror'],
    ])('%s plays: %i bones drawn as the %s mesh, finite, no console error', async (file, bones, figure) => {
      const server = await startViewServer(join(root, 'graphs/examples', file), { port: 0, assets });
      const page = await browser.context.newPage();
      const errors = collectErrors(page);
      try {
        await page.goto(server.url);
        await page.waitForFunction(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.frame >= 40
          || (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.status === 'error', null, { timeout: 60000 });
        const state = await viewerState(page);
        expect(state.problems, JSON.stringify(state.problems)).toEqual([]);
        expect(state).toMatchObject({ status: 'running', figure, finite: true, bones });
        expect(state.unboundGraphBones).toEqual([]);
        expect(await canvasVariance(page)).toBeGreaterThan(20);
        await page.screenshot({ path: join(OUT, file.replace('.json', '.png')) });
        if (file === 'cmu-robot-retarget.json') await checkSource(page);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.close();
      }
    }, 120000);

    it('in the editor\'s preview, draws the retarget source beside the robot, at the character\'s clip time, and its checkbox hides it', async () => {
      const server = await startEditServer(join(root, 'graphs/examples/cmu-robot-retarget.json'), { port: 0, assets: editorPage });
      const page = await browser.context.newPage();
      const errors = collectErrors(page);
      try {
        await page.goto(server.url);
        await page.waitForFunction(() => (window as unknown as { __animgraphEditor: { frame: number } }).__animgraphEditor.frame >= 40
          && (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.retargetSource.shown, null, { timeout: 60000 });
        // The editor draws each node's debug line on the canvas: the player's, of the frame on screen.
        await checkSource(page, '#source-toggle', () => page.locator('.react-flow__node[data-id=cmu] .live .desc').textContent().then((t) => t ?? ''));
        expect(errors.filter((e) => e.startsWith('uncaught'))).toEqual([]);
      } finally {
        await page.close();
        await server.close();
      }
    }, 120000);
  });
});
