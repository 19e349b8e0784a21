import { AnimGraphError } from '../runtime/core/errors.ts';

/**
 * How a crowd's worker thread failed (CrowdWorkerError.failure): `worker-exited`, its thread ended (a node calling
 * process.exit, an out-of-memory kill); `worker-timeout`, it did not finish a frame within the
 * crowd's workerTimeout (a node that never returns), and was stopped; `worker-threw`, a node threw
 * in its frame; `start-failed`, a restarted worker could not build its graph and characters.
 */
export type CrowdWorkerErrorCode = 'worker-exited' | 'worker-timeout' | 'worker-threw' | 'start-failed';

/**
 * A crowd's worker thread that failed: Crowd.update throws it (or, with the crowd's
 * restartWorkers option, emits it as `workerFailed`), once the other threads have finished the
 * frame. From then on the worker takes no part in frames (its characters keep the poses they last
 * had) until Crowd.restartWorker(worker) starts it again.
 */
export class CrowdWorkerError extends AnimGraphError {
  /** The characters the worker evaluates: its share of the crowd, in order. */
  readonly characters: readonly number[];
  /**
   * Other workers that failed in the same frame, each with its own error (update throws the
   * first): restart them too. Empty when this one failed alone.
   */
  others: readonly CrowdWorkerError[] = [];

  constructor(
    /** How it failed; the error's `code` is `worker-failed` whichever way. */
    readonly failure: CrowdWorkerErrorCode,
    /** The worker, 1-based (the calling thread is 0), as Crowd.restartWorker takes it. */
    readonly worker: number,
    first: number,
    end: number,
    detail: string,
    /** The thread's exit code, for `worker-exited`; else null. */
    readonly exitCode: number | null = null,
  ) {
    super('worker-failed', `crowd worker ${worker} (characters ${first} to ${end - 1}) ${detail}`);
    this.name = 'CrowdWorkerError';
    this.characters = Array.from({ length: end - first }, (_, k) => first + k);
  }
}
