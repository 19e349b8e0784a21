/**
 * The retargeting examples in the viewer (headless Chromium, as tests/view/viewer.test.ts): the CMU
 * walk on the skinned robot and on CesiumMan, drawn and played with no console error. Screenshots
 * go to out/view/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startViewServer, type PageAssets } from '../../cli/view-server.ts';
import { canvasVariance, collectErrors, describeWithBrowser, launchBrowser, type Browser, viewerAssets } from '../support/browser.ts';
import { describeIfData, hasSharedData } from '../support/shared-data.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(root, 'out', 'view');

interface ViewerState { status: string; frame: number; figure: string; bones: number; finite: boolean; debugText: string; unboundGraphBones: string[]; problems: unknown[] }
const viewerState = (page: Page) => page.evaluate(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer);

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
        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.close();
      }
    }, 120000);
  });
});
