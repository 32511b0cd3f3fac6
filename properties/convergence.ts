import { defineProperty, type ProbeSample, type RunRecord, type Verdict } from '../src/harness/property.js';
import type { WorldView } from '../src/harness/world.js';
import { explanation, fmtDuration, fmtTime, letFacts } from '../src/report/explain.js';
import { lastActions } from './_internals/last-actions.js';
import { defaultConverged, fmtUnconverged, primaryObjects, staticView, unconverged } from './_internals/primary.js';
import { healedAt, stillStalled } from './_internals/skip.js';
import { lastReconcile, timelineOf } from './_internals/timeline.js';

/** Options of {@link convergence}. @public */
export interface ConvergenceOptions {
  /**
   * The user's "converged" predicate over the world; a string return means "no, because …".
   * @defaultValue every primary object not being deleted has `status.observedGeneration === metadata.generation`
   */
  converged?: (view: WorldView) => boolean | string;
  /** Consecutive checks that must pass. @defaultValue 3 */
  stableFor: number;
  /** Virtual ms between checks. @defaultValue 1000 */
  checkEveryMs: number;
  /** Virtual ms after the last fault and user action within which convergence must hold. @defaultValue the settle phase length */
  budgetMs?: number;
}

const NAME = 'convergence';

/**
 * Eventual convergence (SPEC §5), judged the way the best simulators do it: faults stop, the
 * system is healed, and within the settle budget the `converged` predicate must hold on
 * `stableFor` consecutive checks. When it does not, the explanation names the objects, the
 * difference, and what the controller last did.
 * @example properties.convergence({ stableFor: 3, converged: (view) => view.list('Pod').length === 3 })
 * @public
 */
export const convergence = defineProperty<ConvergenceOptions>({
  name: NAME,
  description: 'after faults stop, the converged predicate holds on several consecutive checks within the settle budget',
  defaults: { stableFor: 3, checkEveryMs: 1000 },
  validate: (o) => {
    if (!Number.isInteger(o.stableFor) || o.stableFor < 1) return `stableFor must be an integer ≥ 1, got ${String(o.stableFor)}`;
    if (!(o.checkEveryMs > 0)) return `checkEveryMs must be a positive number of virtual ms, got ${String(o.checkEveryMs)}`;
    if (o.budgetMs !== undefined && !(o.budgetMs >= 0)) return `budgetMs must be ≥ 0 virtual ms, got ${String(o.budgetMs)}`;
    if (o.converged !== undefined && typeof o.converged !== 'function') return 'converged must be a function (view) => boolean | string';
    return undefined;
  },
  probes: (o, ctx) => [{ name: NAME, everyMs: o.checkEveryMs, phases: ['faults', 'settle', 'tail'], fn: o.converged ?? defaultConverged(ctx?.primaryKinds) }],
  judge: (run, o): Verdict => {
    const { settleStart } = run.timing;
    const budget = o.budgetMs ?? (run.timing.tailStart > settleStart ? run.timing.tailStart - settleStart : run.timing.end - settleStart);
    // a request the fault made hang is still a fault until it times out: the budget starts after it
    const healed = healedAt(run);
    if (healed >= run.timing.end) return stillStalled(run.timing.end);
    const deadline = Math.min(healed + budget, run.timing.end);
    let samples = run.probes[NAME] ?? [];
    if (samples.length === 0) samples = [fallbackSample(run, o)];
    const inWindow = samples.filter((s) => s.t >= settleStart && s.t <= deadline);
    const need = Math.min(o.stableFor, Math.max(1, inWindow.length));
    let streak = 0;
    for (let i = 0; i < inWindow.length; i++) {
      streak = inWindow[i]!.ok ? streak + 1 : 0;
      if (streak >= need) return ok(run, samples, inWindow[i - need + 1]!);
    }
    return fail(run, o, inWindow, deadline, need);
  },
});

/** The judge's view of the settled state when the probe never ran (e.g. a harness without probes). */
function fallbackSample(run: RunRecord, o: ConvergenceOptions): ProbeSample {
  const objects = run.settledObjects;
  const t = run.timing.tailStart > run.timing.settleStart ? run.timing.tailStart : run.timing.end;
  const r = (o.converged ?? defaultConverged(run.primaryKinds))(staticView(objects, t, run));
  return r === true ? { t, ok: true } : { t, ok: false, ...(typeof r === 'string' ? { detail: r } : {}) };
}

function ok(run: RunRecord, samples: readonly ProbeSample[], first: ProbeSample) {
  // the streak may have begun before the settle phase: walk back over earlier passing checks
  let start = first.t;
  for (let i = samples.indexOf(first) - 1; i >= 0 && samples[i]!.ok; i--) start = samples[i]!.t;
  const lastFault = timelineOf(run).faults.reduce((m, f) => Math.max(m, f.t), 0);
  const reference = Math.max(run.timing.lastActionAt, lastFault);
  return { ok: true as const, stats: { convergedAt: start, latencyMs: Math.max(0, start - reference) } };
}

function fail(run: RunRecord, o: ConvergenceOptions, inWindow: readonly ProbeSample[], deadline: number, need: number) {
  const tl = timelineOf(run);
  const { settleStart } = run.timing;
  const last = inWindow[inWindow.length - 1];
  const everOk = inWindow.find((s) => s.ok);
  const then: string[] = [];
  const objects = o.converged === undefined ? unconverged(primaryObjects(run, run.settledObjects)) : [];
  const detail = last?.detail ?? (objects.length ? objects.map(fmtUnconverged).join('; ') : 'the converged predicate returned false');
  if (everOk) {
    const broke = inWindow.find((s) => s.t > everOk.t && !s.ok) ?? last;
    then.push(`the world was converged at ${fmtTime(everOk.t)} but never for ${need} consecutive checks (every ${fmtDuration(o.checkEveryMs)}) before ${fmtTime(deadline)}`);
    if (broke) then.push(`at ${fmtTime(broke.t)}: ${broke.detail ?? 'the converged predicate returned false'}`);
  } else {
    then.push(`by ${fmtTime(deadline)}, ${fmtDuration(deadline - settleStart)} after faults stopped at ${fmtTime(settleStart)}, the world had not converged: ${detail}`);
  }
  for (const u of objects.slice(0, 2)) {
    const r = lastReconcile(tl, u.key, deadline);
    if (r && r.start < settleStart) then.push(`no reconcile of ${u.key} ran after ${fmtTime(r.start)}`);
    then.push(lastActions(tl, u.kind, u.key, deadline));
  }
  if (o.converged !== undefined || objects.length === 0) {
    const r = tl.reconciles.filter((x) => x.start < deadline).at(-1);
    then.push(r ? `the last reconcile before ${fmtTime(deadline)} was of ${r.key} at ${fmtTime(r.start)} (${r.result ?? 'running'}${r.error ? `: ${r.error}` : ''})` : 'no reconcile ran at all');
  }
  const summary = objects.length
    ? `not converged within ${fmtDuration(deadline - settleStart)} after faults stopped: ${fmtUnconverged(objects[0]!)}`
    : `not converged within ${fmtDuration(deadline - settleStart)} after faults stopped${last?.detail ? `: ${last.detail}` : ''}`;
  return {
    ok: false as const,
    summary,
    explanation: explanation(letFacts(run.trace, { until: deadline }), then),
    evidence: {
      settleStart,
      deadline,
      stableFor: need,
      checks: inWindow.slice(-Math.max(need, 5)).map((s) => ({ t: s.t, ok: s.ok, detail: s.detail ?? null })),
      unconverged: objects.map((u) => ({ kind: u.kind, key: u.key, generation: u.generation, observedGeneration: (u.observedGeneration ?? null) as number | null, mismatches: u.mismatches })),
    },
  };
}
