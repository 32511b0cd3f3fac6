import type { CheckStats } from './check-result.js';
import type { RecordedRequest, RunRecord } from './property.js';

/** What one run contributes to the stats of a check. @internal */
export interface RunStats {
  /** Primary objects created in the run. */
  objects: number;
  /** Reconciles before the quiet tail (the tail's extra reconciles are probes, not work). */
  reconciles: number;
  /** Controller store writes before the quiet tail. */
  writes: number;
  /** Virtual ms from the last fault or user action to convergence; null when the run did not pass. */
  latencyMs: number | null;
  /** Highest downstream requests in any 1 s window, any endpoint. */
  peakQps: number;
}

/**
 * Extracts one run's stats. Convergence latency is taken from the convergence property's verdict
 * when it reports one (`stats.latencyMs`, virtual ms), otherwise as the time of the last
 * controller or environment write that changed something before the quiet tail: in a run that
 * passed, nothing changed after it.
 * @internal
 */
export function runStats(run: RunRecord, passed: boolean, reportedLatencyMs?: number): RunStats {
  const primary = new Set(run.primaryKinds);
  const uids = new Set<string>();
  let writes = 0;
  let lastChange = 0;
  const tail = run.timing.tailStart;
  for (const w of run.writes) {
    if (w.t >= tail) continue;
    if (w.verb === 'create' && w.error === undefined && primary.has(w.kind) && w.uid !== undefined) uids.add(w.uid);
    const byController = w.actor.startsWith('controller:');
    if (byController) writes++;
    if ((byController || w.actor.startsWith('environment:')) && !w.noop && w.error === undefined) lastChange = Math.max(lastChange, w.t);
  }
  let reconciles = 0;
  let lastStimulus = run.timing.lastActionAt;
  for (const e of run.trace) {
    if (e.t >= tail) break;
    if (e.type === 'reconcile:start') reconciles++;
    else if (e.type === 'fault:inject' || e.type === 'user:action') lastStimulus = Math.max(lastStimulus, e.t);
  }
  return {
    objects: uids.size,
    reconciles,
    writes,
    latencyMs: passed ? (reportedLatencyMs ?? Math.max(0, lastChange - lastStimulus)) : null,
    peakQps: peakQps(run.requests),
  };
}

/** Highest number of requests to one endpoint within any 1 s window. @internal */
export function peakQps(requests: readonly RecordedRequest[]): number {
  if (requests.length === 0) return 0;
  const byEndpoint = new Map<string, number[]>();
  for (const r of requests) {
    let ts = byEndpoint.get(r.endpoint);
    if (!ts) byEndpoint.set(r.endpoint, (ts = []));
    ts.push(r.t);
  }
  let peak = 0;
  for (const ts of byEndpoint.values()) {
    ts.sort((a, b) => a - b);
    let lo = 0;
    for (let hi = 0; hi < ts.length; hi++) {
      while (ts[hi]! - ts[lo]! >= 1000) lo++;
      peak = Math.max(peak, hi - lo + 1);
    }
  }
  return peak;
}

/** Nearest-rank percentile of sorted values. @internal */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Accumulates run stats into the {@link CheckStats} of a check. @internal */
export class StatsCollector {
  private readonly latencies: number[] = [];
  private objects = 0;
  private reconciles = 0;
  private writes = 0;
  private peak = 0;
  private totalReconciles = 0;

  add(s: RunStats): void {
    this.totalReconciles += s.reconciles;
    this.peak = Math.max(this.peak, s.peakQps);
    if (s.latencyMs === null) return;
    this.latencies.push(s.latencyMs);
    this.objects += s.objects;
    this.reconciles += s.reconciles;
    this.writes += s.writes;
  }

  result(): CheckStats {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      convergenceLatencyMs: sorted.length === 0 ? null : { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]! },
      reconcilesPerObject: this.objects === 0 ? 0 : round2(this.reconciles / this.objects),
      storeWritesPerObject: this.objects === 0 ? 0 : round2(this.writes / this.objects),
      peakDownstreamQps: this.peak,
      reconciles: this.totalReconciles,
    };
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
