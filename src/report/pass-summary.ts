import type { CheckPassed, CheckResult } from '../harness/check-result.js';
import { corpusNote, cutShortNote } from './result.js';

/**
 * What a pass says besides "every property held" (SPEC §6: a pass is informative too), one line
 * each: convergence latency, reconciles and writes per object, peak downstream QPS, every fault
 * kind's coverage ("fault list-order: fired 0× in 12 runs where enabled"), behaviour coverage
 * and how it grew run after run, how many runs each property judged (and which judged none, with
 * why: it says nothing here), and what cut the check short
 * or came from the corpus. The CLI prints it under PASS; `check` and `toPassCheck` print it with
 * `verbose: 1`.
 * @param detail - 2 adds, per property, how many runs it judged
 * @internal
 */
export function passSummary(result: CheckPassed, detail: 1 | 2 = 1): string[] {
  const lines: string[] = [];
  const s = result.stats;
  if (s.convergenceLatencyMs) lines.push(`convergence latency p50 ${s.convergenceLatencyMs.p50} ms, p90 ${s.convergenceLatencyMs.p90} ms, p99 ${s.convergenceLatencyMs.p99} ms`);
  lines.push(`${s.reconcilesPerObject} reconciles and ${s.storeWritesPerObject} store writes per object; peak downstream ${s.peakDownstreamQps} req/s`);
  const growth = behaviourGrowth(result);
  if (growth) lines.push(growth);
  for (const c of result.coverage) lines.push(`fault ${c.kind}: fired ${c.injected}× in ${c.enabled} runs where enabled; changed behaviour in ${c.changedBehaviour}`);
  const judged = judgedLine(result);
  if (judged) lines.push(judged);
  for (const p of result.propertyRuns ?? []) {
    if (p.judged === 0) lines.push(`property ${p.name}: judged 0 of ${runsOf(p, result)}${p.reason ? ` (${p.reason})` : ''}: it says nothing here`);
    else if (detail === 2) lines.push(`property ${p.name}: judged ${p.judged} run${p.judged === 1 ? '' : 's'}${p.unjudged ? `, ${p.unjudged} not (${p.reason ?? 'no reason given'})` : ''}`);
  }
  for (const n of [cutShortNote(result), corpusNote(result)]) if (n) lines.push(`note: ${n}`);
  return lines;
}

/**
 * Behaviour coverage of a pass and its growth, in one line: distinct behaviours after a few runs
 * spread over the check, so a curve that flattened (more runs find little new) shows at a glance.
 */
function behaviourGrowth(result: CheckPassed): string | undefined {
  const b = result.behaviour;
  if (!b || b.growth.length === 0) return undefined;
  const step = Math.max(1, Math.ceil(b.growth.length / 6));
  const points = b.growth.filter((_, i) => i % step === 0 || i === b.growth.length - 1).map(([run, facts]) => `${facts} after run ${run}`);
  const how = b.search === 'guided' ? `guided: ${b.mutants ?? 0} mutants of ${b.pool ?? 0} coverage-adding runs` : 'swarm';
  return `behaviour coverage (${how}): ${b.facts} distinct behaviours; growth ${points.join(', ')}`;
}

type PropertyRuns = NonNullable<CheckResult['propertyRuns']>[number];

/** "100 runs" (or "12 systematic plans"): the runs a property saw, judged or not. */
function runsOf(p: PropertyRuns, result: CheckResult): string {
  const n = p.judged + p.unjudged;
  return `${n} ${'systematic' in result ? 'systematic plan' : 'run'}${n === 1 ? '' : 's'}`;
}

/**
 * What each property judged, in one line ("judged per property: convergence 100/100 runs,
 * recovery 0/100, …"): a pass says what it judged (red team N7b). Undefined when the result does
 * not say (a result from before it was counted).
 * @internal
 */
export function judgedLine(result: CheckResult): string | undefined {
  const rows = result.propertyRuns ?? [];
  if (rows.length === 0) return undefined;
  const unit = 'systematic' in result ? 'plans' : 'runs';
  return `judged per property (${unit} judged / seen): ${rows.map((p, i) => `${p.name} ${p.judged}/${p.judged + p.unjudged}${i === 0 ? ` ${unit}` : ''}`).join(', ')}`;
}

/**
 * Why a passing check says nothing because none of its properties judged any run (every one of
 * them had nothing to judge in every run: `recovery` without a revert, `status-truthfulness`
 * without a claim), in words: the CLI exits 2 and `toPassCheck` throws with it (red team N7b).
 * Undefined when some property judged some run, or the result does not count them. A property
 * that judged no run while others did is only a note of the pass.
 * @internal
 */
export function judgedNothing(result: CheckResult): string | undefined {
  const rows = result.propertyRuns ?? [];
  if (!result.ok || rows.length === 0 || rows.some((p) => p.judged > 0)) return undefined;
  const unit = 'systematic' in result ? 'systematic plan' : 'run';
  const per = rows.map((p) => `${p.name} judged 0 of ${p.judged + p.unjudged} (${p.reason ?? 'it gave no reason'})`);
  return `no selected property judged any of the ${result.runs} ${unit}${result.runs === 1 ? '' : 's'}: ${per.join('; ')}`;
}

/**
 * "every property held: a, b" — and, when some of them judged no run, which ("; c judged no
 * run"): the head line of a pass names only what it judged.
 * @internal
 */
export function heldText(result: CheckResult): string {
  const none = new Set((result.propertyRuns ?? []).filter((p) => p.judged === 0).map((p) => p.name));
  const held = result.properties.filter((p) => !none.has(p));
  if (none.size === 0) return `every property held: ${result.properties.join(', ')}`;
  if (held.length === 0) return `no property judged any ${'systematic' in result ? 'plan' : 'run'}: ${[...none].join(', ')}`;
  return `every property held: ${held.join(', ')}; ${[...none].join(', ')} judged no ${'systematic' in result ? 'plan' : 'run'}`;
}
