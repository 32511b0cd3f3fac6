/**
 * Hunts false alarms on the correct hosted programs (real operator programs run unchanged:
 * `hostedTargets` of bench/hunt-targets.ts): each is checked with every default fault and
 * property for `--runs` runs of every seed, every run judged by every property (as
 * bench/hunt-fp-rate.ts does, whose measuring it shares). For each target with a failing run it
 * then prints the first failure shrunk (a plain `check` of that seed), and each failing run's
 * one-line classification: the fault kinds whose removal alone makes it pass, whether the
 * history breaks the realism law, or that it fails with no fault at all (then the oracle or the
 * program is wrong, never a fault).
 *
 *   npx tsx bench/hunt-hosted.ts [--runs 200] [--seeds 3-8] [--only host:] [--no-ablation] [--json out.json]
 *
 * A hosted run costs ~50 ms of CPU (HTTP through client-node, a module per incarnation): five
 * targets × 6 seeds × 200 runs take about five minutes on a quiet core.
 */
import { writeFileSync } from 'node:fs';
import { check } from '../src/index.js';
import { parseHuntArgs, type HuntArgs } from './hunt-args.js';
import { faultsFor, hostedTargets, propertiesFor, type Target } from './hunt-targets.js';
import { count, measure, type FailingRun } from './fp-measure.js';

type Args = HuntArgs;

function parseArgs(argv: string[]): Args {
  return parseHuntArgs(argv, { runs: 200, seeds: '3-8', only: 'host:' });
}

/** One line saying what kind of failure this is, from ablation and the realism law. */
export function classify(f: FailingRun): string {
  if (f.unrealistic.length > 0) return `harness: the history breaks the realism law (${f.unrealistic[0]})`;
  const parts = Object.entries(f.causes).map(([p, ks]) =>
    ks[0] === 'none' ? `${p} fails with no fault: the oracle or the program is wrong` : ks[0] === 'combination' ? `${p} needs a combination of ${f.kinds.join('+')}` : `${p} caused by ${ks.join(' or ')}`,
  );
  return parts.length > 0 ? parts.join('; ') : `not ablated (${f.kinds.join('+') || 'no faults'})`;
}

async function shrunk(t: Target, seed: number, runs: number): Promise<string> {
  const r = await check(t.controllers, { ...t.options, faults: faultsFor(t, []), properties: propertiesFor(t, []), runs, seed, determinism: false, coverage: false });
  if (r.ok) return `  (a plain check of seed ${seed} passed: the failure is of a property check stops short of)`;
  return `  shrunk (${r.property}, run ${r.failedAtRun}, ${r.shrinks} steps): ${r.summary}\n  scenario: ${JSON.stringify(r.scenario)}\n${r.explanation.split('\n').map((l) => `    ${l}`).join('\n')}`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const chosen = hostedTargets.filter((t) => args.only.some((o) => t.name.includes(o)));
  if (chosen.length === 0) throw new Error(`hunt-hosted: --only ${args.only.join(',')} matches no hosted target`);
  const all: FailingRun[] = [];
  let total = 0;
  const t0 = performance.now();
  for (const t of chosen) {
    let runs = 0;
    const mine: FailingRun[] = [];
    for (const seed of args.seeds) {
      const m = await measure(t, seed, args.runs, args.ablation, 'swarm');
      runs += m.runs;
      mine.push(...m.failing);
    }
    total += runs;
    all.push(...mine);
    const props = [...count(mine, (f) => f.failures.map((x) => x.property))].map(([p, n]) => `${p} ${n}`).join(', ');
    console.log(`${mine.length === 0 ? 'ok  ' : 'FAIL'}  ${t.name.padEnd(24)} ${String(mine.length).padStart(4)}/${runs} runs failed${props ? ` (${props})` : ''}`);
    for (const f of mine) console.log(`  seed ${f.seed} run ${f.run}: ${f.failures.map((x) => `${x.property}: ${x.summary}`).join(' | ')}\n    → ${classify(f)}`);
    if (mine[0]) console.log(await shrunk(t, mine[0].seed, args.runs));
  }
  console.log(`\n${chosen.length} hosted targets × seeds ${args.seeds.join(',')} × ${args.runs} runs (${Math.round((performance.now() - t0) / 1000)} s)`);
  console.log(`failing runs: ${all.length}/${total} (${((100 * all.length) / Math.max(1, total)).toFixed(2)}%)`);
  if (args.json) writeFileSync(args.json, JSON.stringify({ args, total, failing: all }, null, 2));
}

await main();
