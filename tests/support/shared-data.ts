import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** ../shared/data relative to the project root: real motion data that the project does not ship. */
export const SHARED_DATA = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
export const CMU = `${SHARED_DATA}bvh/cmu/`;
export const hasSharedData = existsSync(SHARED_DATA);

if (!hasSharedData && process.env.CI === 'true') {
  throw new Error(`CI=true but the shared motion data folder ${SHARED_DATA} is missing: tests on real data cannot be skipped in CI`);
}

/**
 * describe() for tests on ../shared/data: skipped with a reason on a user's clone without the
 * folder, and an error in CI (see the throw above). Without the folder the suite's body is never
 * run: vitest runs a describe.skip body to collect its tests, and bodies that load the data at
 * collection time would fail the file.
 */
export function describeIfData(present: boolean): typeof describe {
  return (present
    ? describe
    : ((name: string) => describe(`${name} (skipped: ${SHARED_DATA} not found)`, () => {
        it.skip('needs the shared motion data', () => {});
      }))) as typeof describe;
}

export const describeWithData = describeIfData(hasSharedData);

/** An example graph a probe or a test skipped: only one on ../shared/data, where the folder is missing (never in CI). */
export function expectSkippedForMissingData(file: string, reason: string): void {
  expect(!hasSharedData && /^(cmu|robot)-/.test(file), `${file}: ${reason}`).toBe(true);
}

export function readShared(relative: string): string {
  return readFileSync(`${SHARED_DATA}${relative}`, 'utf8');
}
