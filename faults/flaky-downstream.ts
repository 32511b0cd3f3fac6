import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { FetchDecision } from '../src/runtime/seams.js';
import type { JsonObject } from '../src/store/object.js';
import { byNth, eventsOf, int, rate, str, strongest } from './_internals/plan.js';

const FAILURES = ['status', 'latency', 'hang', 'reset', 'applied-but-lost'] as const;

/**
 * Flaky downstream: a call the reconciler makes with `ctx.fetch` to an external API fails the
 * way real networks and SaaS APIs do: a 5xx, a 429 with Retry-After, added latency, a hang until
 * the client timeout (all on the virtual clock, never msw's real-timer `delay()`), a connection
 * reset, or the worst one: the request was applied but the response was lost. A correct
 * reconciler survives: it backs off (returns the error to the rate-limited queue, honours
 * Retry-After) and makes retries safe with an idempotency key or by looking the resource up
 * before creating it. One that retries a create blindly leaves duplicate external resources.
 *
 * Events: `{ kind: 'flaky-downstream', nth, params: { fail, status?, retryAfterSeconds?, ms? } }`
 * hits the nth downstream request of the run (0-based); `fail` is one of `status` (default,
 * with `status` 500/503/429), `latency` (`ms`), `hang`, `reset`, `applied-but-lost`. `target`
 * limits it to endpoints containing that text (e.g. `'POST https://orders.example'`).
 * Background: `{ kind: 'flaky-downstream', rate, params: { … } }` hits each request with that
 * probability.
 * @public
 */
export const flakyDownstream = defineFault({
  kind: 'flaky-downstream',
  models: 'an external API that errors, throttles, stalls, resets, or applies a request whose response is lost',
  survivedBy: 'backoff on failure and idempotent retries (idempotency keys, look up before create)',
  actsOn: 'fetch',
  arbitrary: (ctx) => eventsOf(fc.record({ kind: fc.constant('flaky-downstream'), nth: fc.nat({ max: ctx.maxNth }), params: failureParams() })),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('flaky-downstream'), rate: rate(), params: failureParams() }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    return world.seams.install({
      onFetch(i) {
        const e = index.get(i.seq)?.find((x) => x.target === undefined || i.endpoint.includes(x.target));
        const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
        if (!e && !background) return undefined;
        const d = decisionOf((e ?? bg)?.params);
        const { type: fail, ...rest } = d;
        fired({ nth: i.seq, actor: i.actor, endpoint: i.endpoint, fail, ...rest, ...(background ? { background: true } : {}) });
        return d;
      },
    });
  },
});

function decisionOf(params: JsonObject | undefined): FetchDecision {
  const fail = str(params, 'fail', 'status');
  switch (fail) {
    case 'latency':
      return { type: 'latency', ms: int(params, 'ms', 1000, 0, 3_600_000) };
    case 'hang':
      return { type: 'hang' };
    case 'reset':
      return { type: 'reset' };
    case 'applied-but-lost':
      return { type: 'applied-but-lost' };
    default: {
      const status = int(params, 'status', 500, 400, 599);
      return status === 429 || status === 503 ? { type: 'status', status, retryAfterSeconds: int(params, 'retryAfterSeconds', 1, 0, 3600) } : { type: 'status', status };
    }
  }
}

/** `status 500` first (shrinks toward it), then the other failures. */
function failureParams(): fc.Arbitrary<JsonObject> {
  return fc
    .record({ fail: fc.constantFrom(...FAILURES), status: fc.constantFrom(500, 503, 429), ms: fc.integer({ min: 0, max: 10_000 }) })
    .map(({ fail, status, ms }): JsonObject => (fail === 'status' ? { fail, status } : fail === 'latency' ? { fail, ms } : { fail }));
}
