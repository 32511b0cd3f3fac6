import { simulate, type Scenario } from 'steadystate';
import { forged } from './forge-status.js';
const s: Scenario = { seed: 1, controllers: [{ name: 'forged' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 0 } } as never }], faults: { events: [{ kind: 'event-loss', at: 0, target: 'default/web' } as never], background: [{ kind: 'event-loss', rate: 1 }] }, options: { faultWindowMs: 2000, settleMs: 2000 } } as never;
const { run } = await simulate(s, { controllers: [forged] });
for (const o of run.finalObjects) if (o.kind === 'ReplicaSet') console.log(JSON.stringify(o.status), 'writes', run.trace.filter((t: { type: string }) => t.type === 'write').length);
