import { readFileSync } from 'node:fs';
import { simulate, allFaults, type Scenario } from '../../src/index.js';
import { falsePositiveCorpus } from '../../examples/false-positives/index.js';
import { twinScenario, worldScenario } from '../../src/harness/twin.js';
// usage: npx tsx scratch/twin46/dec.ts <scenario.json> <key>: each run's changing writes of a key's reconciles
const c = falsePositiveCorpus.find((x) => x.name === (process.argv[4] ?? 'statefulset-partition'))!;
const scenario = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Scenario;
const opts = { controllers: [...c.controllers], faults: [...allFaults], properties: [] } as never;
const { run } = await simulate(scenario, opts);
const slowKinds = new Set(allFaults.filter((f) => (f as { slowsTheWorld?: boolean }).slowsTheWorld).map((f) => f.kind));
const ws = worldScenario(run, slowKinds);
const base = (await simulate(ws && ws !== run.scenario ? ws : twinScenario(scenario), opts)).run;
for (const [name, r] of [['run', run], ['base', base]] as const) {
  const open = new Map<string, { key: string; t: number }[]>();
  for (const e of r.trace) {
    if (e.t >= r.timing.tailStart) break;
    if (e.type === 'reconcile:start') { const a = `controller:${e['controller']}/${e['replica'] ?? 0}`; open.set(a, [...(open.get(a) ?? []), { key: String(e['key']), t: e.t }]); }
    if (e.type === 'reconcile:end') { const a = `controller:${e['controller']}/${e['replica'] ?? 0}`; const l = open.get(a) ?? []; const i = l.findIndex((x) => x.key === e['key']); if (i >= 0) l.splice(i, 1); }
    if (e.type === 'controller:crash') open.clear();
    if (e.type === 'store:write' && e['error'] === undefined && e['noop'] !== true) {
      const span = open.get(String(e['actor']))?.at(-1);
      if (span?.key === process.argv[3]) console.log(name, span.t, e.t, e['verb'], e['kind'], e['key'], JSON.stringify(e['changed']));
      else if (e['actor'] === 'user' && String(e['key']) === process.argv[3]) console.log(name, 'USER', e.t, e['verb'], JSON.stringify(e['changed']));
    }
  }
}
