import { check } from '../../src/check.js';
import { defaultProperties } from '../../src/defaults.js';
import { staleSnapshot } from '../../examples/bug-zoo/stale-snapshot/scenario.js';
import { ScenarioRunner } from '../../src/harness/scenario-runner.js';
import { stableStringify } from '../../src/sim/hash.js';
const entry = staleSnapshot;
const own = new Map(entry.properties.map((p) => [p.name, p]));
const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
console.log(properties.map(p => `${p.name}:${p.needsTwin ? 'twin' : ''}${p.learn ? '+learn' : ''}`).join(' '));
const orig = ScenarioRunner.prototype.judgeRun;
let noFire = 0, total = 0; const shapes = new Set<string>(); let sameAsTwin = 0, twinCompared = 0;
ScenarioRunner.prototype.judgeRun = async function (run, o) {
  const out = await orig.call(this, run, o);
  if (o?.tally) { total++; if (!run.trace.some((e) => e.type === 'fault:inject')) { noFire++; if (out.twin && out.twin !== run) { twinCompared++; if (out.twin.hash === run.hash) sameAsTwin++; } }
    shapes.add(stableStringify({ ...run.scenario, seed: 0, faults: null })); }
  return out;
};
const r = await check(entry.correct, { ...entry.options, properties, runs: 1000, seed: 2, shrink: false });
console.log(r.ok, r.runs, r.simulations, 'judged', total, 'noFire', noFire, 'distinct workloads', shapes.size, 'noFire twin compared', twinCompared, 'same hash', sameAsTwin);
