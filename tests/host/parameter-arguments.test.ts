import { AnimGraphError } from '../../runtime/core/errors.ts';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphFile } from '../../host/files.ts';
import { Crowd } from '../../host/crowd.ts';
import { INT_PARAMETER_MAX, INT_PARAMETER_MIN } from '../../runtime/node/parameters.ts';
import { expectAnimGraphError } from '../support/errors.ts';

/**
 * An int parameter is a 32-bit signed integer wherever it is set (an instance, a crowd, an asset's
 * default): 1e308 is an integer to JavaScript, and nodes read ints as indices. A crowd's character
 * is a number: a string index was reported as a character that does not exist.
 */
const LOCOMOTION = fileURLToPath(new URL('../../graphs/examples/sample-locomotion.json', import.meta.url));
const RANGE = '(an int is a whole number from -2147483648 to 2147483647)';

const crowds: Crowd[] = [];
afterAll(async () => {
  await Promise.all(crowds.map((c) => c.close()));
});

describe('int parameters', () => {
  it('take whole numbers from -2^31 to 2^31 - 1 on an instance', () => {
    expect([INT_PARAMETER_MIN, INT_PARAMETER_MAX]).toEqual([-2147483648, 2147483647]);
    const instance = loadGraphFile(LOCOMOTION).createInstance();
    instance.setParameter('gait', INT_PARAMETER_MAX);
    instance.setParameter('gait', INT_PARAMETER_MIN);
    expect(instance.getParameter('gait')).toBe(INT_PARAMETER_MIN);
    for (const value of [1e308, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER]) {
      expectAnimGraphError(() => instance.setParameter('gait', value), 'invalid-argument', `parameter 'gait' is int; cannot set it to ${value} ${RANGE}`);
    }
    expect(instance.getParameter('gait')).toBe(INT_PARAMETER_MIN);
  });

  it('take the same range on a Crowd, and a string character index is a usage error naming its type', async () => {
    const crowd = await Crowd.create({ source: { file: LOCOMOTION }, count: 2, workers: 1 });
    crowds.push(crowd);
    expectAnimGraphError(() => crowd.setParameter(0, 'gait', 1e308), 'invalid-argument', `parameter 'gait' is int; cannot set it to 1e+308 ${RANGE}`);
    expect(crowd.getParameter(0, 'gait')).toBe(1);
    // "0" said "no character 0: the crowd has characters 0 to 1".
    for (const call of [
      () => crowd.setParameter('0' as never, 'gait', 2),
      () => crowd.getParameter('1' as never, 'gait'),
      () => crowd.reset('0' as never),
    ]) expectAnimGraphError(call, 'invalid-argument', /^a character is given by its index, a number from 0 to 1, not a string \("[01]"\)$/);
    expectAnimGraphError(() => crowd.setParameter(null as never, 'gait', 2), 'invalid-argument', 'a character is given by its index, a number from 0 to 1, not null');
    // Numbers outside the crowd stay a RangeError, as documented.
    expect(() => crowd.setParameter(2, 'gait', 1)).toThrow(new AnimGraphError('out-of-range', 'no character 2: the crowd has characters 0 to 1'));
  });

  it('take the same range as an asset\'s default', () => {
    const asset = (value: number) => ({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } }, parameters: { n: { type: 'int', default: value } },
      nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p',
    });
    expect(checkGraphAsset(asset(INT_PARAMETER_MAX)).ok).toBe(true);
    const result = checkGraphAsset(asset(1e308));
    expect(result.ok ? [] : result.problems.map((p) => [p.path, p.code])).toEqual([['$.parameters.n.default', 'schema']]);
  });
});
