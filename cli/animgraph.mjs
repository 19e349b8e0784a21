#!/usr/bin/env node
// The `animgraph` command: the compiled CLI (dist/cli/main.js) run by plain Node, no loader.
// dist/ comes with the package, and in a clone `npm install` builds it (`prepare`); after editing
// the sources, `npm run build` updates it.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write('animgraph: the compiled CLI (dist/cli/main.js) is missing: run `npm run build`\n');
  process.exit(1);
}
const { main } = await import(compiled.href);
process.exitCode = await main(process.argv.slice(2));
