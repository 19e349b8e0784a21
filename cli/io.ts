// Where the commands write: standard output and error, or strings in a test.
import { AnimGraphError } from '../runtime/core/errors.ts';

export interface Io {
  /** Writes to standard output; throws OutputClosed once its reader has gone (see stdoutIo). */
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal (progress bar). */
  errIsTty: boolean;
  /**
   * Resolves once standard output has taken what was written (absent: nothing to wait for). Long
   * runs wait on it between frames, so a slow reader holds the run back instead of the output
   * piling up in memory, and a reader that has gone is noticed at the next frame.
   */
  drained?: () => Promise<void>;
}

/**
 * Standard output's reader went away (`animgraph run … | head`): the command stops where it is and
 * exits 0, as Unix tools do on a closed pipe, instead of dying on an unhandled EPIPE.
 */
export class OutputClosed extends AnimGraphError {
  constructor() {
    super('io', 'standard output was closed by its reader');
    this.name = 'OutputClosed';
  }
}

const isEpipe = (e: unknown) => (e as NodeJS.ErrnoException | null | undefined)?.code === 'EPIPE';
let stdoutClosed = false;
let stdoutWatched = false;

/** The Io of the process: stdout and stderr. */
export function stdoutIo(): Io {
  const stdout = process.stdout;
  if (!stdoutWatched) {
    stdoutWatched = true;
    // The failed write's error is emitted on a later tick; without a listener it kills the process.
    stdout.on('error', (e) => {
      if (!isEpipe(e)) throw e;
      stdoutClosed = true;
    });
  }
  // A write into a closed pipe fails at once (errored is set before the error event is emitted).
  const closed = () => stdoutClosed || isEpipe(stdout.errored);
  return {
    out: (t) => {
      if (closed()) throw new OutputClosed();
      stdout.write(t);
    },
    err: (t) => process.stderr.write(t),
    errIsTty: process.stderr.isTTY === true,
    drained: () => new Promise((resolveDrained) => {
      if (closed() || !stdout.writableNeedDrain) return resolveDrained();
      const done = () => {
        stdout.off('drain', done);
        stdout.off('error', done);
        resolveDrained();
      };
      stdout.on('drain', done);
      stdout.on('error', done);
    }),
  };
}
