import { AllocationWindow } from './allocation.ts';
import type { CrowdSlice } from './crowd-slice.ts';
import { DONE, FAILED, MEASURE_END, MEASURE_ON, MEASURING, SEQUENCE, STOP, type CrowdBuffers } from './crowd-shared.ts';

/**
 * Runs a worker's slice each time the calling thread starts a frame, until told to stop. A frame
 * that throws (a node type's bug: the built-in nodes do not throw in the frame loop) is reported
 * through the shared failure slots, and the calling thread's update rethrows it.
 */
export function crowdWorkerLoop(slice: CrowdSlice, buffers: CrowdBuffers, worker: number): void {
  const control = buffers.control;
  let seen = 0;
  let window: AllocationWindow | null = null;
  for (;;) {
    Atomics.wait(control, SEQUENCE, seen);
    seen = Atomics.load(control, SEQUENCE);
    if (Atomics.load(control, STOP) === 1) return;
    // Crowd.measureAllocation: the window opens before the first frame it measures, and closes
    // when told, with no frame run then.
    const measuring = Atomics.load(control, MEASURING);
    if (measuring === MEASURE_END) {
      if (window !== null) buffers.allocation[worker] = window.close();
      window = null;
      Atomics.add(control, DONE, 1);
      Atomics.notify(control, DONE);
      continue;
    }
    if (measuring === MEASURE_ON && window === null) window = new AllocationWindow();
    if (window !== null) window.frames++;
    try {
      slice.run();
    } catch (e) {
      if (Atomics.compareExchange(control, FAILED, 0, worker) === 0) {
        const text = new TextEncoder().encode(e instanceof Error ? (e.stack ?? e.message) : String(e));
        buffers.failure.set(text.subarray(0, buffers.failure.length));
      }
    }
    Atomics.add(control, DONE, 1);
    Atomics.notify(control, DONE);
  }
}
