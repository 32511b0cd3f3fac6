import fc from 'fast-check';
import { scenario } from '/work/main/src/arbitrary/scenario.ts';
import { simulate } from '/work/main/src/simulate.ts';
import { allFaults } from '/work/main/faults/index.ts';
import { bugZoo } from '/work/main/examples/bug-zoo/index.ts';
const e = bugZoo.find((x) => x.name === 'retry-storm')!;
const objs = [{ kind: 'Bucket', namespace: 'default', name: 'assets', spec: fc.constant({ region: 'eu-west-1', versioning: false }), status: undefined, labels: {}, annotations: {}, finalizers: [], removableFinalizers: [] }];
const arb = scenario({ controllers: [{ name: 'bucket' }], objects: objs as any, faults: [...allFaults, ...e.extraFaults] });
const samples = fc.sample(arb, { seed: 3, numRuns: 60 });
let withOutage = 0;
for (const s of samples) {
  const o = s.faults.events.find((x) => x.kind === 'downstream-outage');
  if (!o) continue;
  withOutage++;
  const prop = e.property();
  const { run } = await simulate(s, { controllers: e.buggy, faults: e.extraFaults, properties: [prop], downstream: e.options.downstream! });
  const v = prop.judge(run, undefined);
  const creates = s.workload.filter((w) => w.type === 'create').map((w) => w.at);
  const failed = run.requests.filter((r) => r.status >= 500).length;
  console.log(JSON.stringify(o), 'creates at', creates, 'reqs', run.requests.length, 'failed', failed, v.ok, 'kinds', [...new Set(s.faults.events.map((x) => x.kind))].join(','));
}
console.log('with outage', withOutage, 'of', samples.length);
