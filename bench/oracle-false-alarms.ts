/**
 * False-alarm rates of the properties (oracles) on controllers the project calls correct: for each
 * hunt target and seed, generates `runs` scenarios the way `check` does (every built-in fault kind
 * with swarm testing, every default property with the target's configured ones in place) and judges
 * every run with EVERY property (not stopping at the first failure, no shrinking), counting the
 * failing runs per property. Also times the judgement with and without the differential
 * properties' benign twins (`--time-twins`).
 *
 *   npx tsx bench/oracle-false-alarms.ts [--runs 300] [--seeds 1,2,3] [--only zoo:,dns] [--skip recovery]
 *     [--default-predicates] [--examples 2] [--json out.json]
 *
 * `--default-predicates` drops the targets' own convergence predicates (the default ESR judgement
 * instead). Prints one line per target and seed, then a table: failing runs per property.
 * Not part of `npm run bench`: it measures correctness, not speed.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { checkScenarios } from '../src/harness/check.js';
import { resolveCheckOptions } from '../src/harness/check-options.js';
import { ScenarioRunner } from '../src/harness/scenario-runner.js';
import type { Property, Scenario } from '../src/index.js';
import { faultsFor, huntTargets, propertiesFor, type Target } from './hunt-targets.js';

interface Args {
  runs: number;
  seeds: number[];
  only: string[];
  skip: string[];
  defaultPredicates: boolean;
  examples: number;
  json: string | undefined;
}

function args(): Args {
  const { values: v } = parseArgs({
    options: { runs: { type: 'string', default: '300' }, seeds: { type: 'string', default: '1,2,3' }, only: { type: 'string', default: '' }, skip: { type: 'string', default: '' }, 'default-predicates': { type: 'boolean', default: false }, examples: { type: 'string', default: '2' }, json: { type: 'string' } },
  });
  const list = (x: string) => x.split(',').filter(Boolean);
  return { runs: Number(v.runs), seeds: list(v.seeds).map(Number), only: list(v.only), skip: list(v.skip), defaultPredicates: v['default-predicates'], examples: Number(v.examples), json: v.json };
}

interface Row {
  target: string;
  seed: number;
  runs: number;
  ms: number;
  simulations: number;
  failing: Record<string, number>;
  examples: { property: string; summary: string; scenario: unknown }[];
}

function propertiesOf(t: Target, a: Args): Property[] {
  const own = a.defaultPredicates ? { ...t, properties: (t.properties ?? []).filter((p) => p.name !== 'convergence') } : t;
  return propertiesFor(own, a.skip);
}

async function measure(t: Target, seed: number, a: Args): Promise<Row> {
  const properties = propertiesOf(t, a);
  const o = resolveCheckOptions(t.controllers, { ...t.options, faults: faultsFor(t, []), properties, runs: a.runs, seed });
  const runner = new ScenarioRunner(
    { controllers: o.controllers, faults: o.faults, environment: o.environment.map((e) => e.actor), ...(o.downstream ? { downstream: o.downstream } : {}), tailMs: o.tailMs, traceReads: o.traceReads },
    o.properties,
  );
  const arb = checkScenarios(o);
  // the scenarios `check` would generate: fast-check's run-by-run bias, not `fc.sample`'s
  const scenarios: Scenario[] = [];
  await fc.check(
    fc.property(arb, (s) => {
      scenarios.push(s);
      return true;
    }),
    { seed, numRuns: a.runs },
  );
  const failing: Record<string, number> = {};
  const examples: Row['examples'] = [];
  const t0 = performance.now();
  for (const s of scenarios) {
    const out = await runner.judge(s, { all: true });
    for (const f of out.failures) {
      failing[f.property] = (failing[f.property] ?? 0) + 1;
      if (examples.filter((e) => e.property === f.property).length < a.examples) examples.push({ property: f.property, summary: f.summary, scenario: s });
    }
  }
  return { target: t.name, seed, runs: scenarios.length, ms: Math.round(performance.now() - t0), simulations: runner.simulations, failing, examples };
}

async function main(): Promise<void> {
  const a = args();
  const chosen = huntTargets.filter((t) => a.only.length === 0 || a.only.some((x) => t.name.includes(x)));
  if (chosen.length === 0) throw new Error(`oracle-false-alarms: --only ${a.only.join(',')} matches no target`);
  const rows: Row[] = [];
  for (const t of chosen) {
    for (const seed of a.seeds) {
      const r = await measure(t, seed, a);
      rows.push(r);
      const f = Object.entries(r.failing).map(([p, n]) => `${p} ${n}`).join(', ');
      console.log(`${f ? 'FAIL' : 'ok  '}  ${t.name.padEnd(28)} seed ${seed}: ${r.runs} runs, ${r.simulations} simulations, ${r.ms} ms${f ? `: ${f}` : ''}`);
      for (const e of r.examples) console.log(`        ${e.property}: ${e.summary.slice(0, 300)}`);
    }
  }
  const total: Record<string, number> = {};
  for (const r of rows) for (const [p, n] of Object.entries(r.failing)) total[p] = (total[p] ?? 0) + n;
  const runs = rows.reduce((n, r) => n + r.runs, 0);
  console.log(`\n${chosen.length} targets × ${a.seeds.length} seeds × ${a.runs} runs = ${runs} runs${a.defaultPredicates ? ' (default predicates)' : ''}; failing runs per property:`);
  for (const [p, n] of Object.entries(total).sort((x, y) => y[1] - x[1])) console.log(`  ${p.padEnd(30)} ${n}  (${rows.filter((r) => (r.failing[p] ?? 0) > 0).map((r) => `${r.target}#${r.seed}:${r.failing[p]}`).join(' ')})`);
  if (Object.keys(total).length === 0) console.log('  none');
  if (a.json) writeFileSync(a.json, JSON.stringify(rows, null, 2));
}

await main();
