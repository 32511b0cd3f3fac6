import { simulate } from '../src/simulate.js';
import { webAppController } from '../examples/client-node/steadystate.js';
const s: any = {
  seed: 11, controllers: [{ name: 'webapp', replicas: 2 }], initialObjects: [],
  workload: [
    { at: 0, type: 'create', object: { kind: 'WebApp', metadata: { name: 'a', namespace: 'default' }, spec: { replicas: 1 } } },
    { at: 100, type: 'create', object: { kind: 'WebApp', metadata: { name: 'b', namespace: 'default' }, spec: { replicas: 1 } } },
    { at: 1500, type: 'patch', kind: 'WebApp', key: 'default/a', patch: { spec: { replicas: 4 } } },
    { at: 2500, type: 'delete', kind: 'WebApp', key: 'default/b' },
  ],
  faults: { events: [], background: [{ kind: 'watch-disconnect', rate: 0.2 }, { kind: 'crash-restart', rate: 0.05 }, { kind: 'duplication', rate: 0.2 }, { kind: 'api-error', rate: 0.2 }, { kind: 'delay', rate: 0.2, params: { ms: 300 } }] },
  options: { faultWindowMs: 4000, settleMs: 4000 },
};
const hashes = new Set<string>();
for (let i = 0; i < 4; i++) {
  const { run } = await simulate(s, { controllers: [webAppController], tailMs: 1000 });
  hashes.add(run.hash);
  console.log(run.hash, run.trace.length, run.trace.filter((e) => e.type === 'fault:inject').map((e) => e['kind']).join(',').slice(0, 200));
}
console.log('distinct', hashes.size);
process.exit(0);
