import { readFileSync } from 'node:fs';
import { simulate, allFaults, type Scenario } from '../../src/index.js';
import { huntTargets } from '../../bench/hunt-targets.js';
import { twinScenario, behindAtChangeWindows, respecWindows } from '../../src/harness/twin.js';
// usage: npx tsx scratch/twin46/ldbg.ts <scenario.json> <key>: lease-cron's respec and behind windows, the key's writes, user changes and POSTs
const t = huntTargets.find((x) => x.name === 'corpus:lease-cron')!;
const scenario = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Scenario;
const opts = { controllers: [...t.controllers], faults: [...allFaults], downstream: t.options.downstream as never, properties: [] };
const { run } = await simulate(scenario, opts);
const { run: twin } = await simulate(twinScenario(scenario), opts);
console.log('behind', JSON.stringify(behindAtChangeWindows(run, twin, t.controllers, new Set(['ReportSchedule']))));
console.log('respec', JSON.stringify(respecWindows(run, twin, t.controllers)));
const key = process.argv[3]!;
for (const [name, r] of [['run', run], ['twin', twin]] as const) {
  for (const e of r.trace) {
    if (e.t >= r.timing.tailStart) break;
    if (e.type === 'store:write' && e['error'] === undefined && (e['key'] === key || e['key'] === `${key}-cron`)) console.log(name, e.t, e['actor'], e['verb'], e['kind'], JSON.stringify(e['changed']));
    if (e.type === 'downstream:request' && e['method'] === 'POST') console.log(name, e.t, 'POST', e['status'], JSON.stringify(e).slice(0, 200));
  }
}
