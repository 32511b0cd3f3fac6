import { InvalidError } from '../../src/store/errors.js';

/** The 422 a store call throws; fails the test when it throws nothing or something else. */
export function invalid(fn: () => unknown): InvalidError {
  try {
    fn();
  } catch (err) {
    if (err instanceof InvalidError) return err;
    throw err;
  }
  throw new Error('expected 422 Invalid');
}
