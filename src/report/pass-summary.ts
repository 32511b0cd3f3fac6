import type { CheckPassed } from '../harness/check-result.js';
import { corpusNote, cutShortNote } from './result.js';

/**
 * What a pass says besides "every property held" (SPEC §6: a pass is informative too), one line
 * each: convergence latency, reconciles and writes per object, peak downstream QPS, every fault
 * kind's coverage ("fault list-order: fired 0× in 12 runs where enabled"), the properties that
 * judged no run, and what cut the check short or came from the corpus. The CLI prints it under
 * PASS; `check` and `toPassCheck` print it with `verbose: 1`.
 * @param detail - 2 adds, per property, how many runs it judged
 * @internal
 */
export function passSummary(result: CheckPassed, detail: 1 | 2 = 1): string[] {
  const lines: string[] = [];
  const s = result.stats;
  if (s.convergenceLatencyMs) lines.push(`convergence latency p50 ${s.convergenceLatencyMs.p50} ms, p90 ${s.convergenceLatencyMs.p90} ms, p99 ${s.convergenceLatencyMs.p99} ms`);
  lines.push(`${s.reconcilesPerObject} reconciles and ${s.storeWritesPerObject} store writes per object; peak downstream ${s.peakDownstreamQps} req/s`);
  for (const c of result.coverage) lines.push(`fault ${c.kind}: fired ${c.injected}× in ${c.enabled} runs where enabled; changed behaviour in ${c.changedBehaviour}`);
  for (const p of result.propertyRuns ?? []) {
    if (p.judged === 0) lines.push(`property ${p.name}: judged no run${p.reason ? ` (${p.reason})` : ''}: it says nothing here`);
    else if (detail === 2) lines.push(`property ${p.name}: judged ${p.judged} run${p.judged === 1 ? '' : 's'}${p.unjudged ? `, ${p.unjudged} not (${p.reason ?? 'no reason given'})` : ''}`);
  }
  for (const n of [cutShortNote(result), corpusNote(result)]) if (n) lines.push(`note: ${n}`);
  return lines;
}
