/*
 * Every file the Node side reads for a graph (the graph, its skeleton, clips, glTF files and their
 * buffers, index files; what `animgraph view` serves) is read here: a regular file, checked on the
 * open descriptor before a byte is read, and no larger than a cap. A path naming /dev/zero read
 * gigabytes until memory ran out, and a FIFO blocked the thread reading it (the loader's for good, or
 * one of the view server's pool threads per request, until /api/graph stopped answering).
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { AnimGraphError } from '../runtime/core/errors.ts';

/** The largest file a graph may name (skeleton, clip, glTF file or buffer, index file), by default: 1 GiB. */
export const DEFAULT_MAX_FILE_BYTES = 1024 ** 3;
/** The largest graph file (the JSON asset itself), by default: 64 MiB. */
export const DEFAULT_MAX_GRAPH_BYTES = 64 * 1024 ** 2;

/**
 * A file that is not read (code `io` for something other than a regular file, `out-of-range` for
 * one over its size limit): `file` names it, `reason` says which.
 */
export class FileReadError extends AnimGraphError {
  constructor(readonly file: string, readonly reason: 'not-regular' | 'too-large', message: string) {
    super(reason === 'too-large' ? 'out-of-range' : 'io', message);
    this.name = 'FileReadError';
  }
}

// Non-blocking, so that opening a FIFO returns at once (its fstat then refuses it) instead of
// waiting for a writer; a terminal is not made the process's controlling one. Both do nothing to
// a regular file's reads. Windows has neither flag.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function kind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'something other than a file';
}

/** A byte count for messages: '1 GiB', '64 MiB', '1.5 KiB', '12 bytes'. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

function check(file: string, stats: Stats, maxBytes: number, limitName: string): void {
  if (!stats.isFile()) throw new FileReadError(file, 'not-regular', `${file} is ${kind(stats)}, not a regular file`);
  if (stats.size > maxBytes) {
    throw new FileReadError(file, 'too-large', `${file} is ${formatBytes(stats.size)}, over the limit of ${formatBytes(maxBytes)} (${limitName})`);
  }
}

/** A file that held more than its stat said (one growing, or /proc's, which report no size). */
function grewTooLarge(file: string, maxBytes: number, limitName: string): FileReadError {
  return new FileReadError(file, 'too-large', `${file} holds more than the limit of ${formatBytes(maxBytes)} (${limitName})`);
}

function checkLimit(maxBytes: number): void {
  if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) {
    throw new AnimGraphError('invalid-argument', `a file size limit must be a whole number of bytes >= 0, got ${String(maxBytes)}`);
  }
}

/**
 * The bytes of `file` (a path, as given to `open`), which must be a regular file of at most
 * `maxBytes` bytes: the check is made on the opened descriptor, and the read stops one byte past
 * the limit (a file that grows while read, or that reports no size, as /proc's do, is caught too).
 * Throws FileReadError, or Node's own error (ENOENT, EACCES) as `open` gives it.
 *
 * @param limitName names the option that raises the limit, in the message
 */
export function readRegularFileSync(file: string, maxBytes: number, limitName = 'maxFileBytes'): Buffer {
  checkLimit(maxBytes);
  const fd = openSync(file, OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    check(file, stats, maxBytes, limitName);
    let buffer = Buffer.allocUnsafe(Math.min(Math.max(stats.size + 1, 8192), maxBytes + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) break;
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > maxBytes) throw grewTooLarge(file, maxBytes, limitName);
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** readRegularFileSync without blocking the event loop (the view server's reads). */
export async function readRegularFile(file: string, maxBytes: number, limitName = 'maxFileBytes'): Promise<Buffer> {
  checkLimit(maxBytes);
  const handle = await open(file, OPEN_FLAGS);
  try {
    const stats = await handle.stat();
    check(file, stats, maxBytes, limitName);
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(stats.size + 1 - length, 65536), maxBytes + 1 - length));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > maxBytes) throw grewTooLarge(file, maxBytes, limitName);
    }
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
  } finally {
    await handle.close();
  }
}
