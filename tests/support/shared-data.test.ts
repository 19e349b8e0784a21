import { describe, expect, it } from 'vitest';
import { describeIfData } from './shared-data.ts';

describe('describeWithData', () => {
  // A user's clone has no ../shared: a real-data suite whose body loads files at collection time
  // must not run that body, or the whole file fails instead of being skipped.
  let bodyRan = false;
  describeIfData(false)('a suite on missing data', () => {
    bodyRan = true;
    throw new Error('loaded missing data');
  });

  it('does not run the body of a suite whose data is absent', () => {
    expect(bodyRan).toBe(false);
  });
});
