import { defineProperty, nothingToJudge, type RunRecord, type Verdict } from '../src/harness/property.js';
import { explanation, fmtDuration, fmtTime, letFacts, plural } from '../src/report/explain.js';
import { fmtReconcile } from './_internals/last-actions.js';
import { Leadership } from './_internals/leadership.js';
import { timelineOf, type Notify, type ReconcileSpan, type Timeline } from './_internals/timeline.js';

/** Options of {@link responsiveness}. @public */
export interface ResponsivenessOptions {
  /**
   * Longest allowed wait (virtual ms) from a change reaching the controller (its event; the same
   * as its enqueue unless a slow event handler held it back) to the start of its reconcile.
   * @defaultValue 2000
   */
  maxLatencyMs: number;
}

interface Wait {
  notify: Notify;
  /** When the change reached the controller: its event, before any handler held it back. */
  from: number;
  start: number | undefined;
  /** The part of the wait the replica could take keys (held the Lease, or needed none). */
  latency: number;
  /** When the replica could first take keys after the change reached it, when that was later (a standby that took over). */
  activeFrom: number | undefined;
}

/**
 * Whether an injected downstream hang or latency held this replica meanwhile: the wait is then
 * the fault's doing (a timeout the controller cannot shorten on virtual time), not the reconciler's.
 */
function stalledByFault(tl: Timeline, actor: string, from: number, to: number): boolean {
  return tl.stalls.some((s) => s.actor === actor && s.from < to && (s.to === undefined || s.to > from));
}

/**
 * The waits of every delivered change. Only the time its replica could take keys counts: a
 * leader-elected controller legitimately runs no reconcile while it stands by, or while nobody
 * holds the Lease (the leader died and its Lease has not expired yet), so a change that reached a
 * standby is judged from the moment that replica took the Lease, and one that reached a replica
 * that never took it is left to the replica that did (it was notified too).
 */
function waits(run: RunRecord, tl: Timeline): Wait[] {
  const out: Wait[] = [];
  const lead = new Leadership(run.trace, run.timing.end);
  // reconciles per replica and key, in trace order, for a binary search per notification
  // by actor, then key: no string made per reconcile or per notification
  const byKey = new Map<string, Map<string, ReconcileSpan[]>>();
  for (const r of tl.reconciles) {
    let keys = byKey.get(r.actor);
    if (!keys) byKey.set(r.actor, (keys = new Map()));
    let a = keys.get(r.key);
    if (!a) keys.set(r.key, (a = []));
    a.push(r);
  }
  const actors = new Map<string, string[]>();
  for (const n of tl.notifies) {
    if (!n.delivered) continue;
    let byReplica = actors.get(n.controller);
    if (!byReplica) actors.set(n.controller, (byReplica = []));
    const actor = Number.isInteger(n.replica) && n.replica >= 0 && n.replica < 64 ? (byReplica[n.replica] ??= `controller:${n.controller}/${n.replica}`) : `controller:${n.controller}/${n.replica}`;
    const next = firstAfter(byKey.get(actor)?.get(n.key) ?? [], n.index);
    const crashed = tl.crashes.some((c) => c['controller'] === n.controller && c['replica'] === n.replica && c.t >= n.t && (next === undefined || c.t <= next.start));
    if (crashed) continue; // the queue died with the process; the restart relists
    if (stalledByFault(tl, actor, n.t, next?.start ?? run.timing.end)) continue;
    const from = n.eventAt ?? n.t;
    const active = lead.activeWithin(n.controller, n.replica, from, next?.start ?? run.timing.end);
    if (active.first === undefined) continue; // it stood by all along: the leader had the change too
    out.push({ notify: n, from, start: next?.start, latency: active.ms, activeFrom: active.first > from ? active.first : undefined });
  }
  return out;
}

/** The longest event handler of `actor` that ran during [from, to): a slow watch map. */
function slowestHandler(run: RunRecord, controller: string, replica: number, from: number, to: number): { kind: string; key: string; start: number; ms: number } | undefined {
  let best: { kind: string; key: string; start: number; ms: number } | undefined;
  for (const e of run.trace) {
    if (e.type !== 'handler:end' || e['controller'] !== controller || e['replica'] !== replica) continue;
    const ms = typeof e['ms'] === 'number' ? e['ms'] : 0;
    const start = e.t - ms;
    if (start < to && e.t > from && (!best || ms > best.ms)) best = { kind: String(e['kind']), key: String(e['key']), start, ms };
  }
  return best;
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
 * Responsiveness (SPEC §1, §5): the time from a change (the event that enqueued a key, as it
 * reached the controller) to the start of its reconcile stays under a bound. Catches sleeping or
 * long blocking calls inside reconcile, starved workers and heavy work in event handlers: the
 * explanation names the reconcile that held the worker, or the handler that held the events.
 * @example properties.responsiveness({ maxLatencyMs: 500 })
 * @public
 */
export const responsiveness = defineProperty<ResponsivenessOptions>({
  name: 'responsiveness',
  description: 'the time from a change reaching the controller to the start of its reconcile stays under the bound',
  defaults: { maxLatencyMs: 2000 },
  validate: (o) => (!(o.maxLatencyMs > 0) ? `maxLatencyMs must be > 0 virtual ms, got ${String(o.maxLatencyMs)}` : undefined),
  judge: (run, o): Verdict => {
    const tl = timelineOf(run);
    const all = waits(run, tl);
    let worst: Wait | undefined;
    for (const w of all) if (w.latency > o.maxLatencyMs && (!worst || w.latency > worst.latency)) worst = w;
    const p = all.map((w) => w.latency).sort((a, b) => a - b);
    if (!worst) return all.length === 0 ? nothingToJudge('no change reached a controller that had to wait for it (no event was followed by a reconcile to time)', { changes: 0, maxLatencyMs: 0 }) : { ok: true, stats: { changes: all.length, maxLatencyMs: p.at(-1) ?? 0 } };
    const n = worst.notify;
    const until = worst.start ?? run.timing.end;
    // what kept the worker(s) of that replica busy meanwhile: the longest reconcile overlapping the wait
    const actor = `controller:${n.controller}/${n.replica}`;
    const busy = tl.reconciles
      .filter((r) => r.actor === actor && r.start < until && (r.end ?? run.timing.end) > (worst.activeFrom ?? worst.from))
      .sort((a, b) => (b.end ?? run.timing.end) - b.start - ((a.end ?? run.timing.end) - a.start))[0];
    const late = all.filter((w) => w.latency > o.maxLatencyMs).length;
    const held = n.eventAt !== undefined ? slowestHandler(run, n.controller, n.replica, n.eventAt, n.t) : undefined;
    const counted = worst.activeFrom !== undefined ? `: ${fmtDuration(worst.latency)} of it after ${n.controller}/${n.replica} took the Lease at ${fmtTime(worst.activeFrom)} (the time it stood by, or nobody held the Lease, does not count)` : '';
    const then = [
      n.eventAt !== undefined
        ? `the ${n.event} change of ${n.kind} ${n.key} reached ${n.controller}/${n.replica} at ${fmtTime(n.eventAt)} and was enqueued only at ${fmtTime(n.t)}, and its reconcile ${worst.start !== undefined ? `started at ${fmtTime(worst.start)}` : 'had not started by the end of the run'}: a wait of ${fmtDuration(until - worst.from)}${counted}, bound ${fmtDuration(o.maxLatencyMs)}`
        : `the ${n.event} change of ${n.kind} ${n.key} was enqueued for ${n.controller}/${n.replica} at ${fmtTime(n.t)}, but its reconcile ${worst.start !== undefined ? `started only at ${fmtTime(worst.start)}` : 'had not started by the end of the run'}: a wait of ${fmtDuration(until - worst.from)}${counted}, bound ${fmtDuration(o.maxLatencyMs)}`,
    ];
    if (held) then.push(`meanwhile the event handler for ${held.kind} ${held.key} (a watch map) ran from ${fmtTime(held.start)} for ${fmtDuration(held.ms)}, and every later event of ${n.controller}/${n.replica} waited behind it`);
    if (busy) then.push(`meanwhile the ${fmtReconcile(busy)} held a worker for ${fmtDuration((busy.end ?? run.timing.end) - busy.start)}`);
    const blocked = run.blocked.filter((b) => b.label.includes(`${n.controller}/${n.replica}`));
    if (blocked.length) then.push(`${plural(blocked.length, 'reconcile')} waited on something outside the simulation (given up at ${fmtTime(blocked[0]!.at)})`);
    then.push(
      `${plural(late, 'change')} waited longer than the bound`,
      held
        ? 'keep event handlers cheap: map an event to keys from what the object says (labels, annotations, owner references) and do slow lookups in reconcile'
        : 'do not sleep or block inside reconcile: return { requeueAfter } and let the worker take the next key, or raise maxConcurrentReconciles',
    );
    return {
      ok: false,
      summary: `slow to respond: ${n.kind} ${n.key} waited ${fmtDuration(worst.latency)} for its reconcile${worst.activeFrom !== undefined ? ` after ${n.controller}/${n.replica} took the Lease` : ''} (bound ${fmtDuration(o.maxLatencyMs)})`,
      explanation: explanation(letFacts(run.trace, { until }), then),
      evidence: {
        controller: n.controller,
        replica: n.replica,
        key: n.key,
        enqueuedAt: n.t,
        ...(n.eventAt !== undefined ? { eventAt: n.eventAt } : {}),
        startedAt: worst.start ?? null,
        latencyMs: worst.latency,
        ...(worst.activeFrom !== undefined ? { leaderFrom: worst.activeFrom } : {}),
        ...(held ? { handler: held } : {}),
        heldBy: busy ? { key: busy.key, start: busy.start, end: busy.end ?? null, ms: (busy.end ?? run.timing.end) - busy.start } : null,
        lateChanges: late,
      },
    };
  },
});
