import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { byNth, eventAt, eventsOf, int, rate, strongest, watchDetail } from './_internals/plan.js';

/**
 * Reordering: events of different watches arrive out of their global resourceVersion order. Each
 * kind is its own watch stream, and kube-apiserver sends each stream in resourceVersion order, so
 * what crosses is one watch against another: the nth delivery's stream is held back `holdMs` (it
 * and the events behind it, still in order) while the controller's other watches go on, so it
 * sees, say, a Pod's update before the ReplicaSet change that caused it, or a child's deletion
 * before its parent's. No object's own history is ever reordered, and no cache goes back in
 * time. A correct reconciler survives: it decides from the current state of everything it reads
 * and writes with optimistic concurrency (a stale write gets 409 and is retried). One that
 * infers one kind's state from another kind's events, or writes back a whole object it read
 * from a watch that is behind, reverts somebody else's newer change.
 *
 * Events: `{ kind: 'reordering', nth, params: { holdMs } }` holds back the stream of the nth watch
 * delivery (0-based, all informers; `target` limits it to one controller). `holdMs` 0 is no
 * reordering, so plans shrink toward it. Background: `{ kind: 'reordering', rate, params: { holdMs } }`.
 * @public
 */
export const reordering = defineFault({
  kind: 'reordering',
  models: 'one watch held back while the others go on: events of different watches out of their resourceVersion order',
  survivedBy: 'deciding from current state and optimistic concurrency (a stale write gets 409 and is retried)',
  actsOn: 'watch',
  arbitrary: (ctx) =>
    eventsOf(fc.record({ kind: fc.constant('reordering'), nth: fc.nat({ max: ctx.maxNth }), params: fc.record({ holdMs: fc.integer({ min: 0, max: 3000 }) }) })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('reordering'), rate: rate(), params: fc.record({ holdMs: fc.integer({ min: 0, max: 3000 }) }) }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    return world.seams.install({
      onWatchEvent(i) {
        const e = eventAt(index, i.seq, i.controller);
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const holdMs = int((e ?? bg)?.params, 'holdMs', 0, 0, 3_600_000);
        if (holdMs === 0) return undefined; // FIFO
        fired({ ...watchDetail(i), holdMs, ...(background ? { background: true } : {}) });
        return { type: 'delay', ms: holdMs };
      },
    });
  },
});
