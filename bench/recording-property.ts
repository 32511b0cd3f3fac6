import type { Property, RunRecord, Scenario, Verdict } from '../src/index.js';

/**
 * A property that records every verdict of `p` and never fails, so a search (`check`,
 * `checkSystematic`) judges every run with every property instead of stopping at the first
 * failure. The hunt benches (hunt-fp-rate, hunt-systematic-fp) wrap every property in it.
 *
 * A differential property's verdict is the one `check` reports: after learning. The harness
 * learns masks (from benign fault-free runs) only when a judgement fails, so the first failure of
 * a property that learns is handed back as it is; the harness learns and judges again, and that
 * verdict is recorded. (Before, the wrapper had no `learn`: hunts counted failures the masks
 * learned from benign runs clear, which `check` never reports.)
 */
export function recording(p: Property, onVerdict: (run: RunRecord, v: Verdict) => void): Property {
  const learning = new WeakSet<RunRecord>();
  const learn = p.learn;
  return {
    // its own name: a property named like a built-in must be the built-in (check refuses
    // look-alikes), and this one holds whatever the built-in it wraps says
    name: `rec-${p.name}`,
    description: p.description,
    options: p.options,
    needsTwin: p.needsTwin,
    probes: (ctx) => p.probes(ctx),
    ...(p.extraRuns ? { extraRuns: (s: Scenario) => p.extraRuns!(s) } : {}),
    // a learn that throws would leave the failure handed back standing: it teaches nothing instead
    ...(learn
      ? {
          learn: (benign) => {
            try {
              return learn(benign);
            } catch {
              return {};
            }
          },
        }
      : {}),
    // its verdicts on the fault-free twin are recorded under the twin's record (a failing twin counts as a failing run)
    ...(p.judgesFaultFreeTwin ? { judgesFaultFreeTwin: true } : {}),
    ...(p.learnsFromBusy ? { learnsFromBusy: true } : {}),
    ...(p.learnsFromSlow ? { learnsFromSlow: true } : {}),
    ...(p.learnsFromKeyOrder ? { learnsFromKeyOrder: true } : {}),
    ...(p.timingDependent ? { timingDependent: p.timingDependent } : {}),
    judge(run, twin, extras, learned) {
      const v = p.judge(run, twin, extras, learned);
      if (!v.ok && learn && twin && !learning.has(run)) {
        learning.add(run);
        return v;
      }
      onVerdict(run, v);
      return { ok: true };
    },
  };
}
