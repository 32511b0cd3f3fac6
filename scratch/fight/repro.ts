// npx tsx scratch/fight/repro.ts [conflict]: two Scalers on one Deployment, judged by no-hot-loop and no-fighting
import { simulate } from '../../src/simulate.js';
import { defineController, podLifecycle, deployment, isStoreError, type JsonObject, type Scenario } from '../../src/index.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { noFighting } from '../../properties/no-fighting.js';
import { writeStatus } from '../../examples/false-positives/_shared/status.js';

const mode = process.argv[2] ?? 'fight';
const scaler = defineController({
  name: 'scaler',
  for: 'Scaler',
  watches: [{ kind: 'Deployment', map: (d, ctx) => ctx.list('Scaler', { namespace: d.metadata.namespace ?? 'default' }).filter((s) => s.spec['target'] === d.metadata.name).map((s) => `${s.metadata.namespace}/${s.metadata.name}`) }],
  async reconcile(ctx) {
    const s = await ctx.client.tryGet<{ target: string; replicas: number }, JsonObject>('Scaler', ctx.key, { live: true });
    if (!s || s.metadata.deletionTimestamp !== undefined) return;
    const ns = s.metadata.namespace ?? 'default';
    if (mode === 'conflict') {
      const rivals = (await ctx.client.list<{ target: string }, JsonObject>('Scaler', { namespace: ns })).filter((x) => x.spec.target === s.spec.target && x.metadata.deletionTimestamp === undefined);
      if (rivals.length > 1) return void (await writeStatus(ctx, s, { scaled: false, reason: 'AmbiguousTarget', observedGeneration: s.metadata.generation }));
    }
    const d = await ctx.client.tryGet<JsonObject, JsonObject>('Deployment', { namespace: ns, name: s.spec.target });
    if (d && d.spec['replicas'] !== s.spec.replicas) {
      try {
        await ctx.client.patch('Deployment', { namespace: ns, name: s.spec.target }, { spec: { replicas: s.spec.replicas } }, { resourceVersion: d.metadata.resourceVersion });
      } catch (err) {
        if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
      }
    }
    await writeStatus(ctx, s, { scaled: d !== undefined, observedGeneration: s.metadata.generation });
  },
});
const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } } };
const sc = (name: string, replicas: number) => ({ kind: 'Scaler', metadata: { name, namespace: 'default' }, spec: { target: 'web', replicas } });
const scenario = {
  seed: 1,
  controllers: [{ name: 'scaler' }],
  environment: [{ name: 'pod-lifecycle' }, { name: 'deployment' }],
  initialObjects: [],
  workload: [{ at: 0, type: 'create', object: dep }, { at: 100, type: 'create', object: sc('a', 3) }, { at: 200, type: 'create', object: sc('b', 2) }],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 1000, settleMs: 3000 },
} as unknown as Scenario;
const cpu = () => process.cpuUsage().user / 1000;
const c0 = cpu();
const { run } = await simulate(scenario, { controllers: [scaler], environment: [podLifecycle, deployment], properties: [noHotLoop(), noFighting()], tailMs: 3000, earlyStop: false } as never);
console.log('sim ms cpu', Math.round(cpu() - c0), 'writes', run.writes.length, 'timing', JSON.stringify(run.timing));
const counts = new Map<string, number>();
for (const w of run.writes) counts.set(`${w.actor} ${w.verb} ${w.kind}`, (counts.get(`${w.actor} ${w.verb} ${w.kind}`) ?? 0) + 1);
console.log([...counts].map(([k, v]) => `${v}\t${k}`).join('\n'));
for (const p of [noHotLoop(), noFighting()]) {
  const c1 = cpu();
  const v = p.judge(run as never, undefined, {});
  console.log(p.name, Math.round(cpu() - c1), 'ms', v.ok ? `ok ${JSON.stringify(v.stats ?? {})}` : `FAIL ${v.summary}`);
  if (!v.ok && process.argv.includes('-v')) console.log(v.explanation);
}
