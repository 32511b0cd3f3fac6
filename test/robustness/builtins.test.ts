import { afterEach, describe, expect, it } from 'vitest';
import { expectVerdict, runAttack, words, type Attack } from './hostile.js';
import { snapshotIntrinsics } from '../../src/host/intrinsics.js';

/**
 * Session 7: a reconcile that replaces a built-in the harness also runs on (`Math.max = () => 0`)
 * hung the kernel in-process, or let the harness compute its verdict under the replacement. The
 * run guard puts it back at every seam where the code under test hands control back, and the
 * run fails under `never-exits` naming what was replaced.
 */
const orig = { max: Math.max, min: Math.min, stringify: JSON.stringify, sort: Array.prototype.sort, get: Map.prototype.get };
const replaced = (name: string) => [new RegExp(`replaced the built-in ${name.replace(/\./g, '\\.')}`), /steadystate put it back/, /never passes/];

const attacks: Attack[] = [
  { attack: 'Math.max = () => 0 (the scheduler and the kernel use it: hung in-process)', reconcile: () => void (Math.max = () => 0), property: 'never-exits', says: replaced('Math.max') },
  { attack: 'Math.min = () => Infinity', reconcile: () => void (Math.min = () => Infinity), property: 'never-exits', says: replaced('Math.min') },
  { attack: 'Math.max replaced after an await (found when the task parks, not when it settles)', reconcile: async (ctx) => {
      await ctx.client.tryGet('Thing', ctx.key);
      Math.max = () => 0;
      await ctx.clock.sleep(1);
    }, property: 'never-exits', says: replaced('Math.max') },
];

describe('a reconcile that replaces a built-in', () => {
  const intact = snapshotIntrinsics();
  afterEach(() => {
    // whatever the guard missed must not leak into the next test
    expect(intact.restore()).toEqual([]);
    expect({ max: Math.max, min: Math.min, stringify: JSON.stringify, sort: Array.prototype.sort, get: Map.prototype.get }).toEqual(orig);
  });
  for (const a of attacks) {
    it(a.attack, () => expectVerdict(a));
  }

  it('a polyfill installed before the check is part of the module: the run passes', async () => {
    const had = Object.getOwnPropertyDescriptor(Array.prototype, 'findLast')!;
    const polyfill = function findLast(this: unknown[], f: (x: unknown) => boolean): unknown {
      return (had.value as (f: (x: unknown) => boolean) => unknown).call(this, f);
    };
    Object.defineProperty(Array.prototype, 'findLast', { ...had, value: polyfill });
    try {
      const r = await runAttack({ attack: 'polyfill', property: '', says: [] });
      expect(words(r)).toBe('(passed)');
      expect(Array.prototype.findLast).toBe(polyfill);
    } finally {
      Object.defineProperty(Array.prototype, 'findLast', had);
    }
  });
});
