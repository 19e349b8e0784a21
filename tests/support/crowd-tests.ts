/**
 * What the Crowd's test files (tests/host/crowd*.test.ts) share: the graphs they make crowds of, and
 * their crowds closed once the file's tests are done.
 */
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { Crowd, type CrowdGraphSource } from '../../host/crowd.ts';

export const LOCOMOTION = fileURLToPath(new URL('../../graphs/examples/sample-locomotion.json', import.meta.url));
/** tests/support/crowd-graphs.ts, the module of the crowds' custom-node graphs (a source's `module`). */
export const SUPPORT = new URL('./crowd-graphs.ts', import.meta.url).href;
export const DT = [1 / 60, 1 / 30, 0, 1 / 60, 0.05];

/**
 * The calling file's crowds, closed after its tests (an afterAll of the file): push a crowd made
 * with Crowd.create to `crowds`, or make it with `crowdOf`.
 */
export function closedAfterAll(): {
  crowds: Crowd[];
  crowdOf(source: CrowdGraphSource, count: number, workers: number, componentSpace?: boolean): Promise<Crowd>;
} {
  const crowds: Crowd[] = [];
  // Closing some twenty crowds' workers took more than vitest's 10 s for a hook on a loaded machine.
  afterAll(async () => {
    await Promise.all(crowds.map((c) => c.close()));
  }, 60_000);
  return {
    crowds,
    async crowdOf(source, count, workers, componentSpace = true) {
      const crowd = await Crowd.create({ source, count, workers, componentSpace });
      crowds.push(crowd);
      return crowd;
    },
  };
}
