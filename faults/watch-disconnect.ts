import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { bool, byNth, eventAt, eventsOf, rate, strongest, watchDetail } from './_internals/plan.js';

/**
 * Watch disconnect: an informer's watch stream ends (an API server restart, a load balancer
 * idle timeout) just before an event; the informer re-watches from the last version it saw after
 * the scenario's `rewatchDelayMs`. With `gone: true` the history was compacted meanwhile, the
 * re-watch gets 410 Gone and the informer relists, replacing its cache and emitting the
 * differences (deletions as tombstones). A correct reconciler survives: it tolerates a cache
 * that is behind for a while and is driven by the relist's events like any others. One that
 * treats "not in my cache" as "absent" acts on the gap.
 *
 * Events: `{ kind: 'watch-disconnect', nth, params: { gone } }` ends the stream at the nth watch
 * delivery (0-based, all informers; `target` limits it to one controller). Background:
 * `{ kind: 'watch-disconnect', rate, params: { gone } }`.
 * @public
 */
export const watchDisconnect = defineFault({
  kind: 'watch-disconnect',
  models: 'a watch stream that ends and is resumed, or answered 410 Gone so the informer must relist',
  survivedBy: 'the informer re-watch/relist and reconciles that tolerate a cache that is behind',
  actsOn: 'watch',
  arbitrary: (ctx) => eventsOf(fc.record({ kind: fc.constant('watch-disconnect'), nth: fc.nat({ max: ctx.maxNth }), params: fc.record({ gone: fc.boolean() }) })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('watch-disconnect'), rate: rate(), params: fc.record({ gone: fc.boolean() }) }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    return world.seams.install({
      onWatchEvent(i) {
        const e = eventAt(index, i.seq, i.controller);
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const gone = bool((e ?? bg)?.params, 'gone', false);
        fired({ ...watchDetail(i), gone, ...(background ? { background: true } : {}) });
        return { type: gone ? 'gone' : 'disconnect' };
      },
    });
  },
});
