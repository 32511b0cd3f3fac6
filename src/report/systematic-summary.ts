import type { SystematicReport } from '../harness/systematic.js';

/**
 * What a systematic search did, one line each (issue 16: per strategy, how many plans it derived,
 * ran and pruned): the totals, then every strategy, then the failing plan if there is one. The
 * CLI prints it under the verdict of `--search systematic`; the Markdown and HTML reports show it.
 * @internal
 */
export function systematicSummary(r: SystematicReport): string[] {
  const lines = [`systematic search: ${r.plans} plan${r.plans === 1 ? '' : 's'} run (depth ${r.depth}${r.depth === 2 ? `; ${r.extended.runs} single-fault runs extended with a second fault` : ''})${r.truncated ? ', cut short by --runs (the most plans to run): not every derived plan ran' : ''}`];
  const skipped = r.strategies.filter((s) => s.skipped);
  for (const s of r.strategies) {
    if (s.skipped) continue;
    const pruned = Object.entries(s.pruned).filter(([, n]) => n > 0);
    const pairs = s.pairs.ran > 0 || s.pairs.derived > 0 ? `; as a second fault ${s.pairs.derived} derived, ${s.pairs.ran} ran` : '';
    lines.push(`strategy ${s.strategy} (${s.kind}): ${s.derived} derived, ${s.plans} ran, ${s.derived - s.plans} pruned${pruned.length ? ` (${pruned.map(([why, n]) => `${why} ${n}`).join(', ')})` : ''}${s.failures ? `, ${s.failures} failed` : ''}${pairs}`);
  }
  if (skipped.length) lines.push(`not run, their fault kinds not enabled: ${skipped.map((s) => `${s.strategy} (${s.kind})`).join(', ')}`);
  const f = r.failingPlan;
  if (f) lines.push(`failing plan, before shrinking: ${f.faults && f.faults.length > 1 ? f.faults.map((x) => `${x.strategy}: ${x.target}`).join(', then ') : `${f.strategy}: ${f.target}`}`);
  return lines;
}
