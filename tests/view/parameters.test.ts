/**
 * The viewer's parameter panel in headless Chromium: Enter in a number field alone in the form
 * submitted it and reloaded the page, and a float parameter's slider spanned 0..1 whatever the
 * value. sliderSpan, the range a float slider takes, is checked without a browser.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startViewServer, type PageAssets } from '../../cli/view-server.ts';
import { sliderSpan } from '../../viewer/panels.ts';
import { collectErrors, describeWithBrowser, launchBrowser, type Browser, viewerAssets } from '../support/browser.ts';

interface ViewerState { status: string; frame: number; loads: number; debugText: string }
const viewerState = (page: Page) => page.evaluate(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer);

/** A graph of one parameter, of this type and default, driving a BlendList (int) or a play rate (float). */
function graphFile(type: 'int' | 'float', value: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'animgraph-view-params-'));
  const file = join(dir, `${type}.json`);
  const nodes = type === 'int'
    ? {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      pick: { type: 'BlendList', inputs: { poses: ['walk', 'run'] }, properties: { activeIndex: { param: 'p' } } },
    }
    : { pick: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'p' } } } };
  writeFileSync(file, JSON.stringify({
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    parameters: { p: { type, default: value } }, nodes, output: 'pick',
  }));
  return file;
}

describe('sliderSpan', () => {
  it('spans 1, 2 or 5 times a power of ten, at least twice the value either side of zero, at least 1', () => {
    expect([0, 1e-6, 0.5, 0.7, 1, 2.4, 2.5, 3, 250, -250, 1234, 1e6].map(sliderSpan)).toEqual([1, 1, 1, 2, 2, 5, 5, 10, 500, 500, 5000, 2e6]);
    expect(sliderSpan(1e308)).toBe(Number.MAX_VALUE);
  });
});

describeWithBrowser('the viewer\'s parameter panel in headless Chromium', () => {
  let browser: Browser;
  let assets: PageAssets;

  beforeAll(async () => {
    [browser, assets] = await Promise.all([launchBrowser(), viewerAssets()]);
  }, 60000);
  afterAll(() => browser?.close());

  it.each(['int', 'float'] as const)('Enter in the one %s field sets the value and keeps the page', async (type) => {
    const server = await startViewServer(graphFile(type, 0), { port: 0, assets });
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    try {
      await page.goto(server.url);
      await page.waitForFunction(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.frame >= 3, null, { timeout: 20000 });
      await page.evaluate(() => { (window as unknown as { marker: number }).marker = 42; });
      const field = page.locator('[data-parameter=p] input[type=number]');
      await field.fill('1');
      await field.press('Enter');
      await page.waitForFunction(() => (window as unknown as { __animgraphViewer: ViewerState }).__animgraphViewer.frame >= 10, null, { timeout: 20000 });
      // A submit would have reloaded the page: the marker gone, the frame count started over.
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
      const state = await viewerState(page);
      expect(state.status).toBe('running');
      expect(state.debugText).toContain(type === 'int' ? '(Active: 1' : "SequencePlayer[pick]<W:100.0%> ('walk'");
      expect(await page.evaluate(() => location.search + location.hash)).toBe('');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it('gives a float slider a range derived from its value, both sides of zero, widened by the number field', async () => {
    const server = await startViewServer(graphFile('float', 250), { port: 0, assets });
    const page = await browser.context.newPage();
    try {
      await page.goto(server.url);
      await page.waitForSelector('[data-parameter=p] input[type=range]', { timeout: 20000 });
      const slider = page.locator('[data-parameter=p] input[type=range]');
      const range = () => slider.evaluate((s) => [(s as HTMLInputElement).min, (s as HTMLInputElement).max, (s as HTMLInputElement).value]);
      // It was 0..1 whatever the value: a play rate of 250 sat past the end.
      expect(await range()).toEqual(['-500', '500', '250']);
      await page.locator('[data-parameter=p] input[type=number]').fill('-1234');
      const [min, max, value] = await range();
      expect([min, max]).toEqual(['-5000', '5000']);
      expect(Math.abs(Number(value) + 1234)).toBeLessThanOrEqual(25); // the slider's step: 1/200 of its span
    } finally {
      await page.close();
      await server.close();
    }
  });
});
