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
