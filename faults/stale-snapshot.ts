import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { FaultEvent } from '../src/harness/fault-plan.js';
import type { JsonObject } from '../src/store/object.js';
import { bool, eventsOf, int, rate, strongest } from './_internals/plan.js';

/**
 * Stale snapshot: a cached read returns the object as it was `versionsBack` versions ago (an
 * informer that lags behind its watch), or, after a controller restart, the informer's initial
 * list comes from an API server replica `versionsBack` resourceVersions behind whose watch
 * catches up only `catchUpMs` later. A correct reconciler survives:
 * its writes carry the resourceVersion it read, so decisions on stale state get 409 and are
 * retried, and its creates use deterministic names, so a "missing" child that exists answers
 * AlreadyExists. One that trusts a stale read ("no child recorded ⇒ create one") duplicates.
 *
 * Events: `{ kind: 'stale-snapshot', nth, params: { versionsBack } }` makes the nth cached read
 * of the run (get or list, 0-based) stale; `{ …, params: { versionsBack, list: true, catchUpMs } }`
 * makes the nth informer list after a restart lagging. `target` limits either to one
 * controller. Background: `{ kind: 'stale-snapshot', rate, params: { versionsBack } }` for reads.
 * @public
 */
export const staleSnapshot = defineFault({
  kind: 'stale-snapshot',
  models: 'cached reads that lag behind the API server, and a restarted controller listing from a lagging replica',
  survivedBy: 'optimistic concurrency (stale writes get 409), deterministic names, live reads where it matters',
  actsOn: 'read',
  arbitrary: (ctx) =>
    eventsOf(
      fc.record({
        kind: fc.constant('stale-snapshot'),
        nth: fc.nat({ max: ctx.maxNth }),
        params: fc
          .record({ versionsBack: fc.integer({ min: 1, max: 8 }), list: fc.boolean(), catchUpMs: fc.integer({ min: 0, max: 5000 }) })
          .map(({ versionsBack, list, catchUpMs }): JsonObject => (list ? { versionsBack, list, catchUpMs } : { versionsBack })),
      }),
    ),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('stale-snapshot'), rate: rate(), params: fc.record({ versionsBack: fc.integer({ min: 1, max: 5 }) }) }),
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
        const versionsBack = int((e ?? bg)?.params, 'versionsBack', 1, 1, 1000);
        fired({ nth: n, actor: i.actor, verb: i.verb, objectKind: i.kind, ...(i.key !== undefined ? { key: i.key } : {}), versionsBack, ...(background ? { background: true } : {}) });
        return { type: 'stale', versionsBack };
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
