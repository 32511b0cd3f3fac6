import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { byNth, eventsOf, rate, strongest } from './_internals/plan.js';

/**
 * API conflict: another actor writes the object just before the controller's write (a
 * kubectl label, another controller, a webhook touching metadata), so the controller's
 * resourceVersion is no longer current and its conditional write answers a genuine 409
 * Conflict. The runtime makes that concurrent write for real (actor `fault:api-conflict`, an
 * annotation), so the store, the trace and the watch all agree. A correct reconciler survives:
 * it returns the error (or requeues) and the retry re-reads and re-applies. One that swallows
 * the 409 and assumes a later event will call it again stalls when its predicates filter that
 * event (a metadata-only change does not bump the generation).
 *
 * Events: `{ kind: 'api-conflict', nth }` precedes the nth controller write of the run (0-based,
 * counted over every controller; `target` limits it to one) with a concurrent write. Only writes
 * to existing objects can conflict; a create is let through. With `target: 'user'` it precedes the
 * nth user write instead (counted over user writes): the user's conditional update (`kubectl replace`, an edit; apply is a patch and cannot conflict) answers 409 and is retried
 * after a fresh read, as `kubectl` users and GitOps tools do. Background:
 * `{ kind: 'api-conflict', rate }`.
 * @public
 */
export const apiConflict = defineFault({
  kind: 'api-conflict',
  models: 'a concurrent write by another actor just before the controller writes (a real 409 Conflict)',
  survivedBy: 're-reading and retrying on 409 (return the error or requeue)',
  actsOn: 'write',
  arbitrary: (ctx) => {
    const controllerEvent = fc.record({ kind: fc.constant('api-conflict'), nth: fc.nat({ max: ctx.maxNth }) });
    if (!ctx.userWrites) return eventsOf(controllerEvent);
    const userEvent = fc.record({ kind: fc.constant('api-conflict'), nth: fc.nat({ max: Math.max(0, ctx.userWrites - 1) }), target: fc.constant('user') });
    return eventsOf(fc.oneof(controllerEvent, userEvent));
  },
  backgroundArbitrary: () => fc.record({ kind: fc.constant('api-conflict'), rate: rate() }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    const userEvents = byNth(plan.events.filter((e) => e.target === 'user'));
    return world.seams.install({
      onUserWrite(i) {
        if (i.verb !== 'update' || world.store.peek(i.kind, i.key) === undefined || !userEvents.has(i.seq)) return undefined;
        fired({ nth: i.seq, target: 'user', actor: 'user', verb: i.verb, objectKind: i.kind, key: i.key, action: i.action, attempt: i.attempt });
        return { type: 'conflict' };
      },
      onWrite(i) {
        if (i.verb === 'create' || world.store.peek(i.kind, i.key) === undefined) return undefined;
        const e = index.get(i.seq)?.find((x) => x.target === undefined || i.actor.startsWith(`controller:${x.target}/`));
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        fired({ nth: i.seq, actor: i.actor, verb: i.verb, objectKind: i.kind, key: i.key, ...(background ? { background: true } : {}) });
        return { type: 'conflict' };
      },
    });
  },
});
