import { availableParallelism } from 'node:os';
import type { KernelPrecision } from '../runtime/kernel/sampling-kernel.ts';
import { describeValue } from '../runtime/node/parameters.ts';
import { checkCrowdEvents, checkEventsPerCharacter, type CrowdEventName } from './crowd-events.ts';
import type { CrowdGraphSource } from './crowd-shared.ts';

/**
 * The fewest characters per thread for which a default Crowd starts workers: below it a frame's
 * share is shorter than handing it to a worker and waiting for it.
 */
export const MIN_CHARACTERS_PER_THREAD = 64;

/**
 * The cores below which a default Crowd runs on the calling thread alone. With two cores, the
 * calling thread and one worker share them with the renderer, the event loop and everything else
 * the process does: measured on a 2-core machine, one worker ran 0.89-0.99x the calling thread
 * alone.
 */
export const MIN_CORES_FOR_WORKERS = 3;

/**
 * The workers a Crowd starts when `workers` is not given: one fewer than the cores, none below
 * MIN_CORES_FOR_WORKERS cores, and no more than leaves each thread MIN_CHARACTERS_PER_THREAD
 * characters.
 */
export function defaultWorkers(cores: number, count: number): number {
  if (cores < MIN_CORES_FOR_WORKERS) return 0;
  return Math.max(0, Math.min(cores - 1, Math.floor(count / MIN_CHARACTERS_PER_THREAD) - 1));
}

/** How long Crowd.update waits for its workers by default (CrowdOptions.workerTimeout), in milliseconds. */
export const DEFAULT_WORKER_TIMEOUT = 5000;

export interface CrowdOptions {
  source: CrowdGraphSource;
  /** Number of characters, each an instance of the graph. */
  count: number;
  /**
   * Worker threads besides the calling thread, which evaluates a share of the crowd too. Default:
   * defaultWorkers(cores, count): one fewer than the machine's cores, but none on fewer than three
   * cores (MIN_CORES_FOR_WORKERS) and none that would leave a thread fewer than 64 characters
   * (MIN_CHARACTERS_PER_THREAD); Crowd.cores says how many cores it found.
   */
  workers?: number;
  /** Also publish every character's component-space pose each frame. Default false. */
  componentSpace?: boolean;
  /**
   * What the sampling kernel samples in (see InstanceBatchOptions.precision): 'double' (the
   * default, bit-identical to an instance alone) or 'single' (float32: sampling four bones to a
   * vector, the component pass four characters to a vector, in less time; docs/performance.md,
   * "Single precision"). Crowd.precision says what runs.
   */
  precision?: KernelPrecision;
  /**
   * Instance events to deliver on the calling thread through Crowd.events, whichever thread
   * evaluates the character (say `notify` for footsteps, `slotEnded` for gameplay): each with the
   * character's index first. Default none; every event but parameterChanged can be forwarded.
   */
  events?: readonly CrowdEventName[];
  /**
   * Room for forwarded events, per character per frame, pooled over each thread's share (4 by
   * default, at most 256); a frame with more loses the rest and Crowd.events emits `eventsDropped`.
   */
  eventsPerCharacter?: number;
  /**
   * The longest `update` waits for the worker threads once the calling thread has finished its own
   * share, in milliseconds (default DEFAULT_WORKER_TIMEOUT, 5000; Infinity waits as long as it
   * takes). A worker still in its frame then is stopped and reported as a CrowdWorkerError with code
   * `worker-timeout`. A worker that exits is reported as soon as it does, whatever the timeout.
   */
  workerTimeout?: number;
  /**
   * Start a worker that failed again by itself (default false): `update` then emits its
   * CrowdWorkerError as `workerFailed` on `events` instead of throwing it, and restarts it as
   * restartWorker does.
   */
  restartWorkers?: boolean;
  /**
   * Check every character's pose and root motion for NaN and infinities after its frame, on the
   * thread that evaluates it (default false), and emit `nonFinitePose` on `events` for each
   * character found, with the first bone and attribute that is not finite.
   */
  checkFinite?: boolean;
}

/** A Crowd's options checked (a RangeError or TypeError naming the first one wrong), with their defaults. */
export function checkCrowdOptions(options: CrowdOptions): {
  count: number; cores: number; workers: number; componentSpace: boolean; precision: KernelPrecision; events: CrowdEventName[]; eventsPerCharacter: number;
  timeout: number; restartWorkers: boolean; checkFinite: boolean;
} {
  const count = options.count;
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`a crowd needs a whole number of characters, at least 1; got ${describeValue(count)}`);
  // Checked before the cap at count - 1, which let 1.5 workers through for 2 characters.
  const cores = availableParallelism();
  const asked = options.workers ?? defaultWorkers(cores, count);
  if (!Number.isInteger(asked) || asked < 0) throw new RangeError(`workers must be a whole number, at least 0; got ${describeValue(options.workers)}`);
  const workers = Math.min(asked, count - 1);
  const source = options.source;
  if (workers > 0 && typeof source === 'object' && source !== null && 'args' in source) {
    // Each worker receives the args by structured clone: a function in them failed as a bare
    // "DataCloneError: ()=>1 could not be cloned", naming neither the option nor the crowd.
    try {
      structuredClone(source.args);
    } catch (e) {
      throw new TypeError(`crowd source.args must be data a worker thread can receive (numbers, strings, arrays, plain objects: structured clone), for each of the ${workers} workers: ${(e as Error).message}`);
    }
  }
  const componentSpace = options.componentSpace ?? false;
  const precision = options.precision ?? 'double';
  if (precision !== 'double' && precision !== 'single') throw new RangeError(`precision must be 'double' or 'single'; got ${describeValue(options.precision)}`);
  const events = checkCrowdEvents(options.events), eventsPerCharacter = checkEventsPerCharacter(options.eventsPerCharacter);
  const timeout = options.workerTimeout ?? DEFAULT_WORKER_TIMEOUT;
  if (typeof timeout !== 'number' || !(timeout > 0)) {
    throw new RangeError(`workerTimeout must be milliseconds above 0 (Infinity to wait as long as a frame takes); got ${describeValue(options.workerTimeout)}`);
  }
  const restartWorkers = checkFlag('restartWorkers', options.restartWorkers), checkFinite = checkFlag('checkFinite', options.checkFinite);
  return { count, cores, workers, componentSpace, precision, events, eventsPerCharacter, timeout, restartWorkers, checkFinite };
}

/** A boolean option's value, false when not given; a TypeError for anything but a boolean. */
function checkFlag(name: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new TypeError(`${name} is true or false; got ${describeValue(value)}`);
  return value;
}
