import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { byNth, eventAt, eventsOf, int, rate, strongest, watchDetail } from './_internals/plan.js';

/**
 * Duplication: a watch event is delivered twice, the copy `afterMs` later, as when a watch is
 * resumed from an older resourceVersion after a reconnect and replays what the informer already
 * saw. The copy never rolls the cache back; it only makes the controller reconcile the key again.
 * A correct reconciler survives because a reconcile is idempotent: running it once more on the
 * same state changes nothing. One that performs a side effect per reconcile (appends a record,
 * sends a notification, creates with a generated name) does it twice.
 *
 * Events: `{ kind: 'duplication', nth, params: { afterMs } }` duplicates the nth watch delivery
 * (0-based, all informers; `target` limits it to one controller); `afterMs` 0 delivers the copy
 * right behind the original. Background: `{ kind: 'duplication', rate, params: { afterMs } }`.
 * @public
 */
export const duplication = defineFault({
  kind: 'duplication',
  models: 'a watch event replayed after a reconnect, so the informer delivers it twice',
  survivedBy: 'an idempotent reconcile (the second run finds nothing to do)',
  actsOn: 'watch',
  arbitrary: (ctx) =>
    eventsOf(fc.record({ kind: fc.constant('duplication'), nth: fc.nat({ max: ctx.maxNth }), params: fc.record({ afterMs: fc.integer({ min: 0, max: 2000 }) }) })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('duplication'), rate: rate(), params: fc.record({ afterMs: fc.integer({ min: 0, max: 2000 }) }) }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    return world.seams.install({
      onWatchEvent(i) {
        const e = eventAt(index, i.seq, i.controller);
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const afterMs = int((e ?? bg)?.params, 'afterMs', 0, 0, 3_600_000);
        fired({ ...watchDetail(i), afterMs, ...(background ? { background: true } : {}) });
        return { type: 'duplicate', afterMs };
      },
    });
  },
});
