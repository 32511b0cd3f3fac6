import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';

/**
 * Event notification loss: the informer's cache is updated, but the enqueue of the key is
 * dropped (a handler that filtered too much, a notification lost between informer and queue,
 * a watch event folded into a later one). A level-triggered reconciler survives it: the next
 * event, requeue or resync recomputes desired vs actual from current state. An edge-triggered
 * one that needed exactly that event stalls forever.
 *
 * Events: `{ kind: 'event-loss', nth }` drops the nth notification of the run (0-based);
 * `target` limits it to one controller. Background: `{ kind: 'event-loss', rate }` drops each
 * notification with that probability.
 *
 * Never dropped: a notification of a controller's primary kind (other than DELETED) when that
 * controller has controller-runtime's `GenerationChanged` predicate. The predicate also filters
 * resyncs, so nothing but a restart would bring such a key back; such a controller relies on
 * client-go's informer-to-workqueue path, which never loses a notification, and a loss it could
 * never repair is a history no real cluster produces (realism principle, SPEC §3). Its owned and
 * watched kinds, and its DELETED notifications, stay fair game: resync or a finalizer repairs them.
 * @public
 */
export const eventLoss = defineFault({
  kind: 'event-loss',
  models: 'a watch notification that never reaches the workqueue (the cache stays right)',
  survivedBy: 'level-triggered reads of current state, requeue and resync',
  actsOn: 'notify',
  arbitrary: (ctx) =>
    fc.array(
      fc.record({ kind: fc.constant('event-loss'), nth: fc.nat({ max: ctx.maxNth }) }),
      { maxLength: 3 },
    ),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('event-loss'), rate: fc.integer({ min: 0, max: 50 }).map((p) => p / 100) }),
  install({ world, rng, fired }, plan) {
    const nths = new Set(plan.events.map((e) => e.nth).filter((n): n is number => n !== undefined));
    const targets = new Map(plan.events.filter((e) => e.nth !== undefined).map((e) => [e.nth!, e.target]));
    const rate = plan.background.reduce((r, b) => Math.max(r, b.rate), 0);
    return world.seams.install({
      onNotify(i) {
        // (looked up per call: the managers are made after the faults are installed)
        if (i.event !== 'DELETED' && world.managers.some((m) => m.def.name === i.controller && m.def.for === i.kind && m.def.predicates.includes('GenerationChanged'))) return undefined;
        if (nths.has(i.seq)) {
          const target = targets.get(i.seq);
          if (target === undefined || target === i.controller) {
            fired({ nth: i.seq, controller: i.controller, key: i.key, event: i.event });
            return 'drop';
          }
        }
        if (rate > 0 && rng.chance(rate)) {
          fired({ nth: i.seq, controller: i.controller, key: i.key, event: i.event, background: true });
          return 'drop';
        }
        return undefined;
      },
    });
  },
});
