// The CLI from its TypeScript sources (`node --import tsx`), as cli/animgraph.mjs runs the compiled
// one: tests that spawn the CLI run this, so they test the sources being edited, never a stale dist/.
// The pack test (scripts/pack-test.mjs) runs the installed bin.
import { main } from '../../cli/main.ts';

process.exitCode = await main(process.argv.slice(2));
