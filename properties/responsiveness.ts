import { defineProperty, type RunRecord, type Verdict } from '../src/harness/property.js';
import { explanation, fmtDuration, fmtTime, letFacts, plural } from '../src/report/explain.js';
import { fmtReconcile } from './_internals/last-actions.js';
import { timelineOf, type Notify, type ReconcileSpan, type Timeline } from './_internals/timeline.js';

/** Options of {@link responsiveness}. @public */
export interface ResponsivenessOptions {
  /** Longest allowed wait (virtual ms) from an enqueued change to the start of its reconcile. @defaultValue 2000 */
  maxLatencyMs: number;
}

interface Wait {
  notify: Notify;
  start: number | undefined;
  latency: number;
}

/** Whether the replica was the leader at time t (always, when it never took part in an election). */
function leading(tl: Timeline, controller: string, replica: number, t: number): boolean {
  const identity = `${controller}-${replica}`;
  let state: boolean | undefined;
  for (const e of tl.leaders) {
    if (e.t > t) break;
    if (e['identity'] === identity) state = e['leader'] === true;
  }
  return state ?? !tl.leaders.some((e) => typeof e['identity'] === 'string' && (e['identity'] as string).startsWith(`${controller}-`));
}

/**
 * Whether an injected downstream hang or latency held this replica meanwhile: the wait is then
 * the fault's doing (a timeout the controller cannot shorten on virtual time), not the reconciler's.
 */
function stalledByFault(tl: Timeline, actor: string, from: number, to: number): boolean {
  return tl.stalls.some((s) => s.actor === actor && s.from < to && (s.to === undefined || s.to > from));
}

function waits(run: RunRecord, tl: Timeline): Wait[] {
  const out: Wait[] = [];
  // reconciles per replica and key, in trace order, for a binary search per notification
  const byKey = new Map<string, ReconcileSpan[]>();
  for (const r of tl.reconciles) {
    const k = `${r.actor}\u0000${r.key}`;
    let a = byKey.get(k);
    if (!a) byKey.set(k, (a = []));
    a.push(r);
  }
  for (const n of tl.notifies) {
    if (!n.delivered || !leading(tl, n.controller, n.replica, n.t)) continue;
    const actor = `controller:${n.controller}/${n.replica}`;
    const next = firstAfter(byKey.get(`${actor}\u0000${n.key}`) ?? [], n.index);
    const crashed = tl.crashes.some((c) => c['controller'] === n.controller && c['replica'] === n.replica && c.t >= n.t && (next === undefined || c.t <= next.start));
    if (crashed) continue; // the queue died with the process; the restart relists
    if (stalledByFault(tl, actor, n.t, next?.start ?? run.timing.end)) continue;
    out.push({ notify: n, start: next?.start, latency: (next?.start ?? run.timing.end) - n.t });
  }
  return out;
}

/** The first reconcile that started after trace position `index`. */
function firstAfter(spans: readonly ReconcileSpan[], index: number): ReconcileSpan | undefined {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (spans[mid]!.startIndex > index) hi = mid;
    else lo = mid + 1;
  }
  return spans[lo];
}

/**
 * Responsiveness (SPEC §1, §5): the time from a change (a key enqueued by an event) to the start
 * of its reconcile stays under a bound. Catches sleeping or long blocking calls inside reconcile
 * and starved workers: the explanation names the reconcile that held the worker and for how long.
 * @example properties.responsiveness({ maxLatencyMs: 500 })
 * @public
 */
export const responsiveness = defineProperty<ResponsivenessOptions>({
  name: 'responsiveness',
  description: 'the time from an enqueued change to the start of its reconcile stays under the bound',
  defaults: { maxLatencyMs: 2000 },
  validate: (o) => (!(o.maxLatencyMs > 0) ? `maxLatencyMs must be > 0 virtual ms, got ${String(o.maxLatencyMs)}` : undefined),
  judge: (run, o): Verdict => {
    const tl = timelineOf(run);
    const all = waits(run, tl);
    let worst: Wait | undefined;
    for (const w of all) if (w.latency > o.maxLatencyMs && (!worst || w.latency > worst.latency)) worst = w;
    const p = all.map((w) => w.latency).sort((a, b) => a - b);
    if (!worst) return { ok: true, stats: { changes: all.length, maxLatencyMs: p.at(-1) ?? 0 } };
    const n = worst.notify;
    const until = worst.start ?? run.timing.end;
    // what kept the worker(s) of that replica busy meanwhile: the longest reconcile overlapping the wait
    const actor = `controller:${n.controller}/${n.replica}`;
    const busy = tl.reconciles
      .filter((r) => r.actor === actor && r.start < until && (r.end ?? run.timing.end) > n.t)
      .sort((a, b) => (b.end ?? run.timing.end) - b.start - ((a.end ?? run.timing.end) - a.start))[0];
    const late = all.filter((w) => w.latency > o.maxLatencyMs).length;
    const then = [
      `the ${n.event} change of ${n.kind} ${n.key} was enqueued for ${n.controller}/${n.replica} at ${fmtTime(n.t)}, but its reconcile ${worst.start !== undefined ? `started only at ${fmtTime(worst.start)}` : 'had not started by the end of the run'}: a wait of ${fmtDuration(worst.latency)}, bound ${fmtDuration(o.maxLatencyMs)}`,
    ];
    if (busy) then.push(`meanwhile the ${fmtReconcile(busy)} held a worker for ${fmtDuration((busy.end ?? run.timing.end) - busy.start)}`);
    const blocked = run.blocked.filter((b) => b.label.includes(`${n.controller}/${n.replica}`));
    if (blocked.length) then.push(`${plural(blocked.length, 'reconcile')} waited on something outside the simulation (given up at ${fmtTime(blocked[0]!.at)})`);
    then.push(`${plural(late, 'change')} waited longer than the bound`, 'do not sleep or block inside reconcile: return { requeueAfter } and let the worker take the next key, or raise maxConcurrentReconciles');
    return {
      ok: false,
      summary: `slow to respond: ${n.kind} ${n.key} waited ${fmtDuration(worst.latency)} for its reconcile (bound ${fmtDuration(o.maxLatencyMs)})`,
      explanation: explanation(letFacts(run.trace, { until }), then),
      evidence: {
        controller: n.controller,
        replica: n.replica,
        key: n.key,
        enqueuedAt: n.t,
        startedAt: worst.start ?? null,
        latencyMs: worst.latency,
        heldBy: busy ? { key: busy.key, start: busy.start, end: busy.end ?? null, ms: (busy.end ?? run.timing.end) - busy.start } : null,
        lateChanges: late,
      },
    };
  },
});
