/**
 * A Crowd's workers failing (exiting, hanging, throwing, writing NaN) and what it reports, each
 * scenario in a process of its own; measureAllocation on one thread; the crowd example of
 * docs/crowds.md run as written.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Crowd, DEFAULT_WORKER_TIMEOUT } from '../../host/crowd.ts';
import { measureAllocation } from '../../host/allocation.ts';
import { PROBE_HANG_MS, runProbe } from '../support/allocation.ts';
import { SABOTAGED_BONE } from '../support/crowd-graphs.ts';
import { closedAfterAll, LOCOMOTION, SUPPORT } from '../support/crowd-tests.ts';
import { COMPILED_SOURCES_ENV, nodeArgs } from '../support/compiled-sources.ts';

const { crowds, crowdOf } = closedAfterAll();

/** What tests/support/crowd-failure-probe.ts prints. */
interface FailureProbe {
  errors: { crowdWorkerError: boolean; name: string; failure: string; worker: number; characters: number[]; exitCode: number | null; message: string; others: FailureProbe['errors'] }[];
  afterFailure: number[];
  restarted: number[];
  relevantAfterRestart: number[];
  evaluatedAfterRestart: Record<string, number[]>;
}

/**
 * Runs crowd-failure-probe.ts `scenario` in a process of its own, which must finish within a
 * deadline: not a measurement (far beyond the 500 ms and 10 s the probe's crowds wait), only what
 * keeps a crowd that would wait forever for its worker from holding this test for good.
 */
function failureProbe(scenario: 'exit' | 'spin' | 'auto'): FailureProbe {
  const probe = fileURLToPath(new URL('../support/crowd-failure-probe.ts', import.meta.url));
  let out: string;
  try {
    out = execFileSync(process.execPath, [...nodeArgs(probe), scenario], { encoding: 'utf8', timeout: 100_000 });
  } catch (e) {
    throw new Error(`crowd-failure-probe.ts ${scenario} did not finish within 100 s (or failed): ${(e as Error).message}`);
  }
  return JSON.parse(out.trim().split('\n').at(-1)!) as FailureProbe;
}

describe('Crowd worker failures', () => {
  it('reports workers that exit mid-frame (a node calling process.exit) as CrowdWorkerErrors naming each worker, its characters and exit code, at once; runs on without them; restartWorker starts their characters afresh, keeping their parameters and update rates, the others keeping their state', () => {
    const { errors, afterFailure, restarted, relevantAfterRestart, evaluatedAfterRestart } = failureProbe('exit');
    const exited = (worker: number, characters: number[]) => ({
      crowdWorkerError: true, name: 'CrowdWorkerError', failure: 'worker-exited', worker, characters, exitCode: 7,
      message: `crowd worker ${worker} (characters ${characters[0]} to ${characters[1]}) exited (code 7); its characters keep their last poses until restartWorker(${worker}) starts them again`,
    });
    // Both workers exited in the 6th frame: one error, the other in its `others`, and no other error
    // (the 10 s timeout was not what found them).
    expect(errors).toEqual([{ ...exited(1, [2, 3]), others: [{ ...exited(2, [4, 5]), others: [] }] }]);
    // The calling thread's characters ran that frame and the next as instances alone do; after the
    // restart every character is as an instance alone is: the calling thread's kept their state, the
    // workers' are new instances given the crowd's parameter values (one set while its worker was down).
    expect(afterFailure).toEqual([]);
    expect(restarted).toEqual([]);
    // The new workers forward their characters' events (new instances: their nodes became relevant anew).
    expect(relevantAfterRestart).toEqual([2, 3, 4, 5]);
    // A restarted character updated on one frame in 3 keeps the frames it had: those of the calling
    // thread's character of the same rate and phase (frames 1 to 7 before the restart: 9 and 12).
    expect(evaluatedAfterRestart).toEqual({ 0: [9, 12], 2: [9, 12] });
  });

  it('stops a worker whose node never returns once workerTimeout (500 ms) has passed, reports it as a worker-timeout CrowdWorkerError, and restarts it', () => {
    const { errors, afterFailure, restarted, relevantAfterRestart } = failureProbe('spin');
    expect(errors).toEqual([{
      crowdWorkerError: true, name: 'CrowdWorkerError', failure: 'worker-timeout', worker: 1, characters: [2, 3], exitCode: null, others: [],
      message: 'crowd worker 1 (characters 2 to 3) did not finish its frame within workerTimeout (500 ms) and was stopped; its characters keep their last poses until restartWorker(1) starts them again',
    }]);
    expect([afterFailure, restarted, relevantAfterRestart]).toEqual([[], [], [2, 3]]);
  });

  it('with restartWorkers, emits a worker\'s failure as workerFailed instead of throwing it, and restarts the worker itself', () => {
    const { errors, afterFailure, restarted } = failureProbe('auto');
    expect(errors).toEqual([{
      crowdWorkerError: true, name: 'CrowdWorkerError', failure: 'worker-exited', worker: 1, characters: [2, 3], exitCode: 7, others: [],
      message: 'crowd worker 1 (characters 2 to 3) exited (code 7); it is being restarted (restartWorkers), its characters keeping their last poses until it has',
    }]);
    expect([afterFailure, restarted]).toEqual([[], []]);
  });

  it('reports a NaN a custom node writes on a worker as nonFinitePose, naming the character, bone and attribute, with checkFinite (and not without)', async () => {
    const source = { module: SUPPORT, export: 'sabotagedWalkGraph', args: ['nan', 3] };
    const checked = await Crowd.create({ source, count: 4, workers: 1, componentSpace: true, checkFinite: true });
    const unchecked = await Crowd.create({ source, count: 4, workers: 1 });
    crowds.push(checked, unchecked);
    const reports: unknown[][] = [], unreported: unknown[][] = [];
    let frame = 0;
    checked.events.on('nonFinitePose', (...report) => reports.push([frame, ...report]));
    unchecked.events.on('nonFinitePose', (...report) => unreported.push([frame, ...report]));
    const n = checked.boneCount, y = (crowd: Crowd, character: number) => crowd.translations[(character * n + SABOTAGED_BONE) * 3 + 1];
    const written: boolean[] = [];
    for (frame = 1; frame <= 5; frame++) {
      checked.update(1 / 30);
      unchecked.update(1 / 30);
      written.push(Number.isNaN(y(unchecked, 3)));
      expect(Number.isNaN(y(checked, 3))).toBe(frame === 3);
    }
    const bone = checked.graph.skeleton.boneNames[SABOTAGED_BONE];
    expect(reports).toEqual([[3, 2, bone, 'translation'], [3, 3, bone, 'translation']]);
    // Without the check, the NaN was there all the same, and nothing said so.
    expect(written).toEqual([false, false, true, false, false]);
    expect(unreported).toEqual([]);
  });

  it('checks workerTimeout, restartWorkers and checkFinite', async () => {
    const source = { file: LOCOMOTION };
    for (const workerTimeout of [0, -1, NaN, '500' as never]) {
      await expect(Crowd.create({ source, count: 2, workerTimeout })).rejects.toThrow(
        new RangeError(`workerTimeout must be milliseconds above 0 (Infinity to wait as long as a frame takes); got ${typeof workerTimeout === 'string' ? '"500"' : workerTimeout}`),
      );
    }
    await expect(Crowd.create({ source, count: 2, restartWorkers: 'yes' as never })).rejects.toThrow(new TypeError('restartWorkers is true or false; got "yes"'));
    await expect(Crowd.create({ source, count: 2, checkFinite: 1 as never })).rejects.toThrow(new TypeError('checkFinite is true or false; got 1'));
    const crowd = await crowdOf(source, 2, 0);
    expect(DEFAULT_WORKER_TIMEOUT).toBe(5000);
    await crowd.close();
    await expect(crowd.restartWorker(1)).rejects.toThrow('the crowd is closed');
  });
});

describe('measureAllocation (one thread, animgraph/node)', () => {
  it('counts what a frame allocates, collections included (plain Node process), and checks its frame count', () => {
    const { array, empty } = runProbe<{ array: number; empty: number }>('measure-allocation-probe.ts');
    // 1000 doubles: 8000 bytes of elements, their header and the array's own object (8056 measured).
    expect(array).toBeGreaterThan(8016);
    expect(array).toBeLessThan(8100);
    // The window's own heap statistics, about 2.6 KB over 4000 frames.
    expect(empty).toBeLessThan(1);
    expect(() => measureAllocation(0, () => {})).toThrow(/frames must be a whole number of 1 or more; got 0/);
    expect(() => measureAllocation(2.5, () => {})).toThrow(/got 2.5/);
  });
});

describe('the crowd example of docs/crowds.md', () => {
  it('runs as written, with the package as its import', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const doc = readFileSync(`${root}docs/crowds.md`, 'utf8');
    const section = doc.slice(doc.indexOf('# Crowds on several threads'));
    const code = /```ts\n([\s\S]*?)```/.exec(section)![1];
    expect(code).toContain("from 'animgraph/node'");
    const file = join(mkdtempSync(join(tmpdir(), 'animgraph-readme-')), 'crowd.mts');
    // The docs run it where `animgraph examples` has copied the examples into examples/; here they are in graphs/examples/.
    expect(code).toContain("'examples/sample-locomotion.json'");
    const source = code.replace("from 'animgraph/node'", `from '${root}node.ts'`).replace("'examples/sample-locomotion.json'", `'${root}graphs/examples/sample-locomotion.json'`);
    writeFileSync(file, `${source}\nconsole.log(JSON.stringify([crowd.count, crowd.workerCount, x]));\n`);
    // Bounded as a probe is (a crowd whose worker never answers would block this synchronous call forever).
    // Through tsx, the worker too, as from a clone of the sources: not the run's compiled sources.
    const env = { ...process.env, [COMPILED_SOURCES_ENV]: undefined };
    const out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: root, env, encoding: 'utf8', timeout: PROBE_HANG_MS, killSignal: 'SIGKILL' });
    const [count, workers, x] = JSON.parse(out.trim().split('\n').at(-1)!);
    expect([count, workers]).toEqual([1000, 1]);
    expect(Number.isFinite(x) && x !== 0).toBe(true);
  });
});

