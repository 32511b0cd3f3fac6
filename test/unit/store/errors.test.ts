import { describe, expect, it } from 'vitest';
import { AlreadyExistsError, ConflictError, GoneError, InvalidError, NotFoundError, ServerError, StoreError, isStoreError } from '../../../src/store/errors.js';

describe('typed store errors', () => {
  it.each([
    [new ConflictError('m'), 'Conflict', 409],
    [new NotFoundError('m'), 'NotFound', 404],
    [new AlreadyExistsError('m'), 'AlreadyExists', 409],
    [new GoneError('m'), 'Gone', 410],
    [new InvalidError('m'), 'Invalid', 422],
    [new ServerError('ServiceUnavailable', 503, 'm', 2), 'ServiceUnavailable', 503],
  ] as const)('%s carries reason %s and code %i', (err, reason, code) => {
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toBeInstanceOf(Error);
    expect(err.reason).toBe(reason);
    expect(err.code).toBe(code);
    expect(err.name).toBe(`${reason}Error`);
    expect(err.message).toBe('m');
    expect(isStoreError(err)).toBe(true);
    expect(isStoreError(err, reason)).toBe(true);
  });

  it('isStoreError distinguishes reasons and rejects other values', () => {
    expect(isStoreError(new ConflictError('x'), 'NotFound')).toBe(false);
    expect(isStoreError(new AlreadyExistsError('x'), 'Conflict')).toBe(false);
    expect(isStoreError(new Error('x'))).toBe(false);
    expect(isStoreError({ reason: 'Conflict', code: 409 })).toBe(false);
    expect(isStoreError(undefined)).toBe(false);
  });

  it('retryAfterSeconds is kept when given', () => {
    expect(new ServerError('TooManyRequests', 429, 'slow down', 3).retryAfterSeconds).toBe(3);
    expect(new ConflictError('x').retryAfterSeconds).toBeUndefined();
  });
});
