/**
 * Every file the command writes (`run`'s --poses and --debug-out, `index`, `plot`, `schema` and
 * `docs` --out) goes through OutputFile: written to a temporary file beside it, then renamed over
 * it, so the file is either what it was or the whole new output, never a truncated one. A command
 * that fails (exit 1 to 4) or is interrupted removes the temporary and leaves the file as it was.
 *
 * A path that names something other than a regular file (a device such as /dev/null or
 * /dev/stdout, a FIFO) cannot be replaced that way and is written directly, as before.
 */
import { closeSync, fchmodSync, fsyncSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { OutputError, writing } from './common.ts';

/** Temporaries not yet renamed or removed, removed at exit or on a signal that ends the process. */
const pending = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function removePending(): void {
  for (const temporary of pending) {
    try {
      unlinkSync(temporary);
    } catch { /* gone already */ }
  }
  pending.clear();
}

/** Removes the temporaries, then lets the signal do what it would have done (end the process). */
function onSignal(signal: NodeJS.Signals): void {
  removePending();
  unwatchSignals();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

let watching = false;
function watchSignals(): void {
  if (watching) return;
  watching = true;
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on('exit', removePending);
}

function unwatchSignals(): void {
  if (!watching) return;
  watching = false;
  for (const signal of SIGNALS) process.off(signal, onSignal);
  process.off('exit', removePending);
}

/**
 * An output file written through a buffer to a temporary file in the same folder (so the rename
 * stays on one file system), renamed into place by `commit`. Every failure is an OutputError
 * (exit 3) naming the output, never the temporary.
 */
export class OutputFile {
  private readonly fd: number;
  /** The temporary written, or null when the output is written directly (not a regular file). */
  private readonly temporary: string | null;
  /** The file replaced: the output itself, or where its symbolic link points. */
  private readonly target: string;
  private chunks: (string | Uint8Array)[] = [];
  private size = 0;
  private closed = false;

  constructor(readonly path: string) {
    let existing: Stats | undefined;
    try {
      existing = statSync(path);
    } catch { /* a new file */ }
    if (existing?.isDirectory()) throw new OutputError(path, 'EISDIR: illegal operation on a directory');
    if (existing && !existing.isFile()) {
      this.target = path;
      this.temporary = null;
      this.fd = writing(path, () => openSync(path, 'w'));
      return;
    }
    // Through a symbolic link: the file it names is replaced, the link kept.
    this.target = existing ? realpathSync(path) : path;
    const temporary = join(dirname(this.target), `.${basename(this.target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
    this.fd = writing(path, () => openSync(temporary, 'wx', 0o666));
    this.temporary = temporary;
    pending.add(temporary);
    watchSignals();
    if (existing) {
      try {
        fchmodSync(this.fd, existing.mode & 0o7777); // the file keeps its permissions
      } catch { /* not ours to change: the umask's stand */ }
    }
  }

  write(data: string | Uint8Array): void {
    this.chunks.push(data);
    this.size += data.length;
    if (this.size >= 1 << 16) this.flush();
  }

  private flush(): void {
    if (this.chunks.length === 0) return;
    const chunks = this.chunks;
    this.chunks = [];
    this.size = 0;
    const data = chunks.every((c) => typeof c === 'string') ? chunks.join('') : Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
    writing(this.path, () => writeFileSync(this.fd, data));
  }

  /**
   * Writes what is buffered, makes it durable and closes the temporary (or the direct output);
   * `commit` then renames it. Split, so that a command with several outputs renames none until
   * all are written.
   */
  finish(): void {
    if (this.closed) return;
    try {
      this.flush();
      if (this.temporary !== null) writing(this.path, () => fsyncSync(this.fd));
    } catch (e) {
      this.abandon();
      throw e;
    }
    this.closed = true;
    writing(this.path, () => closeSync(this.fd));
  }

  /** finish, then the temporary renamed over the output. */
  commit(): void {
    this.finish();
    if (this.temporary === null || !pending.has(this.temporary)) return;
    try {
      writing(this.path, () => renameSync(this.temporary!, this.target));
    } catch (e) {
      this.removeTemporary();
      throw e;
    }
    pending.delete(this.temporary);
    if (pending.size === 0) unwatchSignals();
  }

  /** Closes and removes the temporary after a failure, leaving the output as it was. */
  abandon(): void {
    if (!this.closed) {
      this.closed = true;
      try {
        closeSync(this.fd);
      } catch { /* the first failure is the one reported */ }
    }
    this.removeTemporary();
  }

  private removeTemporary(): void {
    if (this.temporary === null || !pending.has(this.temporary)) return;
    try {
      unlinkSync(this.temporary);
    } catch { /* gone already */ }
    pending.delete(this.temporary);
    if (pending.size === 0) unwatchSignals();
  }
}

/** Writes `data` to `path` whole, through an OutputFile. */
export function writeOutputFile(path: string, data: string | Uint8Array): void {
  const file = new OutputFile(path);
  try {
    file.write(data);
    file.commit();
  } catch (e) {
    file.abandon();
    throw e;
  }
}

/**
 * Commits every file, or none: each is finished (written, made durable, closed) before any is
 * renamed; on a failure every one not yet renamed is abandoned.
 */
export function commitAll(files: readonly OutputFile[]): void {
  try {
    for (const file of files) file.finish();
    for (const file of files) file.commit();
  } catch (e) {
    for (const file of files) file.abandon();
    throw e;
  }
}
