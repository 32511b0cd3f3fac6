import type { Property, RunRecord, Scenario, Verdict } from '../src/index.js';

/**
 * A property that records every verdict of `p` and never fails, so a search (`check`,
 * `checkSystematic`) judges every run with every property instead of stopping at the first
 * failure. The hunt benches (hunt-fp-rate, hunt-systematic-fp) wrap every property in it.
 */
export function recording(p: Property, onVerdict: (run: RunRecord, v: Verdict) => void): Property {
  return {
    name: p.name,
    description: p.description,
    options: p.options,
    needsTwin: p.needsTwin,
    probes: (ctx) => p.probes(ctx),
    ...(p.extraRuns ? { extraRuns: (s: Scenario) => p.extraRuns!(s) } : {}),
    judge(run, twin, extras) {
      const v = p.judge(run, twin, extras);
      onVerdict(run, v);
      return { ok: true };
    },
  };
}
