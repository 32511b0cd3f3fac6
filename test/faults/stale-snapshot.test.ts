import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { crashRestart } from '../../faults/crash-restart.js';
import { watchDisconnect } from '../../faults/watch-disconnect.js';
import { simulate } from '../../src/harness/simulate.js';
import { staleSnapshot } from '../../faults/stale-snapshot.js';
import { defineController, isStoreError, type FaultPlan, type ReconcileContext, type RunRecord, type Scenario, type StoredObject } from '../../src/index.js';
import { fmtFault } from '../../src/report/explain.js';
import { RESYNC_MS } from '../../examples/fault-targets/resync.js';
import { faultLaws, injections, runCase, type FaultLawCase } from '../helpers/fault-laws.js';
import { watchViolations } from '../helpers/realism.js';

const lawCase: FaultLawCase = {
  fault: staleSnapshot,
  label: 'trusting a cached read vs deterministic names',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // delivery 2 is web's MODIFIED with status.child: held back 5 ms, the pass the Pod's ADDED
  // starts (delivery 1) reads web from a cache that does not have the child yet
  breaking: { events: [{ kind: 'stale-snapshot', nth: 2, params: { lagMs: 5, forMs: 1000 } }], background: [] },
  gen: { controllers: ['x'], kinds: ['App'], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'stale-snapshot', nth: 0, params: { lagMs: 1, forMs: 1000 } },
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
    // the jump back in time is recorded as such, with where it came from and went to
    const travel = run.trace.find((e) => e.type === 'informer:time-travel')!;
    expect(travel).toMatchObject({ kind: 'App', reason: 'restart', toRv: (travel['fromRv'] as number) - 2 });
    // every Pod ADDED arrives while the App stream still lags, so it creates again each time
    expect(judgeSingleChild(run)).toMatch(/App web controls ([2-9]|\d{2,}) Pods/);
  });

  it('the correct reconciler survives it', async () => {
    const run = await runCase(lawCase, singleChildCorrect, plan(crash, lagging));
    expect(injections(run, 'stale-snapshot')).toBe(1);
    expect(judgeSingleChild(run)).toBe(true);
  });

  it('lagging lists only happen after a restart or a 410, never at the first list of a process', async () => {
    const run = await runCase(lawCase, singleChildBuggy, plan(lagging));
    expect(injections(run, 'stale-snapshot')).toBe(0);
    expect(run.trace.some((e) => e.type === 'informer:time-travel')).toBe(false);
  });

  it('a relist after 410 Gone may come from a lagging replica too, but never older than what the informer observed', async () => {
    // client-go relists with resourceVersion = the last one it observed ("not older than"); found
    // by hunting corpus:worker-pool: a relist 8 versions back hid the Pod the controller had
    // created and already seen, and a correct expectations-guarded controller created another
    const gone = { kind: 'watch-disconnect', nth: 2, params: { how: 'gone' } };
    const back = { kind: 'stale-snapshot', nth: 0, params: { versionsBack: 8, list: true, catchUpMs: 2000 } };
    const { faults: _f, ...rest } = lawCase.options ?? {};
    const { run } = await simulate(singleChildScenario(singleChildCorrect.name, plan(gone, back)), { tailMs: 0, ...rest, controllers: [singleChildCorrect], faults: [staleSnapshot, watchDisconnect] });
    const injected = run.trace.find((e) => e.type === 'fault:inject' && e['kind'] === 'stale-snapshot')!;
    expect(injected).toMatchObject({ list: true, reason: 'relist' });
    // the story tells the lag the list had, not the 8 the plan asked for
    const relist = run.trace.find((e) => e.type === 'informer:relist' && e['lagging'] !== undefined)!;
    expect(injected['versionsBack']).toBe(relist['lagging']);
    expect(relist['lagging']).toBeLessThan(8);
    expect(run.trace.some((e) => e.type === 'informer:time-travel')).toBe(false);
    expect(watchViolations(run.trace)).toEqual([]);
    expect(judgeSingleChild(run)).toBe(true);
  });
});

// ---- "a cache k events behind" (SPEC §3): the versions form of stale-snapshot ----

/**
 * The worker-pool fixture: a `Pool` wants `spec.size` `Worker`s. Both controllers count the pool's
 * workers in a cached list. The buggy one creates the shortfall with `generateName`, so a Worker
 * watch that lags its own creates makes it create again.
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

// deliveries: 0 batch ADDED, then its three Workers' ADDED (1, 2, 3). Two events behind, the first
// Worker reaches the cache when the third is created: the pass it starts counts one Worker of three
const byVersions = { kind: 'stale-snapshot', nth: 1, params: { versionsBehind: 2, forMs: 1000 } };
const versionsCase: FaultLawCase = {
  fault: staleSnapshot,
  label: 'counting a list k events behind vs workers named by index',
  scenario: poolScenario,
  buggy: poolCounting,
  correct: poolNamed,
  judge: judgePools,
  breaking: { events: [byVersions], background: [] },
  gen: { controllers: ['x'], kinds: [POOL], keys: ['default/batch', 'default/web'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'stale-snapshot', nth: 0, params: { lagMs: 1, forMs: 1000 } },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(versionsCase);

describe('stale-snapshot: a cache that lags, and only moves forward', () => {
  const plan = (...events: FaultPlan['events']): FaultPlan => ({ events, background: [] });

  it('k events behind: the counting controller counts one Worker of three and creates two more', async () => {
    const run = await runCase(versionsCase, poolCounting, plan(byVersions));
    expect(run.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ nth: 1, objectKind: WORKER, versionsBehind: 2, forMs: 1000 });
    expect(judgePools(run)).toMatch(/Pool batch controls [4-9] Workers, expected 3/);
  });

  it('the cache never goes back: every informer sees each object in resourceVersion order', async () => {
    for (const p of [plan(byVersions), plan({ kind: 'stale-snapshot', nth: 0, params: { lagMs: 700, forMs: 5000, whole: true } }), { events: [], background: [{ kind: 'stale-snapshot', rate: 0.5, params: { lagMs: 2000 } }] }]) {
      const run = await runCase(versionsCase, poolNamed, p);
      const last = new Map<string, number>();
      for (const e of run.trace) {
        if (e.type !== 'watch:event' || e['decision'] !== 'deliver') continue;
        const k = `${String(e['controller'])}/${String(e['kind'])}/${String(e['key'])}`;
        expect(e['rv'] as number).toBeGreaterThan(last.get(k) ?? 0);
        last.set(k, e['rv'] as number);
      }
      expect(judgePools(run)).toBe(true);
    }
  });

  it('with whole, every watch of the controller lags; a lag of 0 changes nothing', async () => {
    const whole = await runCase(versionsCase, poolCounting, plan({ kind: 'stale-snapshot', nth: 0, params: { lagMs: 500, forMs: 5000, whole: true } }));
    const delayed = whole.trace.filter((e) => e.type === 'watch:event' && e['decision'] === 'delay').map((e) => e['kind']);
    expect(new Set(delayed)).toEqual(new Set([POOL, WORKER]));
    const none = await runCase(versionsCase, poolCounting, plan({ kind: 'stale-snapshot', nth: 0, params: { lagMs: 0, forMs: 5000 } }));
    expect(injections(none, 'stale-snapshot')).toBe(0);
  });

  it('the background form lags a watch for 2 s now and then', async () => {
    const run = await runCase(versionsCase, poolCounting, { events: [], background: [{ kind: 'stale-snapshot', rate: 0.5, params: { lagMs: 2000 } }] });
    const fired = run.trace.filter((e) => e.type === 'fault:inject');
    expect(fired.length).toBeGreaterThan(0);
    for (const e of fired) expect(e).toMatchObject({ lagMs: 2000, forMs: 2000, background: true });
  });

  it('explains a lag in words', async () => {
    const run = await runCase(lawCase, singleChildBuggy, lawCase.breaking);
    const fired = run.trace.find((e) => e.type === 'fault:inject')!;
    expect(fmtFault(fired)).toBe(`from t=0.101 s the App watch of ${singleChildBuggy.name} lagged 5 ms behind the API server for 1000 ms (stale-snapshot)`);
  });

  it('the arbitrary generates lags by time and by versions and lagging lists, and shrinks toward a 1 ms lag of one watch', () => {
    const events = fc.sample(staleSnapshot.arbitrary(versionsCase.gen), { seed: 4, numRuns: 300 }).flat();
    expect(events.filter((e) => e.params?.['lagMs'] !== undefined).length).toBeGreaterThan(events.length / 5);
    expect(events.filter((e) => e.params?.['versionsBehind'] !== undefined).length).toBeGreaterThan(events.length / 5);
    expect(events.filter((e) => e.params?.['list'] === true).length).toBeGreaterThan(events.length / 5);
    const out = fc.check(
      fc.property(staleSnapshot.arbitrary(versionsCase.gen), (evs) => !evs.some((e) => ((e.params?.['lagMs'] as number | undefined) ?? 0) > 700)),
      { seed: 3, numRuns: 500 },
    );
    expect(out.failed).toBe(true);
    expect(out.counterexample?.[0]).toEqual([{ kind: 'stale-snapshot', nth: 0, params: { lagMs: 701, forMs: 1000 } }]);
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
    // compaction makes old watches 410, but a lagging replica still has its older state
    store.compact('App');
    expect(at(2)).toEqual(['a@1', 'b@2']);
  });

  it('cannot reach back past the history the store retains', async () => {
    const { ObjectStore } = await import('../../src/store/store.js');
    const { VirtualClock } = await import('../../src/sim/clock.js');
    const store = new ObjectStore({ clock: new VirtualClock(), historyLimit: 2 });
    for (let v = 1; v <= 4; v++) store.create('user', { kind: 'App', metadata: { name: `a${v}`, namespace: 'default' }, spec: {} });
    expect(store.snapshotAt('App', 3)!.length).toBe(3);
    expect(store.snapshotAt('App', 1)).toBeUndefined();
  });
});

