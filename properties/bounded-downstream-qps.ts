import { defineProperty, nothingToJudge, type Verdict } from '../src/harness/property.js';
import { explanation, fmtDuration, fmtList, fmtTime, letFacts } from '../src/report/explain.js';
import { fmtReconcile } from './_internals/last-actions.js';
import { staleReplay, staleReplayAdvice } from './_internals/replayed.js';
import { timelineOf, type ReconcileSpan, type Timeline, type TimelineRequest } from './_internals/timeline.js';
import { densestWindow, groupBy } from './_internals/windows.js';

/** Options of {@link boundedDownstreamQps}. @public */
export interface BoundedDownstreamQpsOptions {
  /** Requests allowed per endpoint in any window. @defaultValue 10 */
  maxRequests: number;
  /** The window (virtual ms). @defaultValue 1000 */
  windowMs: number;
  /**
   * Over how long the rate must exceed the bound (virtual ms, ≥ windowMs): the allowance is
   * `maxRequests × sustainedMs / windowMs` in any window of this length. A burst of event-driven
   * reconciles (duplicated events, conflicts) settles within a second under backoff; a retry
   * storm or a polling loop does not. Set it to `windowMs` for the strict "any 1 s window" reading.
   * @defaultValue 2000
   */
  sustainedMs: number;
  /**
   * Count per endpoint, or per endpoint and reconcile key in each controller process: client-go
   * backs off per item and each process (replica) has its own queue, so a correct controller
   * retrying several failing objects, or running two replicas that both act, sends several times
   * the per-item rate.
   * @defaultValue 'endpoint-and-key'
   */
  per: 'endpoint' | 'endpoint-and-key';
  /**
   * Which requests count: every one, or only those that change something (POST, PUT, PATCH,
   * DELETE) or failed. A correct controller that looks something up on every reconcile reads in
   * bursts when events and conflicts pile up; a retry storm is made of failures and writes.
   * @defaultValue 'failures-and-writes'
   */
  count: 'all' | 'failures-and-writes';
  /**
   * Also fail when a run of at least `backoffAfter` consecutive failed attempts (the first failed
   * call of each reconcile) to one endpoint for one reconcile key (by one controller process)
   * shows no growing waits (no exponential backoff), even under the rate bound: a fixed short
   * requeue. A reconcile whose calls to the endpoint all succeeded breaks the run. A wait is
   * what the controller chose after a failed attempt (the queue's backoff or
   * its `requeueAfter`); reconciles that an event started are no retries; a `requeueAfter` retry
   * that came when the failed attempt's `Retry-After` said is the server's pacing, not counted;
   * at least three waits are needed to judge; waits of a second or more count as backoff.
   * @defaultValue true
   */
  requireBackoff: boolean;
  /** Consecutive failures before backoff is required. @defaultValue 5 */
  backoffAfter: number;
}

/**
 * Bounded downstream QPS (SPEC §5): per endpoint (method + normalised path), requests in any
 * window stay under the bound, also while the endpoint fails every call: the retry-storm bug
 * (immediate requeue on failure, no backoff). The explanation lists the retry gaps, the evidence
 * of backoff or its absence.
 * @example properties.boundedDownstreamQps({ maxRequests: 5 })
 * @public
 */
export const boundedDownstreamQps = defineProperty<BoundedDownstreamQpsOptions>({
  name: 'bounded-downstream-qps',
  description: 'per endpoint, downstream requests in any 1 s window stay under the bound, with growing retry gaps while it fails',
  defaults: { maxRequests: 10, windowMs: 1000, sustainedMs: 2000, per: 'endpoint-and-key', count: 'failures-and-writes', requireBackoff: true, backoffAfter: 5 },
  validate: (o) =>
    !(o.maxRequests >= 1)
      ? `maxRequests must be ≥ 1, got ${String(o.maxRequests)}`
      : !(o.windowMs > 0)
        ? `windowMs must be > 0, got ${String(o.windowMs)}`
        : !(o.sustainedMs >= o.windowMs)
          ? `sustainedMs must be ≥ windowMs (${o.windowMs}), got ${String(o.sustainedMs)}`
          : o.per !== 'endpoint' && o.per !== 'endpoint-and-key'
            ? `per must be 'endpoint' or 'endpoint-and-key', got ${JSON.stringify(o.per)}`
            : o.count !== 'all' && o.count !== 'failures-and-writes'
              ? `count must be 'all' or 'failures-and-writes', got ${JSON.stringify(o.count)}`
            : !(o.backoffAfter >= 2)
              ? `backoffAfter must be ≥ 2, got ${String(o.backoffAfter)}`
              : undefined,
  judge: (run, o): Verdict => {
    const tl = timelineOf(run);
    const requests = tl.requests.length > 0 ? tl.requests : fromRecord(run.requests);
    const counted = o.count === 'all' ? requests : requests.filter((r) => r.mutating || failed(r));
    const sorted = [...counted].sort((a, b) => a.t - b.t);
    const byEndpoint = groupBy(sorted, (r) => r.endpoint);
    // a crash restarts a process with a fresh queue, but under the same actor: it counts as one
    const groups = o.per === 'endpoint' ? byEndpoint : groupBy(sorted, (r) => `${r.endpoint}\u0000${r.reconcile?.key ?? ''}\u0000${r.actor}`);
    const span = o.sustainedMs;
    const allowed = (o.maxRequests * span) / o.windowMs;
    let peak = 0;
    let worst: { reqs: TimelineRequest[]; w: ReturnType<typeof densestWindow> } | undefined;
    for (const reqs of groups.values()) {
      peak = Math.max(peak, densestWindow(reqs.map((r) => r.t), o.windowMs).count);
      const w = densestWindow(reqs.map((r) => r.t), span);
      if (w.count > allowed && (!worst || w.count > worst.w.count)) worst = { reqs, w };
    }
    if (worst) {
      const inWindow = worst.reqs.slice(worst.w.from, worst.w.to + 1);
      const first = inWindow[0]!;
      const forKey = o.per === 'endpoint-and-key' ? `${first.reconcile ? ` for ${first.reconcile.key}` : ''} by ${first.actor}` : '';
      return failure(run, o, first.endpoint, inWindow, `${worst.w.count} requests to ${first.endpoint}${forKey} within ${fmtDuration(span)} from ${fmtTime(worst.w.start)}, bound ${o.maxRequests} per ${fmtDuration(o.windowMs)}`);
    }
    if (o.requireBackoff) {
      // per key and process, as client-go backs off: the calls of other keys interleave
      // made when a streak of failures needs it (most runs have none): a pure index of the timeline
      let retries: Map<ReconcileSpan, Retry> | undefined;
      // streaks over every call, not only the counted ones: a read that succeeded between two
      // failed ones (a flaky endpoint, polled) breaks the run, whatever `count` says
      const all = [...requests].sort((a, b) => a.t - b.t);
      for (const reqs of groupBy(all, (r) => `${r.endpoint}\u0000${r.reconcile?.key ?? ''}\u0000${r.actor}`).values()) {
        const endpoint = reqs[0]!.endpoint;
        for (const streak of failureStreaks(attempts(reqs), o.backoffAfter)) {
          // growth needs three waits to show (5, 10, 20 ms); reconciles events started are not among them
          for (const waits of waitSeries(streak, (retries ??= retriesOf(tl)))) {
            if (waits.length >= 3 && !grows(waits)) return failure(run, o, endpoint, streak, `${streak.length} consecutive failed attempts to call ${endpoint} retried without backoff (waits ${fmtGaps(waits)} between a failed attempt and its retry)`, waits);
          }
        }
      }
    }
    if (requests.length === 0) return nothingToJudge('the controllers sent no downstream request', { peakPerWindow: 0 });
    return { ok: true, stats: { peakPerWindow: peak } };
  },
});

function fromRecord(rs: readonly { t: number; tEnd: number; actor: string; method: string; url: string; endpoint: string; status: number; outcome: string; mutating: boolean; fault?: string; applied?: boolean; responseHeaders?: Record<string, string> }[]): TimelineRequest[] {
  return rs.map((r, index) => ({ index, t: r.t, tEnd: r.tEnd, actor: r.actor, method: r.method, url: r.url, endpoint: r.endpoint, status: r.status, outcome: r.outcome, mutating: r.mutating, fault: r.fault, applied: r.applied, headers: r.responseHeaders, reconcile: undefined }));
}

const failed = (r: TimelineRequest) => r.outcome !== 'ok';

/** Runs of at least `min` consecutive failed calls by one actor. */
function failureStreaks(reqs: readonly TimelineRequest[], min: number): TimelineRequest[][] {
  const out: TimelineRequest[][] = [];
  for (const mine of groupBy(reqs, (r) => r.actor).values()) {
    let cur: TimelineRequest[] = [];
    for (const r of [...mine, undefined]) {
      if (r && failed(r)) cur.push(r);
      else {
        if (cur.length >= min) out.push(cur);
        cur = [];
      }
    }
  }
  return out;
}

function gapsOf(reqs: readonly TimelineRequest[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < reqs.length; i++) gaps.push(reqs[i]!.t - reqs[i - 1]!.t);
  return gaps;
}

/**
 * Per reconcile that retries the one before it (same process, same key), the wait the
 * controller chose before it. client-go adds an event's key at once, past any backoff (so do
 * resyncs), so a reconcile an event from someone else started (another writer's conflicting
 * update, a user's edit, a resync) is no retry: its timing says nothing about the controller's
 * backoff. Started by the queue, the wait is the delay the previous reconcile asked for (the
 * rate-limited queue's `retryInMs`, or its `requeueAfter`): not the time a call took to fail
 * (a call that fails after 200 ms, retried 5, 10, 20 ms later, backs off), and not the earlier
 * retry that fired while a slow reconcile ran and re-ran the key at once (client-go's dirty set).
 * A reconcile its own write's event started (a failure written to status) is no retry either: a
 * backing-off client-go controller does that too, and a status write that re-runs the key on
 * every failure at watch speed is a storm the rate bound catches.
 */
/** A retry's wait, and who chose it: the rate-limited queue's backoff, or the controller's `requeueAfter`. */
interface Retry {
  waitMs: number;
  by: 'queue' | 'requeueAfter';
  /**
   * How many times the queue forgot the key's failures before this reconcile (a reconcile of it
   * that ended done or requeueAfter, or a crash): the queue's backoff grows only within one.
   */
  episode: number;
}

function retriesOf(tl: Timeline): Map<ReconcileSpan, Retry> {
  const events = new Map<string, number[]>();
  for (const n of tl.notifies) {
    if (!n.delivered) continue;
    const k = `controller:${n.controller}/${n.replica}\u0000${n.key}`;
    const list = events.get(k);
    if (list) list.push(n.index);
    else events.set(k, [n.index]);
  }
  const out = new Map<ReconcileSpan, Retry>();
  const last = new Map<string, ReconcileSpan>();
  const forgets = new Map<string, number>();
  for (const span of tl.reconciles) {
    const k = `${span.actor}\u0000${span.key}`;
    const prev = last.get(k);
    last.set(k, span);
    if (prev && (prev.result === 'done' || prev.result === 'requeueAfter' || prev.result === 'crashed' || prev.result === 'stopped')) forgets.set(k, (forgets.get(k) ?? 0) + 1);
    const episode = forgets.get(k) ?? 0;
    if (!prev || prev.end === undefined || prev.result === 'crashed' || prev.result === 'stopped') continue;
    // started by an event (its own write's too): client-go adds the key at once, past any backoff
    if ((events.get(k) ?? []).some((i) => i > prev.startIndex && i < span.startIndex)) continue;
    if (prev.result === 'requeueAfter' && prev.requeueAfter !== undefined) out.set(span, { waitMs: prev.requeueAfter, by: 'requeueAfter', episode });
    else if ((prev.result === 'error' || prev.result === 'requeue') && prev.retryInMs !== undefined) out.set(span, { waitMs: prev.retryInMs, by: 'queue', episode });
  }
  return out;
}

/**
 * The waits before the retries of a streak (see {@link retriesOf}), as the series backoff must
 * show in: every `requeueAfter` the controller chose (its own retry timing, wherever it comes in
 * the streak), and each unbroken run of the queue's backoff (a `requeueAfter` result resets it,
 * as client-go's Forget does: a poll that also throws starts again at 5 ms; so does a success
 * of the key between two attempts). Calls outside
 * reconciles (a hosted program) wait from the end of the previous attempt.
 */
function waitSeries(streak: readonly TimelineRequest[], retries: Map<ReconcileSpan, Retry>): number[][] {
  const chosen: number[] = [];
  const observed: number[] = [];
  const queued: number[][] = [[]];
  let episode: number | undefined;
  for (let i = 1; i < streak.length; i++) {
    const r = streak[i]!;
    if (!r.reconcile) {
      observed.push(Math.max(0, r.t - streak[i - 1]!.tEnd));
      continue;
    }
    const retry = retries.get(r.reconcile);
    if (retry === undefined) continue;
    if (retry.by === 'queue') {
      // a success of the key between two attempts (one that did not call this endpoint) made
      // the queue forget: its backoff starts again at the base delay, a new series
      if (episode !== undefined && retry.episode !== episode && queued[queued.length - 1]!.length > 0) queued.push([]);
      episode = retry.episode;
      queued[queued.length - 1]!.push(retry.waitMs);
    } else {
      // a wait the server set: the API answered with Retry-After and the retry came when it said (meter-sync waits
      // exactly as asked, 1 s again and again, or what is left of it after an event), pacing that is no storm
      if (!serverPaced(streak[i - 1]!, r)) chosen.push(retry.waitMs);
      if (queued[queued.length - 1]!.length > 0) queued.push([]);
    }
  }
  return [chosen, observed, ...queued].filter((w) => w.length > 0);
}

/** Whether `retry` came at or after the time the `Retry-After` (seconds) of the failed attempt before it named. */
function serverPaced(failedAttempt: TimelineRequest, retry: TimelineRequest): boolean {
  const v = failedAttempt.headers?.['retry-after']?.trim();
  return v !== undefined && /^\d+$/.test(v) && retry.t >= failedAttempt.tEnd + Number(v) * 1000;
}

/**
 * Backoff shows as gaps between attempts that grow: the longest at least twice the median (the
 * median, not the first: the event a failing reconcile's own status write causes requeues it once
 * at once), or gaps of a second or more anyway. A fixed short requeue has none.
 */
function grows(gaps: readonly number[]): boolean {
  if (gaps.length === 0) return true;
  const sorted = [...gaps].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return sorted[sorted.length - 1]! >= 2 * Math.max(1, median) || gaps.every((g) => g >= 1000);
}

/**
 * One attempt per reconcile (a reconcile may call an endpoint several times): its first failed
 * call, or its first call if none failed.
 */
function attempts(reqs: readonly TimelineRequest[]): TimelineRequest[] {
  const chosen = new Map<ReconcileSpan, TimelineRequest>();
  for (const r of reqs) {
    if (!r.reconcile) continue;
    const had = chosen.get(r.reconcile);
    if (!had || (!failed(had) && failed(r))) chosen.set(r.reconcile, r);
  }
  return reqs.filter((r) => !r.reconcile || chosen.get(r.reconcile) === r);
}

function fmtGaps(gaps: readonly number[]): string {
  const shown = gaps.slice(0, 8).map((g) => fmtDuration(g));
  return `${shown.join(', ')}${gaps.length > 8 ? ', …' : ''}`;
}

function failure(run: Parameters<typeof timelineOf>[0], o: BoundedDownstreamQpsOptions, endpoint: string, reqs: readonly TimelineRequest[], what: string, waits?: readonly number[]): Verdict {
  const failures = reqs.filter(failed);
  const statuses = [...new Set(reqs.map((r) => (r.status > 0 ? String(r.status) : r.outcome)))];
  const gaps = gapsOf(reqs);
  const actors = [...new Set(reqs.map((r) => r.actor))];
  const first = reqs[0]!;
  const then = [
    what,
    `${failures.length} of them failed (${fmtList(statuses, 4)}), sent by ${fmtList(actors, 3)}`,
    failures.length === 0
      ? `the gaps between calls were ${fmtGaps(gaps)}: calls that succeed, repeated`
      : `the gaps between calls were ${fmtGaps(gaps)}: ${grows(gaps) ? 'they grow, but not fast enough' : 'they do not grow, so failures are retried without backoff'}`,
  ];
  if (waits !== undefined) then.splice(2, 1, `after each failed attempt the controller waited ${fmtGaps(waits)} before the next: ${grows(waits) ? 'the waits grow, but not fast enough' : 'the waits do not grow, so failures are retried without backoff'}`);
  if (first.reconcile) then.push(`the calls came from the ${fmtReconcile(first.reconcile)} and the reconciles after it`);
  const replay = staleReplay(run, reqs, timelineOf(run).requests);
  if (replay) then.push(staleReplayAdvice(replay));
  else if (failures.length === 0) then.push('call again only when something changed, or poll with a requeueAfter of seconds: a successful call needs no retry');
  else then.push('retry through the rate-limited queue (throw, or return { requeue: true }) instead of requeueAfter a fixed short delay or a loop inside reconcile');
  return {
    ok: false,
    summary: `downstream QPS unbounded: ${what}`,
    explanation: explanation(letFacts(run.trace, { until: reqs[reqs.length - 1]!.t }), then),
    evidence: {
      endpoint,
      bound: { maxRequests: o.maxRequests, windowMs: o.windowMs },
      count: reqs.length,
      failed: failures.length,
      gapsMs: gaps.slice(0, 50),
      ...(waits !== undefined ? { waitsMs: waits.slice(0, 50) } : {}),
      requests: reqs.slice(0, 20).map((r) => ({ t: r.t, actor: r.actor, method: r.method, url: r.url, status: r.status, outcome: r.outcome, fault: r.fault ?? null })),
    },
  };
}
