import { Worker } from 'node:worker_threads';
import { CrowdWorkerError, type CrowdWorkerErrorCode } from './crowd-errors.ts';
import {
  DONE, EXIT_CODE, EXITED, FAILURE_BYTES, GO, restartShare, STOP, THREW, WAKE, workerWord, type CrowdFrameNumbers, type CrowdWorkerData,
} from './crowd-shared.ts';

const WORKER_ENTRY = new URL('./crowd-worker.mjs', import.meta.url);
/** The longest single wait for the workers, in milliseconds, and all the first waits of a frame together (see wait). */
const SLICE_MS = 50;

/** One worker thread as the calling thread knows it. */
interface WorkerSlot {
  readonly data: CrowdWorkerData;
  thread: Worker | null;
  /** Resolves once `thread` has exited. */
  exited: Promise<void>;
  /** What the thread's last 'error' event said ('' if none). */
  errorText: string;
  /** The restart under way, if any. */
  restart: Promise<void> | null;
  /** Started again and ready: joins the frames at the next update (join). */
  ready: boolean;
}

/**
 * The calling thread's side of a crowd's worker threads: starting them, waking them for a frame,
 * waiting for them at most `timeout` milliseconds, telling which failed (exited, timed out, threw),
 * starting one again, and stopping them all.
 */
export class CrowdThreads {
  /**
   * Per thread, 0 the calling thread (always 1): 1 while it takes part in frames; 0 from its
   * failure (or a restart) until it has started again and joined.
   */
  readonly running: Uint8Array;
  /** Worker threads (failed ones included). */
  readonly count: number;
  /** Called with a worker's number once its old thread is gone and before its new one starts. */
  onRestart: (worker: number) => void = () => {};
  private readonly control: Int32Array;
  /** Workers started again and ready, waiting to join. */
  private readyCount = 0;
  private closed = false;
  /** The first waits' slice (see wait), a whole number of milliseconds. */
  private readonly firstSlice: number;

  private constructor(
    private readonly slots: readonly WorkerSlot[], readonly timeout: number, control: Int32Array, private readonly phaseOffsets: Float64Array,
    private readonly frameNumbers: CrowdFrameNumbers | null,
    /** CrowdOptions.restartWorkers: the crowd restarts a failed worker itself (what the errors say). */
    private readonly restartsWorkers: boolean,
  ) {
    this.count = slots.length;
    this.control = control;
    this.running = new Uint8Array(slots.length + 1).fill(1);
    this.firstSlice = Math.max(1, Math.min(Math.ceil(timeout), Math.floor(SLICE_MS / Math.max(slots.length, 1))));
  }

  /**
   * Starts a worker thread on each of `workers` (their shares of one crowd's buffers); resolves once
   * each has built its graph and characters, with how many sample in JavaScript, or rejects, having
   * stopped them all, as soon as one cannot. `frameNumbers`: the characters' per-frame numbers in
   * the kernel's memory (zeroed for a restarted share), null without the kernel.
   */
  static async start(
    workers: readonly CrowdWorkerData[], timeout: number, control: Int32Array, phaseOffsets: Float64Array, frameNumbers: CrowdFrameNumbers | null,
    restartsWorkers: boolean,
  ): Promise<{ threads: CrowdThreads; inJavaScript: number }> {
    const slots = workers.map((data): WorkerSlot => ({ data, thread: null, exited: Promise.resolve(), errorText: '', restart: null, ready: false }));
    const threads = new CrowdThreads(slots, timeout, control, phaseOffsets, frameNumbers, restartsWorkers);
    try {
      const wasm = await Promise.all(slots.map((_, k) => threads.spawn(k + 1)));
      return { threads, inJavaScript: wasm.filter((w) => !w).length };
    } catch (e) {
      await Promise.all(slots.map((s) => s.thread?.terminate()));
      throw e;
    }
  }

  /** Starts worker w's thread; resolves once it is ready, with whether it samples in the kernel. */
  private spawn(w: number): Promise<boolean> {
    const slot = this.slots[w - 1], control = this.control;
    const thread = new Worker(WORKER_ENTRY, { workerData: slot.data });
    slot.thread = thread;
    slot.errorText = '';
    slot.exited = new Promise((resolve) => thread.once('exit', (code) => {
      // Seen when the event loop turns (between frames): the next update reports it at once. A
      // thread stopped from outside, out of memory say, is known no other way before the timeout.
      if (slot.thread === thread) {
        Atomics.store(control, workerWord(w, EXIT_CODE), code);
        Atomics.store(control, workerWord(w, EXITED), 1);
      }
      resolve();
    }));
    // Also keeps an 'error' event from being thrown on this thread as one nobody listens to.
    thread.on('error', (e) => {
      if (slot.thread === thread) slot.errorText = e instanceof Error ? (e.stack ?? e.message) : String(e);
    });
    return new Promise<boolean>((resolve, reject) => {
      const settle = (): void => {
        thread.off('message', onMessage);
        thread.off('error', onError);
        thread.off('exit', onExit);
      };
      const onMessage = (m: { ready?: true; wasm?: boolean; error?: string }): void => {
        settle();
        if (!m.ready) return reject(new Error(`crowd worker ${w}: ${m.error}`));
        // A crowd the program forgets to close must not keep the process alive.
        thread.unref();
        resolve(m.wasm === true);
      };
      const onError = (e: unknown): void => {
        settle();
        reject(e);
      };
      const onExit = (code: number): void => {
        settle();
        reject(new Error(`crowd worker ${w} exited (code ${code}) before it was ready`));
      };
      thread.on('message', onMessage);
      thread.on('error', onError);
      thread.on('exit', onExit);
    });
  }

  /** Wakes the running workers for a frame (or for what control[MEASURING] asks). */
  wake(): void {
    const control = this.control, running = this.running;
    for (let w = 1; w <= this.count; w++) {
      if (running[w] !== 1) continue;
      const at = workerWord(w, GO);
      Atomics.add(control, at, 1);
      Atomics.notify(control, at);
    }
  }

  /**
   * Returns once every running worker has finished what wake woke it for or has exited, or once
   * `timeout` milliseconds have passed; returns the workers that failed (null when none, a frame's
   * usual case), each left out of frames from now on, a timed-out one stopped. Waits in slices, each
   * ended early by a worker finishing or exiting.
   *
   * Reading a clock allocates (16 bytes a call), so none is read while the workers finish within
   * the first slices: the timeout counts from the start of the first wait that ran its whole
   * slice. The waits before it, each cut short by a worker finishing, go uncounted: one slice per
   * worker at most, SLICE_MS in all (firstSlice is SLICE_MS / workers).
   */
  wait(): CrowdWorkerError[] | null {
    const control = this.control, running = this.running;
    let since = -1;
    for (;;) {
      const wake = Atomics.load(control, WAKE);
      let pending = 0;
      for (let w = 1; w <= this.count; w++) {
        if (running[w] === 1 && Atomics.load(control, workerWord(w, EXITED)) === 0
          && Atomics.load(control, workerWord(w, DONE)) !== Atomics.load(control, workerWord(w, GO))) pending++;
      }
      if (pending === 0) break;
      let slice = this.firstSlice;
      if (since >= 0) {
        const left = this.timeout - (performance.now() - since);
        if (left <= 0) break;
        slice = left < SLICE_MS ? Math.ceil(left) : SLICE_MS;
      }
      if (Atomics.wait(control, WAKE, wake, slice) === 'timed-out' && since < 0) since = performance.now() - slice;
    }
    let failures: CrowdWorkerError[] | null = null;
    for (let w = 1; w <= this.count; w++) {
      if (running[w] !== 1) continue;
      let code: CrowdWorkerErrorCode | null = null;
      if (Atomics.load(control, workerWord(w, EXITED)) !== 0) code = 'worker-exited';
      else if (Atomics.load(control, workerWord(w, DONE)) !== Atomics.load(control, workerWord(w, GO))) code = 'worker-timeout';
      else if (Atomics.load(control, workerWord(w, THREW)) !== 0) code = 'worker-threw';
      if (code !== null) (failures ??= []).push(this.fail(w, code));
    }
    return failures;
  }

  /** Takes worker w out of the frames and says why. */
  private fail(w: number, code: CrowdWorkerErrorCode): CrowdWorkerError {
    this.running[w] = 0;
    const slot = this.slots[w - 1], { first, end } = slot.data;
    const until = this.restartsWorkers
      ? '; it is being restarted (restartWorkers), its characters keeping their last poses until it has'
      : `; its characters keep their last poses until restartWorker(${w}) starts them again`;
    if (code === 'worker-timeout') {
      void slot.thread?.terminate();
      return new CrowdWorkerError(code, w, first, end, `did not finish its frame within workerTimeout (${this.timeout} ms) and was stopped${until}`);
    }
    if (code === 'worker-threw') return new CrowdWorkerError(code, w, first, end, `threw in a frame${until}. ${this.failureText(w)}`);
    const exitCode = Atomics.load(this.control, workerWord(w, EXIT_CODE));
    return new CrowdWorkerError(code, w, first, end, `exited (code ${exitCode})${until}${slot.errorText === '' ? '' : `. ${slot.errorText}`}`, exitCode);
  }

  /** The error text worker w's frame wrote. */
  private failureText(w: number): string {
    const bytes = this.slots[w - 1].data.buffers.failure.slice(w * FAILURE_BYTES, (w + 1) * FAILURE_BYTES);
    return new TextDecoder().decode(bytes).replace(/\0+$/, '');
  }

  /**
   * Stops worker w's thread, whatever it is doing (a frame that never ends, waiting for the next,
   * or gone), and starts a new one on its share, whose characters start afresh (restartShare); it
   * joins the frames at the first `join` after this resolves. Rejects with a `start-failed`
   * CrowdWorkerError if the new thread cannot start. A restart under way is returned again.
   */
  restart(w: number): Promise<void> {
    const slot = this.slots[w - 1];
    slot.restart ??= this.startAgain(w, slot).finally(() => {
      slot.restart = null;
    });
    return slot.restart;
  }

  private async startAgain(w: number, slot: WorkerSlot): Promise<void> {
    this.running[w] = 0;
    if (slot.ready) {
      slot.ready = false;
      this.readyCount--;
    }
    await slot.thread?.terminate();
    await slot.exited;
    if (this.closed) return;
    const { first, end, buffers } = slot.data, control = this.control;
    restartShare(buffers, first, end, slot.data.slotNames.length, this.frameNumbers);
    buffers.failure.fill(0, w * FAILURE_BYTES, (w + 1) * FAILURE_BYTES);
    this.onRestart(w);
    // The new thread starts from DONE (crowdWorkerLoop): nothing to run until it has joined.
    Atomics.store(control, workerWord(w, DONE), Atomics.load(control, workerWord(w, GO)));
    Atomics.store(control, workerWord(w, EXITED), 0);
    Atomics.store(control, workerWord(w, EXIT_CODE), 0);
    Atomics.store(control, workerWord(w, THREW), 0);
    try {
      await this.spawn(w);
    } catch (e) {
      await slot.thread?.terminate();
      if (this.closed) return;
      throw new CrowdWorkerError('start-failed', w, first, end, `could not start again: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (this.closed) {
      await slot.thread?.terminate();
      return;
    }
    slot.ready = true;
    this.readyCount++;
  }

  /**
   * Lets the workers started again join the frames from the next wake: their characters' first
   * update is the crowd's update number `updates` + 1 (CrowdBuffers.phaseOffsets).
   */
  join(updates: number): void {
    if (this.readyCount === 0) return;
    for (let w = 1; w <= this.count; w++) {
      const slot = this.slots[w - 1];
      if (!slot.ready) continue;
      slot.ready = false;
      this.phaseOffsets[w] = updates;
      this.running[w] = 1;
    }
    this.readyCount = 0;
  }

  /** Stops every worker thread, restarts under way included; resolves once all have exited. */
  async close(): Promise<void> {
    this.closed = true;
    const control = this.control;
    Atomics.store(control, STOP, 1);
    for (let w = 1; w <= this.count; w++) {
      const at = workerWord(w, GO);
      Atomics.add(control, at, 1);
      Atomics.notify(control, at);
    }
    for (const slot of this.slots) if (slot.restart !== null) void slot.thread?.terminate();
    await Promise.all(this.slots.map((slot) => slot.restart?.catch(() => {})));
    await Promise.all(this.slots.map(async (slot) => {
      slot.thread?.ref(); // unref'd once ready: the exit must keep the process waiting for it
      // A worker stuck in a frame (a node that never returns) is stopped anyway.
      const timer = setTimeout(() => void slot.thread?.terminate(), 1000);
      await slot.exited;
      clearTimeout(timer);
    }));
  }
}
