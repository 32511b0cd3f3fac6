import { describe, expect, it } from 'vitest';
import { defaultRateLimiter, itemExponentialRateLimiter, tokenBucketRateLimiter } from '../../../src/runtime/rate-limiter.js';

describe('itemExponentialRateLimiter', () => {
  it('is client-go\'s 5 ms · 2^n, per item, capped at 1000 s', () => {
    const l = itemExponentialRateLimiter();
    expect([1, 2, 3, 4, 5].map(() => l.when('a', 0))).toEqual([5, 10, 20, 40, 80]);
    expect(l.when('b', 0)).toBe(5);
    for (let i = 0; i < 40; i++) l.when('a', 0);
    expect(l.when('a', 0)).toBe(1_000_000);
    expect(l.retries('a')).toBe(46);
  });
  it('forget resets an item', () => {
    const l = itemExponentialRateLimiter();
    l.when('a', 0);
    l.when('a', 0);
    l.forget('a');
    expect(l.when('a', 0)).toBe(5);
  });
});

describe('tokenBucketRateLimiter', () => {
  it('allows a burst of 100, then 10 per second', () => {
    const l = tokenBucketRateLimiter(10, 100);
    for (let i = 0; i < 100; i++) expect(l.when(`k${i}`, 0)).toBe(0);
    expect(l.when('x', 0)).toBe(100);
    expect(l.when('y', 0)).toBe(200);
  });
  it('refills over virtual time', () => {
    const l = tokenBucketRateLimiter(10, 100);
    for (let i = 0; i < 100; i++) l.when(`k${i}`, 0);
    expect(l.when('late', 1000)).toBe(0);
  });
});

describe('defaultRateLimiter', () => {
  it('takes the larger delay of the two', () => {
    const l = defaultRateLimiter();
    expect(l.when('a', 0)).toBe(5);
    for (let i = 0; i < 200; i++) l.when(`k${i}`, 0);
    // bucket is now deeply negative: the overall limiter dominates the per-item 10 ms
    expect(l.when('a', 0)).toBeGreaterThan(10_000);
  });
});
