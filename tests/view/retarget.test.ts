/**
 * The retargeting examples in the viewer (headless Chromium, as tests/view/viewer.test.ts): the CMU
 * walk on the skinned robot and on CesiumMan, drawn and played with no console error, and the
 * retarget source skeleton drawn beside the robot. Screenshots go to out/view/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startViewServer, type PageAssets } from '../../cli/view-server.ts';
import { canvasVariance, collectErrors, describeWithBrowser, launchBrowser, type Browser, viewerAssets } from '../support/browser.ts';
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
async function checkSource(page: Page): Promise<void> {
  await page.click('#play'); // paused: the panels and the source show the frame on screen
  const s = await viewerState(page);
  expect(await page.isVisible('#source-row')).toBe(true);
  const { skeleton, clip } = loadBvh(readShared('bvh/cmu/007_04.bvh'), 'walk');
  expect(s.retargetSource).toMatchObject({ available: true, shown: true, clip: 'cmuWalk', bones: skeleton.boneCount });
  // The character's player reports its play time in the debug text: the source was sampled at it.
  const played = /'cmuWalk' Play Time: ([0-9.]+)/.exec(s.debugText);
  expect(played).not.toBeNull();
  expect(s.retargetSource.time).toBeGreaterThan(0.2);
  expect(s.retargetSource.time.toFixed(3)).toBe(played![1]);
  // The source drawn is the capture at that time (the asset's frames 1 to the last): its pelvis where the file puts it.
  const pose = sampleClip(new Pose(skeleton.boneCount), new ClipBinding(clip.sliceFrames(1), skeleton), s.retargetSource.time, false);
  const cs = new ComponentPose(skeleton);
  cs.setFromLocal(pose);
  const pelvis = skeleton.indexOf('CC_Base_Pelvis');
  cs.ensureComponent(pelvis);
  for (let k = 0; k < 3; k++) expect(Math.abs(s.retargetSource.pelvis[k] - cs.translations[pelvis * 3 + k])).toBeLessThan(1e-9);
  writeFileSync(join(OUT, 'retarget-source.png'), await page.locator('#canvas').screenshot());
  // The toggle hides it.
  await page.click('#show-source');
  expect((await viewerState(page)).retargetSource.shown).toBe(false);
}

describeIfData(hasSharedData)('retargeted examples', () => {
  describeWithBrowser('in the viewer (headless Chromium)', () => {
    let browser: Browser;
    let assets: PageAssets;
    beforeAll(async () => {
      [browser, assets] = await Promise.all([launchBrowser(), viewerAssets()]);
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
  });
});
