// A crowd's worker thread, started by crowd-threads.ts as `./crowd-worker.mjs`. Built (dist/host/, where
// the build copies this file), the compiled worker sits beside it and plain Node runs it. From the
// sources (development and the tests) there is only TypeScript, so tsx, a devDependency, compiles
// it on import: tsx is never loaded from an installed package. The test suite compiles the sources
// once per run instead (ANIMGRAPH_COMPILED_SOURCES: tests/support/compiled-sources.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const compiled = new URL('./crowd-worker.js', import.meta.url);
const tests = process.env.ANIMGRAPH_COMPILED_SOURCES;
if (existsSync(compiled)) await import(compiled.href);
else if (tests && existsSync(join(tests, 'crowd-worker.mjs'))) await import(pathToFileURL(join(tests, 'crowd-worker.mjs')).href);
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./crowd-worker.ts');
}
