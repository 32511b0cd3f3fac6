import { defineProperty, nothingToJudge, type Verdict } from '../src/harness/property.js';
import { explanation, fmtActor, fmtDuration, fmtRequest, fmtTime, letFacts } from '../src/report/explain.js';
import { timelineOf, type TimelineRequest } from './_internals/timeline.js';

/** Options of {@link honoursRetryAfter}. @public */
export interface HonoursRetryAfterOptions {
  /** Statuses whose `Retry-After` must be honoured. @defaultValue [429, 503] */
  statuses: number[];
  /**
   * What one answer's wait covers: every request of that process to the same origin (scheme, host
   * and port: a rate limit is the client's, whichever path it calls next), or only to the same
   * endpoint (method and path). @defaultValue 'origin'
   */
  scope: 'origin' | 'endpoint';
}

/**
 * Honours Retry-After (opt-in; not among the defaults): once a downstream API answered a process
 * 429 or 503 with `Retry-After: N` (seconds), that process sends it nothing more for N seconds:
 * no retry of that call, and no other call to the same API from another reconcile (an event
 * that starts one changes nothing about the server's limit). Exponential backoff alone does not:
 * the queue's first retries come after 5 and 10 ms. A correct controller remembers the time the
 * server named, per process and API (a shared rate limiter), and returns `requeueAfter` until
 * then. Answers a fault forged count as the server's (a load balancer's 503 with Retry-After is
 * one); a process that crashed since is not held to what it was told before; an HTTP-date
 * Retry-After is not judged.
 * @example properties.honoursRetryAfter({ scope: 'endpoint' })
 * @public
 */
export const honoursRetryAfter = defineProperty<HonoursRetryAfterOptions>({
  name: 'honours-retry-after',
  description: 'no request to an API before the time its 429/503 Retry-After named, from the process it answered',
  defaults: { statuses: [429, 503], scope: 'origin' },
  validate: (o) => (!Array.isArray(o.statuses) || o.statuses.some((s) => !Number.isInteger(s)) ? 'statuses must be an array of HTTP status codes, e.g. [429, 503]' : o.scope !== 'origin' && o.scope !== 'endpoint' ? `scope must be 'origin' or 'endpoint', got ${JSON.stringify(o.scope)}` : undefined),
  judge: (run, o): Verdict => {
    const tl = timelineOf(run);
    const reqs = [...tl.requests].sort((a, b) => a.t - b.t || a.index - b.index);
    // a process that crashed starts again with nothing in memory: what it was told before is gone with it
    const crashes = tl.crashes.map((e) => ({ t: e.t, actor: `controller:${String(e['controller'])}/${typeof e['replica'] === 'number' ? e['replica'] : 0}` }));
    const crashedBetween = (actor: string, from: number, to: number) => crashes.some((c) => c.actor === actor && c.t >= from && c.t <= to);
    const statuses = new Set(o.statuses);
    const scopeOf = (r: TimelineRequest) => `${r.actor}\u0000${o.scope === 'origin' ? originOf(r.url) : r.endpoint}`;
    // per process and scope: until when the server asked to be left alone, and which answer said so
    const quiet = new Map<string, { until: number; answer: TimelineRequest; seconds: number }>();
    // answers in the order they arrived, merged with the requests in the order they were sent
    const answers = reqs.filter((r) => statuses.has(r.status) && secondsOf(r) !== undefined).sort((a, b) => a.tEnd - b.tEnd);
    let next = 0;
    for (const r of reqs) {
      // strictly before: a request sent in the instant an answer came (the answered request itself, when a fault answered at once) did not know it
      while (next < answers.length && answers[next]!.tEnd < r.t) {
        const a = answers[next++]!;
        const seconds = secondsOf(a)!;
        const k = scopeOf(a);
        const until = a.tEnd + seconds * 1000;
        if ((quiet.get(k)?.until ?? -1) < until) quiet.set(k, { until, answer: a, seconds });
      }
      const q = quiet.get(scopeOf(r));
      if (!q || r.t >= q.until || crashedBetween(r.actor, q.answer.tEnd, r.t)) continue;
      const early = q.until - r.t;
      const then = [
        `${fmtRequest(q.answer)} said Retry-After: ${q.seconds} (not before ${fmtTime(q.until)})`,
        `${fmtActor(r.actor)} sent ${r.method} ${r.url} at ${fmtTime(r.t)}, ${fmtDuration(early)} before then${r.reconcile ? `, from a reconcile of ${r.reconcile.key}` : ''}`,
        'a rate-limited client waits as long as the server asked before calling it again (remember the time per API in the process and return requeueAfter until then); the queue\'s exponential backoff starts at 5 ms and ignores it',
      ];
      return {
        ok: false,
        summary: `Retry-After ignored: ${r.method} ${originOf(r.url)} at ${fmtTime(r.t)}, ${fmtDuration(early)} before the ${q.seconds} s the ${q.answer.status} answer at ${fmtTime(q.answer.tEnd)} asked for`,
        explanation: explanation(letFacts(run.trace, { until: r.t }), then),
        evidence: { answer: { t: q.answer.tEnd, status: q.answer.status, url: q.answer.url, retryAfterSeconds: q.seconds }, early: { t: r.t, actor: r.actor, method: r.method, url: r.url }, earlyByMs: early },
      };
    }
    return answers.length === 0 ? nothingToJudge(`no downstream or API answer was a ${[...statuses].join(' or ')} with a Retry-After in seconds`) : { ok: true };
  },
});

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Retry-After in seconds (delta-seconds only), or undefined. */
function secondsOf(r: TimelineRequest): number | undefined {
  const v = r.headers?.['retry-after'];
  return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined;
}
