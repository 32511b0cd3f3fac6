import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { JsonObject } from '../src/store/object.js';
import type { ReadDecision, WriteDecision } from '../src/runtime/seams.js';
import { bool, byNth, eventsOf, int, rate, strongest } from './_internals/plan.js';

type ErrorStatus = 500 | 503 | 429 | 504 | 'refused' | 'reset';

/**
 * API error: a call to the API server fails: 500 Internal Error, 503 Service Unavailable, 429
 * Too Many Requests with Retry-After (API priority and fairness), a 504 timeout, or the
 * connection fails (refused before the request reached the server, or reset before the answer
 * came back). With `applied: true` a timed-out or reset write was applied anyway and only the
 * response was lost, so the caller cannot tell whether it happened. It acts on writes and live
 * reads; for controllers that bring their own client (`kubeController`) also on every GET, LIST
 * and watch connect their informers make, answered with kube-apiserver's own `Status` bodies and
 * socket errors. A correct reconciler survives: it returns the error (the workqueue retries with
 * backoff), its retries are idempotent (deterministic names, so a create that did happen answers
 * AlreadyExists), and its informers retry a failed list or watch. One that creates with a
 * generated name blindly creates a second object after a lost response.
 *
 * Events: `{ kind: 'api-error', nth, params: { status, retryAfterSeconds?, applied? } }` fails
 * the nth API call of the run (0-based, over controller writes and reads that reach the API
 * server; cached reads never do); `status` is 500, 503, 429, 504, `'refused'` or `'reset'`;
 * `target` limits it to one controller. With `target: 'user'` it fails the nth write of the user
 * instead (counted over user writes only; the user retries it with backoff, as kubectl-apply
 * loops and GitOps tools do; a refused connection is a 503 to the user, a reset one a timeout).
 * Background: `{ kind: 'api-error', rate, params: { status } }`.
 * @public
 */
export const apiError = defineFault({
  kind: 'api-error',
  models: 'the API server answering 500/503, 429 with Retry-After, timing out, or the connection refused or reset (a timed-out or reset write may have been applied), on writes, reads and watch connects',
  survivedBy: 'returning the error for a backed-off retry, retries that are idempotent, informers that retry their list and watch',
  actsOn: 'call',
  arbitrary: (ctx) => {
    const controllerEvent = fc.record({ kind: fc.constant('api-error'), nth: fc.nat({ max: ctx.maxNth }), params: errorParams() });
    if (!ctx.userWrites) return eventsOf(controllerEvent);
    // a story's user writes can fail too: the user retries them (kubectl apply in a loop, GitOps)
    const userEvent = fc.record({ kind: fc.constant('api-error'), nth: fc.nat({ max: Math.max(0, ctx.userWrites - 1) }), target: fc.constant('user'), params: errorParams() });
    return eventsOf(fc.oneof(controllerEvent, userEvent));
  },
  backgroundArbitrary: () => fc.record({ kind: fc.constant('api-error'), rate: rate(), params: errorParams() }),
  install({ world, rng, fired }, plan) {
    const index = byNth(plan.events);
    const bg = strongest(plan.background);
    let calls = 0;
    const decide = (actor: string, detail: Record<string, unknown>, write: boolean): WriteDecision | undefined => {
      const n = calls++;
      const e = index.get(n)?.find((x) => x.target === undefined || actor.startsWith(`controller:${x.target}/`));
      const background = e === undefined && bg !== undefined && rng.chance(bg.rate);
      if (!e && !background) return undefined;
      const params = (e ?? bg)?.params;
      const status = statusOf(params);
      const applied = write && (status === 504 || status === 'reset') && bool(params, 'applied', false);
      const retryAfterSeconds = status === 429 || (status === 503 && params?.['retryAfterSeconds'] !== undefined) ? int(params, 'retryAfterSeconds', 1, 0, 3600) : undefined;
      fired({ nth: n, actor, ...detail, status, ...(applied ? { applied } : {}), ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}), ...(background ? { background: true } : {}) });
      if (status === 'refused') return { type: 'connection', how: 'refused' };
      if (status === 'reset') return { type: 'connection', how: 'reset', applied };
      if (status === 504) return { type: 'timeout', applied };
      return retryAfterSeconds !== undefined ? { type: 'error', status, retryAfterSeconds } : { type: 'error', status };
    };
    const userEvents = byNth(plan.events.filter((e) => e.target === 'user'));
    return world.seams.install({
      onUserWrite(i): WriteDecision | undefined {
        const e = userEvents.get(i.seq)?.[0];
        if (!e) return undefined;
        const raw = statusOf(e.params);
        // a user's tool sees a refused connection as unavailable, a reset one as a timeout
        const status = raw === 'refused' ? 503 : raw === 'reset' ? 504 : raw;
        const applied = status === 504 && bool(e.params, 'applied', false);
        const retryAfterSeconds = status === 429 || (status === 503 && e.params?.['retryAfterSeconds'] !== undefined) ? int(e.params, 'retryAfterSeconds', 1, 0, 3600) : undefined;
        fired({ nth: i.seq, target: 'user', actor: 'user', verb: i.verb, objectKind: i.kind, key: i.key, action: i.action, attempt: i.attempt, status: raw, ...(applied ? { applied } : {}), ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
        if (status === 504) return { type: 'timeout', applied };
        return retryAfterSeconds !== undefined ? { type: 'error', status, retryAfterSeconds } : { type: 'error', status };
      },
      onWrite: (i) => decide(i.actor, { verb: i.verb, objectKind: i.kind, key: i.key }, true),
      onRead(i): ReadDecision | undefined {
        if (i.cached) return undefined;
        const d = decide(i.actor, { verb: i.verb, objectKind: i.kind, ...(i.key !== undefined ? { key: i.key } : {}) }, false);
        if (!d || d.type === 'pass' || d.type === 'conflict') return undefined;
        return d.type === 'timeout' ? { type: 'error', status: 504 } : d;
      },
    });
  },
});

function statusOf(params: JsonObject | undefined): ErrorStatus {
  const raw = params?.['status'];
  if (raw === 'refused' || raw === 'reset') return raw;
  const s = int(params, 'status', 500, 0, 999);
  return s === 503 || s === 429 || s === 504 ? s : 500;
}

/** 500 first (shrinks toward it), then 503, 429 + Retry-After, 504 and reset applied or not, refused. */
function errorParams(): fc.Arbitrary<JsonObject> {
  return fc
    .record({ status: fc.constantFrom<ErrorStatus>(500, 503, 429, 504, 'refused', 'reset'), applied: fc.boolean(), retryAfterSeconds: fc.integer({ min: 0, max: 5 }) })
    .map(({ status, applied, retryAfterSeconds }): JsonObject => (status === 504 || status === 'reset' ? { status, applied } : status === 429 ? { status, retryAfterSeconds } : { status }));
}
