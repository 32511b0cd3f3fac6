import { simulate } from '../src/harness/simulate.js';
import { webAppController, buggyWebAppController } from '../examples/client-node/steadystate.js';
const which = process.argv[2] === 'buggy' ? buggyWebAppController : webAppController;
const scenario = {
  seed: 1,
  controllers: [{ name: 'webapp' }],
  initialObjects: [{ apiVersion: 'example.com/v1', kind: 'WebApp', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2, image: 'nginx' } }],
  workload: [{ at: 3000, type: 'patch' as const, kind: 'WebApp', key: 'default/web', patch: { spec: { replicas: 3 } } }, { at: 6000, type: 'delete' as const, kind: 'WebApp', key: 'default/web' }],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 2000, settleMs: 5000 },
};
for (let i = 0; i < 2; i++) {
  const t0 = performance.now();
  const { run } = await simulate(scenario as any, { controllers: [which], tailMs: 2000 });
  console.log('ms', Math.round(performance.now() - t0), 'hash', run.hash, 'writes', run.writes.length, 'trace', run.trace.length);
  if (i === 0) {
    for (const w of run.writes.slice(0, 40)) console.log(w.t, w.actor, w.verb, w.kind, w.key, w.changed.join(','), w.noop ? 'noop' : '', w.error ?? '');
    console.log(JSON.stringify(run.finalObjects.map((o) => [o.kind, o.metadata.name, o.metadata.finalizers, o.status])));
    console.log('blocked', run.blocked);
  }
}
process.exit(0);
