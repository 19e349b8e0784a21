// `npm run docs`: writes every file generated from the node types and editor-meta/, from the
// TypeScript sources: docs/nodes.md and animgraph.schema.json through the CLI's own `docs` and
// `schema` commands, and the README's node list. The tests fail while any of them is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main } from '../../cli/main.ts';
import { readmeWithNodeList } from '../../editor-meta/docs.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
let code = await main(['docs', '--out', `${root}docs/nodes.md`]);
if (code === 0) code = await main(['schema', '--out', `${root}animgraph.schema.json`]);
if (code === 0) {
  const readme = `${root}README.md`, text = readFileSync(readme, 'utf8'), generated = readmeWithNodeList(text);
  if (generated !== text) writeFileSync(readme, generated);
  console.log(`${generated === text ? 'kept' : 'wrote'} ${readme} (its node list)`);
}
process.exitCode = code;
