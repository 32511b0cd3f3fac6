import { describe, expect, it } from 'vitest';
import { multiFault } from './index.js';
import { everyProperty, judge, withFaults } from './judge.js';

// Each exhibit's hand-written reproduction, run directly with `simulate`: the buggy version fails
// the property that names its bug, only with all of the reproduction's faults (each alone is
// survived); the fixed twin passes every default property on it. bench/search.ts lets the
// search modes find the bugs on their own.
describe('multi-fault bug set', () => {
  it('has at least six exhibits, each needing two or more faults, named after its folder', () => {
    expect(multiFault.length).toBeGreaterThanOrEqual(6);
    expect(new Set(multiFault.map((e) => e.name)).size).toBe(multiFault.length);
    for (const e of multiFault) {
      expect(e.property().name).toBe(e.caughtBy);
      expect(e.needs.length).toBeGreaterThanOrEqual(2);
      expect(e.reproduction.faults.events.length).toBeGreaterThanOrEqual(2);
      expect(e.buggy.map((c) => c.name)).toEqual(e.correct.map((c) => c.name));
    }
  });

  for (const exhibit of multiFault) {
    describe(exhibit.name, () => {
      it(`the buggy version fails ${exhibit.caughtBy} with every fault of the reproduction`, async () => {
        const { failures } = await judge(exhibit, 'buggy', exhibit.reproduction);
        expect(failures.map((f) => f.property)).toEqual([exhibit.caughtBy]);
        expect(failures[0]!.verdict.explanation).toMatch(/^Let: /);
      });

      it('the buggy version survives each fault of the reproduction alone', async () => {
        for (const event of exhibit.reproduction.faults.events) {
          const { failures } = await judge(exhibit, 'buggy', withFaults(exhibit, [event]));
          expect(failures.map((f) => `${JSON.stringify(event)}: ${f.verdict.summary}`)).toEqual([]);
        }
      });

      it('the fixed twin passes every default property on the reproduction', async () => {
        const { failures } = await judge(exhibit, 'correct', exhibit.reproduction, everyProperty(exhibit));
        expect(failures.map((f) => `${f.property}: ${f.verdict.summary}`)).toEqual([]);
      });
    });
  }
});
