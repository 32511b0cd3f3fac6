import fc from 'fast-check';
import { defineFault } from '../../../src/index.js';

/**
 * A downstream outage, written as a user-defined fault (a fault module is a value like the
 * built-ins): from `at`, for `params.forMs`, every request to an endpoint containing `target`
 * (every endpoint when absent) answers `params.status` (503 by default) without reaching the
 * service. The built-in flaky-downstream fault hits single requests or a random share of them;
 * a retry storm shows only while an API fails every call for a while, which is what this models.
 *
 * Events: `{ kind: 'downstream-outage', at, target?, params: { forMs, status } }`.
 */
export const downstreamOutage = defineFault({
  kind: 'downstream-outage',
  models: 'an external API that is down (answers every request with a 5xx) for a while',
  survivedBy: 'exponential backoff on failure (return the error to the rate-limited queue), honouring Retry-After',
  actsOn: 'fetch',
  arbitrary: (ctx) =>
    fc.array(
      fc.record({
        kind: fc.constant('downstream-outage'),
        at: fc.integer({ min: 0, max: 100 }).map((k) => Math.round((k * ctx.faultWindowMs) / 100)),
        // outages worth the name: whole seconds, from 2 s up (shrinking toward the shortest)
        params: fc.record({ forMs: fc.integer({ min: 2, max: 20 }).map((s) => s * 1000), status: fc.constantFrom(503, 500) }),
      }),
      // swarm testing turns the kind on or off; when on, there is an outage
      { minLength: 1, maxLength: 1 },
    ),
  install({ world, fired }, plan) {
    const windows = plan.events.map((e) => ({
      from: e.at ?? 0,
      to: (e.at ?? 0) + Number(e.params?.['forMs'] ?? 5000),
      status: Number(e.params?.['status'] ?? 503),
      target: e.target,
    }));
    return world.seams.install({
      onFetch(i) {
        const w = windows.find((x) => i.t >= x.from && i.t < x.to && (x.target === undefined || i.endpoint.includes(x.target)));
        if (!w) return undefined;
        fired({ nth: i.seq, endpoint: i.endpoint, status: w.status });
        return { type: 'status', status: w.status };
      },
    });
  },
});
