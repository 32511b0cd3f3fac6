import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../src/vitest/index.js';
import { eventLoss } from '../../faults/index.js';
import { convergence } from '../../properties/convergence.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';

/**
 * `toPassCheck` runs the checked code in the test's own thread, so what a module the test file
 * imports does to `Math` and `Date` reaches the judges. Tests mock `Math.random` and `Date.now`
 * (and `vi.useFakeTimers()` replaces the global `Date`): those keep working; any other
 * replacement of a `Math` or `Date` built-in is refused (red team, stop 43).
 */
const objects = { kind: 'ReplicaSet', spec: [{ replicas: 3 }], status: { replicas: 0 } };
const options = { objects, runs: 5, faults: [eventLoss], properties: [convergence()], reportDir: false as const, corpus: false };

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('toPassCheck and the Math and Date built-ins', () => {
  it('a Math or Date built-in the verdict is computed with, replaced at a module import, makes toPassCheck refuse to judge', async () => {
    const cases: [object, string, string][] = [
      [Math, 'max', 'Math.max'],
      [Math, 'floor', 'Math.floor'],
      [Date, 'parse', 'Date.parse'],
      [Date.prototype, 'toISOString', 'Date.prototype.toISOString'],
    ];
    for (const [holder, key, name] of cases) {
      const h = holder as Record<string, (...a: unknown[]) => unknown>;
      const original = h[key]!;
      // what a hostile module did at import: the same results today, any it likes tomorrow
      h[key] = function (this: unknown, ...args: unknown[]) {
        return original.apply(this, args);
      };
      try {
        await expect(expect(levelTriggered).toPassCheck({ ...options, seed: 1 }), name).rejects.toThrow(new RegExp(`toPassCheck cannot judge here: .*replaced built-ins .*\\(${name.replace(/\./g, '\\.')}\\)`));
      } finally {
        h[key] = original;
      }
    }
    // put back: the check judges again
    await expect(levelTriggered).toPassCheck({ ...options, seed: 1 });
  });

  it("a test's vi.useFakeTimers and spies on Math.random and Date.now keep working: the verdicts stand", async () => {
    // spies on the real Date.now and Math.random, then fake timers (a fake global Date)
    vi.spyOn(Math, 'random').mockReturnValue(0);
    vi.spyOn(Date, 'now').mockReturnValue(0);
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    await expect(levelTriggered).toPassCheck({ ...options, seed: 1 });
    await expect(expect(edgeTriggered).toPassCheck({ ...options, runs: 30, seed: 1 })).rejects.toThrow(/fails convergence/);
  });
});
