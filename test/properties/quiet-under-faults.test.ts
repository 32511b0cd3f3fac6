import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allFaults } from '../../faults/index.js';
import { defaultProperties } from '../../properties/index.js';
import type { FaultPlan } from '../../src/harness/fault-plan.js';
import { judgeAll } from '../helpers/property-laws.js';
import { correctTargets } from './_targets.js';

/**
 * The false-positive law over the whole catalogue: every correct property target stays quiet
 * under every built-in property (default options) and every built-in fault kind, with concrete
 * plans drawn from each fault's own arbitrary (fixed seed, so the test is deterministic) plus its
 * background form.
 */
function plansFor(kind: string, ctx: Parameters<(typeof allFaults)[number]['arbitrary']>[0]): FaultPlan[] {
  const f = allFaults.find((x) => x.kind === kind)!;
  const plans: FaultPlan[] = fc.sample(f.arbitrary(ctx).filter((e) => e.length > 0), { seed: 42, numRuns: 6 }).map((events) => ({ events, background: [] }));
  if (f.backgroundArbitrary) plans.push(...fc.sample(f.backgroundArbitrary(ctx), { seed: 42, numRuns: 2 }).map((b) => ({ events: [], background: [b] })));
  return plans;
}

describe('every correct target stays quiet under every fault kind', () => {
  for (const t of correctTargets) {
    it(t.name, async () => {
      const ctx = { controllers: t.scenario.controllers.map((c) => c.name), kinds: t.kinds, keys: t.keys, faultWindowMs: t.scenario.options?.faultWindowMs ?? 5000, maxNth: 20 };
      const props = [...defaultProperties(), ...t.extraProperties];
      const failures: string[] = [];
      let judged = 0;
      for (const f of allFaults) {
        if (t.skipFaults?.[f.kind]) continue;
        for (const plan of plansFor(f.kind, ctx)) {
          judged++;
          for (const { property, verdict } of await judgeAll(props, { ...t.scenario, faults: plan }, t.side)) failures.push(`${f.kind} ${JSON.stringify(plan)} → ${property}: ${verdict.summary}`);
        }
      }
      expect(judged).toBeGreaterThan(allFaults.length);
      expect(failures).toEqual([]);
    });
  }
});

describe('every correct target stays quiet under combined faults (swarm)', () => {
  for (const t of correctTargets) {
    it(t.name, async () => {
      const ctx = { controllers: t.scenario.controllers.map((c) => c.name), kinds: t.kinds, keys: t.keys, faultWindowMs: t.scenario.options?.faultWindowMs ?? 5000, maxNth: 20 };
      const kinds = allFaults.map((f) => f.kind).filter((k) => !t.skipFaults?.[k]);
      const props = [...defaultProperties(), ...t.extraProperties];
      const failures: string[] = [];
      // each swarm plan enables a seeded subset of kinds, each with its own sampled plan
      const subsets = fc.sample(fc.subarray(kinds, { minLength: 2, maxLength: 5 }), { seed: 7, numRuns: 6 });
      for (const [i, subset] of subsets.entries()) {
        const parts = subset.map((k) => plansFor(k, ctx)[i % 3]!);
        const plan: FaultPlan = { events: parts.flatMap((p) => p.events), background: parts.flatMap((p) => p.background) };
        for (const { property, verdict } of await judgeAll(props, { ...t.scenario, faults: plan }, t.side)) failures.push(`${subset.join('+')} ${JSON.stringify(plan)} → ${property}: ${verdict.summary}`);
      }
      expect(failures).toEqual([]);
    });
  }
});
