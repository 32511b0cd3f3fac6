import type { HostSourceProbe } from './harness/determinism.js';

/** Wall-clock shift applied during a determinism re-run: code that reads the host clock diverges for sure. */
const SHIFT_MS = 86_400_000 + 1_234;

/**
 * The host's sources of nondeterminism, watched (and the clock shifted) while the determinism
 * self-check re-runs a scenario. Lives at the composition root because the harness itself may
 * never touch them (test/architecture.test.ts). Everything is restored when the re-run ends.
 * @internal
 */
export function createHostProbe(): HostSourceProbe {
  return {
    start() {
      const counts: Record<string, number> = { 'Math.random()': 0, 'Date.now()': 0, 'performance.now()': 0, 'setTimeout()': 0, 'setInterval()': 0 };
      const g = globalThis as unknown as Record<string, unknown>;
      const realRandom = Math.random;
      const realNow = Date.now;
      const perf = globalThis.performance;
      const realPerfNow = perf.now;
      const realSetTimeout = g['setTimeout'];
      const realSetInterval = g['setInterval'];
      Math.random = () => {
        counts['Math.random()']!++;
        return realRandom();
      };
      Date.now = () => {
        counts['Date.now()']!++;
        return realNow.call(Date) + SHIFT_MS;
      };
      perf.now = () => {
        counts['performance.now()']!++;
        return realPerfNow.call(perf) + SHIFT_MS;
      };
      g['setTimeout'] = wrapCounting(realSetTimeout, () => counts['setTimeout()']!++);
      g['setInterval'] = wrapCounting(realSetInterval, () => counts['setInterval()']!++);
      return () => {
        Math.random = realRandom;
        Date.now = realNow;
        perf.now = realPerfNow;
        g['setTimeout'] = realSetTimeout;
        g['setInterval'] = realSetInterval;
        return counts;
      };
    },
  };
}

function wrapCounting(fn: unknown, count: () => void): unknown {
  if (typeof fn !== 'function') return fn;
  const wrapped = function (this: unknown, ...args: unknown[]) {
    count();
    return (fn as (...a: unknown[]) => unknown).apply(this, args);
  };
  // keep util.promisify(setTimeout) and friends working
  Object.assign(wrapped, fn);
  return wrapped;
}
