/**
 * Measures the false-positive rate on correct controllers: unlike `check` (which stops at the
 * first failure and shrinks it), every generated run is judged by every property, and each
 * failing run is classified by fault-kind ablation: the run is repeated with one fault kind of
 * its plan removed at a time, and a kind whose removal makes the failure go away is a cause
 * (several causes: each suffices to remove it; none: it needs a combination, or it fails without
 * any fault at all, which puts the oracle or the controller in question, never a fault).
 *
 *   npx tsx bench/hunt-fp-rate.ts [--runs 300] [--seeds 1,2,3 | 1-3] [--only corpus:] [--search swarm|guided] [--no-ablation] [--json out.json]
 *
 * `--search guided` measures guided search (`check(c, { search: 'guided' })`, whose mutants add
 * the faults systematic strategies derive from a run's trace) instead of plain swarm (the
 * default). The recording properties never fail, so in guided mode the pool also takes runs
 * that did fail (a `check` stops at its first failure, so it never mutates one): after a
 * failure, the runs this bench generates are not the ones `check` would have made, though each
 * is still a scenario guided search can generate and is judged the same way.
 *
 * Prints per target: failing runs / runs, per property; then totals: failing runs / runs,
 * targets with any failure, failing runs per property and per ablation cause. Not part of
 * `npm run bench`: it measures correctness, not speed.
 */
import { writeFileSync } from 'node:fs';
import { parseHuntArgs, type HuntArgs } from './hunt-args.js';
import { huntTargets } from './hunt-targets.js';
import { count, measure, type FailingRun } from './fp-measure.js';

interface Args extends HuntArgs {
  search: 'swarm' | 'guided';
}

function parseArgs(argv: string[]): Args {
  const { values, ...args } = parseHuntArgs(argv, { runs: 300, seeds: '1,2,3', only: 'corpus:' }, { search: { type: 'string' } });
  const search = values['search'] ?? 'swarm';
  if (search !== 'swarm' && search !== 'guided') throw new Error(`hunt-fp-rate: --search must be swarm or guided, got ${search}`);
  return { ...args, search };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const chosen = huntTargets.filter((t) => args.only.some((o) => t.name.includes(o)));
  if (chosen.length === 0) throw new Error(`hunt-fp-rate: --only ${args.only.join(',')} matches no target`);
  const all: FailingRun[] = [];
  let totalRuns = 0;
  const perTarget: { target: string; runs: number; failing: number }[] = [];
  const t0 = performance.now();
  for (const t of chosen) {
    let runs = 0;
    let mutants = 0;
    const mine: FailingRun[] = [];
    for (const seed of args.seeds) {
      const m = await measure(t, seed, args.runs, args.ablation, args.search);
      runs += m.runs;
      mutants += m.mutants;
      mine.push(...m.failing);
    }
    totalRuns += runs;
    all.push(...mine);
    perTarget.push({ target: t.name, runs, failing: mine.length });
    const props = [...count(mine, (f) => f.failures.map((x) => x.property))].map(([p, n]) => `${p} ${n}`).join(', ');
    console.log(`${mine.length === 0 ? 'ok  ' : 'FAIL'}  ${t.name.padEnd(34)} ${String(mine.length).padStart(4)}/${runs} runs failed${props ? ` (${props})` : ''}${args.search === 'guided' ? `; ${mutants} mutants` : ''}`);
  }
  const failingTargets = perTarget.filter((p) => p.failing > 0).length;
  console.log(`\n${chosen.length} targets × ${args.seeds.length} seeds × ${args.runs} runs${args.search === 'swarm' ? '' : `, ${args.search} search`} (${Math.round((performance.now() - t0) / 1000)} s)`);
  console.log(`failing runs: ${all.length}/${totalRuns} (${((100 * all.length) / Math.max(1, totalRuns)).toFixed(2)}%); targets with any failure: ${failingTargets}/${chosen.length}`);
  console.log(`per property (failing runs): ${[...count(all, (f) => f.failures.map((x) => x.property))].map(([k, n]) => `${k} ${n}`).join(', ') || '-'}`);
  const unrealistic = all.filter((f) => f.unrealistic.length > 0);
  console.log(`failing runs whose history breaks the realism law (a)/(b): ${unrealistic.length}/${all.length}${unrealistic[0] ? ` (first: ${unrealistic[0].target} seed ${unrealistic[0].seed} run ${unrealistic[0].run}: ${unrealistic[0].unrealistic[0]})` : ''}`);
  if (args.ablation) {
    console.log(`per ablation cause (failing runs; 'none' = fails without any fault): ${[...count(all, (f) => Object.values(f.causes).flat())].map(([k, n]) => `${k} ${n}`).join(', ') || '-'}`);
    const pairs = count(all, (f) => Object.entries(f.causes).flatMap(([p, ks]) => ks.map((k) => `${p} ← ${k}`)));
    for (const [k, n] of pairs) console.log(`  ${k}: ${n}`);
  }
  if (args.json) writeFileSync(args.json, JSON.stringify({ args, totalRuns, perTarget, failing: all }, null, 2));
}

await main();
