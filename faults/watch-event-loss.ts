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
    /** Streams of hosted processes that lost events: controller, replica, kind. */
    const behind = new Map<string, { controller: string; replica: number; kind: string }>();
    const off = world.seams.install({
      onWatchEvent(i) {
        const e = eventAt(index, i.seq, i.controller);
        const background = e === undefined && rateOf > 0 && rng.chance(rateOf);
        if (!e && !background) return undefined;
        fired({ ...watchDetail(i), ...(background ? { background: true } : {}) });
        behind.set(`${i.controller}/${i.replica}/${i.kind}`, { controller: i.controller, replica: i.replica, kind: i.kind });
        return { type: 'drop' };
      },
    });
    // the relist that repairs the cache when the window closes: the native runtime's informers
    // relist at settle; a hosted process (its own client, no resync) gets its watch of that kind
    // ended with 410 Expired, so its client relists, as after a watch that fell behind
    world.onSettle.push(() => {
      for (const b of behind.values()) {
        const inst = world.managers.find((m) => m.def.name === b.controller)?.instances[b.replica];
        if (!inst?.alive || !inst.def.process) continue;
        fired({ controller: b.controller, replica: b.replica, kind: b.kind, type: 'catch-up' });
        inst.catchUp(b.kind);
      }
    });
    return off;
  },
});
