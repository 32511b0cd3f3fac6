// npx tsx scratch/rt/systematic.ts <case,...> [maxRuns]: systematic mode (plans derived from a fault-free run, depth 2) over fixture cases
import { checkSystematic } from '../../src/index.js';
import { cases } from './fixtures/controllers.js';
const [names = '', maxRuns = '800'] = process.argv.slice(2);
for (const c of cases.filter((x) => names.split(',').includes(x.name))) {
  const t0 = performance.now();
  const r = await checkSystematic(c.controllers, { ...c.options, maxRuns: Number(maxRuns), depth: 2 } as never);
  const ms = Math.round(performance.now() - t0);
  console.log(r.ok ? `PASS ${c.name} systematic ${(r as { runs?: number }).runs ?? '?'} plans ${ms} ms` : `FAIL ${c.name} systematic: ${r.property}: ${r.summary} (${ms} ms)\n${r.explanation.slice(0, 1500)}\nSCENARIO ${JSON.stringify(r.scenario).slice(0, 2000)}`);
}
