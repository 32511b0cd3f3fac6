import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { byNth, eventAt, eventsOf, int, rate, streamOf, strongest, watchDetail } from './_internals/plan.js';

/**
 * Delay: one informer's watch stream stalls for `ms` (a slow or overloaded API server, a
 * congested connection): the event that starts the stall and every later event of that stream
 * are delivered when it ends, still in order. Nothing is lost, the controller only sees the world
 * late. A correct reconciler survives because it converges eventually and does not treat "not
 * in my cache yet" as "does not exist" (deterministic names, AlreadyExists tolerated). One that
 * creates again whenever its cache has not caught up duplicates.
 *
 * Events: `{ kind: 'delay', nth, params: { ms } }`: the stream of the nth watch delivery (0-based,
 * all informers; `target` limits it to one controller) stalls for `ms`. Background:
 * `{ kind: 'delay', rate, params: { ms } }` starts a stall at each event with that probability.
 * @public
 */
export const delay = defineFault({
  kind: 'delay',
  models: 'a watch stream that stalls, delivering its events late but in order',
  survivedBy: 'eventual convergence without treating "not in my cache yet" as "absent"',
  actsOn: 'watch',
  arbitrary: (ctx) => eventsOf(fc.record({ kind: fc.constant('delay'), nth: fc.nat({ max: ctx.maxNth }), params: fc.record({ ms: fc.integer({ min: 0, max: 5000 }) }) })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('delay'), rate: rate(), params: fc.record({ ms: fc.integer({ min: 0, max: 5000 }) }) }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    const stalledUntil = new Map<string, number>();
    return world.seams.install({
      onWatchEvent(i) {
        const stream = streamOf(i);
        const until = stalledUntil.get(stream) ?? 0;
        // inside a stall: queue behind it, in order
        if (until > i.t) return { type: 'delay', ms: until - i.t };
        const e = eventAt(index, i.seq, i.controller);
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const ms = int((e ?? bg)?.params, 'ms', 0, 0, 3_600_000);
        if (ms === 0) return undefined;
        stalledUntil.set(stream, i.t + ms);
        fired({ ...watchDetail(i), ms, ...(background ? { background: true } : {}) });
        return { type: 'delay', ms };
      },
    });
  },
});
