// npx tsx scratch/fight/dump.ts <target> <scenario.json> <fromMs> <toMs>: trace entries in a window
import { readFileSync } from 'node:fs';
import { huntTargets, faultsFor, propertiesFor } from '../../bench/hunt-targets.js';
import { resolveCheckOptions } from '../../src/harness/check-options.js';
import { ScenarioRunner } from '../../src/harness/scenario-runner.js';
const [name, file, from, to] = process.argv.slice(2);
const t = huntTargets.find((x) => x.name === name)!;
const properties = propertiesFor(t, []).filter((p) => p.name === 'no-hot-loop');
const resolved = resolveCheckOptions(t.controllers, { ...t.options, faults: faultsFor(t, []), properties });
const runner = new ScenarioRunner({ controllers: resolved.controllers, faults: resolved.faults, environment: resolved.environment.map((e) => e.actor), ...(resolved.downstream ? { downstream: resolved.downstream } : {}), tailMs: resolved.tailMs, traceReads: resolved.traceReads }, properties);
const o = await runner.judge(JSON.parse(readFileSync(file!, 'utf8')), { properties, earlyStop: false });
for (const e of o.run.trace) if (e.t >= Number(from) && e.t <= Number(to)) console.log(JSON.stringify(e).slice(0, 300));
