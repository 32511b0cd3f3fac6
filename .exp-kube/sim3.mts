import { simulate } from '../src/simulate.js';
import { webAppController } from '../examples/client-node/steadystate.js';
const scenario = {
  seed: 3, controllers: [{ name: 'webapp' }], initialObjects: [],
  workload: [
    { at: 200, type: 'create', object: { kind: 'WebApp', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, image: 'nginx' } } },
    { at: 1400, type: 'delete', kind: 'WebApp', key: 'default/web' },
  ],
  faults: { events: [{ kind: 'delay', nth: 4, params: { ms: 3500 } }, { kind: 'second-replica', at: 1700, params: { leaderElection: true } }], background: [] },
  options: { faultWindowMs: 3000, settleMs: 6000 },
};
const { run } = await simulate(scenario as any, { controllers: [webAppController], tailMs: 1000 });
console.log(run.writes.filter((w) => w.kind === 'ConfigMap' && w.verb === 'create' && !w.error).length);
for (const e of run.trace) if (e.type === 'fault:inject') console.log(JSON.stringify(e));
process.exit(0);
