// A crowd's worker thread. The package is TypeScript run without a build step, so the worker
// registers tsx's loader (as cli/animgraph.mjs does) before importing its TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./crowd-worker.ts');
