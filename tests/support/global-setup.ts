/**
 * Once per `vitest run` (vitest.config.ts, globalSetup): what the browser tests would otherwise each
 * start or build for themselves, each file in its own process.
 *
 * - One headless Chromium (a playwright browser server) when a test file of the run uses
 *   tests/support/browser.ts: launchBrowser() opens a fresh context of it per file (its own
 *   cookies and storage, as its own profile gave it) instead of starting Chromium again.
 * - The viewer page bundled once (loadPageAssets, as `animgraph view` bundles it from the sources)
 *   when a test file of the run loads it: viewerAssets() reads it. The editor's likewise
 *   (loadEditorAssets, as `animgraph edit` bundles it): editorAssets().
 *
 * - The probes, the Crowd's worker and the CLI compiled to JavaScript (compiled-sources.ts) when a
 *   test file of the run runs a probe, starts a crowd or launches the CLI: they run in plain Node
 *   instead of through tsx.
 *
 * All are made at the start of the run from the sources as they are then, so nothing is staler than
 * a file's own launch or bundle would be; in watch mode nothing is shared (a rerun after an edit would
 * get the old bundle), and a test file run without this setup starts and bundles its own (a probe,
 * a crowd's worker or the CLI runs through tsx).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, hasChromium } from './browser.ts';
import { COMPILED_SOURCES_ENV, compileSources } from './compiled-sources.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  project.provide('chromiumEndpoint', '');
  project.provide('viewerPageDir', '');
  project.provide('editorPageDir', '');
  if (project.vitest.config.watch) return async () => {};

  // The files this run runs: the command line's filters (vitest keeps them as filenamePattern), or all.
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern ?? [];
  const testFiles: string[] = [];
  for (const p of project.vitest.projects) testFiles.push(...(await p.globTestFiles(filters)).testFiles);
  const sources = testFiles.map((f) => readFileSync(f, 'utf8'));
  const usesBrowser = hasChromium && sources.some((s) => s.includes('/support/browser.ts'));
  const usesViewer = sources.some((s) => s.includes('viewerAssets('));
  const usesEditor = sources.some((s) => s.includes('editorAssets('));
  const usesCompiled = sources.some((s) => ['runProbe', 'runNodeProbe', 'Crowd', 'cliArgs', 'nodeArgs'].some((word) => s.includes(word)));

  const [server, viewerDir, editorDir, compiledDir] = await Promise.all([
    usesBrowser ? chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS }) : undefined,
    usesViewer
      ? (async () => {
        const dir = mkdtempSync(join(tmpdir(), 'animgraph-viewer-page-'));
        const { loadPageAssets } = await import('../../cli/view-server.ts');
        for (const [name, { body }] of await loadPageAssets()) writeFileSync(join(dir, name), body);
        return dir;
      })()
      : undefined,
    usesEditor
      ? (async () => {
        const dir = mkdtempSync(join(tmpdir(), 'animgraph-editor-page-'));
        const { loadEditorAssets } = await import('../../cli/edit-server.ts');
        for (const [name, { body }] of await loadEditorAssets()) writeFileSync(join(dir, name), body);
        return dir;
      })()
      : undefined,
    usesCompiled
      ? (async () => {
        const dir = mkdtempSync(join(tmpdir(), 'animgraph-compiled-'));
        await compileSources(dir);
        return dir;
      })()
      : undefined,
  ]);
  if (server) project.provide('chromiumEndpoint', server.wsEndpoint());
  if (viewerDir) project.provide('viewerPageDir', viewerDir);
  if (editorDir) project.provide('editorPageDir', editorDir);
  // An environment variable, not provide(): the probes' processes and the crowds' worker threads
  // read it too, outside vitest. The test processes start after this setup, with this process's
  // environment, and their children and threads inherit it.
  if (compiledDir) process.env[COMPILED_SOURCES_ENV] = compiledDir;
  return async () => {
    await server?.close();
    if (viewerDir) rmSync(viewerDir, { recursive: true, force: true });
    if (editorDir) rmSync(editorDir, { recursive: true, force: true });
    if (compiledDir) {
      delete process.env[COMPILED_SOURCES_ENV];
      rmSync(compiledDir, { recursive: true, force: true });
    }
  };
}
