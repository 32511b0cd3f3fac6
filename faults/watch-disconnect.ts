import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { JsonObject } from '../src/store/object.js';
import { bool, byNth, eventAt, eventsOf, rate, str, strongest, watchDetail } from './_internals/plan.js';

/**
 * Watch disconnect: an informer's watch stream ends just before an event, the four ways a real
 * one does: the connection is cut (an API server restart, a load balancer idle timeout; the
 * informer re-watches from the last version it saw after the scenario's `rewatchDelayMs`), the
 * server closes it cleanly (kube-apiserver ends every watch after its `timeoutSeconds`; the
 * informer re-watches at once; so never a stream open for less than a second), the server sends an `ERROR` event with a 500 Status and closes
 * it, or the history was compacted meanwhile (`gone`): the re-watch gets 410 Gone and the
 * informer relists, replacing its cache and emitting the differences (deletions as tombstones).
 * A correct reconciler survives: it tolerates a cache that is behind for a while and is driven by
 * the relist's events like any others. One that treats "not in my cache" as "absent" acts on the
 * gap; a client that does not restart its watch after an error stops seeing changes.
 *
 * Events: `{ kind: 'watch-disconnect', nth, params: { how } }` (`how`: `'cut'`, `'close'`,
 * `'error'` or `'gone'`; `{ gone: true }` is `'gone'`) ends the stream at the nth watch delivery
 * (0-based, all informers; `target` limits it to one controller). Generated plans shrink toward
 * `'cut'`. Background: `{ kind: 'watch-disconnect', rate, params: { how } }`.
 * @public
 */
export const watchDisconnect = defineFault({
  kind: 'watch-disconnect',
  models: 'a watch stream that is cut, closed by the server (timeoutSeconds), ended by an ERROR event, or answered 410 Gone so the informer must relist',
  survivedBy: 'the informer re-watch/relist and reconciles that tolerate a cache that is behind',
  actsOn: 'watch',
  arbitrary: (ctx) => eventsOf(fc.record({ kind: fc.constant('watch-disconnect'), nth: fc.nat({ max: ctx.maxNth }), params: fc.record({ how: howArbitrary() }) })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('watch-disconnect'), rate: rate(), params: fc.record({ how: howArbitrary() }) }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    return world.seams.install({
      onWatchEvent(i) {
        const e = eventAt(index, i.seq, i.controller);
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const how = howOf((e ?? bg)?.params);
        // kube-apiserver closes a watch cleanly only after its timeoutSeconds: never one just opened
        // (a close at the replay of a re-watch, which the informer re-opens at once, would loop)
        if (how === 'close' && i.openedAt !== undefined && i.t - i.openedAt < MIN_OPEN_BEFORE_CLOSE_MS) return undefined;
        fired({ ...watchDetail(i), how, gone: how === 'gone', ...(background ? { background: true } : {}) });
        switch (how) {
          case 'gone':
            return { type: 'gone' };
          case 'close':
            return { type: 'close' };
          case 'error':
            return { type: 'error', status: 500 };
          default:
            return { type: 'disconnect' };
        }
      },
    });
  },
});

type How = 'cut' | 'close' | 'error' | 'gone';

/** How long a stream is open, at least, before the server may close it cleanly (timeoutSeconds is minutes; compressed like resync). */
const MIN_OPEN_BEFORE_CLOSE_MS = 1_000;

/** Shrinks toward a cut connection. */
function howArbitrary(): fc.Arbitrary<How> {
  return fc.constantFrom<How>('cut', 'close', 'error', 'gone');
}

function howOf(params: JsonObject | undefined): How {
  if (bool(params, 'gone', false)) return 'gone';
  const h = str(params, 'how', 'cut');
  return h === 'close' || h === 'error' || h === 'gone' ? h : 'cut';
}
