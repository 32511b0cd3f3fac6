// npx tsx scratch/fight/one.ts <target> <seed> <runs> [property]: the failing runs of one hunt target, each judged again with the explanation
import { writeFileSync } from 'node:fs';
import { measure } from '../../bench/fp-measure.js';
import { huntTargets, faultsFor, propertiesFor } from '../../bench/hunt-targets.js';
import { resolveCheckOptions } from '../../src/harness/check-options.js';
import { ScenarioRunner } from '../../src/harness/scenario-runner.js';
const [name, seed, runs, prop = 'no-hot-loop'] = process.argv.slice(2);
const t = huntTargets.find((x) => x.name === name)!;
const m = await measure(t, Number(seed), Number(runs), false, 'swarm');
const properties = propertiesFor(t, []).filter((p) => p.name === prop);
const resolved = resolveCheckOptions(t.controllers, { ...t.options, faults: faultsFor(t, []), properties });
const runner = new ScenarioRunner({ controllers: resolved.controllers, faults: resolved.faults, environment: resolved.environment.map((e) => e.actor), ...(resolved.downstream ? { downstream: resolved.downstream } : {}), tailMs: resolved.tailMs, traceReads: resolved.traceReads }, properties);
for (const f of m.failing) {
  console.log('run', f.run, f.failures.map((x) => `${x.property}: ${x.summary}`).join(' | '));
  writeFileSync(`scratch/fight/fail-${name.replace(/[^a-z0-9-]/gi, '_')}-${seed}-${f.run}.json`, JSON.stringify(f.scenario, null, 1));
  const o = await runner.judge(f.scenario, { properties, earlyStop: false });
  if (o.failure) console.log(o.failure.explanation);
}
