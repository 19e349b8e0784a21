import { AllocationWindow } from './allocation.ts';
import type { CrowdSlice } from './crowd-slice.ts';
import {
  DONE, EXIT_CODE, EXITED, FAILURE_BYTES, GO, MEASURE_END, MEASURE_ON, MEASURING, STOP, THREW, WAKE, workerWord, type CrowdBuffers,
} from './crowd-shared.ts';

/** Atomics.wait's signature, as crowdWorkerLoop calls it. */
export type CrowdWait = (control: Int32Array, index: number, value: number) => string;

/**
 * Runs a worker's slice each time the calling thread starts a frame (bumps the worker's GO word),
 * until told to stop; after each, sets its DONE word to GO's value and wakes the calling thread. A
 * frame that throws (a node type's bug: the built-in nodes do not throw in the frame loop) is
 * reported through the worker's THREW word and failure bytes, and the calling thread's update
 * reports it as a CrowdWorkerError. `wait`: Atomics.wait (tests replay wake-ups through it).
 */
export function crowdWorkerLoop(slice: CrowdSlice, buffers: CrowdBuffers, worker: number, wait: CrowdWait = Atomics.wait): void {
  const control = buffers.control, go = workerWord(worker, GO), done = workerWord(worker, DONE);
  // From the last frame its share finished (DONE, which a restart sets to GO's value): if the
  // calling thread has already woken it for a frame, by the time this thread gets here, it runs it.
  let seen = Atomics.load(control, done);
  let window: AllocationWindow | null = null;
  for (;;) {
    if (Atomics.load(control, STOP) === 1) return;
    wait(control, go, seen);
    const now = Atomics.load(control, go);
    // A wake-up is a frame only if GO has moved. The calling thread bumps GO, then notifies: when
    // it is descheduled between the two, this thread can see the bump, run the frame and be
    // waiting again before the notify comes, which then wakes it with GO unchanged. Taken as a
    // frame, that would run the share one frame ahead of the calling thread's.
    if (now === seen) continue;
    seen = now;
    if (Atomics.load(control, STOP) === 1) return;
    // Crowd.measureAllocation: the window opens before the first frame it measures, and closes
    // when told, with no frame run then.
    const measuring = Atomics.load(control, MEASURING);
    if (measuring === MEASURE_END) {
      if (window !== null) buffers.allocation[worker] = window.close();
      window = null;
    } else {
      if (measuring === MEASURE_ON && window === null) window = new AllocationWindow();
      if (window !== null) window.frames++;
      try {
        slice.run();
      } catch (e) {
        const text = new TextEncoder().encode(e instanceof Error ? (e.stack ?? e.message) : String(e));
        buffers.failure.fill(0, worker * FAILURE_BYTES, (worker + 1) * FAILURE_BYTES);
        buffers.failure.set(text.subarray(0, FAILURE_BYTES), worker * FAILURE_BYTES);
        Atomics.store(control, workerWord(worker, THREW), 1);
      }
    }
    Atomics.store(control, done, seen);
    Atomics.add(control, WAKE, 1);
    Atomics.notify(control, WAKE);
  }
}

/**
 * Tells the calling thread when this worker thread exits (a node calling process.exit, an error
 * no frame caught): its EXITED word and exit code, and a wake, so that an update waiting for the
 * worker's frame learns at once rather than at its timeout. A thread stopped from outside (an
 * out-of-memory kill, Worker.terminate) runs no code: the calling thread's exit listener or the
 * timeout tells those.
 */
export function reportExit(buffers: CrowdBuffers, worker: number): void {
  const control = buffers.control;
  process.once('exit', (code) => {
    Atomics.store(control, workerWord(worker, EXIT_CODE), code);
    Atomics.store(control, workerWord(worker, EXITED), 1);
    Atomics.add(control, WAKE, 1);
    Atomics.notify(control, WAKE);
  });
}
