import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { byNth, eventAt, eventsOf, int, rate, strongest, watchDetail } from './_internals/plan.js';

/**
 * Reordering: one watch event is held back `holdMs` while later events overtake it, so the
 * informer applies an older version after a newer one and its cache briefly regresses (events
 * crossing on different API server replicas, a watch resumed out of order). A correct
 * reconciler survives: it re-reads by key and writes with optimistic concurrency (its stale
 * write gets 409 and is retried on fresh state), or writes only the fields it owns. One that
 * writes back the whole cached object unconditionally reverts somebody else's newer change.
 *
 * Events: `{ kind: 'reordering', nth, params: { holdMs } }` holds back the nth watch delivery
 * (0-based, all informers; `target` limits it to one controller). `holdMs` 0 is FIFO (no
 * effect), so plans shrink toward it. Background: `{ kind: 'reordering', rate, params: { holdMs } }`.
 * @public
 */
export const reordering = defineFault({
  kind: 'reordering',
  models: 'watch events delivered out of order within a window (the cache may briefly go back in time)',
  survivedBy: 're-reading by key and optimistic concurrency (a stale write gets 409 and is retried)',
  actsOn: 'watch',
  arbitrary: (ctx) =>
    eventsOf(fc.record({ kind: fc.constant('reordering'), nth: fc.nat({ max: ctx.maxNth }), params: fc.record({ holdMs: fc.integer({ min: 0, max: 3000 }) }) })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('reordering'), rate: rate(), params: fc.record({ holdMs: fc.integer({ min: 0, max: 3000 }) }) }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    return world.seams.install({
      onWatchEvent(i) {
        const e = eventAt(index, i.seq, i.controller);
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const holdMs = int((e ?? bg)?.params, 'holdMs', 0, 0, 3_600_000);
        if (holdMs === 0) return undefined; // FIFO
        fired({ ...watchDetail(i), holdMs, ...(background ? { background: true } : {}) });
        return { type: 'delay', ms: holdMs };
      },
    });
  },
});
