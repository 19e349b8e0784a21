import { expect } from 'vitest';
import { AnimGraphError, type AnimGraphErrorCode } from '../../runtime/core/errors.ts';

/** The error `run` throws, checked to be an AnimGraphError with `code` (and `message`, when given). */
export function expectAnimGraphError(run: () => unknown, code: AnimGraphErrorCode, message?: string | RegExp): AnimGraphError {
  let thrown: unknown;
  try {
    run();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, 'an AnimGraphError').toBeInstanceOf(AnimGraphError);
  const error = thrown as AnimGraphError;
  expect(error.code).toBe(code);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else if (message !== undefined) expect(error.message).toMatch(message);
  return error;
}

/** As expectAnimGraphError, for a promise that should reject. */
export async function expectAnimGraphRejection(promise: Promise<unknown>, code: AnimGraphErrorCode, message?: string | RegExp): Promise<AnimGraphError> {
  let thrown: unknown;
  try {
    await promise;
  } catch (e) {
    thrown = e;
  }
  return expectAnimGraphError(() => {
    if (thrown !== undefined) throw thrown;
  }, code, message);
}
