import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { FaultEvent } from '../src/harness/fault-plan.js';
import type { FetchDecision } from '../src/runtime/seams.js';
import type { JsonObject } from '../src/store/object.js';
import { byNth, eventsOf, int, rate, str, strongest } from './_internals/plan.js';

const FAILURES = ['status', 'latency', 'hang', 'reset', 'applied-but-lost'] as const;

/** Longest generated outage (virtual ms): long enough for a storm, short enough that backoff recovers within a default settle phase. */
const MAX_OUTAGE_MS = 10_000;

/**
 * Flaky downstream: a call the reconciler makes with `ctx.fetch` to an external API fails the
 * way real networks and SaaS APIs do: a 5xx, a 429 with Retry-After, added latency, a hang until
 * the client timeout (all on the virtual clock, never msw's real-timer `delay()`), a connection
 * reset, or the worst one: the request was applied but the response was lost. Or the API is
 * down for a while (an outage: a bad deploy, a region failover) and fails every call. A correct
 * reconciler survives: it backs off (returns the error to the rate-limited queue, honours
 * Retry-After), so an outage costs the API a few retries rather than a storm that keeps it down,
 * and it makes retries safe with an idempotency key or by looking the resource up before
 * creating it. One that retries a create blindly leaves duplicate external resources.
 *
 * Events: `{ kind: 'flaky-downstream', nth, params: { fail, status?, retryAfterSeconds?, ms? } }`
 * hits the nth downstream request of the run (0-based); `fail` is one of `status` (default,
 * with `status` 500/503/429), `latency` (`ms`), `hang`, `reset`, `applied-but-lost`.
 * An outage: `{ kind: 'flaky-downstream', at, params: { fail: 'outage', forMs, status? } }`
 * fails every request in [at, at + forMs) of virtual time with `status` (503 by default, or
 * 500; `Retry-After` only when `retryAfterSeconds` is given, as a load balancer with no healthy
 * backend answers), or with a connection reset when `params.reset` is true. `target` limits
 * either form to endpoints containing that text (e.g. `'POST https://orders.example'`); without
 * it an outage takes every endpoint down. Generated outages start anywhere in the fault window,
 * last 0.1–10 s and shrink toward the start of the window, the shortest outage and 503.
 * Background: `{ kind: 'flaky-downstream', rate, params: { … } }` hits each request with that
 * probability.
 * @public
 */
export const flakyDownstream = defineFault({
  kind: 'flaky-downstream',
  models: 'an external API that errors, throttles, stalls, resets, applies a request whose response is lost, or is down for a while',
  survivedBy: 'backoff on failure and idempotent retries (idempotency keys, look up before create)',
  actsOn: 'fetch',
  arbitrary: (ctx) =>
    eventsOf(
      fc
        .record({
          // single-call failures first: a plan shrinks toward them, then toward shorter outages
          outage: fc.boolean(),
          nth: fc.nat({ max: ctx.maxNth }),
          params: failureParams(),
          at: fc.integer({ min: 0, max: 100 }).map((k) => Math.round((k * ctx.faultWindowMs) / 100)),
          outageParams: outageParams(),
        })
        .map(({ outage, nth, params, at, outageParams }): FaultEvent => (outage ? { kind: 'flaky-downstream', at, params: outageParams } : { kind: 'flaky-downstream', nth, params })),
    ),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('flaky-downstream'), rate: rate(), params: failureParams() }),
  install({ world, rng, fired }, plan) {
    const outages = plan.events.filter(isOutage).map(outageOf);
    const index = byNth(plan.events.filter((e) => !isOutage(e)));
    const bg = strongest(plan.background);
    const matches = (target: string | undefined, endpoint: string) => target === undefined || endpoint.includes(target);
    return world.seams.install({
      onFetch(i) {
        const down = outages.find((o) => i.t >= o.from && i.t < o.to && matches(o.target, i.endpoint));
        if (down) {
          const { type, ...rest } = down.decision;
          fired({ nth: i.seq, actor: i.actor, endpoint: i.endpoint, fail: 'outage', ...(type === 'reset' ? { reset: true } : rest), at: down.from, forMs: down.to - down.from });
          return down.decision;
        }
        const e = index.get(i.seq)?.find((x) => matches(x.target, i.endpoint));
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

function isOutage(e: FaultEvent): boolean {
  return str(e.params, 'fail', 'status') === 'outage';
}

interface Outage {
  from: number;
  to: number;
  target: string | undefined;
  decision: FetchDecision;
}

function outageOf(e: FaultEvent): Outage {
  const from = Math.max(0, e.at ?? 0);
  const forMs = int(e.params, 'forMs', 5000, 0, 3_600_000);
  const retryAfter = e.params?.['retryAfterSeconds'] !== undefined ? { retryAfterSeconds: int(e.params, 'retryAfterSeconds', 1, 0, 3600) } : {};
  const decision: FetchDecision = e.params?.['reset'] === true ? { type: 'reset' } : { type: 'status', status: int(e.params, 'status', 503, 400, 599), ...retryAfter };
  return { from, to: from + forMs, target: e.target, decision };
}

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

/** An outage of 0.1–10 s (in 100 ms steps, shrinking toward the shortest) answering 503, 500 or a reset. */
function outageParams(): fc.Arbitrary<JsonObject> {
  return fc
    .record({ forMs: fc.integer({ min: 1, max: MAX_OUTAGE_MS / 100 }).map((k) => k * 100), answer: fc.constantFrom(503, 500, 'reset' as const) })
    .map(({ forMs, answer }): JsonObject => (answer === 'reset' ? { fail: 'outage', forMs, reset: true } : { fail: 'outage', forMs, status: answer }));
}
