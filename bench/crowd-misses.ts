/**
 * The player crowd's cache misses per character per frame, counted rather than timed: each case of
 * bench/crowd/step-cases.ts runs under valgrind's cache simulator (callgrind, a D1 of 32 KB and a
 * last-level cache of --ll-mb MB, 16-way, 64-byte lines), counted only over the measured frames, and
 * the misses are put down to the JavaScript function, WebAssembly function or builtin whose
 * instructions made them (V8's --perf-basic-prof map of its generated code). The counts are the
 * same from run to run whatever else the machine does, where bench/crowd-step.ts's times move with
 * the host's other tenants (docs/performance.md, "Reading these figures").
 *
 * What it cannot see: the simulator has no hardware prefetcher, so lines read or written in order
 * (the pose rows, the per-frame numbers' rows) count as misses that the hardware mostly hides; it
 * is the misses in the characters' objects, read in no order the prefetcher follows, that cost.
 * It reports; it asserts nothing. Needs valgrind (Debian's `valgrind`; every machine kind here has it).
 *
 *   node --import tsx bench/crowd-misses.ts [--ll-mb 8] [--cases graph,kernel,hand loop] [--counts 1000,10000] [--graph player]
 *
 * `--graph blend` (or any case of the crowd bench: statemachine, layered, inertial, stride+cs,
 * bendroll+cs, lod, ...) counts that case's crowd as the 'graph' case instead of the player's, run
 * as the bench runs it (its component pass, its start: an inertial transition running, and its
 * parameter switches: state-machine transitions, pose searches); `--graph locomotion` the locomotion
 * example's crowd as bench/locomotion-crowd.ts runs it (22 bones, gait switches staggered).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GRAPH_CASES, STEP_CASES, graphCase, graphCaseBones } from './crowd/step-cases.ts';

/** Character frames run before counting (V8 optimises the frame loop in them) and counted. */
const WARM_CHARACTER_FRAMES = 300_000, COUNTED_CHARACTER_FRAMES = 100_000;

const args = process.argv.slice(2);

/** Under valgrind: builds the case, warms it, and counts only its measured frames. */
function runChild(name: string, count: number, kind: string): void {
  const make = STEP_CASES.find(([n]) => n === name)![1];
  const frame = name === 'graph' ? graphCase(count, kind) : make(count);
  for (let i = 0; i < WARM_CHARACTER_FRAMES / count; i++) frame();
  const instrument = (on: boolean): void => {
    execFileSync('callgrind_control', ['-i', on ? 'on' : 'off', String(process.pid)], { stdio: 'ignore' });
  };
  instrument(true);
  for (let i = 0; i < Math.max(1, COUNTED_CHARACTER_FRAMES / count); i++) frame();
  instrument(false);
  process.exit(0);
}

function option(name: string, fallback: string): string {
  const at = args.indexOf(name);
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
}

function runParent(): void {
  const llMb = Number(option('--ll-mb', '8'));
  const names = option('--cases', 'graph,kernel,hand loop').split(',');
  const counts = option('--counts', '1000,10000').split(',').map(Number);
  const kind = option('--graph', 'player');
  const unknown = names.filter((n) => !STEP_CASES.some(([c]) => c === n));
  if (!(llMb > 0) || unknown.length > 0 || counts.some((c) => !Number.isInteger(c) || c < 1) || !GRAPH_CASES.includes(kind)) {
    console.error(`--ll-mb takes megabytes above 0, --counts whole numbers, --graph one of ${GRAPH_CASES.join(', ')}, --cases some of: ${STEP_CASES.map(([n]) => n).join(', ')}`);
    process.exit(2);
  }
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    console.error('crowd-misses needs valgrind (apt-get install valgrind)');
    process.exit(2);
  }
  const bones = graphCaseBones(kind);
  console.log(`${kind} crowd (the other cases: the player's), ${bones} bones: per character per frame, valgrind's cache simulator (D1 32 KB, LL ${llMb} MB, no prefetcher)`);
  console.log(`a character's pose is ${(bones * 10 * 8 / 64).toFixed(2)} lines, written in order`);
  console.log(`${'case'.padEnd(10)} ${'count'.padStart(6)} ${'instructions'.padStart(12)} ${'LL read'.padStart(8)} ${'LL write'.padStart(9)}  in JavaScript: ${'read'.padStart(5)} ${'write'.padStart(6)}`);
  let last: Counts | null = null;
  for (const name of names) {
    for (const count of counts) {
      const counted = measure(name, count, llMb, kind);
      const frames = Math.max(1, COUNTED_CHARACTER_FRAMES / count) * count;
      const all = sum(counted.values()), js = sum([...counted].filter(([k]) => isJavaScript(k)).map(([, v]) => v));
      console.log(`${name.padEnd(10)} ${String(count).padStart(6)} ${(all.instructions / frames).toFixed(0).padStart(12)} ${(all.llRead / frames).toFixed(2).padStart(8)} ${(all.llWrite / frames).toFixed(2).padStart(9)}                 ${(js.llRead / frames).toFixed(2).padStart(5)} ${(js.llWrite / frames).toFixed(2).padStart(6)}`);
      if (name === names[0] && count === counts.at(-1)) last = counted;
    }
  }
  if (last !== null) {
    const frames = Math.max(1, COUNTED_CHARACTER_FRAMES / counts.at(-1)!) * counts.at(-1)!;
    console.log(`\n${names[0]} at ${counts.at(-1)}: where the last-level misses are, per character per frame`);
    const rows = [...last].filter(([, v]) => v.llRead + v.llWrite >= 0.01 * frames).sort((a, b) => b[1].llRead + b[1].llWrite - a[1].llRead - a[1].llWrite);
    for (const [fn, v] of rows) {
      console.log(`  ${(v.llRead / frames).toFixed(2).padStart(6)} read ${(v.llWrite / frames).toFixed(2).padStart(6)} write ${(v.instructions / frames).toFixed(0).padStart(6)} instructions  ${fn}`);
    }
  }
}

interface Cost { instructions: number; llRead: number; llWrite: number }
type Counts = Map<string, Cost>;

function sum(costs: Iterable<Cost>): Cost {
  const total = { instructions: 0, llRead: 0, llWrite: 0 };
  for (const c of costs) {
    total.instructions += c.instructions;
    total.llRead += c.llRead;
    total.llWrite += c.llWrite;
  }
  return total;
}

function isJavaScript(fn: string): boolean {
  return fn.startsWith('JS:') && !fn.includes('wasm-function');
}

/** Runs one case under callgrind and returns its counted cost by function. */
function measure(name: string, count: number, llMb: number, kind: string): Counts {
  const dir = mkdtempSync(join(tmpdir(), 'crowd-misses-'));
  const out = join(dir, 'callgrind.out');
  const script = fileURLToPath(import.meta.url);
  const run = spawnSync('valgrind', [
    '--tool=callgrind', '--instr-atstart=no', '--cache-sim=yes', '--dump-instr=yes', `--callgrind-out-file=${out}`,
    '--D1=32768,8,64', `--LL=${llMb * 1024 * 1024},16,64`, '--smc-check=all-non-file',
    // Optimised on the main thread, so the counted frames run the same code in every run.
    process.execPath, '--no-concurrent-recompilation', '--perf-basic-prof', '--import', 'tsx', script, '--child', name, String(count), kind,
  ], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) {
    console.error(run.stderr);
    throw new Error(`valgrind on ${name} × ${count} exited with ${run.status}`);
  }
  try {
    const profile = readFileSync(out, 'utf8');
    const pid = /^pid: (\d+)$/m.exec(profile)![1];
    const mapFile = join('/tmp', `perf-${pid}.map`);
    const counted = attribute(profile, readFileSync(mapFile, 'utf8'));
    rmSync(mapFile, { force: true });
    return counted;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Self cost by function from a callgrind profile written with --dump-instr=yes: V8's generated code
 * has no symbols, so each instruction's address is looked up in the perf map (start, size, name).
 */
function attribute(profile: string, perfMap: string): Counts {
  const code = perfMap.split('\n').filter(Boolean).map((line) => {
    const [start, size, ...name] = line.split(' ');
    return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' ') };
  }).sort((a, b) => a.start - b.start);
  const lookUp = (address: number): string | null => {
    let lo = 0, hi = code.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (code[mid].start <= address) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found >= 0 && address < code[found].end ? code[found].name : null;
  };
  const events = /^events: (.*)$/m.exec(profile)![1].split(' ');
  const ir = events.indexOf('Ir'), dlmr = events.indexOf('DLmr'), dlmw = events.indexOf('DLmw');
  const names = new Map<string, string>(), objects = new Map<string, string>();
  const counts: Counts = new Map();
  let fn = '', object = '', address = 0, callCost = false;
  for (const line of profile.split('\n')) {
    const named = /^(fn|ob)=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named !== null) {
      const table = named[1] === 'fn' ? names : objects;
      if (named[3] !== undefined) table.set(named[2], named[3]);
      if (named[1] === 'fn') fn = table.get(named[2]) ?? ''; else object = table.get(named[2]) ?? '';
      continue;
    }
    if (line.startsWith('calls=')) {
      callCost = true; // the next cost line is the call's inclusive cost, not this function's own
      continue;
    }
    const first = line[0];
    if (!(first === '0' || first === '+' || first === '-' || first === '*')) continue;
    const fields = line.split(' ');
    const at = fields[0];
    if (at.startsWith('0x')) address = parseInt(at, 16);
    else if (first === '+') address += Number(at.slice(1));
    else if (first === '-') address -= Number(at.slice(1));
    if (callCost) {
      callCost = false;
      continue;
    }
    // fields[1] is the source line; the event columns follow, trailing zeros left out
    const value = (event: number): number => (event >= 0 && 2 + event < fields.length ? Number(fields[2 + event]) : 0);
    const where = fn !== '' && !fn.startsWith('0x') ? fn : lookUp(address) ?? `native code${object === '' ? '' : ` in ${object.split('/').at(-1)}`}`;
    const key = where.replace(/ file:\/\/\S*\/([^/]+\/[^/:]+)\S*$/, ' ($1)');
    const cost = counts.get(key) ?? { instructions: 0, llRead: 0, llWrite: 0 };
    cost.instructions += value(ir);
    cost.llRead += value(dlmr);
    cost.llWrite += value(dlmw);
    counts.set(key, cost);
  }
  return counts;
}

if (args[0] === '--child') runChild(args[1], Number(args[2]), args[3]);
else runParent();
