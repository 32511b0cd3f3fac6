// statefulset-partition's replayed hunt finding: the faulted run's end state and pod-ready steps
import { simulate } from '../../src/index.js';
import { falsePositiveCorpus } from '../../examples/false-positives/index.js';
import { allFaults } from '../../faults/index.js';
import { readFileSync } from 'node:fs';
const src = readFileSync('test/e2e/false-positives-regressions.test.ts', 'utf8');
const line = src.split('\n').filter((l) => l.includes('"seed":825598931'))[1]!;
const scenario = JSON.parse(line.trim().replace(/^scenario: /, '').replace(/,$/, ''));
if (process.argv[2] === 'world') scenario.faults = { events: [{ kind: 'environment-pod-never-ready', target: 'default/db-1-2' }], background: [] };
const c = falsePositiveCorpus.find((x) => x.name === 'statefulset-partition')!;
const { run } = await simulate(scenario, { controllers: c.controllers, faults: allFaults, environment: (c.options.environment ?? []) as never });
const db1 = run.finalObjects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'db-1')!;
console.log(JSON.stringify(db1.status));
for (const e of run.trace) if (e.type === 'fault:inject' && e['kind'] === 'environment-pod-never-ready') console.log(JSON.stringify(e));
for (const e of run.trace) if (e.type === 'store:write' && String(e['key']).startsWith('default/db-1-') && e['kind'] === 'Pod' && (e['verb'] === 'create' || e['verb'] === 'delete')) console.log(e.t, e['actor'], e['verb'], e['key']);
