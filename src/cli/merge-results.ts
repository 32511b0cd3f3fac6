import type { CheckFailed, CheckResult, CheckStats, FaultCoverage } from '../harness/check-result.js';
import type { Shard } from '../harness/shard.js';

/**
 * Merges the results of the slices of one check (worker threads, or the shards of a CI matrix)
 * into one result. Counts add up exactly (runs, coverage, reconciles, corpus replays,
 * determinism checks); when some slice failed, the failure with the lowest run number wins,
 * which is the failure a single thread would have stopped at. Latency percentiles cannot be
 * merged exactly from percentiles: p50/p90/p99 are run-weighted means, `max` is exact.
 * @param results - one per slice (at least one)
 * @param shard - the slice the merged result stands for (the CLI's `--shard`), if any
 * @internal
 */
export function mergeCheckResults(results: readonly CheckResult[], shard: Shard | undefined): CheckResult {
  if (results.length === 0) throw new Error('steadystate: mergeCheckResults needs at least one result');
  const runs = results.reduce((n, r) => n + r.runs, 0);
  const common = {
    runs,
    coverage: mergeCoverage(results.map((r) => r.coverage)),
    stats: mergeStats(results),
    corpusReplayed: results.reduce((n, r) => n + r.corpusReplayed, 0),
    determinismChecked: results.reduce((n, r) => n + r.determinismChecked, 0),
    simulations: results.reduce((n, r) => n + (r.simulations ?? 0), 0),
    // only checks plan their runs (a systematic search does not): no total is not a total of 0
    ...(results.some((r) => r.plannedRuns !== undefined) ? { plannedRuns: results.reduce((n, r) => n + (r.plannedRuns ?? 0), 0) } : {}),
    // a merged check judged what its slices judged (per property: runs judged and not, the first reason)
    ...(results.some((r) => r.propertyRuns !== undefined) ? { propertyRuns: mergePropertyRuns(results) } : {}),
    ...(results.some((r) => r.couldNotJudge !== undefined) ? { couldNotJudge: mergeCouldNotJudge(results) } : {}),
  };
  const failures = results.filter((r): r is CheckFailed => !r.ok);
  const order = (f: CheckFailed): number => (f.failedAtRun > 0 ? f.failedAtRun : Number.MAX_SAFE_INTEGER);
  const first = failures.sort((a, b) => order(a) - order(b))[0];
  const picked = first ?? results[0]!;
  const { shard: _drop, ...rest } = picked;
  const merged = { ...rest, ...common, ...(shard && shard.count > 1 ? { shard: { ...shard } } : {}) };
  if (first) {
    // a slice that failed reports what it ran; properties and faults are those of the check
    return { ...(merged as CheckFailed), properties: unionOf(results.map((r) => r.properties)), faults: unionOf(results.map((r) => r.faults)) };
  }
  return merged as CheckResult;
}

function unionOf(lists: readonly string[][]): string[] {
  const out: string[] = [];
  for (const l of lists) for (const x of l) if (!out.includes(x)) out.push(x);
  return out;
}

function mergePropertyRuns(results: readonly CheckResult[]): NonNullable<CheckResult['propertyRuns']> {
  const byName = new Map<string, NonNullable<CheckResult['propertyRuns']>[number]>();
  for (const r of results) {
    for (const p of r.propertyRuns ?? []) {
      const m = byName.get(p.name);
      if (!m) byName.set(p.name, { ...p });
      else {
        m.judged += p.judged;
        m.unjudged += p.unjudged;
        m.reason ??= p.reason;
        m.ms = Math.round((m.ms + p.ms) * 10) / 10;
      }
    }
  }
  return [...byName.values()];
}

function mergeCouldNotJudge(results: readonly CheckResult[]): NonNullable<CheckResult['couldNotJudge']> {
  const byProperty = new Map<string, NonNullable<CheckResult['couldNotJudge']>[number]>();
  for (const r of results) {
    for (const u of r.couldNotJudge ?? []) {
      const m = byProperty.get(u.property);
      if (!m) byProperty.set(u.property, { ...u });
      else m.runs += u.runs;
    }
  }
  return [...byProperty.values()];
}

function mergeCoverage(lists: readonly FaultCoverage[][]): FaultCoverage[] {
  const byKind = new Map<string, FaultCoverage>();
  for (const list of lists) {
    for (const c of list) {
      const m = byKind.get(c.kind);
      if (!m) byKind.set(c.kind, { ...c });
      else {
        m.enabled += c.enabled;
        m.injected += c.injected;
        m.changedBehaviour += c.changedBehaviour;
      }
    }
  }
  return [...byKind.values()];
}

function mergeStats(results: readonly CheckResult[]): CheckStats {
  const total = results.reduce((n, r) => n + r.runs, 0) || 1;
  const weighted = (f: (s: CheckStats) => number): number => results.reduce((n, r) => n + f(r.stats) * r.runs, 0) / total;
  const lat = results.filter((r) => r.stats.convergenceLatencyMs !== null);
  const latRuns = lat.reduce((n, r) => n + r.runs, 0) || 1;
  const wl = (k: 'p50' | 'p90' | 'p99'): number => Math.round(lat.reduce((n, r) => n + r.stats.convergenceLatencyMs![k] * r.runs, 0) / latRuns);
  return {
    convergenceLatencyMs: lat.length === 0 ? null : { p50: wl('p50'), p90: wl('p90'), p99: wl('p99'), max: Math.max(...lat.map((r) => r.stats.convergenceLatencyMs!.max)) },
    reconcilesPerObject: round2(weighted((s) => s.reconcilesPerObject)),
    storeWritesPerObject: round2(weighted((s) => s.storeWritesPerObject)),
    peakDownstreamQps: Math.max(...results.map((r) => r.stats.peakDownstreamQps)),
    reconciles: results.reduce((n, r) => n + r.stats.reconciles, 0),
  };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
