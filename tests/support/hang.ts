/**
 * A bound on a child process's exit that only a hang reaches: not a time budget (no test races a
 * clock), so it is long enough for the busiest machine, and its timer is cleared once the child exits.
 */
export const HANG_MS = 120_000;

/** What `exited` resolves to, or 'hung' if it has not resolved after HANG_MS. */
export async function exitedOrHung<T>(exited: Promise<T>): Promise<T | 'hung'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<'hung'>((resolve) => { timer = setTimeout(() => resolve('hung'), HANG_MS); });
  try {
    return await Promise.race([exited, hung]);
  } finally {
    clearTimeout(timer);
  }
}
