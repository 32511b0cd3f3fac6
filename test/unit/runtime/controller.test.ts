import { describe, expect, it } from 'vitest';
import { defineController } from '../../../src/runtime/define-controller.js';
import { entries, reconcileStarts, run, scenario } from '../../helpers/fixtures.js';

const obj = (name: string, spec: Record<string, number> = { n: 1 }) => ({ kind: 'Thing', metadata: { name, namespace: 'ns' }, spec });

describe('reconcile results', () => {
  it('a throwing reconcile is retried with 5 ms · 2^n backoff', async () => {
    let calls = 0;
    const c = defineController({ name: 'c', for: 'Thing', resyncPeriodMs: 0, reconcile: () => { calls++; if (calls <= 4) throw new Error('nope'); } });
    const { run: r } = await run(scenario({ controllers: [{ name: 'c' }], initialObjects: [obj('a')] }), [c]);
    expect(reconcileStarts(r.trace)).toEqual([0, 5, 15, 35, 75]);
    const ends = entries(r.trace, 'reconcile:end').map((e) => e['result']);
    expect(ends).toEqual(['error', 'error', 'error', 'error', 'done']);
  });

  it('requeueAfter runs the key again after that many virtual ms; requeue uses the rate limiter', async () => {
    let n = 0;
    const c = defineController({ name: 'c', for: 'Thing', resyncPeriodMs: 0, reconcile: () => (++n < 3 ? { requeueAfter: 1000 } : n < 5 ? { requeue: true } : undefined) });
    const { run: r } = await run(scenario({ controllers: [{ name: 'c' }], initialObjects: [obj('a')] }), [c]);
    expect(reconcileStarts(r.trace)).toEqual([0, 1000, 2000, 2005, 2015]);
  });

  it('never runs one key on two workers at once, but runs different keys concurrently', async () => {
    const active = new Set<string>();
    let overlapSameKey = false;
    let maxActive = 0;
    const c = defineController({
      name: 'c',
      for: 'Thing',
      resyncPeriodMs: 0,
      maxConcurrentReconciles: 2,
      async reconcile(ctx) {
        if (active.has(ctx.key)) overlapSameKey = true;
        active.add(ctx.key);
        maxActive = Math.max(maxActive, active.size);
        await ctx.clock.sleep(100);
        active.delete(ctx.key);
      },
    });
    const s = scenario({
      controllers: [{ name: 'c' }],
      initialObjects: [obj('a'), obj('b')],
      workload: [{ at: 50, type: 'patch', kind: 'Thing', key: 'ns/a', patch: { spec: { n: 2 } } }],
    });
    const { run: r } = await run(s, [c]);
    expect(overlapSameKey).toBe(false);
    expect(maxActive).toBe(2);
    expect(reconcileStarts(r.trace, 'ns/a')).toEqual([0, 100]);
  });
});

describe('handlers', () => {
  it('owns: an owned object event enqueues the controlling owner', async () => {
    const seen: string[] = [];
    const c = defineController({
      name: 'c',
      for: 'Parent',
      owns: ['Child'],
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        seen.push(`${ctx.clock.now()}:${ctx.key}`);
        const p = await ctx.client.tryGet('Parent', ctx.key);
        if (!p) return;
        const child = await ctx.client.tryGet('Child', `ns/${ctx.name}-child`);
        if (!child) {
          await ctx.client.create({ kind: 'Child', metadata: { name: `${ctx.name}-child`, namespace: 'ns', ownerReferences: [{ kind: 'Parent', name: ctx.name, uid: p.metadata.uid, controller: true }] }, spec: {} });
        }
      },
    });
    const s = scenario({
      controllers: [{ name: 'c' }],
      initialObjects: [{ kind: 'Parent', metadata: { name: 'p', namespace: 'ns' }, spec: {} }],
      workload: [{ at: 500, type: 'delete', kind: 'Child', key: 'ns/p-child' }],
    });
    const { run: r } = await run(s, [c]);
    // t=0 initial list; t=1 the child's ADDED event (1 ms watch latency); t=501 the user's delete arrives → recreate; t=502 its ADDED
    expect(seen).toEqual(['0:ns/p', '1:ns/p', '501:ns/p', '502:ns/p']);
    expect(r.finalObjects.filter((o) => o.kind === 'Child')).toHaveLength(1);
  });

  it('watches: a custom mapping enqueues the keys it returns', async () => {
    const seen: string[] = [];
    const c = defineController({
      name: 'c',
      for: 'Thing',
      watches: [{ kind: 'Config', map: (o) => [`ns/${String(o.spec['target'])}`] }],
      resyncPeriodMs: 0,
      reconcile: (ctx) => void seen.push(`${ctx.clock.now()}:${ctx.key}`),
    });
    const s = scenario({ controllers: [{ name: 'c' }], workload: [{ at: 300, type: 'create', object: { kind: 'Config', metadata: { name: 'cfg', namespace: 'ns' }, spec: { target: 'x' } } }] });
    await run(s, [c]);
    expect(seen).toEqual(['301:ns/x']);
  });

  it('watches: an async, slow map delays this controller\'s later events (not the cache, not other controllers), serially', async () => {
    const seen: string[] = [];
    const config = (name: string, target: string) => ({ kind: 'Config', metadata: { name, namespace: 'ns' }, spec: { target } });
    const c = defineController({
      name: 'c',
      for: 'Thing',
      watches: [{ kind: 'Config', map: async (o, ctx) => (await ctx.clock.sleep(2000), [`ns/${String(o.spec['target'])}`]) }],
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        // the cache is updated at once: the second Config is visible while the first map still sleeps
        seen.push(`${ctx.clock.now()}:${ctx.key}:${(await ctx.client.list('Config')).length}`);
      },
    });
    const other = defineController({ name: 'other', for: 'Thing', resyncPeriodMs: 0, reconcile: (ctx) => void seen.push(`other ${ctx.clock.now()}:${ctx.key}`) });
    const s = scenario({
      controllers: [{ name: 'c' }, { name: 'other' }],
      workload: [
        { at: 300, type: 'create', object: config('a', 'x') },
        { at: 301, type: 'create', object: config('b', 'y') },
        { at: 400, type: 'create', object: obj('t') },
      ],
    });
    const { run: r } = await run(s, [c, other]);
    // a: 301 → 2301; b waits behind it: 2301 → 4301; the Thing's own event waits too
    expect(seen).toEqual(['other 401:ns/t', '2301:ns/x:2', '4301:ns/y:2', '4301:ns/t:2']);
    const ends = entries(r.trace, 'handler:end').map((e) => [e.t, e['key'], e['ms'], e['result']]);
    expect(ends).toEqual([[2301, 'ns/a', 2000, 'done'], [4301, 'ns/b', 2000, 'done']]);
    const notifies = entries(r.trace, 'informer:notify').filter((e) => e['controller'] === 'c').map((e) => [e.t, e['key'], e['eventAt']]);
    expect(notifies).toEqual([[2301, 'ns/x', 301], [4301, 'ns/y', 302], [4301, 'ns/t', 401]]);
  });

  it('resync re-enqueues every cached key periodically', async () => {
    const c = defineController({ name: 'c', for: 'Thing', resyncPeriodMs: 3000, reconcile: () => undefined });
    const { run: r } = await run(scenario({ controllers: [{ name: 'c' }], initialObjects: [obj('a')] }), [c]);
    expect(reconcileStarts(r.trace).filter((t) => t <= 10_000)).toEqual([0, 3000, 6000, 9000]);
  });

  it('GenerationChanged predicate ignores status-only updates of the primary', async () => {
    const mk = (predicates: 'GenerationChanged'[]) =>
      defineController({
        name: 'c',
        for: 'Thing',
        resyncPeriodMs: 0,
        predicates,
        async reconcile(ctx) {
          const t = await ctx.client.get('Thing', ctx.key);
          await ctx.client.updateStatus({ ...t, status: { seen: ctx.clock.now() } });
        },
      });
    const s = scenario({ controllers: [{ name: 'c' }], initialObjects: [obj('a')], options: { faultWindowMs: 100, settleMs: 100 } });
    const hot = await run(s, [mk([])]);
    const calm = await run(s, [mk(['GenerationChanged'])]);
    expect(reconcileStarts(calm.run.trace)).toHaveLength(1); // status-only MODIFIED events are filtered
    expect(reconcileStarts(hot.run.trace).length).toBeGreaterThan(50);
  });
});

describe('crash and restart', () => {
  it('a crash loses the instance; the replica restarts with fresh informers and reconciles again', async () => {
    let calls = 0;
    const c = defineController({ name: 'c', for: 'Thing', resyncPeriodMs: 0, reconcile: async (ctx) => { calls++; await ctx.client.tryGet('Thing', ctx.key); } });
    const { simulate } = await import('../../../src/harness/simulate.js');
    const { defineFault } = await import('../../../src/harness/fault.js');
    const fc = (await import('fast-check')).default;
    const crashFirstCall = defineFault({
      kind: 'test-crash',
      models: 'test',
      survivedBy: 'test',
      actsOn: 'call',
      arbitrary: () => fc.constant([]),
      install: ({ world }) => {
        let done = false;
        return world.seams.install({ onCall: (i) => (!done && i.phase === 'before' ? ((done = true), 'crash') : undefined) });
      },
    });
    const s = scenario({ controllers: [{ name: 'c' }], initialObjects: [obj('a')], faults: { events: [{ kind: 'test-crash' }], background: [] } });
    const { run: r } = await simulate(s, { controllers: [c], faults: [crashFirstCall], tailMs: 0 });
    expect(entries(r.trace, 'controller:crash')).toHaveLength(1);
    expect(entries(r.trace, 'controller:start').map((e) => e.t)).toEqual([0, 1000]);
    expect(reconcileStarts(r.trace)[1]).toBe(1000);
  });
});

describe('leader election', () => {
  it('with two replicas only the lease holder reconciles', async () => {
    const byReplica = new Map<number, number>();
    const c = defineController({ name: 'c', for: 'Thing', leaderElection: true, resyncPeriodMs: 1000, reconcile: (ctx) => void byReplica.set(ctx.replica, (byReplica.get(ctx.replica) ?? 0) + 1) });
    const { run: r } = await run(scenario({ controllers: [{ name: 'c', replicas: 2 }], initialObjects: [obj('a')] }), [c]);
    expect([...byReplica.keys()]).toEqual([0]);
    expect(r.finalObjects.some((o) => o.kind === 'Lease')).toBe(true);
  });

  it('declared without leader election, both replicas reconcile the same key', async () => {
    const replicas = new Set<number>();
    const c = defineController({ name: 'c', for: 'Thing', leaderElection: false, resyncPeriodMs: 0, reconcile: (ctx) => void replicas.add(ctx.replica) });
    await run(scenario({ controllers: [{ name: 'c', replicas: 2 }], initialObjects: [obj('a')] }), [c]);
    expect([...replicas].sort()).toEqual([0, 1]);
  });

  it('undeclared, leader election is on with more than one replica (as operators are deployed) and off with one', async () => {
    const replicas = new Set<number>();
    const c = defineController({ name: 'c', for: 'Thing', resyncPeriodMs: 0, reconcile: (ctx) => void replicas.add(ctx.replica) });
    const two = await run(scenario({ controllers: [{ name: 'c', replicas: 2 }], initialObjects: [obj('a')] }), [c]);
    expect([...replicas]).toEqual([0]);
    expect(two.run.finalObjects.some((o) => o.kind === 'Lease')).toBe(true);
    const one = await run(scenario({ controllers: [{ name: 'c' }], initialObjects: [obj('a')] }), [c]);
    expect(one.run.finalObjects.some((o) => o.kind === 'Lease')).toBe(false);
  });

  it('refuses a leaderElection that is not a boolean', () => {
    expect(() => defineController({ name: 'c', for: 'Thing', leaderElection: 'yes' as unknown as boolean, reconcile: () => undefined })).toThrow(/leaderElection must be true, false .* or left out/);
  });
});

describe('blocked reconciles', () => {
  it('a reconcile awaiting something outside the simulation is reported, and the run still ends', async () => {
    const c = defineController({ name: 'c', for: 'Thing', resyncPeriodMs: 0, reconcile: () => new Promise(() => {}) });
    const { run: r } = await run(scenario({ controllers: [{ name: 'c' }], initialObjects: [obj('a')], options: { faultWindowMs: 100, settleMs: 100 } }), [c]);
    expect(r.blocked).toHaveLength(1);
    expect(r.blocked[0]!.label).toContain('ns/a');
    expect(entries(r.trace, 'kernel:blocked')).toHaveLength(1);
  });
});

describe('runaway loops', () => {
  it('a polling loop that never advances virtual time is cut by the step budget instead of hanging', async () => {
    const c = defineController({ name: 'c', for: 'Thing', resyncPeriodMs: 0, async reconcile(ctx) { for (;;) await ctx.clock.sleep(0); } });
    const { simulate } = await import('../../../src/harness/simulate.js');
    const s = scenario({ controllers: [{ name: 'c' }], initialObjects: [obj('a')], options: { faultWindowMs: 100, settleMs: 100 } });
    const { run: r } = await simulate(s, { controllers: [c], tailMs: 0, maxSteps: 5000 });
    expect(r.timing.exhausted).toBe(true);
    expect(entries(r.trace, 'run:budget')).toHaveLength(1);
  });

  it('an unconditional timestamp write loops (the hot loop of SPEC §1) with virtual time advancing per watch latency', async () => {
    const c = defineController({
      name: 'c',
      for: 'Thing',
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        const t = await ctx.client.get('Thing', ctx.key);
        await ctx.client.updateStatus({ ...t, status: { lastSeen: ctx.clock.now() } });
      },
    });
    const { run: r } = await run(scenario({ controllers: [{ name: 'c' }], initialObjects: [obj('a')], options: { faultWindowMs: 1000, settleMs: 0 } }), [c]);
    expect(reconcileStarts(r.trace).length).toBeGreaterThan(400);
    expect(r.timing.exhausted).toBeUndefined();
  });

  it('a reconcile that leaves its queue empty schedules no pump: a write per reconcile costs two kernel events (delivery, pump)', async () => {
    const c = defineController({
      name: 'c',
      for: 'Thing',
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        const t = await ctx.client.get('Thing', ctx.key);
        await ctx.client.updateStatus({ ...t, status: { lastSeen: ctx.clock.now() } });
      },
    });
    const { run: r, world } = await run(scenario({ controllers: [{ name: 'c' }], initialObjects: [obj('a')], options: { faultWindowMs: 1000, settleMs: 0 } }), [c]);
    const reconciles = reconcileStarts(r.trace).length;
    expect(reconciles).toBeGreaterThan(400);
    // an idle pump after every reconcile made it three (a third of the hot loop's events did nothing)
    expect(world.kernel.steps).toBeLessThanOrEqual(2 * reconciles + 10);
  });
});

describe('event handlers: owners and map functions', () => {
  it('a namespaced child of a cluster-scoped owner enqueues the owner key without a namespace', async () => {
    const keys: string[] = [];
    const c = defineController({
      name: 'c',
      for: 'Tenant',
      owns: ['Role'],
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        keys.push(ctx.key);
        const t = await ctx.client.tryGet('Tenant', ctx.key);
        if (t && !(await ctx.client.tryGet('Role', { namespace: 'team', name: 'admin' }))) {
          await ctx.client.create({ kind: 'Role', metadata: { namespace: 'team', name: 'admin', ownerReferences: [{ kind: 'Tenant', name: t.metadata.name, uid: t.metadata.uid, controller: true }] }, rules: [] });
        }
      },
    });
    const s = scenario({ controllers: [{ name: 'c' }], workload: [{ at: 0, type: 'create', object: { kind: 'Tenant', metadata: { name: 'acme' }, spec: {} } }, { at: 1000, type: 'patch', kind: 'Role', key: 'team/admin', patch: { metadata: { labels: { x: '1' } } } }] });
    await run(s, [c]);
    expect(keys.length).toBeGreaterThan(2);
    expect(new Set(keys)).toEqual(new Set(['acme']));
  });

  it('a map function lists from the cache (ctx.list): a Namespace event enqueues every mirror', async () => {
    const seen: string[] = [];
    const c = defineController({
      name: 'c',
      for: 'Mirror',
      watches: [{ kind: 'Namespace', map: (_ns, ctx) => ctx.list('Mirror', { labelSelector: 'copy=yes' }).map((m) => `${m.metadata.namespace}/${m.metadata.name}`) }],
      resyncPeriodMs: 0,
      reconcile: (ctx) => void seen.push(`${ctx.clock.now()} ${ctx.key}`),
    });
    const mirror = (name: string, copy: string) => ({ kind: 'Mirror', metadata: { name, namespace: 'ns', labels: { copy } }, spec: {} });
    const s = scenario({ controllers: [{ name: 'c' }], initialObjects: [mirror('a', 'yes'), mirror('b', 'yes'), mirror('c', 'no')], workload: [{ at: 500, type: 'create', object: { kind: 'Namespace', metadata: { name: 'team' }, spec: {} } }] });
    await run(s, [c]);
    expect(seen.filter((x) => !x.startsWith('0 ')).sort()).toEqual(['501 ns/a', '501 ns/b']);
  });

  it('a cached list takes the field selector a live list takes (it returned every object before)', async () => {
    const counts: string[] = [];
    const c = defineController({
      name: 'c',
      for: 'Node',
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        const cached = await ctx.client.list('Pod', { fieldSelector: `spec.nodeName=${ctx.key}` });
        const live = await ctx.client.list('Pod', { fieldSelector: `spec.nodeName=${ctx.key}`, live: true });
        counts.push(`${ctx.key} ${cached.map((p) => p.metadata.name).join(',')} ${live.map((p) => p.metadata.name).join(',')}`);
      },
    });
    const pod = (name: string, nodeName: string) => ({ kind: 'Pod', metadata: { name, namespace: 'ns' }, spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }] } });
    const s = scenario({ controllers: [{ name: 'c' }], initialObjects: [pod('a', 'n1'), pod('b', 'n2'), pod('c', 'n1')], workload: [{ at: 500, type: 'create', object: { kind: 'Node', metadata: { name: 'n1' }, spec: {} } }] });
    await run(s, [c]);
    expect(counts).toEqual(['n1 a,c a,c']);
  });
});
