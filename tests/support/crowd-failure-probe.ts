/**
 * A Crowd whose worker threads fail mid-frame, in a process of its own: a worker that never
 * returns would otherwise hold the test runner's thread for good if update waited for it forever
 * (as it once did), so crowd-failures.test.ts runs this with a deadline and fails if it is not met.
 *
 * `exit`: 6 characters, 2 workers, whose custom node calls process.exit(7) on each worker at the
 * 6th frame (workerTimeout 10 s: the exit is reported as one, not waited out). `spin`: 4
 * characters, 1 worker, whose node never returns at the 6th frame (workerTimeout 500 ms). `auto`:
 * as `exit` with 4 characters, 1 worker and restartWorkers. Each then runs a frame without the
 * failed workers, restarts them, and runs 5 more frames. Character 0 (the calling thread's) and
 * the first worker's first character update on one frame in 3, holding their pose between.
 *
 * Prints one JSON line: { errors (what update threw, or emitted as workerFailed), afterFailure
 * (characters whose rows differ from an instance run alone after the frame that followed),
 * restarted (the same after the restart, the restarted characters against fresh instances),
 * relevantAfterRestart (characters whose nodes became relevant again, from forwarded events),
 * evaluatedAfterRestart (for the two characters below full rate, the frames after the restart's
 * first where their pose changed: on its first, a new instance shows the pose its graph starts
 * with, whatever its rate), seconds (the whole run) }.
 */
import { Crowd, CrowdWorkerError } from '../../host/crowd.ts';
import type { AnimGraphInstance } from '../../runtime/graph/graph.ts';
import { sabotagedWalkGraph, type Sabotage } from './crowd-graphs.ts';

const scenario = process.argv[2] as 'exit' | 'spin' | 'auto';
const what: Sabotage = scenario === 'spin' ? 'spin' : 'exit';
const FRAME = 6, DT = 1 / 30, RATE = 3, HOLD = { interpolate: false };
const count = scenario === 'exit' ? 6 : 4, workers = scenario === 'exit' ? 2 : 1;
const started = performance.now();

const crowd = await Crowd.create({
  source: { module: new URL('./crowd-graphs.ts', import.meta.url).href, export: 'sabotagedWalkGraph', args: [what, FRAME] },
  count, workers, componentSpace: true, events: ['nodeBecameRelevant'],
  workerTimeout: scenario === 'spin' ? 500 : 10_000, restartWorkers: scenario === 'auto',
});
const graph = sabotagedWalkGraph(what, FRAME); // on this, the main thread, its node does nothing
const rates = Array.from({ length: count }, (_, i) => 0.8 + 0.1 * i);
const alone = rates.map((rate) => {
  const instance = graph.createInstance();
  instance.setParameter('rate', rate);
  return instance;
});
rates.forEach((rate, i) => crowd.setParameter(i, 'rate', rate));
// The calling thread's characters run every frame; the failed workers' from their restart.
const own = crowd.instanceOf(0) === undefined ? 0 : Math.round(count / (workers + 1));
for (const i of [0, own]) crowd.setUpdateRate(i, RATE, 0, HOLD);
alone[0].setUpdateRate(RATE, 0, HOLD);
let updates = 0;

const errors: object[] = [];
const describe = (e: unknown): object => e instanceof CrowdWorkerError
  ? { crowdWorkerError: true, name: e.name, failure: e.failure, worker: e.worker, characters: e.characters, exitCode: e.exitCode, message: e.message, others: e.others.map(describe) }
  : { crowdWorkerError: false, message: String(e) };
crowd.events.on('workerFailed', (e) => errors.push(describe(e)));
const relevant = new Set<number>();
crowd.events.on('nodeBecameRelevant', (character) => relevant.add(character));

/** The characters whose rows differ from `instances[i]`'s own pose, component pose and root motion. */
function differing(instances: readonly (AnimGraphInstance | null)[]): number[] {
  const n = crowd.boneCount, out: number[] = [];
  instances.forEach((instance, i) => {
    if (instance === null) return;
    const rows = [
      [crowd.translations.subarray(i * n * 3, (i + 1) * n * 3), instance.evaluate().translations],
      [crowd.rotations.subarray(i * n * 4, (i + 1) * n * 4), instance.evaluate().rotations],
      [crowd.componentTranslations.subarray(i * n * 3, (i + 1) * n * 3), instance.componentPose().translations],
      [crowd.rootMotion.subarray(i * 4, i * 4 + 4), instance.rootMotion],
    ];
    if (rows.some(([a, b]) => a.length !== b.length || a.some((x, k) => !Object.is(x, b[k])))) out.push(i);
  });
  return out;
}

function frame(instances: readonly (AnimGraphInstance | null)[]): void {
  try {
    crowd.update(DT);
  } catch (e) {
    errors.push(describe(e));
  }
  updates++;
  for (const instance of instances) instance?.update(DT);
}

/** Character i's local translations now. */
const row = (i: number): number[] => Array.from(crowd.translations.subarray(i * crowd.boneCount * 3, (i + 1) * crowd.boneCount * 3));

const ownAlone = alone.map((instance, i) => (i < own ? instance : null));
for (let f = 1; f <= FRAME; f++) frame(f < FRAME ? alone : ownAlone);
// A frame without the failed workers, and a parameter set meanwhile for one of their characters.
crowd.setParameter(own + 1, 'rate', 1.7);
rates[own + 1] = 1.7;
frame(ownAlone);
const afterFailure = differing(ownAlone);

await Promise.all(Array.from({ length: workers }, (_, w) => crowd.restartWorker(w + 1)));
relevant.clear();
// The restarted characters start afresh: instances made now, with the crowd's parameter values,
// the one below full rate at the phase that keeps its frames (its updates count from now on).
const fresh = alone.map((instance, i) => {
  if (i < own) return instance;
  const again = graph.createInstance();
  again.setParameter('rate', rates[i]);
  if (i === own) again.setUpdateRate(RATE, updates, HOLD);
  return again;
});
const evaluatedAfterRestart: Record<number, number[]> = { 0: [], [own]: [] };
for (let f = 0; f < FRAME - 1; f++) {
  const before = [row(0), row(own)];
  frame(fresh);
  [0, own].forEach((i, k) => {
    if (f > 0 && row(i).some((x, j) => x !== before[k][j])) evaluatedAfterRestart[i].push(updates);
  });
}
const restarted = differing(fresh);
const relevantAfterRestart = [...relevant].sort((a, b) => a - b);
await crowd.close();
console.log(JSON.stringify({ errors, afterFailure, restarted, relevantAfterRestart, evaluatedAfterRestart, seconds: (performance.now() - started) / 1000 }));
