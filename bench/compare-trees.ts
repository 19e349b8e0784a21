/**
 * Two trees of this repository (a change and the code before it), the same crowd of each timed in
 * one process, windows interleaved: the new tree's µs per character over the old one's, per count.
 *
 * At 10,000 characters the crowd built first in a process ran up to 20% faster than the one built
 * second, whichever code it was. So this runs the
 * comparison twice, each in a process of its own, once with each tree's crowd built first, prints
 * both and their geometric mean: a change is faster only if both orders say so.
 *
 *   git worktree add /tmp/old HEAD~1 && ln -s "$PWD/node_modules" /tmp/old/node_modules
 *   node --import tsx bench/compare-trees.ts --old /tmp/old [--new .] [--graph player | --part kernel] [--counts 1000,10000] [--windows 16]
 *
 * `--graph` is a case of bench/crowd/step-cases.ts's graphCase, which both trees must have (the
 * crowd bench's cases and 'locomotion'). `--part` times one of that file's parts of the player crowd
 * instead (`kernel`: the sampling kernel alone, no graph; `objects`, `kernel+reads`, `copy`,
 * `hand loop`): a change to the kernel shows there without the graph's noise. It reports; it
 * asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { median } from './crowd/median.ts';

const args = process.argv.slice(2);
function option(name: string, fallback: string): string {
  const at = args.indexOf(name);
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
}

interface Timed { count: number; oldUs: number; newUs: number; ratios: number[] }

/** In a child: both trees' crowds, `first` built first, timed in interleaved windows; prints JSON. */
async function runChild(): Promise<void> {
  const [oldRoot, newRoot, graph, countList, windowsText, first, part] = args.slice(1);
  const counts = countList.split(',').map(Number), windows = Number(windowsText);
  const roots = first === 'new' ? [['new', newRoot], ['old', oldRoot]] : [['old', oldRoot], ['new', newRoot]];
  const sides: { tree: string; count: number; frame: () => void; us: number[] }[] = [];
  for (const [tree, root] of roots) {
    const cases = await import(pathToFileURL(`${root}/bench/crowd/step-cases.ts`).href);
    const make = (count: number): (() => void) => {
      if (part === '') return cases.graphCase(count, graph);
      const step = (cases.STEP_CASES as [string, (count: number) => () => void][]).find(([name]) => name === part);
      if (step === undefined) throw new RangeError(`no part '${part}' in ${root}'s bench/crowd/step-cases.ts`);
      return step[1](count);
    };
    for (const count of counts) sides.push({ tree, count, frame: make(count), us: [] });
  }
  for (const s of sides) for (let i = 0; i < 200_000 / s.count; i++) s.frame();
  for (let w = 0; w < windows; w++) {
    for (const s of w % 2 === 0 ? sides : [...sides].reverse()) {
      const frames = Math.max(2, Math.round(60_000 / s.count));
      const start = performance.now();
      for (let i = 0; i < frames; i++) s.frame();
      s.us.push((performance.now() - start) * 1000 / frames / s.count);
    }
  }
  const timed: Timed[] = counts.map((count) => {
    const o = sides.find((s) => s.tree === 'old' && s.count === count)!, n = sides.find((s) => s.tree === 'new' && s.count === count)!;
    return { count, oldUs: median(o.us), newUs: median(n.us), ratios: o.us.map((u, i) => n.us[i] / u) };
  });
  console.log(JSON.stringify(timed));
}

function runParent(): void {
  const oldRoot = resolve(option('--old', ''));
  const newRoot = resolve(option('--new', '.'));
  const graph = option('--graph', 'player');
  const counts = option('--counts', '1000,10000');
  const windows = option('--windows', '16');
  const part = option('--part', '');
  if (option('--old', '') === '' || !counts.split(',').every((c) => Number.isInteger(Number(c)) && Number(c) > 0) || !(Number.isInteger(Number(windows)) && Number(windows) > 0)) {
    console.error('usage: --old <tree> [--new <tree>] [--graph player | --part kernel] [--counts 1000,10000] [--windows 16]');
    process.exit(2);
  }
  const script = fileURLToPath(import.meta.url);
  const orders = ['old', 'new'].map((first) => {
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', script, '--child', oldRoot, newRoot, graph, counts, windows, first, part], { encoding: 'utf8' });
    if (run.status !== 0) {
      console.error(run.stderr);
      process.exit(1);
    }
    return { first, timed: JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Timed[] };
  });
  console.log(`${part === '' ? `${graph} crowd` : `the player crowd's part '${part}'`}, new (${newRoot}) over old (${oldRoot}): µs per character (median of ${windows} windows) and new/old (median of the windows' ratios, their range)`);
  for (const count of counts.split(',').map(Number)) {
    const parts = orders.map(({ first, timed }) => {
      const t = timed.find((x) => x.count === count)!;
      return { first, t, ratio: median(t.ratios) };
    });
    for (const { first, t, ratio } of parts) {
      console.log(`  ${String(count).padStart(6)}  ${first} built first: old ${t.oldUs.toFixed(3)}, new ${t.newUs.toFixed(3)}, new/old ${ratio.toFixed(3)} (${Math.min(...t.ratios).toFixed(2)}-${Math.max(...t.ratios).toFixed(2)})`);
    }
    console.log(`  ${String(count).padStart(6)}  both orders: new/old ${Math.sqrt(parts[0].ratio * parts[1].ratio).toFixed(3)} (geometric mean)`);
  }
}

if (args[0] === '--child') await runChild();
else runParent();
