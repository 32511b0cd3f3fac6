import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { byNth, eventsOf, int, rate, strongest } from './_internals/plan.js';

/**
 * List order: a list comes back in a different order than last time. The simulated API server
 * lists by key (namespace, then name), as etcd does, and so does the informer cache here; but the
 * API server promises no order, client-go's cache is a hash map, and another storage backend or
 * replica orders otherwise. A correct reconciler survives because
 * it never relies on order: it sorts by a stable key (name, ordinal, creationTimestamp) before
 * choosing. One that takes `list()[0]` as "the oldest" or "the leader" picks a different object
 * each time, or deletes the wrong one.
 *
 * Events: `{ kind: 'list-order', nth, params: { order } }` permutes the nth client list of the
 * run (0-based, cached and live; `target` limits it to one controller); `order` 0 keeps key
 * order, other values pick a permutation. Background:
 * `{ kind: 'list-order', rate }` permutes each list with that probability.
 * @public
 */
export const listOrder = defineFault({
  kind: 'list-order',
  models: 'list results returned in a different order each time',
  survivedBy: 'sorting by a stable key before choosing; no reliance on list order',
  actsOn: 'list',
  arbitrary: (ctx) => eventsOf(fc.record({ kind: fc.constant('list-order'), nth: fc.nat({ max: ctx.maxNth }), params: fc.record({ order: fc.nat({ max: 100 }) }) })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('list-order'), rate: rate() }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    return world.seams.install({
      onList(i) {
        if (i.count < 2) return undefined;
        const e = index.get(i.seq)?.find((x) => x.target === undefined || i.actor.startsWith(`controller:${x.target}/`));
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const order = e ? int(e.params, 'order', 0, 0, 2 ** 31 - 1) : rng.int(1, 1_000_000);
        if (order === 0) return undefined; // key order
        fired({ nth: i.seq, actor: i.actor, objectKind: i.kind, count: i.count, order, ...(background ? { background: true } : {}) });
        return { type: 'shuffle', seed: order };
      },
    });
  },
});
