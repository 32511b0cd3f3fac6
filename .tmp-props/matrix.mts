import fc from 'fast-check';
import { allFaults } from '/work/main/faults/index.js';
import { defaultProperties } from '/work/main/properties/index.js';
import { judgeScenario } from '/work/main/test/helpers/property-laws.js';
import { correctTargets } from '/work/main/test/properties/_targets.js';

const only = process.argv[2];
let fails = 0, total = 0;
for (const t of correctTargets) {
  for (const f of allFaults) {
    if (only && f.kind !== only) continue;
    if (t.skipFaults?.[f.kind]) continue;
    const ctx = { controllers: t.scenario.controllers.map((c) => c.name), kinds: t.kinds, keys: t.keys, faultWindowMs: t.scenario.options?.faultWindowMs ?? 5000, maxNth: 20 };
    const plans = fc.sample(f.arbitrary(ctx).filter((e) => e.length > 0), { seed: 42, numRuns: 4 }).map((events) => ({ events, background: [] as never[] }));
    if (f.backgroundArbitrary) for (const b of fc.sample(f.backgroundArbitrary(ctx), { seed: 42, numRuns: 2 })) plans.push({ events: [], background: [b] as never[] });
    for (const plan of plans) {
      const scenario = { ...t.scenario, faults: plan };
      for (const p of [...defaultProperties(), ...t.extraProperties]) {
        total++;
        const { verdict } = await judgeScenario(p, scenario, t.side);
        if (!verdict.ok) { fails++; console.log(`${t.name} × ${f.kind} × ${p.name}: ${verdict.summary}\n   plan=${JSON.stringify(plan)}`); }
      }
    }
  }
}
console.log(`failures ${fails}/${total}`);
