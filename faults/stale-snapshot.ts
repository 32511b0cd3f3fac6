import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { FaultEvent } from '../src/harness/fault-plan.js';
import type { WatchDecision, WatchEventInfo } from '../src/runtime/seams.js';
import type { JsonObject } from '../src/store/object.js';
import { bool, byNth, eventAt, eventsOf, int, rate, streamOf, strongest, watchDetail } from './_internals/plan.js';

/**
 * Stale snapshot: a controller's cache lags behind the API server, the way a real informer's
 * does (a slow watch, an overloaded API server replica, a controller that is busy): one watch
 * (or, with `whole`, every watch of the controller) delivers its events `lagMs` late, or holds
 * them so that the cache stays `versionsBehind` events behind, for `forMs`. The cache only ever
 * moves forward: cached reads show the world as it was, including before the controller's own
 * latest writes. And after a restart or a 410, the (re)list may come from an API server replica
 * `versionsBack` resourceVersions behind, whose watch catches up only `catchUpMs` later. After a
 * restart (a new process's first list, `resourceVersion=0`) that is the one point where a
 * controller's view jumps back in time, recorded as `informer:time-travel` (the Sieve / KEP-5647
 * case); a relist after a 410 asks for data not older than the last resourceVersion the informer
 * observed (client-go's reflector), so it may miss what came since, never what it already saw. Over HTTP (`kubeController` processes) only a list an API server may
 * answer from its watch cache lags (`resourceVersion=0`, or `=N`: never older than N); a quorum
 * list (no resourceVersion) is always current, and the client's watch from the old
 * resourceVersion catches up at once (`catchUpMs` is the native informer's). A correct reconciler survives: its writes carry the resourceVersion it
 * read, so decisions on stale state get 409 and are retried, and its creates use deterministic
 * names, so a "missing" child that exists answers AlreadyExists. One that trusts its cache ("no
 * child recorded ⇒ create one", "3 pods listed ⇒ create 2 more") duplicates.
 *
 * Events: `{ kind: 'stale-snapshot', nth, params: { lagMs, forMs, whole } }` or
 * `{ …, params: { versionsBehind, forMs, whole } }` starts a lag at the nth watch delivery of the
 * run (0-based, all informers; `target` limits it to one controller); `{ …, params: { list: true,
 * versionsBack, catchUpMs } }` makes the nth (re)list after a restart or a 410 lagging. Generated
 * plans shrink toward a 1 ms lag of one watch for 1 s. Background: `{ kind: 'stale-snapshot', rate,
 * params: { lagMs } }`: each delivery starts a lag of its watch for 2 s with that probability.
 * @public
 */
export const staleSnapshot = defineFault({
  kind: 'stale-snapshot',
  models: 'a cache that lags behind the API server (k events or t ms), and a restarted or relisting controller listing from a lagging API server replica',
  survivedBy: 'optimistic concurrency (stale writes get 409), deterministic names, live reads where it matters',
  actsOn: 'watch',
  arbitrary: (ctx) =>
    eventsOf(
      fc.record({
        kind: fc.constant('stale-snapshot'),
        nth: fc.nat({ max: ctx.maxNth }),
        params: fc
          .record({
            how: fc.constantFrom<'time' | 'versions' | 'list'>('time', 'versions', 'list'),
            lagMs: fc.integer({ min: 1, max: 5000 }),
            versionsBehind: fc.integer({ min: 1, max: 8 }),
            forMs: fc.integer({ min: 1000, max: Math.max(1000, ctx.faultWindowMs) }),
            whole: fc.boolean(),
            versionsBack: fc.integer({ min: 1, max: 8 }),
            catchUpMs: fc.integer({ min: 0, max: 5000 }),
          })
          .map(({ how, lagMs, versionsBehind, forMs, whole, versionsBack, catchUpMs }): JsonObject =>
            how === 'list' ? { list: true, versionsBack, catchUpMs } : { ...(how === 'time' ? { lagMs } : { versionsBehind }), forMs, ...(whole ? { whole } : {}) },
          ),
      }),
    ),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('stale-snapshot'), rate: rate(), params: fc.record({ lagMs: fc.integer({ min: 1, max: 5000 }) }) }),
  install({ world, rng, fired }, plan) {
    const watchEvents = byNth(plan.events.filter((e) => !bool(e.params, 'list', false)));
    const lists = new Map<number, FaultEvent[]>();
    for (const e of plan.events) if (e.nth !== undefined && bool(e.params, 'list', false)) lists.set(e.nth, [...(lists.get(e.nth) ?? []), e]);
    const bg = strongest(plan.background);
    /** Lags in force, by stream (`controller/replica/kind`) or whole replica (`controller/replica/*`). */
    const lags = new Map<string, { until: number; decision: WatchDecision }>();
    const replicaOf = (i: { controller: string; replica: number }) => `${i.controller}/${i.replica}/*`;
    const lagOf = (i: WatchEventInfo) => {
      for (const k of [streamOf(i), replicaOf(i)]) {
        const l = lags.get(k);
        if (l && l.until > i.t) return l;
      }
      return undefined;
    };
    let relists = 0;
    return world.seams.install({
      onWatchEvent(i) {
        const e = eventAt(watchEvents, i.seq, i.controller);
        const background = e === undefined && bg !== undefined && !lagOf(i) && rng.chance(bg.rate);
        if (e || background) {
          const params = (e ?? bg)?.params;
          const forMs = background ? 2000 : int(params, 'forMs', 5000, 1, 3_600_000);
          const until = i.t + forMs;
          const whole = !background && bool(params, 'whole', false);
          const byVersions = !background && typeof params?.['versionsBehind'] === 'number';
          const lagMs = int(params, 'lagMs', 1000, 0, 3_600_000);
          const versions = int(params, 'versionsBehind', 1, 0, 1_000_000);
          if (byVersions ? versions > 0 : lagMs > 0) {
            lags.set(whole ? replicaOf(i) : streamOf(i), { until, decision: byVersions ? { type: 'lag', versions, untilMs: until } : { type: 'delay', ms: lagMs } });
            fired({ ...watchDetail(i), ...(byVersions ? { versionsBehind: versions } : { lagMs }), forMs, ...(whole ? { whole } : {}), ...(background ? { background: true } : {}) });
          }
        }
        return lagOf(i)?.decision;
      },
      onInformerList(i) {
        // after a restart (the process's memory is gone, the list is all it knows) or a 410
        const restarted = i.reason === 'list' && world.managers.some((m) => m.def.name === i.controller && m.crashes > 0);
        if (!restarted && i.reason !== 'relist') return undefined;
        const n = relists++;
        const e = lists.get(n)?.find((x) => x.target === undefined || x.target === i.controller);
        if (!e) return undefined;
        // an answer is never older than the client asked for: a list that cannot lag is no injection
        const versionsBack = Math.min(int(e.params, 'versionsBack', 1, 1, 1_000_000), i.rv - i.notOlderThan);
        if (versionsBack <= 0) return undefined;
        const catchUpMs = int(e.params, 'catchUpMs', 0, 0, 3_600_000);
        fired({ nth: n, controller: i.controller, replica: i.replica, objectKind: i.kind, list: true, reason: restarted ? 'restart' : 'relist', versionsBack, catchUpMs });
        return { type: 'lagging', versionsBack, catchUpMs };
      },
    });
  },
});
