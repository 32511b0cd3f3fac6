import { allFaults, checkSystematic } from '../src/index.js';
import { multiFault } from '../examples/multi-fault/index.js';
const faults = allFaults.filter((f) => !f.kind.startsWith('environment-'));
for (const name of process.argv.slice(2)) {
  const ex = multiFault.find((e) => e.name === name)!;
  const { actions: _a, maxObjects: _mo, maxActions: _ma, maxFaultEvents: _mf, maxNth: _mn, ...o } = ex.options;
  const r = await checkSystematic(ex.buggy, { ...o, faults, properties: [ex.property()], stopOnFailure: true, determinism: false, shrink: false });
  if (!r.ok) console.log(name, r.failedAtRun, JSON.stringify((r as unknown as { failingPlan: unknown }).failingPlan), JSON.stringify(r.scenario.faults.events));
}
