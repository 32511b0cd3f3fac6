import { describe, expect, it } from 'vitest';
import { recovery } from '../../properties/recovery.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { defineController, fromVirtualTimestamp, job, podLifecycle } from '../../src/index.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { controllerRef } from '../../examples/false-positives/_shared/owner.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

// The corpus' backup-schedule / message-broker runs (M2, 1,000 runs × 3 seeds: 8 and ~30 of
// same-end-state's 77): a child whose fields the API never lets change (a Job's pod template, a
// StatefulSet's claim templates and the claims made from them) was made before the user's spec
// change in one run and after it in the other, because a fault made the controller see the object
// late. Its value was fixed by when it was made; no controller can change it since.

/**
 * One Job per Export, made once the Export is a second old, from its spec as read then (`live`, or
 * from the cache). `status.stale` says whether the Job runs another table than the spec names:
 * read from the Job (`report: 'job'`), or from what the process remembers seeing (`'memory'`, the
 * buggy way: a restart forgets it).
 */
// per process: keyed by the process's client, which a restart replaces
const memory = new WeakMap<object, Map<string, string>>();
const seenBy = (client: object) => memory.get(client) ?? memory.set(client, new Map()).get(client)!;
const exporter = (live: boolean, report: 'job' | 'memory' | 'none' = 'none') =>
  defineController({
    name: 'exporter',
    for: 'Export',
    owns: ['Job'],
    resyncPeriodMs: 0,
    async reconcile(ctx) {
      const x = await ctx.client.tryGet<{ table: string }>('Export', ctx.key, { live });
      if (!x) return undefined;
      const age = ctx.clock.now() - fromVirtualTimestamp(x.metadata.creationTimestamp);
      if (age < 1000) return { requeueAfter: 1000 - age };
      const name = `${x.metadata.name}-job`;
      const existing = await ctx.client.tryGet('Job', { namespace: x.metadata.namespace, name });
      if (existing) {
        if (report === 'none') return undefined;
        const first = seenBy(ctx.client).get(x.metadata.uid);
        const stale = report === 'job' ? !JSON.stringify(existing.spec['template']).includes(`"${x.spec.table}"`) : first !== undefined && first !== x.spec.table;
        if (x.status['stale'] !== stale) await ctx.client.updateStatus({ ...x, status: { stale } });
        return undefined;
      }
      seenBy(ctx.client).set(x.metadata.uid, x.spec.table);
      await ctx.client.create({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name, namespace: x.metadata.namespace, ownerReferences: [controllerRef(x)] },
        spec: { backoffLimit: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'dump', image: 'pg-dump:1', args: ['--table', x.spec.table] }] } } },
      });
      return undefined;
    },
  });

const exportScenario = (updateAt: number, delay: { nth: number; ms: number }): Scenario => ({
  seed: 1,
  controllers: [{ name: 'exporter' }],
  environment: [{ name: 'job' }, { name: 'pod-lifecycle' }],
  initialObjects: [],
  workload: [
    { at: 0, type: 'create', object: { kind: 'Export', metadata: { name: 'orders', namespace: 'default' }, spec: { table: 'orders' } } },
    { at: updateAt, type: 'update', kind: 'Export', key: 'default/orders', spec: { table: 'orders_v2' } },
  ],
  faults: { events: delay.nth >= 0 ? [{ kind: 'delay', nth: delay.nth, params: { ms: delay.ms } }] : [{ kind: 'crash-restart', at: delay.ms }], background: [] },
  options: { faultWindowMs: 10_000, settleMs: 20_000 },
});
const side = (live: boolean, report: 'job' | 'memory' | 'none' = 'none') => ({ controllers: [exporter(live, report)], options: { environment: [job, podLifecycle] } });

describe('same-end-state and fields fixed when an object was made', () => {
  it('passes a Job (and its Pod) made after the spec change because the controller saw the Export late; the stats name what was not compared', async () => {
    // the Export's ADDED reaches the controller only at ~3 s, after the update at 2 s: the Job gets orders_v2; the twin made it at 1 s with orders
    const { verdict, run, twin } = await judgeScenario(sameEndState(), exportScenario(2000, { nth: 0, ms: 3000 }), side(true));
    const args = (r: typeof run) => r.settledObjects.filter((o) => o.kind === 'Job').map((o) => JSON.stringify(o.spec['template']).includes('orders_v2'));
    expect([args(run), args(twin!)]).toEqual([[true], [false]]);
    expectQuiet(verdict);
    expect(verdict.ok && verdict.stats?.['fixedAtCreation']).toEqual(expect.arrayContaining(['Job default/orders-job: spec.template.spec.containers[0].args[1]', 'Pod default/orders-job-*: spec.containers[0].args[1]']));
  });

  it('still fails a controller that makes the Job from a lagging cache after the change (made under the same declaration, with the old spec)', async () => {
    // the update at 0.1 s reaches the cache only at ~3 s; at 1 s the controller reads the cache: orders, while the twin's read orders_v2
    const v = expectFailure((await judgeScenario(sameEndState(), exportScenario(100, { nth: 1, ms: 3000 }), side(false))).verdict);
    expect(v.summary).toMatch(/Job default\/orders-job: spec\.template\.spec\.containers\[0\]\.args\[1\] is "orders", "orders_v2" in the fault-free run/);
  });

  it('passes the live-reading controller in that same scenario', async () => {
    expectQuiet((await judgeScenario(sameEndState(), exportScenario(100, { nth: 1, ms: 3000 }), side(true))).verdict);
  });

  it('leaves out the owner status that reports on such a child (stale: true in one run, false in the other)', async () => {
    const { verdict, run, twin } = await judgeScenario(sameEndState(), exportScenario(2000, { nth: 0, ms: 3000 }), side(true, 'job'));
    expect([run, twin!].map((r) => r.settledObjects.find((o) => o.kind === 'Export')!.status['stale'])).toEqual([false, true]);
    expectQuiet(verdict);
    expect(verdict.ok && verdict.stats?.['fixedAtCreation']).toEqual(expect.arrayContaining(['Export default/orders: status.stale']));
  });

  it('still compares that status when no child differs: a report kept in memory that a restart forgets fails', async () => {
    // both runs make the Job at 1 s (orders) before the update at 2 s; a crash at 2.5 s makes the buggy report forget it
    const j = await judgeScenario(sameEndState(), exportScenario(2000, { nth: -1, ms: 2500 }), side(true, 'memory'));
    const v = expectFailure(j.verdict);
    expect(v.summary).toMatch(/Export default\/orders: status\.stale is false, true in the fault-free run/);
    expectQuiet((await judgeScenario(sameEndState(), exportScenario(2000, { nth: -1, ms: 2500 }), side(true, 'job'))).verdict);
  });
});

describe('recovery and fields fixed while the spec was away', () => {
  /** One child per Export made once it is a second old and never changed: a Job (its template is immutable) or a ConfigMap (it could be updated). */
  const maker = (kind: 'Job' | 'ConfigMap') =>
    defineController({
      name: 'exporter',
      for: 'Export',
      owns: [kind],
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        const x = await ctx.client.tryGet<{ table: string }>('Export', ctx.key, { live: true });
        if (!x) return undefined;
        const age = ctx.clock.now() - fromVirtualTimestamp(x.metadata.creationTimestamp);
        if (age < 1000) return { requeueAfter: 1000 - age };
        const metadata = { name: `${x.metadata.name}-out`, namespace: x.metadata.namespace, ownerReferences: [controllerRef(x)] };
        if (await ctx.client.tryGet(kind, metadata)) return undefined;
        await ctx.client.create(
          kind === 'Job'
            ? { apiVersion: 'batch/v1', kind, metadata, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'dump', image: 'pg-dump:1', args: ['--table', x.spec.table] }] } } } }
            : { apiVersion: 'v1', kind, metadata, data: { table: x.spec.table } },
        );
        return undefined;
      },
    });
  // the spec is away (orders_v2) from 0.5 s to 1.5 s, and the child is made at 1 s
  const away: Scenario = {
    ...exportScenario(500, { nth: -1, ms: 0 }),
    environment: [],
    faults: { events: [], background: [] },
    workload: [...exportScenario(500, { nth: -1, ms: 0 }).workload, { at: 1500, type: 'update', kind: 'Export', key: 'default/orders', spec: { table: 'orders' } }],
  };

  it('passes a Job made while the spec was away (its template can never go back), naming it in the stats', async () => {
    const { verdict } = await judgeScenario(recovery(), away, { controllers: [maker('Job')] });
    expectQuiet(verdict);
    expect(verdict.ok && verdict.stats).toMatchObject({ judged: true, fixedAtCreation: ['Job default/orders-out: spec.template.spec.containers[0].args[1]'] });
  });

  it('still fails a ConfigMap made then and never set back (a field the controller could change)', async () => {
    const v = expectFailure((await judgeScenario(recovery(), away, { controllers: [maker('ConfigMap')] })).verdict);
    expect(v.summary).toMatch(/ConfigMap default\/orders-out: data\.table is "orders_v2", "orders" in the earlier end state/);
  });
});
