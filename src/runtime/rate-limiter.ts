/**
 * client-go's default controller rate limiter: per-item exponential backoff combined (max)
 * with an overall token bucket. Time is virtual.
 * @public
 */
export interface RateLimiter {
  /** Delay (ms) before `key` may be retried; counts a failure for it. */
  when(key: string, now: number): number;
  /** Clears the failure history of `key` (on success). */
  forget(key: string): void;
  /** Failures counted for `key` since the last forget. */
  retries(key: string): number;
}

/** Options of the default rate limiter (client-go `DefaultControllerRateLimiter`). @public */
export interface RateLimiterOptions {
  /** @defaultValue 5 */
  baseDelayMs?: number;
  /** @defaultValue 1_000_000 (1000 s) */
  maxDelayMs?: number;
  /** Overall retries per second. @defaultValue 10 */
  qps?: number;
  /** @defaultValue 100 */
  burst?: number;
}

/** Per-item exponential: base·2^failures, capped. @public */
export function itemExponentialRateLimiter(baseDelayMs = 5, maxDelayMs = 1_000_000): RateLimiter {
  const failures = new Map<string, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      const d = baseDelayMs * Math.pow(2, n);
      return d > maxDelayMs ? maxDelayMs : d;
    },
    forget(key) {
      failures.delete(key);
    },
    retries(key) {
      return failures.get(key) ?? 0;
    },
  };
}

/** Token bucket on virtual time (golang.org/x/time/rate reservation semantics). @public */
export function tokenBucketRateLimiter(qps = 10, burst = 100): RateLimiter {
  let tokens = burst;
  let last = 0;
  return {
    when(_key, now) {
      if (now > last) {
        tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
        last = now;
      }
      tokens -= 1;
      if (tokens >= 0) return 0;
      return Math.ceil((-tokens * 1000) / qps);
    },
    forget() {},
    retries() {
      return 0;
    },
  };
}

/** The largest delay of several limiters. @public */
export function maxOfRateLimiters(...limiters: RateLimiter[]): RateLimiter {
  return {
    when(key, now) {
      let d = 0;
      for (const l of limiters) d = Math.max(d, l.when(key, now));
      return d;
    },
    forget(key) {
      for (const l of limiters) l.forget(key);
    },
    retries(key) {
      let r = 0;
      for (const l of limiters) r = Math.max(r, l.retries(key));
      return r;
    },
  };
}

/** client-go `DefaultControllerRateLimiter()` with the given overrides. @public */
export function defaultRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  return maxOfRateLimiters(
    itemExponentialRateLimiter(options.baseDelayMs ?? 5, options.maxDelayMs ?? 1_000_000),
    tokenBucketRateLimiter(options.qps ?? 10, options.burst ?? 100),
  );
}
