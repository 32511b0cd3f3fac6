import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { JsonObject } from '../src/store/object.js';
import { byNth, eventAt, eventsOf, int, rate, strongest, watchDetail } from './_internals/plan.js';

/**
 * Duplication: a watch is resumed from an older resourceVersion after a reconnect, and the API
 * server sends again what the informer already saw, in order: after the nth delivery, its stream
 * replays its last `replay` events (each only while it is still its object's newest on the
 * stream, so the controller's view never goes back), `afterMs` later. The copies never change the
 * cache; they make the controller handle the objects again. A correct reconciler survives because
 * a reconcile is idempotent: running it once more on the same state changes nothing. One that
 * performs a side effect per event or per reconcile (appends a record, sends a notification,
 * creates with a generated name) does it twice. Over HTTP (`kubeController`), where one stream
 * never goes back in resourceVersion, the replay is of the event just sent.
 *
 * Events: `{ kind: 'duplication', nth, params: { replay, afterMs } }` replays after the nth watch
 * delivery (0-based, all informers; `target` limits it to one controller); `replay` 1 (the
 * default) sends that one event again, `afterMs` 0 right behind it. Background:
 * `{ kind: 'duplication', rate, params: { replay, afterMs } }`.
 * @public
 */
export const duplication = defineFault({
  kind: 'duplication',
  models: 'a watch resumed from an older resourceVersion, replaying in order what the informer already saw',
  survivedBy: 'an idempotent reconcile (the second run finds nothing to do)',
  actsOn: 'watch',
  arbitrary: (ctx) => eventsOf(fc.record({ kind: fc.constant('duplication'), nth: fc.nat({ max: ctx.maxNth }), params: replayParams() })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('duplication'), rate: rate(), params: replayParams() }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    return world.seams.install({
      onWatchEvent(i) {
        const e = eventAt(index, i.seq, i.controller);
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const afterMs = int((e ?? bg)?.params, 'afterMs', 0, 0, 3_600_000);
        const replay = int((e ?? bg)?.params, 'replay', 1, 1, 8);
        fired({ ...watchDetail(i), replay, afterMs, ...(background ? { background: true } : {}) });
        return { type: 'duplicate', afterMs, replay };
      },
    });
  },
});

/** A replay of 1 to 4 events, 0 to 2 s after the original; shrinks toward one event right behind it. */
function replayParams(): fc.Arbitrary<JsonObject> {
  return fc.record({ replay: fc.integer({ min: 1, max: 4 }), afterMs: fc.integer({ min: 0, max: 2000 }) });
}
