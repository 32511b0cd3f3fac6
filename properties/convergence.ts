import { defineProperty, nothingToJudge, type ProbeSample, type RunRecord, type Verdict } from '../src/harness/property.js';
import type { WorldView } from '../src/harness/world.js';
import type { JsonObject } from '../src/store/object.js';
import { collapseFacts, explanation, fmtActor, fmtDuration, fmtList, fmtObject, fmtOccurrences, fmtTime, letFacts } from '../src/report/explain.js';
import { Declarations, PendingRetries, esrProbe, fmtSampled, judgeState, noiseIn, noiseOf, reportingKinds, type NoObligation, type Noise, type SampledObject } from './_internals/esr.js';
import { lastActions } from './_internals/last-actions.js';
import { staticView } from './_internals/primary.js';
import { healedAt, stillStalled } from './_internals/skip.js';
import { lastReconcile, primaryKindOf, timelineOf } from './_internals/timeline.js';

/** Options of {@link convergence}. @public */
export interface ConvergenceOptions {
  /**
   * The user's "converged" predicate over the world; a string return means "no, because …". It
   * replaces part (c) of the default judgement (the reported generation); the world must still
   * become quiet.
   * @defaultValue every primary object the user declared (same uid, not being deleted) whose controller reports `observedGeneration` (in status or a condition) reports its current generation
   */
  converged?: (view: WorldView) => boolean | string;
  /** Consecutive checks that must pass. @defaultValue 3 */
  stableFor: number;
  /** Virtual ms between checks. @defaultValue 1000 */
  checkEveryMs: number;
  /** Virtual ms after the last fault and user action within which convergence must hold. @defaultValue the settle phase length */
  budgetMs?: number;
  /**
   * Kinds whose controller writes do not break quiet. A Lease renewed at a leader elector's
   * pace never does (see `_internals/election.ts`); every other Lease write does, unless
   * `'Lease'` is listed here.
   * @defaultValue []
   */
  ignoreKinds: string[];
}

const NAME = 'convergence';

/** The part of the judgement that failed. */
type Part = 'reported' | 'predicate' | 'quiet';

const PART_WORDS: Record<Part, string> = {
  reported: 'the part that failed is (c): where the controller reports observedGeneration, it must equal the generation',
  predicate: 'the part that failed is the converged predicate (it replaces (c), the reported generation)',
  quiet: 'the part that failed is (b): the world must stay quiet (no controller writes, no reconcile errors, no immediate requeues)',
};

interface Judged {
  sample: ProbeSample;
  state: boolean;
  failing: SampledObject[];
  excused: { object: SampledObject; why: NoObligation }[];
  noise: Noise[];
  ok: boolean;
  /** Whether a stable streak may begin here: the state holds and no retry is owed (the writes that led to it may be recent). */
  settled: boolean;
}

/**
 * Eventual convergence (SPEC §5), by default Anvil's Eventually Stable Reconciliation judged
 * after faults stop: (a) only primary objects whose declared desired state the API accepted
 * (same uid, not being deleted, the spec the user last declared) carry an obligation; (b) the world
 * becomes quiet: no controller writes, no reconcile errors, no immediate requeues (resyncs and
 * requeueAfter that write nothing are quiet); (c) where the controller reports
 * `status.observedGeneration` (or a condition's `observedGeneration`) for a kind, in this run or
 * its fault-free twin, it equals `metadata.generation`. A user predicate replaces (c). All of it
 * must hold on `stableFor` consecutive checks within the settle budget, quiet counted from the first
 * of them (the writes that reached the state may come just before it); the explanation names the
 * part that failed, the objects, and what the controller last did. When the user's last action on
 * an object failed (a create answered AlreadyExists because the old incarnation was still
 * terminating, a 409, a 5xx), the desired state was never accepted, and the verdict says so
 * instead of blaming the controller.
 * @example properties.convergence({ stableFor: 3, converged: (view) => view.list('Pod').length === 3 })
 * @public
 */
export const convergence = defineProperty<ConvergenceOptions>({
  name: NAME,
  description: 'after faults stop, every declared object converges and the world stays quiet on several consecutive checks within the settle budget',
  defaults: { stableFor: 3, checkEveryMs: 1000, ignoreKinds: [] },
  // liveness: the fault-free twin must meet it too (faults can hide a livelock that needs none: red team rt46 M-2)
  judgesFaultFreeTwin: true,
  // which kinds report observedGeneration: the fault-free twin knows it when faults kept the run from ever writing one
  needsTwin: (o) => o.converged === undefined,
  validate: (o) => {
    if (!Number.isInteger(o.stableFor) || o.stableFor < 1) return `stableFor must be an integer ≥ 1, got ${String(o.stableFor)}`;
    if (!(o.checkEveryMs > 0)) return `checkEveryMs must be a positive number of virtual ms, got ${String(o.checkEveryMs)}`;
    if (o.budgetMs !== undefined && !(o.budgetMs >= 0)) return `budgetMs must be ≥ 0 virtual ms, got ${String(o.budgetMs)}`;
    if (o.converged !== undefined && typeof o.converged !== 'function') return 'converged must be a function (view) => boolean | string';
    if (!Array.isArray(o.ignoreKinds) || o.ignoreKinds.some((k) => typeof k !== 'string')) return 'ignoreKinds must be an array of kind names';
    return undefined;
  },
  probes: (o, ctx) => [{ name: NAME, everyMs: o.checkEveryMs, phases: ['faults', 'settle', 'tail'], fn: o.converged ?? esrProbe(ctx?.primaryKinds) }],
  judge: (run, o, twin): Verdict => {
    const { settleStart } = run.timing;
    const budget = o.budgetMs ?? (run.timing.tailStart > settleStart ? run.timing.tailStart - settleStart : run.timing.end - settleStart);
    // a request the fault made hang is still a fault until it times out: the budget starts after it
    const healed = healedAt(run);
    if (healed >= run.timing.end) return stillStalled(run.timing.end);
    const deadline = Math.min(healed + budget, run.timing.end);
    let samples = run.probes[NAME] ?? [];
    if (samples.length === 0) samples = [fallbackSample(run, o)];
    // scheduled work in the settle phase moves the world on purpose (a slot's Job, its success recorded): not noise
    const noise = noiseOf(run, o.ignoreKinds, settleStart);
    const judged = judgeSamples(run, twin, o, samples, noise);
    const inWindow = judged.filter((j) => j.sample.t >= settleStart && j.sample.t <= deadline);
    const need = Math.min(o.stableFor, Math.max(1, inWindow.length));
    // a streak begins at the first check where the state holds (the writes that reached it came
    // just before) and every later check of it must also be quiet since the one before
    let streak = 0;
    for (let i = 0; i < inWindow.length; i++) {
      streak = (streak > 0 ? inWindow[i]!.ok : inWindow[i]!.settled) ? streak + 1 : 0;
      if (streak >= need) return ok(run, judged, inWindow[i - need + 1]!, deadline, noise);
    }
    const declarations = new Declarations(run.trace, run.primaryKinds).advanceTo(deadline);
    const notAccepted = declarations.notAccepted();
    const last = inWindow[inWindow.length - 1];
    // a user predicate cannot say which object it waits for: with a declaration the API refused, it is not the controller's to meet
    if (o.converged !== undefined && notAccepted.length > 0 && last && !last.state) {
      return nothingToJudge(`the user's desired state was never accepted: ${fmtList(notAccepted.map(fmtNotAccepted), 3)}`, { notAccepted: notAccepted.map((n) => ({ ...n })) });
    }
    return fail(run, o, inWindow, deadline, need, notAccepted, noise);
  },
});

/** (a), (b) and (c) on every sample, in time order. */
function judgeSamples(run: RunRecord, twin: RunRecord | undefined, o: ConvergenceOptions, samples: readonly ProbeSample[], noise: readonly Noise[]): Judged[] {
  const user = o.converged !== undefined;
  const declarations = new Declarations(run.trace, run.primaryKinds);
  const reporting = user ? new Set<string>() : reportingKinds([run, twin], NAME);
  const retries = new PendingRetries(run);
  // a retry owed for a declared object (one the user declared and did not delete) keeps the world busy
  const owed = new Declarations(run.trace, run.primaryKinds);
  // one filter for every sample (not a closure per sample)
  const declaredOwed = (actor: string, key: string): boolean => {
    const kind = primaryKindOf(run, actor);
    return kind !== undefined && owed.declared(kind, key);
  };
  return samples.map((s) => {
    const recent = noiseIn(noise, s.t - o.checkEveryMs, s.t);
    owed.advanceTo(s.t);
    const due = retries.at(s.t, declaredOwed);
    // `recent` is a fresh list: nothing due, it is the whole noise (no copy per sample)
    const quietNoise = due.length === 0 ? recent : [...recent, ...due.filter((p) => !recent.includes(p))];
    // a user predicate's samples, or samples recorded without the probe's data, are taken as they are
    if (user || s.data === undefined) return { sample: s, state: s.ok, failing: [], excused: [], noise: quietNoise, ok: s.ok && quietNoise.length === 0, settled: s.ok && due.length === 0 };
    const v = judgeState(s, declarations, reporting);
    return { sample: s, state: v.ok, failing: v.failing, excused: v.excused, noise: quietNoise, ok: v.ok && quietNoise.length === 0, settled: v.ok && due.length === 0 };
  });
}

/** The judge's view of the settled state when the probe never ran (e.g. a harness without probes). */
function fallbackSample(run: RunRecord, o: ConvergenceOptions): ProbeSample {
  const t = run.timing.tailStart > run.timing.settleStart ? run.timing.tailStart : run.timing.end;
  const view = staticView(run.settledObjects, t, run);
  if (o.converged === undefined) {
    const r = esrProbe(run.primaryKinds)(view);
    return { t, ok: r.ok, ...(r.data ? { data: r.data } : {}) };
  }
  const r = o.converged(view);
  return r === true ? { t, ok: true } : { t, ok: false, ...(typeof r === 'string' ? { detail: r } : {}) };
}

function ok(run: RunRecord, judged: readonly Judged[], first: Judged, deadline: number, noise: readonly Noise[]): Verdict {
  // the state may have held before the streak, even before the settle phase: walk back over
  // earlier checks where it did; the world became quiet with the last noise before the streak
  let since = first.sample.t;
  for (let i = judged.indexOf(first) - 1; i >= 0 && judged[i]!.state; i--) since = judged[i]!.sample.t;
  const lastNoise = noiseIn(noise, -Infinity, first.sample.t).at(-1)?.t ?? -Infinity;
  const start = Math.max(since, lastNoise);
  const lastFault = timelineOf(run).faults.reduce((m, f) => Math.max(m, f.t), 0);
  const reference = Math.max(run.timing.lastActionAt, lastFault);
  const notAccepted = new Declarations(run.trace, run.primaryKinds).advanceTo(deadline).notAccepted();
  const stats: JsonObject = { convergedAt: start, latencyMs: Math.max(0, start - reference) };
  if (notAccepted.length > 0) {
    stats['notAccepted'] = notAccepted.map((n) => ({ ...n }));
    stats['note'] = `the user's desired state was never accepted: ${fmtList(notAccepted.map(fmtNotAccepted), 3)}`;
  }
  return { ok: true, stats };
}

function fmtNotAccepted(n: { kind: string; key: string; action: string; error: string; t: number }): string {
  return `the ${n.action} of ${fmtObject(n.kind, n.key)} at ${fmtTime(n.t)} was answered ${n.error}`;
}

function fmtWhy(o: SampledObject, why: NoObligation): string {
  const obj = fmtObject(o.kind, o.key);
  switch (why.why) {
    case 'not-accepted':
      return `(a) ${obj} carries no obligation: the user's desired state was never accepted (the ${why.action} at ${fmtTime(why.t)} was answered ${why.error})`;
    case 'not-declared':
      return `(a) ${obj} carries no obligation: the user did not declare it (another actor created it)`;
    case 'deleted':
      return `(a) ${obj} carries no obligation: the user deleted it at ${fmtTime(why.t)}`;
    case 'spec-changed':
      return `(a) ${obj} carries no obligation: ${fmtActor(why.actor)} changed its desired state at ${fmtTime(why.t)}, so it is not what the user declared`;
  }
}

/** The noise of the last checks, collapsed: `8,001 writes of status.lastSyncTime to Website default/shop by controller website/0, one per ms, t=62.0–70.0 s`. */
function fmtNoise(noise: readonly Noise[]): string[] {
  return collapseFacts(
    noise,
    (n) => `${n.what}\u0000${n.actor}\u0000${n.object}\u0000${n.detail}`,
    (n, times) => {
      if (n.what === 'write') return `${fmtOccurrences(times, `a write of ${n.detail} to ${n.object} by ${fmtActor(n.actor)}`, `writes of ${n.detail} to ${n.object} by ${fmtActor(n.actor)}`)}`;
      if (n.what === 'error') return fmtOccurrences(times, `a failed reconcile of ${n.object} by ${fmtActor(n.actor)} (${n.detail})`, `failed reconciles of ${n.object} by ${fmtActor(n.actor)} (${n.detail})`);
      return fmtOccurrences(times, `an immediate requeue of ${n.object} by ${fmtActor(n.actor)}`, `immediate requeues of ${n.object} by ${fmtActor(n.actor)}`);
    },
    4,
  );
}

function fail(run: RunRecord, o: ConvergenceOptions, inWindow: readonly Judged[], deadline: number, need: number, notAccepted: ReturnType<Declarations['notAccepted']>, noise: readonly Noise[]): Verdict {
  const tl = timelineOf(run);
  const { settleStart } = run.timing;
  const user = o.converged !== undefined;
  const last = inWindow[inWindow.length - 1];
  const part: Part = last && last.state ? 'quiet' : user ? 'predicate' : 'reported';
  const failing = last?.failing ?? [];
  // everything that kept the world busy after faults stopped (a backed-off retry goes seconds between attempts)
  const noiseWindow = [...noiseIn(noise, settleStart, deadline), ...(last?.noise ?? [])].filter((n, i, all) => all.indexOf(n) === i);
  const stateDetail = user ? (last?.sample.detail ?? 'the converged predicate returned false') : failing.length ? failing.slice(0, 3).map(fmtSampled).join('; ') + (failing.length > 3 ? `; and ${failing.length - 3} more` : '') : 'the converged predicate returned false';
  const detail = part === 'quiet' ? `the world never stayed quiet: ${fmtList(fmtNoise(noiseWindow), 2)}` : stateDetail;
  const then: string[] = [];
  const everOk = inWindow.find((j) => j.ok);
  if (everOk) {
    const broke = inWindow.find((j) => j.sample.t > everOk.sample.t && !j.ok) ?? last;
    then.push(`the world was converged at ${fmtTime(everOk.sample.t)} but never for ${need} consecutive checks (every ${fmtDuration(o.checkEveryMs)}) before ${fmtTime(deadline)}`);
    if (broke) then.push(`at ${fmtTime(broke.sample.t)}: ${!broke.state ? (user ? (broke.sample.detail ?? 'the converged predicate returned false') : broke.failing.map(fmtSampled).join('; ') || 'not converged') : `not quiet: ${fmtList(fmtNoise(broke.noise), 3)}`}`);
  } else {
    then.push(`by ${fmtTime(deadline)}, ${fmtDuration(deadline - settleStart)} after faults stopped at ${fmtTime(settleStart)}, the world had not converged: ${part === 'quiet' ? `it never stayed quiet: ${fmtList(fmtNoise(noiseWindow), 4)}` : stateDetail}`);
  }
  then.push(PART_WORDS[part]);
  if (part === 'quiet' && !user && failing.length === 0) then.push('(a) and (c) held: every declared object reported its generation');
  for (const u of failing.slice(0, 2)) {
    const r = lastReconcile(tl, u.key, deadline);
    if (r && r.start < settleStart) then.push(`no reconcile of ${u.key} ran after ${fmtTime(r.start)}`);
    then.push(lastActions(tl, u.kind, u.key, deadline, run));
  }
  for (const e of (last?.excused ?? []).slice(0, 2)) then.push(fmtWhy(e.object, e.why));
  if (notAccepted.length > 0) then.push(`the user's desired state was never accepted for ${fmtList(notAccepted.map(fmtNotAccepted), 3)}`);
  if (user || failing.length === 0) {
    const r = tl.reconciles.filter((x) => x.start < deadline).at(-1);
    then.push(r ? `the last reconcile before ${fmtTime(deadline)} was of ${r.key} at ${fmtTime(r.start)} (${r.result ?? 'running'}${r.error ? `: ${r.error}` : ''})` : 'no reconcile ran at all');
  }
  if (part === 'quiet') then.push('a converged controller stops acting: compare desired with current state before writing, and return an error only while something is still wrong');
  return {
    ok: false,
    summary: `not converged within ${fmtDuration(deadline - settleStart)} after faults stopped: ${part === 'quiet' ? '(b) ' : part === 'reported' ? '(c) ' : ''}${detail}`,
    explanation: explanation(letFacts(run.trace, { until: deadline }), then),
    evidence: {
      settleStart,
      deadline,
      stableFor: need,
      part,
      checks: inWindow.slice(-Math.max(need, 5)).map((j) => ({ t: j.sample.t, ok: j.ok, state: j.state, quiet: j.noise.length === 0, detail: j.sample.detail ?? null })),
      unconverged: failing.map((u) => ({ kind: u.kind, key: u.key, generation: u.generation, observedGeneration: u.observedGeneration, staleConditions: u.staleConditions, mismatches: u.mismatches })),
      noise: noiseWindow.slice(0, 20).map((n) => ({ t: n.t, what: n.what, actor: n.actor, object: n.object, detail: n.detail })),
      notAccepted: notAccepted.map((n) => ({ ...n })),
    },
  };
}
