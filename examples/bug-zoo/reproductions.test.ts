import { describe, expect, it } from 'vitest';
import { bugZoo } from './index.js';
import { reproduce } from './reproduce.js';

// Each exhibit's hand-written scenario, run directly with `simulate`: the buggy version fails the
// property that names its bug, the fixed twin passes it. (test/e2e/bug-zoo.test.ts lets `check`
// find the bugs on its own.)
describe('bug zoo reproductions', () => {
  it('has at least 14 controllers in 7 or more pairs, each named after its folder', () => {
    const controllers = new Set(bugZoo.flatMap((e) => [...e.buggy, ...e.correct]));
    expect(bugZoo.length).toBeGreaterThanOrEqual(7);
    expect(controllers.size).toBeGreaterThanOrEqual(14);
    expect(new Set(bugZoo.map((e) => e.name)).size).toBe(bugZoo.length);
    for (const e of bugZoo) {
      expect(e.property().name).toBe(e.caughtBy);
      expect(e.buggy.map((c) => c.for)).toEqual(e.correct.map((c) => c.for));
    }
  });

  for (const entry of bugZoo) {
    describe(entry.name, () => {
      it(`the buggy version fails ${entry.caughtBy}`, async () => {
        const { verdict } = await reproduce(entry, 'buggy');
        expect(verdict.ok, 'the property should catch the bug').toBe(false);
        if (!verdict.ok) {
          expect(verdict.explanation).toMatch(/^Let: /);
          expect(verdict.summary.length).toBeGreaterThan(0);
        }
      });

      it(`the correct version passes ${entry.caughtBy}`, async () => {
        const { verdict } = await reproduce(entry, 'correct');
        expect(verdict.ok ? 'pass' : `${verdict.summary}\n${verdict.explanation}`).toBe('pass');
      });
    });
  }
});
