import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { byNth, eventAt, eventsOf, int, rate, streamOf, strongest, watchDetail } from './_internals/plan.js';

/**
 * Coalescing: an informer's stream goes quiet for `ms` from the nth event on (its events are
 * skipped), then the informer relists. Only the latest version of each object reaches the
 * cache; the intermediate ones were never seen; an object deleted meanwhile arrives as a
 * tombstone from the relist. This is what a watch that falls behind does in a real cluster, and
 * why controller-runtime reconciles keys, not events. A correct reconciler survives because it
 * decides from current state (count what is Succeeded now); one that counts transitions it
 * observed (Running → Succeeded) misses the ones that happened in the gap.
 *
 * Events: `{ kind: 'coalescing', nth, params: { ms } }` starts the quiet window at the nth watch
 * delivery (0-based, all informers; `target` limits it to one controller); `ms` 0 has no
 * effect. Background: `{ kind: 'coalescing', rate, params: { ms } }`.
 * @public
 */
export const coalescing = defineFault({
  kind: 'coalescing',
  models: 'a watch that falls behind: intermediate versions are skipped and only the latest state arrives (deletions as tombstones)',
  survivedBy: 'decisions from current state, not from having observed a transition',
  actsOn: 'watch',
  arbitrary: (ctx) => eventsOf(fc.record({ kind: fc.constant('coalescing'), nth: fc.nat({ max: ctx.maxNth }), params: fc.record({ ms: fc.integer({ min: 0, max: 5000 }) }) })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('coalescing'), rate: rate(), params: fc.record({ ms: fc.integer({ min: 0, max: 5000 }) }) }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    // a quiet window belongs to the incarnation whose stream fell behind: a restarted replica lists
    // afresh and watches on a new connection, and the catch-up relist is that incarnation's (without
    // this, a crash inside the window let the new incarnation's events be skipped with nothing to
    // catch them up: lost for good, which a falling-behind watch never does; found by the hosted hunt)
    const quiet = new Map<string, { until: number; inst: unknown }>();
    let uninstalled = false;
    const off = world.seams.install({
      onWatchEvent(i) {
        const stream = streamOf(i);
        const inst = world.managers.find((m) => m.def.name === i.controller)?.instances[i.replica];
        const q = quiet.get(stream);
        if (q !== undefined && q.until > i.t && q.inst === inst) return { type: 'drop' };
        const e = eventAt(index, i.seq, i.controller);
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const ms = int((e ?? bg)?.params, 'ms', 0, 0, 3_600_000);
        if (ms === 0) return undefined;
        quiet.set(stream, { until: i.t + ms, inst });
        fired({ ...watchDetail(i), ms, ...(background ? { background: true } : {}) });
        world.kernel.after(ms, () => {
          // the catch-up relist repairs the cache even after the window closed
          if (uninstalled || !inst?.alive) return;
          inst.catchUp(i.kind);
        });
        return { type: 'drop' };
      },
    });
    return () => {
      uninstalled = true;
      off();
    };
  },
});
