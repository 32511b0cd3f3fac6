import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { FaultEvent } from '../src/harness/fault-plan.js';
import type { ReadDecision } from '../src/runtime/seams.js';
import type { JsonObject } from '../src/store/object.js';
import { bool, eventsOf, int, rate, strongest } from './_internals/plan.js';

/**
 * Stale snapshot: a cached read returns the object as it was `versionsBack` versions ago, or as
 * the cache held it `ageMs` of virtual time ago (an informer that lags behind its watch: the
 * newest version delivered at least that long ago; an object the cache did not hold yet is not
 * found, so a list leaves out children created since), or, after a controller restart, the
 * informer's initial list comes from an API server replica `versionsBack` resourceVersions behind
 * whose watch catches up only `catchUpMs` later. A correct reconciler survives:
 * its writes carry the resourceVersion it read, so decisions on stale state get 409 and are
 * retried, and its creates use deterministic names, so a "missing" child that exists answers
 * AlreadyExists. One that trusts a stale read ("no child recorded ⇒ create one", "3 pods listed
 * ⇒ create 2 more") duplicates.
 *
 * Events: `{ kind: 'stale-snapshot', nth, params: { versionsBack } }` or `{ …, params: { ageMs } }`
 * makes the nth cached read of the run (get or list, 0-based) stale by versions or by time;
 * `{ …, params: { versionsBack, list: true, catchUpMs } }` makes the nth informer list after a
 * restart lagging. `target` limits each to one controller. Generated plans shrink toward one
 * version back, and time-based reads toward smaller `ageMs` (1 ms to 5 s).
 * Background: `{ kind: 'stale-snapshot', rate, params: { versionsBack } }` (or `{ ageMs }`) for reads.
 * @public
 */
export const staleSnapshot = defineFault({
  kind: 'stale-snapshot',
  models: 'cached reads that lag behind the API server (k versions or t ms old), and a restarted controller listing from a lagging replica',
  survivedBy: 'optimistic concurrency (stale writes get 409), deterministic names, live reads where it matters',
  actsOn: 'read',
  arbitrary: (ctx) =>
    eventsOf(
      fc.record({
        kind: fc.constant('stale-snapshot'),
        nth: fc.nat({ max: ctx.maxNth }),
        params: fc
          .record({ versionsBack: fc.integer({ min: 1, max: 8 }), byAge: fc.boolean(), ageMs: ageMs(), list: fc.boolean(), catchUpMs: fc.integer({ min: 0, max: 5000 }) })
          .map(({ versionsBack, byAge, ageMs, list, catchUpMs }): JsonObject => (list ? { versionsBack, list, catchUpMs } : byAge ? { ageMs } : { versionsBack })),
      }),
    ),
  backgroundArbitrary: () =>
    fc.record({
      kind: fc.constant('stale-snapshot'),
      rate: rate(),
      params: fc
        .record({ versionsBack: fc.integer({ min: 1, max: 5 }), byAge: fc.boolean(), ageMs: ageMs() })
        .map(({ versionsBack, byAge, ageMs }): JsonObject => (byAge ? { ageMs } : { versionsBack })),
    }),
  install({ world, rng, fired }, plan) {
    const reads = new Map<number, FaultEvent[]>();
    const lists = new Map<number, FaultEvent[]>();
    for (const e of plan.events) {
      if (e.nth === undefined) continue;
      const into = bool(e.params, 'list', false) ? lists : reads;
      into.set(e.nth, [...(into.get(e.nth) ?? []), e]);
    }
    const bg = strongest(plan.background);
    const pick = (m: Map<number, FaultEvent[]>, n: number, controller: string) =>
      m.get(n)?.find((e) => e.target === undefined || e.target === controller || controller.startsWith(`controller:${e.target}/`));
    let cachedReads = 0;
    let restartLists = 0;
    return world.seams.install({
      onRead(i) {
        if (!i.cached) return undefined;
        const n = cachedReads++;
        const e = pick(reads, n, i.actor);
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const d = staleOf((e ?? bg)?.params);
        const { type: _stale, ...how } = d;
        fired({ nth: n, actor: i.actor, verb: i.verb, objectKind: i.kind, ...(i.key !== undefined ? { key: i.key } : {}), ...how, ...(background ? { background: true } : {}) });
        return d;
      },
      onInformerList(i) {
        // only lists of a controller that has restarted: its memory is gone, the list is all it knows
        if (!world.managers.some((m) => m.def.name === i.controller && m.crashes > 0)) return undefined;
        const n = restartLists++;
        const e = pick(lists, n, i.controller);
        if (!e) return undefined;
        const versionsBack = int(e.params, 'versionsBack', 1, 1, 1_000_000);
        const catchUpMs = int(e.params, 'catchUpMs', 0, 0, 3_600_000);
        fired({ nth: n, controller: i.controller, replica: i.replica, objectKind: i.kind, list: true, versionsBack, catchUpMs });
        return { type: 'lagging', versionsBack, catchUpMs };
      },
    });
  },
});

/** A stale read by time when `ageMs` is given, else by versions (1 back by default). */
function staleOf(params: JsonObject | undefined): ReadDecision {
  return typeof params?.['ageMs'] === 'number' ? { type: 'stale', ageMs: int(params, 'ageMs', 1000, 0, 3_600_000) } : { type: 'stale', versionsBack: int(params, 'versionsBack', 1, 1, 1000) };
}

/** How old a time-based stale read is: 1 ms to 5 s, shrinking toward 1 ms. */
function ageMs(): fc.Arbitrary<number> {
  return fc.integer({ min: 1, max: 5000 });
}
