import fc from 'fast-check';
import { defineFault } from '../../../src/index.js';

/**
 * A slow external API, written as a user-defined fault: while faults act, every request to an
 * endpoint containing `target` (every endpoint when absent) takes `params.ms` of virtual time
 * before the service sees it. Real snapshot APIs answer in hundreds of milliseconds, not
 * instantly, and that window is where two uncoordinated replicas overlap. (The built-in
 * flaky-downstream fault delays single requests or a random share of them.)
 *
 * Events: `{ kind: 'slow-api', target?, params: { ms } }`.
 */
export const slowApi = defineFault({
  kind: 'slow-api',
  models: 'an external API that takes a while to answer every request',
  survivedBy: 'not depending on timing: one active replica (leader election), idempotent creates',
  actsOn: 'fetch',
  arbitrary: () =>
    fc.array(fc.record({ kind: fc.constant('slow-api'), params: fc.record({ ms: fc.integer({ min: 1, max: 20 }).map((k) => k * 100) }) }), {
      // swarm testing turns the kind on or off; when on, the API is slow
      minLength: 1,
      maxLength: 1,
    }),
  install({ world, fired }, plan) {
    const e = plan.events[0];
    if (!e) return () => {};
    const ms = Number(e.params?.['ms'] ?? 200);
    return world.seams.install({
      onFetch(i) {
        if (e.target !== undefined && !i.endpoint.includes(e.target)) return undefined;
        fired({ nth: i.seq, endpoint: i.endpoint, ms });
        return { type: 'latency', ms };
      },
    });
  },
});
