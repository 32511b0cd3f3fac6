import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { byNth, eventAt, eventsOf, rate, strongest, watchDetail } from './_internals/plan.js';

/**
 * Watch event loss: a watch event never reaches the informer (an apiserver watch cache that
 * skipped it, a proxy that dropped a frame), so the cache misses the change until the next
 * event for that object or a relist. A correct reconciler survives: it is level-triggered and
 * creates idempotently, so acting on a cache that is briefly behind costs at most an
 * AlreadyExists or a conflict, and the relist at the end of the fault window repairs the cache.
 * One that trusts its cached bookkeeping (`status.child` unset ⇒ create another) duplicates.
 *
 * Events: `{ kind: 'watch-event-loss', nth }` drops the nth watch delivery of the run (0-based,
 * counted over every informer); `target` limits it to one controller. Background:
 * `{ kind: 'watch-event-loss', rate }` drops each watch event with that probability.
 * @public
 */
export const watchEventLoss = defineFault({
  kind: 'watch-event-loss',
  models: 'a watch event lost between the API server and the informer (the cache misses the change until relist)',
  survivedBy: 'level-triggered reconciles, idempotent creates, and the informer relist',
  actsOn: 'watch',
  arbitrary: (ctx) => eventsOf(fc.record({ kind: fc.constant('watch-event-loss'), nth: fc.nat({ max: ctx.maxNth }) })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('watch-event-loss'), rate: rate() }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const rateOf = strongest(plan.background)?.rate ?? 0;
    return world.seams.install({
      onWatchEvent(i) {
        const e = eventAt(index, i.seq, i.controller);
        const background = e === undefined && rateOf > 0 && rng.chance(rateOf);
        if (!e && !background) return undefined;
        fired({ ...watchDetail(i), ...(background ? { background: true } : {}) });
        return { type: 'drop' };
      },
    });
  },
});
