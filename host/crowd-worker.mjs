// A crowd's worker thread, started by crowd-threads.ts as `./crowd-worker.mjs`. Built (dist/host/, where
// the build copies this file), the compiled worker sits beside it and plain Node runs it. From the
// sources (development and the tests) there is only TypeScript, so tsx, a devDependency, compiles
// it on import: tsx is never loaded from an installed package.
import { existsSync } from 'node:fs';

const compiled = new URL('./crowd-worker.js', import.meta.url);
if (existsSync(compiled)) await import(compiled.href);
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./crowd-worker.ts');
}
