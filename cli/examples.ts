/**
 * `animgraph examples [DIR]`: copies the example graphs the package ships (graphs/examples/sample-*.json,
 * on the built-in sample biped, so they name no other file) into
 * DIR (default `examples`), so an installed package's user can run the README's commands on them. A
 * file already there with other contents is left alone unless --force.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseOptions, UsageError, writing } from './common.ts';
import { writeOutputFile } from './output-file.ts';
import type { Io } from './io.ts';

/** The examples that need no file besides themselves (what the package ships). */
const SHIPPED = /^sample-.*\.json$/;

/**
 * The package's graphs/examples folder: two levels up from the compiled dist/cli/examples.js,
 * one from the source cli/examples.ts.
 */
export function examplesSource(): string {
  for (const up of ['../graphs/examples', '../../graphs/examples']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(join(dir, 'sample-locomotion.json'))) return dir;
  }
  throw new Error('animgraph examples: the package holds no graphs/examples/sample-locomotion.json');
}

/** The shipped example files, by name (sorted). */
export function shippedExamples(): string[] {
  return readdirSync(examplesSource()).filter((name) => SHIPPED.test(name)).sort();
}

export function examplesCommand(args: readonly string[], io: Io): number {
  const { values, positionals } = parseOptions(args, { force: { type: 'boolean' } });
  if (positionals.length > 1) throw new UsageError('takes at most one DIR');
  const dir = positionals[0] ?? 'examples';
  const source = examplesSource();
  const names = shippedExamples();
  const clashes: string[] = [];
  const texts = names.map((name) => readFileSync(join(source, name), 'utf8'));
  names.forEach((name, i) => {
    const target = join(dir, name);
    if (existsSync(target) && values.force !== true && readFileSync(target, 'utf8') !== texts[i]) clashes.push(target);
  });
  if (clashes.length > 0) throw new UsageError(`${clashes.join(', ')} exist${clashes.length === 1 ? 's' : ''} with other contents; give another DIR, or --force to overwrite`);
  writing(dir, () => mkdirSync(dir, { recursive: true }));
  names.forEach((name, i) => writeOutputFile(join(dir, name), texts[i]));
  io.out(`wrote ${names.length} example graphs to ${dir}/: ${names.join(', ')}\n`
    + `They run on the built-in sample biped (no other files). Try:\n  npx animgraph run ${join(dir, 'sample-locomotion.json')} --frames 5 --debug text\n`);
  return 0;
}
