import { readFileSync } from 'node:fs';
import { simulate, allFaults, type Scenario } from '../../src/index.js';
import { falsePositiveCorpus } from '../../examples/false-positives/index.js';
import { twinScenario, divergedKeyWindows, behindAtChangeWindows, lateVariations, worldScenario } from '../../src/harness/twin.js';
// usage: npx tsx scratch/twin46/sts.ts <scenario.json>: the run, twin, slow world and the late windows, with each run's StatefulSet writes
const c = falsePositiveCorpus.find((x) => x.name === 'statefulset-partition')!;
const scenario = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Scenario;
const opts = { controllers: [...c.controllers], faults: [...allFaults], properties: [] } as never;
const { run } = await simulate(scenario, opts);
const { run: twin } = await simulate(twinScenario(scenario), opts);
const slowKinds = new Set(allFaults.filter((f) => (f as { slowsTheWorld?: boolean }).slowsTheWorld).map((f) => f.kind));
const ws = worldScenario(run, slowKinds);
console.log('world faults', JSON.stringify(ws?.faults));
const base = ws && ws !== run.scenario ? (await simulate(ws, opts)).run : twin;
console.log('diverged', JSON.stringify(divergedKeyWindows(run, base, c.controllers, new Set(['StatefulSet']))));
console.log('behind', JSON.stringify(behindAtChangeWindows(run, base, c.controllers, new Set(['StatefulSet']))));
const key = process.argv[3] ?? 'default/db-1';
for (const [name, r] of [['run', run], ['base', base]] as const) {
  console.log('==', name);
  const open = new Map<string, string>();
  for (const e of r.trace) {
    if (e.t >= r.timing.tailStart) break;
    if (e.type === 'reconcile:start' && e['key'] === key) console.log(name, e.t, 'start', e['n']);
    if (e.type === 'reconcile:end' && e['key'] === key) console.log(name, e.t, 'end', e['n'], e['result']);
    if (e.type === 'controller:crash') console.log(name, e.t, 'CRASH');
    if (e.type === 'store:write' && (String(e['key']).startsWith(key.split('/')[1]! + '-') || e['key'] === key || String(e['key']).includes('db-1')) && e['error'] === undefined) console.log(name, e.t, e['actor'], e['verb'], e['kind'], e['key'], JSON.stringify(e['changed'] ?? ''));
  }
}
