import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { crashRestart } from '../../faults/crash-restart.js';
import { staleSnapshot } from '../../faults/stale-snapshot.js';
import { defineController, isStoreError, type FaultPlan, type ReconcileContext, type RunRecord, type Scenario, type StoredObject } from '../../src/index.js';
import { fmtFault } from '../../src/report/explain.js';
import { RESYNC_MS } from '../../examples/fault-targets/resync.js';
import { faultLaws, injections, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: staleSnapshot,
  label: 'trusting a cached read vs deterministic names',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // cached read 1 is the second pass over web: one version back it has no status.child yet
  breaking: { events: [{ kind: 'stale-snapshot', nth: 1, params: { versionsBack: 1 } }], background: [] },
  gen: { controllers: ['x'], kinds: ['App'], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'stale-snapshot', nth: 0, params: { versionsBack: 1 } },
  options: { faults: [crashRestart] },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('stale-snapshot after a restart (a lagging replica serves the initial list)', () => {
  // the controller dies right after recording web's Pod (write 1): on its own, harmless
  const crash = { kind: 'crash-restart', nth: 1, params: { point: 'after-write' } };
  const lagging = { kind: 'stale-snapshot', nth: 0, params: { versionsBack: 2, list: true, catchUpMs: 2000 } };
  const plan = (...events: FaultPlan['events']): FaultPlan => ({ events, background: [] });

  it('the crash alone does not break the buggy reconciler: the fresh list shows status.child', async () => {
    expect(judgeSingleChild(await runCase(lawCase, singleChildBuggy, plan(crash)))).toBe(true);
  });

  it('a lagging list after the restart does: the restarted controller sees web without its child and creates another', async () => {
    const run = await runCase(lawCase, singleChildBuggy, plan(crash, lagging));
    expect(injections(run, 'stale-snapshot')).toBe(1);
    const list = run.trace.find((e) => e.type === 'informer:list' && e['lagging'] !== undefined);
    expect(list).toMatchObject({ kind: 'App', lagging: 2 });
    // every Pod ADDED arrives while the App stream still lags, so it creates again each time
    expect(judgeSingleChild(run)).toMatch(/App web controls ([2-9]|\d{2,}) Pods/);
  });

  it('the correct reconciler survives it', async () => {
    const run = await runCase(lawCase, singleChildCorrect, plan(crash, lagging));
    expect(injections(run, 'stale-snapshot')).toBe(1);
    expect(judgeSingleChild(run)).toBe(true);
  });

  it('lagging lists only happen after a restart', async () => {
    const run = await runCase(lawCase, singleChildBuggy, plan(lagging));
    expect(injections(run, 'stale-snapshot')).toBe(0);
  });
});

describe('ObjectStore.snapshotAt (what a lagging replica lists)', () => {
  it('rebuilds the objects of a kind as of a resourceVersion from the retained history', async () => {
    const { ObjectStore } = await import('../../src/store/store.js');
    const { VirtualClock } = await import('../../src/sim/clock.js');
    const store = new ObjectStore({ clock: new VirtualClock() });
    store.create('user', { kind: 'App', metadata: { name: 'a', namespace: 'default' }, spec: { v: 1 } }); // rv 1
    store.create('user', { kind: 'App', metadata: { name: 'b', namespace: 'default' }, spec: { v: 1 } }); // rv 2
    store.patch('user', 'App', { namespace: 'default', name: 'a' }, { spec: { v: 2 } }); // rv 3
    store.delete('user', 'App', { namespace: 'default', name: 'b' }); // rv 4
    store.create('user', { kind: 'App', metadata: { name: 'c', namespace: 'default' }, spec: { v: 1 } }); // rv 5
    const at = (rv: number) => store.snapshotAt('App', rv)!.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
    expect(at(5)).toEqual(['a@3', 'c@5']);
    expect(at(3)).toEqual(['a@3', 'b@2']);
    expect(at(2)).toEqual(['a@1', 'b@2']);
    expect(at(0)).toEqual([]);
    store.compact('App');
    expect(store.snapshotAt('App', 2)).toBeUndefined();
  });
});

// ---- "reads return a version t ms old" (SPEC §3): the time form of stale-snapshot ----

/**
 * The worker-pool fixture: a `Pool` wants `spec.size` `Worker`s. Both controllers count the pool's
 * workers in a cached list. The buggy one creates the shortfall with `generateName`, so a list
 * that lags its own creates makes it create again; a list a few versions back cannot show that
 * (it still holds every worker), a list t ms old can (workers created since are not in it).
 */
const POOL = 'Pool';
const WORKER = 'Worker';
interface PoolSpec {
  size: number;
}
type Pool = StoredObject<PoolSpec>;

function poolScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  const pool = (name: string, size: number) => ({ kind: POOL, metadata: { name, namespace: 'default' }, spec: { size } });
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [
      { at: 100, type: 'create', object: pool('batch', 3) },
      { at: 300, type: 'create', object: pool('web', 2) },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

async function cachedWorkers(ctx: ReconcileContext, pool: Pool): Promise<StoredObject[]> {
  const all = await ctx.client.list(WORKER, { namespace: 'default', labelSelector: `pool=${pool.metadata.name}` });
  return all.filter((w) => w.metadata.ownerReferences.some((r) => r.controller === true && r.uid === pool.metadata.uid));
}

function worker(pool: Pool, name: { name: string } | { generateName: string }) {
  return {
    kind: WORKER,
    metadata: { ...name, namespace: 'default', labels: { pool: pool.metadata.name }, ownerReferences: [{ kind: POOL, name: pool.metadata.name, uid: pool.metadata.uid, controller: true }] },
    spec: {},
  };
}

/**
 * Buggy: trusts the count in its cache and creates the shortfall under server-chosen names. (It
 * resyncs, so a read so old that it misses the Pool itself only delays it: the bug is the count.)
 */
const poolCounting = defineController({
  name: 'pool-counting',
  for: POOL,
  owns: [WORKER],
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const pool = await ctx.client.tryGet<PoolSpec>(POOL, ctx.key);
    if (!pool) return;
    const have = await cachedWorkers(ctx, pool as Pool);
    for (let i = have.length; i < pool.spec.size; i++) await ctx.client.create(worker(pool as Pool, { generateName: `${pool.metadata.name}-` }));
  },
});

/** Correct: names workers by index, so a create decided on a lagging list answers AlreadyExists. */
const poolNamed = defineController({
  name: 'pool-named',
  for: POOL,
  owns: [WORKER],
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const pool = await ctx.client.tryGet<PoolSpec>(POOL, ctx.key);
    if (!pool) return;
    const have = new Set((await cachedWorkers(ctx, pool as Pool)).map((w) => w.metadata.name));
    for (let i = 0; i < pool.spec.size; i++) {
      const name = `${pool.metadata.name}-${i}`;
      if (have.has(name)) continue;
      try {
        await ctx.client.create(worker(pool as Pool, { name }));
      } catch (err) {
        if (!isStoreError(err, 'AlreadyExists')) throw err;
      }
    }
  },
});

/** Healthy when every Pool controls exactly `spec.size` Workers. */
function judgePools(run: RunRecord): true | string {
  const pools = run.finalObjects.filter((o) => o.kind === POOL) as unknown as Pool[];
  if (pools.length === 0) return 'no Pools at the end';
  for (const p of pools) {
    const mine = run.finalObjects.filter((o) => o.kind === WORKER && o.metadata.ownerReferences.some((r) => r.controller === true && r.uid === p.metadata.uid));
    if (mine.length !== p.spec.size) return `Pool ${p.metadata.name} controls ${mine.length} Workers, expected ${p.spec.size}`;
  }
  return true;
}

// cached reads of the buggy controller: 0 get batch, 1 list (creates 3), then the Workers' events
// re-enqueue batch: 2 get, 3 list. 50 ms old, that list predates the Workers (cached at t=102).
const byTime = { kind: 'stale-snapshot', nth: 3, params: { ageMs: 50 } };
const timeCase: FaultLawCase = {
  fault: staleSnapshot,
  label: 'counting a t ms old list vs workers named by index',
  scenario: poolScenario,
  buggy: poolCounting,
  correct: poolNamed,
  judge: judgePools,
  breaking: { events: [byTime], background: [] },
  gen: { controllers: ['x'], kinds: [POOL], keys: ['default/batch', 'default/web'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'stale-snapshot', nth: 0, params: { versionsBack: 1 } },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(timeCase);

describe('stale-snapshot by time (reads return a version t ms old)', () => {
  const plan = (...events: FaultPlan['events']): FaultPlan => ({ events, background: [] });

  it('the versions form cannot show this bug: a list k versions back still holds every worker', async () => {
    for (const versionsBack of [1, 3, 8]) {
      const run = await runCase(timeCase, poolCounting, plan({ kind: 'stale-snapshot', nth: 3, params: { versionsBack } }));
      expect(injections(run, 'stale-snapshot')).toBe(1);
      expect(judgePools(run)).toBe(true);
    }
  });

  it('a list t ms old leaves out the workers created since, and the counting controller creates them again', async () => {
    const run = await runCase(timeCase, poolCounting, plan(byTime));
    expect(run.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ nth: 3, verb: 'list', objectKind: WORKER, ageMs: 50 });
    expect(judgePools(run)).toBe('Pool batch controls 6 Workers, expected 3');
  });

  it('a read younger than the change it would hide changes nothing', async () => {
    // the Workers reached the cache at t=101 and the list runs right after: 0 ms old is the cache itself
    const run = await runCase(timeCase, poolCounting, plan({ kind: 'stale-snapshot', nth: 3, params: { ageMs: 0 } }));
    expect(injections(run, 'stale-snapshot')).toBe(1);
    expect(judgePools(run)).toBe(true);
  });

  it('breaks the single-child reconciler through a get too: 1 ms old, the cache lacks its own status write', async () => {
    // web reaches the cache at t=101, its status write at t=102, where read 1 runs
    const stale = plan({ kind: 'stale-snapshot', nth: 1, params: { ageMs: 1 } });
    expect(judgeSingleChild(await runCase(lawCase, singleChildBuggy, stale))).toMatch(/App web controls 2 Pods/);
    expect(judgeSingleChild(await runCase(lawCase, singleChildCorrect, stale))).toBe(true);
    // 2 ms old reaches back before web was cached at all: not found, so nothing is created
    const older = await runCase(lawCase, singleChildBuggy, plan({ kind: 'stale-snapshot', nth: 1, params: { ageMs: 2 } }));
    expect(older.trace.find((e) => e.type === 'store:read' && e['staleMs'] === 2)).toBeDefined();
    expect(judgeSingleChild(older)).toBe(true);
  });

  it('the background form reads by time too', async () => {
    const run = await runCase(timeCase, poolCounting, { events: [], background: [{ kind: 'stale-snapshot', rate: 0.5, params: { ageMs: 2000 } }] });
    const fired = run.trace.filter((e) => e.type === 'fault:inject');
    expect(fired.length).toBeGreaterThan(0);
    for (const e of fired) expect(e).toMatchObject({ ageMs: 2000, background: true });
    expect(fired.some((e) => e['versionsBack'] !== undefined)).toBe(false);
  });

  it('records the age of a stale get in the trace, and explains it in words', async () => {
    const run = await runCase(lawCase, singleChildBuggy, plan({ kind: 'stale-snapshot', nth: 1, params: { ageMs: 1 } }));
    const fired = run.trace.find((e) => e.type === 'fault:inject')!;
    expect(fired).toMatchObject({ verb: 'get', key: 'default/web', ageMs: 1 });
    expect(fired['versionsBack']).toBeUndefined();
    expect(fmtFault(fired)).toBe('a get of default/web by controller:single-child-buggy/0 at t=0.102 s returned the object as the cache held it 1 ms earlier (stale-snapshot)');
  });

  it('the arbitrary generates both forms, ages of 1 ms to 5 s, and shrinks a time-based plan toward smaller t', () => {
    const events = fc.sample(staleSnapshot.arbitrary(timeCase.gen), { seed: 4, numRuns: 300 }).flat();
    const aged = events.filter((e) => e.params?.['ageMs'] !== undefined);
    expect(aged.length).toBeGreaterThan(events.length / 5);
    expect(events.filter((e) => e.params?.['versionsBack'] !== undefined && e.params['list'] === undefined).length).toBeGreaterThan(events.length / 5);
    for (const e of aged) {
      expect(Object.keys(e.params!)).toEqual(['ageMs']);
      expect(e.params!['ageMs']).toBeGreaterThanOrEqual(1);
      expect(e.params!['ageMs']).toBeLessThanOrEqual(5000);
    }
    // a "bug" that needs a read over 700 ms old shrinks to the youngest such read, at the first read
    const out = fc.check(
      fc.property(staleSnapshot.arbitrary(timeCase.gen), (evs) => !evs.some((e) => ((e.params?.['ageMs'] as number | undefined) ?? 0) > 700)),
      { seed: 3, numRuns: 500 },
    );
    expect(out.failed).toBe(true);
    expect(out.counterexample?.[0]).toEqual([{ kind: 'stale-snapshot', nth: 0, params: { ageMs: 701 } }]);
    const bg = fc.check(fc.property(staleSnapshot.backgroundArbitrary!(timeCase.gen), (b) => b.params?.['ageMs'] === undefined || (b.params['ageMs'] as number) <= 700), { seed: 3, numRuns: 500 });
    expect(bg.counterexample?.[0]).toEqual({ kind: 'stale-snapshot', rate: 0, params: { ageMs: 701 } });
  });

  it('fast-check finds the time form on its own and shrinks it to the youngest read that still breaks the counting controller', async () => {
    const out = await fc.check(
      fc.asyncProperty(staleSnapshot.arbitrary(timeCase.gen), async (events) => judgePools(await runCase(timeCase, poolCounting, { events, background: [] })) === true),
      { seed: 5, numRuns: 200 },
    );
    expect(out.failed).toBe(true);
    // the list right after creating batch's Workers (at t=101, cached at t=102), 1 ms old
    expect(out.counterexample?.[0]).toEqual([{ kind: 'stale-snapshot', nth: 3, params: { ageMs: 1 } }]);
  });
});

describe('Informer.getStale (what a t ms old read sees)', () => {
  async function setup(keepVersions = 4) {
    const { Kernel } = await import('../../src/sim/kernel.js');
    const { Trace } = await import('../../src/sim/trace.js');
    const { ObjectStore } = await import('../../src/store/store.js');
    const { Seams } = await import('../../src/runtime/seams.js');
    const { Informer } = await import('../../src/runtime/informer.js');
    const kernel = new Kernel();
    const store = new ObjectStore({ clock: kernel.clock });
    const env = { kernel, store, seams: new Seams(), trace: new Trace(), watchLatencyMs: 1, rewatchDelayMs: 100, traceReads: false };
    const inf = new Informer(env, { controller: 'c', replica: 0, kind: 'Thing', resyncPeriodMs: 0, keepVersions });
    const at = (t: number, fn: () => void) => kernel.at(t, fn);
    const v = (o: StoredObject | undefined) => (o === undefined ? undefined : (o.spec as { v: number }).v);
    return { kernel, store, inf, at, v };
  }
  const thing = { kind: 'Thing', metadata: { name: 'a' }, spec: { v: 1 } };

  it('returns the newest version delivered at least ageMs ago, and nothing before the cache held the object', async () => {
    const { kernel, store, inf, at, v } = await setup();
    inf.start(); // synced at t=0
    at(100, () => store.create('user', thing)); // cached at 101
    at(200, () => store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 2 } })); // cached at 201
    await kernel.run(300);
    expect(kernel.now()).toBe(300);
    expect(v(inf.getStale('a', { ageMs: 50 }))).toBe(2);
    expect(v(inf.getStale('a', { ageMs: 99 }))).toBe(2);
    expect(v(inf.getStale('a', { ageMs: 100 }))).toBe(1);
    expect(v(inf.getStale('a', { ageMs: 199 }))).toBe(1);
    expect(inf.getStale('a', { ageMs: 200 })).toBeUndefined();
    expect(v(inf.getStale('a', { ageMs: 0 }))).toBe(2);
    expect(v(inf.getStale('a', { versionsBack: 1 }))).toBe(1);
  });

  it('never reaches back before the first list: a controller reads only a synced cache', async () => {
    const { kernel, store, inf, at, v } = await setup();
    at(500, () => {
      store.create('user', thing);
      inf.start();
    });
    await kernel.run(600);
    expect(v(inf.getStale('a', { ageMs: 400 }))).toBe(1);
  });

  it('once older versions were dropped, the oldest kept one stands in for them', async () => {
    const { kernel, store, inf, at, v } = await setup(2);
    inf.start();
    at(100, () => store.create('user', thing));
    at(200, () => store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 2 } }));
    await kernel.run(250);
    expect(inf.getStale('a', { ageMs: 200 })).toBeUndefined();
    at(300, () => store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 3 } }));
    await kernel.run(400);
    expect(v(inf.getStale('a', { ageMs: 350 }))).toBe(2);
  });

  it('a deleted object stays deleted (its history goes with it)', async () => {
    const { kernel, store, inf, at } = await setup();
    inf.start();
    at(100, () => store.create('user', thing));
    at(200, () => store.delete('user', 'Thing', { name: 'a' }));
    await kernel.run(300);
    expect(inf.getStale('a', { ageMs: 150 })).toBeUndefined();
  });
});

