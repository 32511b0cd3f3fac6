import type { CheckPassed } from '../harness/check-result.js';
import { corpusNote, cutShortNote } from './result.js';

/**
 * What a pass says besides "every property held" (SPEC §6: a pass is informative too), one line
 * each: convergence latency, reconciles and writes per object, peak downstream QPS, every fault
 * kind's coverage ("fault list-order: fired 0× in 12 runs where enabled"), behaviour coverage
 * and how it grew run after run, the properties that judged no run, and what cut the check short
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
  for (const p of result.propertyRuns ?? []) {
    if (p.judged === 0) lines.push(`property ${p.name}: judged no run${p.reason ? ` (${p.reason})` : ''}: it says nothing here`);
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
