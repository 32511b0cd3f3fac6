import { defineController, fromVirtualTimestamp, isStoreError, virtualTimestamp, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { sameEndState, type SameEndStateOptions } from '../../properties/same-end-state.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';

/**
 * A CI runner pool (actions-runner-controller's shape): a `RunnerPool` keeps `spec.replicas`
 * `Runner`s named by ordinal (`runners-0`, …), and a build scheduler hands each `BuildJob` of the
 * pool to an idle runner (the lowest ordinal it finds idle), marks it busy (`status.job`), runs
 * the build for its `spec.durationMs` and frees the runner. On scale-down the pool deletes idle
 * runners, the highest ordinal first, never a busy one: which runners a smaller pool keeps follows
 * which ones happened to hold builds when it shrank, which is timing (a build whose ADDED event came
 * late took runners-1, not runners-0). The runners are alike by design, so same-end-state compares
 * them by content (`interchangeable`): the count, image and idleness are the state, not the names.
 *
 * Races are settled by the API server, not by the cache: a claim is a status patch with the
 * runner's resourceVersion, and a scale-down deletion carries the runner's uid and resourceVersion
 * from a live list, so a runner claimed in between answers 409 to one of them and the loser looks
 * again. A claim made before a crash is found again (a runner already naming the build). A build
 * deleted by the user while it runs frees its runner (the pool watches builds); a build whose
 * runner vanished under it (the pool deleted, its runners collected) ends `Lost`.
 *
 * Its buggy twin's scheduler claims the runner its informer cache shows idle, without a
 * precondition: a cache that has not yet seen a claim (the runner's event late or lost) hands a
 * busy runner to a second build: two builds run on one runner (safety-invariants), and the first,
 * finding its runner naming another, ends Lost. (same-end-state alone rarely tells: the fault-free
 * run under other event timings, a benign variation, loses a build the same way, so the field is
 * masked as timing; the invariant is what says it.)
 */
export const RUNNER_POOL = 'RunnerPool';
export const RUNNER = 'Runner';
export const BUILD = 'BuildJob';
const POOL_LABEL = 'ci.example.com/pool';

interface PoolSpec {
  replicas: number;
  image: string;
}
interface PoolStatus {
  runners?: number;
  observedGeneration?: number;
}
interface BuildSpec {
  pool: string;
  durationMs: number;
}
interface BuildStatus {
  phase?: 'Running' | 'Succeeded' | 'Lost';
  runner?: string;
  /** Which runner by uid: a runner deleted and made again under its name (its pool recreated) is another one. */
  runnerUid?: string;
  startedAt?: string;
}

const ordinalOf = (r: StoredObject) => Number(/-(\d+)$/.exec(r.metadata.name)?.[1] ?? -1);
/** The build a runner holds (`status.job`), if any. */
const jobOf = (r: StoredObject): string | undefined => (typeof r.status['job'] === 'string' ? r.status['job'] : undefined);
const busy = (r: StoredObject) => jobOf(r) !== undefined;
const alive = (r: { metadata: { deletionTimestamp?: string | undefined } }) => r.metadata.deletionTimestamp === undefined;
const finished = (b: { status: BuildStatus }) => b.status.phase === 'Succeeded' || b.status.phase === 'Lost';

function definePool() {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const pool = await ctx.client.tryGet<PoolSpec, PoolStatus>(RUNNER_POOL, ctx.key, { live: true });
    if (!pool || !alive(pool)) return;
    const ns = pool.metadata.namespace;
    const name = pool.metadata.name;
    const mine = { ...(ns !== undefined ? { namespace: ns } : {}), labelSelector: { matchLabels: { [POOL_LABEL]: name } } };
    const runners = (await ctx.client.list(RUNNER, { ...mine, live: true })).filter(alive);

    // a runner whose build the user deleted mid-run is free again
    for (const r of runners.filter(busy)) {
      const b = await ctx.client.tryGet(BUILD, { namespace: ns, name: jobOf(r)! }, { live: true });
      if (!b) await ctx.client.patchStatus(RUNNER, { namespace: ns, name: r.metadata.name }, { status: { job: null } }, { resourceVersion: r.metadata.resourceVersion });
    }

    // scale up: the lowest missing ordinals
    const names = new Set(runners.map((r) => r.metadata.name));
    let count = runners.length;
    for (let i = 0; count < pool.spec.replicas; i++) {
      const runner = `${name}-${i}`;
      if (names.has(runner)) continue;
      count++;
      try {
        await ctx.client.create({ kind: RUNNER, metadata: { name: runner, namespace: ns, labels: { [POOL_LABEL]: name }, ownerReferences: [{ kind: RUNNER_POOL, name, uid: pool.metadata.uid, controller: true }] }, spec: { image: pool.spec.image } });
      } catch (err) {
        if (!isStoreError(err, 'AlreadyExists')) throw err;
      }
    }

    // a new image reaches each runner while it is idle
    for (const r of runners) if (!busy(r) && r.spec['image'] !== pool.spec.image) await ctx.client.patch(RUNNER, { namespace: ns, name: r.metadata.name }, { spec: { image: pool.spec.image } }, { resourceVersion: r.metadata.resourceVersion });

    // scale down: idle runners, the highest ordinal first, never a busy one
    const idle = runners.filter((r) => !busy(r)).sort((a, b) => ordinalOf(b) - ordinalOf(a));
    let removed = 0;
    for (const r of idle.slice(0, Math.max(0, runners.length - pool.spec.replicas))) {
      try {
        await ctx.client.delete(RUNNER, { namespace: ns, name: r.metadata.name }, { preconditions: { uid: r.metadata.uid, resourceVersion: r.metadata.resourceVersion } });
        removed++;
      } catch (err) {
        if (!isStoreError(err, 'NotFound')) throw err; // a 409: claimed meanwhile, look again
      }
    }

    const status: PoolStatus = { runners: Math.max(count, runners.length) - removed, observedGeneration: pool.metadata.generation };
    if (pool.status.runners !== status.runners || pool.status.observedGeneration !== status.observedGeneration) await ctx.client.patchStatus(RUNNER_POOL, ctx.key, { status: { ...status } }, { resourceVersion: pool.metadata.resourceVersion });
    return undefined;
  }
  return defineController({
    name: 'runner-pool',
    for: RUNNER_POOL,
    owns: [RUNNER],
    // a build deleted mid-run frees its runner
    watches: [{ kind: BUILD, map: (b) => [`${b.metadata.namespace}/${String(b.spec['pool'])}`] }],
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

const reconcileBuild = (mistake: 'none' | 'cached-claim') => async (ctx: ReconcileContext): Promise<ReconcileResult> => {
  const b = await ctx.client.tryGet<BuildSpec, BuildStatus>(BUILD, ctx.key, { live: true });
  if (!b || !alive(b)) return;
  const ns = b.metadata.namespace;
  const runnerRef = (n: string) => ({ namespace: ns, name: n });
  const release = async (r: StoredObject) => {
    await ctx.client.patchStatus(RUNNER, runnerRef(r.metadata.name), { status: { job: null } }, { resourceVersion: r.metadata.resourceVersion });
  };
  const now = ctx.clock.now();

  if (finished(b)) {
    // a runner still naming a finished build (a crash between the two writes) is freed
    const r = b.status.runner !== undefined ? await ctx.client.tryGet(RUNNER, runnerRef(b.status.runner), { live: true }) : undefined;
    if (r && jobOf(r) === b.metadata.name) await release(r);
    return undefined;
  }
  if (b.status.phase === 'Running' && b.status.runner !== undefined) {
    const r = await ctx.client.tryGet(RUNNER, runnerRef(b.status.runner), { live: true });
    if (!r || !alive(r) || jobOf(r) !== b.metadata.name || r.metadata.uid !== b.status.runnerUid) {
      await ctx.client.patchStatus(BUILD, ctx.key, { status: { phase: 'Lost' } }, { resourceVersion: b.metadata.resourceVersion });
      return undefined;
    }
    const left = b.status.startedAt !== undefined ? b.spec.durationMs - (now - fromVirtualTimestamp(b.status.startedAt)) : 0;
    if (left > 0) return { requeueAfter: left };
    await ctx.client.patchStatus(BUILD, ctx.key, { status: { phase: 'Succeeded' } }, { resourceVersion: b.metadata.resourceVersion });
    await release(r);
    return undefined;
  }

  // pending: a runner that already names it (claimed before a crash), else the lowest idle one
  // BUG (cached-claim): the cache's idea of who is idle, claimed without a precondition
  const runners = (await ctx.client.list(RUNNER, { ...(ns !== undefined ? { namespace: ns } : {}), labelSelector: { matchLabels: { [POOL_LABEL]: b.spec.pool } }, live: mistake === 'none' })).filter(alive);
  let r = runners.find((x) => jobOf(x) === b.metadata.name);
  if (!r) {
    const idle = runners.filter((x) => !busy(x)).sort((x, y) => ordinalOf(x) - ordinalOf(y))[0];
    if (!idle) return undefined; // a runner freed or made brings it back
    r = await ctx.client.patchStatus(RUNNER, runnerRef(idle.metadata.name), { status: { job: b.metadata.name } }, mistake === 'none' ? { resourceVersion: idle.metadata.resourceVersion } : {});
  }
  await ctx.client.patchStatus(BUILD, ctx.key, { status: { phase: 'Running', runner: r.metadata.name, runnerUid: r.metadata.uid, startedAt: virtualTimestamp(now) } }, { resourceVersion: b.metadata.resourceVersion });
  return { requeueAfter: b.spec.durationMs };
};

/** Builds of the pool a runner belongs to that wait for one, and the build it holds. */
function buildsFor(r: StoredObject, ctx: { list(kind: string, options?: { namespace?: string }): StoredObject[] }): string[] {
  const ns = r.metadata.namespace ?? '';
  const pool = r.metadata.labels[POOL_LABEL];
  const keys = ctx.list(BUILD, { namespace: ns }).filter((b) => b.spec['pool'] === pool && b.status['phase'] === undefined).map((b) => `${ns}/${b.metadata.name}`);
  const job = r.status['job'];
  if (typeof job === 'string') keys.push(`${ns}/${job}`);
  return keys;
}

const defineScheduler = (mistake: 'none' | 'cached-claim') => defineController({ name: 'build-scheduler', for: BUILD, watches: [{ kind: RUNNER, map: buildsFor }], resyncPeriodMs: RESYNC_MS, reconcile: reconcileBuild(mistake) });
export const buildSchedulerController = defineScheduler('none');
export const runnerPoolController = definePool();

/** Settled: every pool has its runners (or more, all busy), no build waits while its pool has an idle runner, no runner holds a build that is gone or done. */
export function poolsSettled(view: WorldView): true | string {
  const runners = view.list(RUNNER).filter(alive);
  const builds = view.list(BUILD) as unknown as StoredObject<BuildSpec, BuildStatus>[];
  for (const pool of view.list(RUNNER_POOL) as unknown as StoredObject<PoolSpec, PoolStatus>[]) {
    if (!alive(pool)) continue;
    const mine = runners.filter((r) => r.metadata.labels[POOL_LABEL] === pool.metadata.name && r.metadata.namespace === pool.metadata.namespace);
    if (mine.length < pool.spec.replicas) return `pool ${pool.metadata.name} has ${mine.length} runners, wants ${pool.spec.replicas}`;
    if (mine.length > pool.spec.replicas && mine.some((r) => !busy(r))) return `pool ${pool.metadata.name} has ${mine.length} runners, wants ${pool.spec.replicas}, and some are idle`;
    if (pool.status.observedGeneration !== pool.metadata.generation) return `pool ${pool.metadata.name} has not observed generation ${pool.metadata.generation}`;
    const waiting = builds.find((b) => alive(b) && b.status.phase === undefined && b.spec.pool === pool.metadata.name && b.metadata.namespace === pool.metadata.namespace);
    if (waiting && mine.some((r) => !busy(r))) return `build ${waiting.metadata.name} waits while pool ${pool.metadata.name} has an idle runner`;
  }
  for (const r of runners.filter(busy)) {
    const b = builds.find((x) => x.metadata.name === jobOf(r) && x.metadata.namespace === r.metadata.namespace);
    if (!b || finished(b)) return `runner ${r.metadata.name} still holds build ${String(jobOf(r))}, which is ${b ? b.status.phase : 'gone'}`;
  }
  return true;
}

/** A runner runs one build at a time: no two Running builds name the same runner (by uid: one deleted and made again under its name is another). */
export const oneBuildPerRunner = safetyInvariants({
  invariants: {
    'no two running builds share a runner': (view) => {
      const seen = new Map<string, string>();
      for (const b of view.list(BUILD)) {
        if (b.status['phase'] !== 'Running' || typeof b.status['runnerUid'] !== 'string') continue;
        const at = b.status['runnerUid'];
        const other = seen.get(at);
        if (other !== undefined) return `builds ${other} and ${b.metadata.name} both run on ${b.status['runner']}`;
        seen.set(at, b.metadata.name);
      }
      return true;
    },
  },
});

const pool = (replicas: number, image = 'runner:1') => ({ replicas, image });
// builds of seconds, as the world's other work: a build a lost event delayed until the next resync
// (10 s), of 15 s and queued behind another of 15 s on one runner, was still running when the
// settle phase ended (guided hunt, stop 38), a state in flight, not an end
const build = (durationMs: number) => ({ pool: 'runners', durationMs });

export const runnerPool: FalsePositiveCase = {
  name: 'runner-pool',
  description: 'a CI runner pool: keeps spec.replicas runners named by ordinal, a scheduler hands builds to the lowest idle runner and frees it when the build is done, scale-down deletes idle runners only (live list, uid + resourceVersion preconditions)',
  controllers: [runnerPoolController, buildSchedulerController],
  options: {
    objects: [
      // scaled down while builds hold some runners: which ones stay follows timing
      { kind: RUNNER_POOL, names: ['runners'], spec: [pool(3), pool(1), pool(2, 'runner:2')] },
      { kind: BUILD, name: 'build', spec: [build(4000), build(8000), build(2000)] },
    ],
    maxObjects: 4,
  },
  properties: [
    oneBuildPerRunner,
    convergence({ converged: poolsSettled }),
    // which runners a shrunk pool keeps follows which ones held builds: they compare by content
    ...endStateProperties().map((p) => (p.name === 'same-end-state' ? sameEndState({ ...(p.options as Partial<SameEndStateOptions>), interchangeable: [RUNNER] }) : p)),
  ],
  buggy: {
    controllers: [runnerPoolController, defineScheduler('cached-claim')],
    caughtBy: ['safety-invariants', 'same-end-state'],
    // two builds at once
    world: { maxObjects: 3, maxActions: 3 },
    why: 'its scheduler claims the runner its informer cache shows idle, without a precondition: a cache that has not yet seen a claim (the event late or lost) hands a busy runner to a second build, and two builds run on one runner',
  },
};
