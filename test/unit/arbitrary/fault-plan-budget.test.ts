import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { faultPlan } from '../../../src/arbitrary/fault-plan.js';
import { allFaults } from '../../../faults/index.js';

const context = { controllers: ['web'], kinds: ['WebApp'], keys: ['default/web-0'], faultWindowMs: 30_000, maxNth: 20 };

describe('faultPlan event budget', () => {
  it('is shared round-robin, so kinds late in the catalogue get events too', () => {
    const plans = fc.sample(faultPlan({ faults: allFaults, context, swarm: false, maxEvents: 4, background: false }), { numRuns: 300, seed: 3 });
    const kindsWithEvents = new Set(plans.flatMap((p) => p.events.map((e) => e.kind)));
    const last = allFaults.slice(-5).map((f) => f.kind);
    expect(last.filter((k) => kindsWithEvents.has(k)).length).toBeGreaterThan(2);
    for (const p of plans) {
      expect(p.events.length).toBeLessThanOrEqual(4);
      // with every kind on, the budget never goes to a second event of one kind while others have none
      const counts = new Map<string, number>();
      for (const e of p.events) counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
      if (p.events.length === 4) expect(Math.max(...counts.values())).toBeLessThanOrEqual(2);
    }
  });
});
